"""A blind spymaster's key page in a real browser: the key by ear, privately.

Listen mode speaks with the browser's own speech synthesis; here `speechSynthesis.speak` is replaced
by a spy that records each utterance's text and language, so what a phone would read into its
holder's earphones is checked word for word against the game: Classic (English), Pictures (Italian,
the pictures' spoken names) and each Duet side (Brazilian and European Portuguese) speak only what
that page's holder may know. A card of the holder's that is covered is announced on the key page
only; keyboard alone works every button; axe-core finds no violation in listen mode.
Skipped only where /usr/bin/chromium is absent.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from typing import Any

import pytest
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.keys import Keys

from engine.competitive import CompetitiveGame
from engine.duet import DuetGame
from engine.editions import AnyGame, new_game
from engine.lang import Lang, fold_text
from engine.pieces import Edition, Identity, Side, Team
from tests.browser.test_display_browser import AXE, SIZES, axe_violations
from tests.display_demo import deal, mid_game
from tests.headless import CHROMIUM, chromium, emulate, wait_for
from tests.system.test_display_noninterference import hidden_twin
from voicehost.display.listen import QUESTIONS
from voicehost.display.private import CheckHandler, CoverHandler, clue_checker
from voicehost.display.web import WebDisplay
from voicehost.prompts import Prompts

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian's chromium (apt-get install chromium)")

CARDS = "document.querySelectorAll('#board li')"
COVERED = f"Array.from({CARDS}).filter(li => li.dataset.covered === 'true')"
SPY = (
    "window.__spoken = [];"
    "speechSynthesis.speak = (u) => window.__spoken.push({text: u.text, lang: u.lang});"
    "speechSynthesis.cancel = () => window.__spoken.push({cancel: true});"
)
"""Install before clicking: every utterance queued is recorded ({text, lang}), and every interruption."""


@pytest.fixture(scope="module")
def driver() -> Iterator[Any]:
    with chromium() as browser:
        yield browser


def serve(
    game: AnyGame, lang: Lang, on_cover: CoverHandler | None = None, on_check: CheckHandler | None = None
) -> WebDisplay:
    return WebDisplay(game, Prompts.load(lang), port=0, on_cover=on_cover, on_check=on_check)


def open_key(driver: Any, display: WebDisplay, viewer: str, size: str = "portrait", scheme: str = "light") -> None:
    """The key page, loaded afresh (nothing remembered from an earlier test) and live, with the speech spy."""
    emulate(driver, *SIZES[size], scheme)
    driver.get(display.key_url(viewer))
    driver.execute_script("sessionStorage.clear()")  # the tab remembers listen mode and choices: not here
    driver.refresh()
    wait_for(driver, f"{CARDS}.length > 0 && document.body.dataset.connected === 'true'")
    driver.execute_script(SPY)


def click(driver: Any, selector: str) -> None:
    driver.find_element("css selector", selector).click()


def spoken(driver: Any) -> list[dict[str, str]]:
    """The utterances queued so far (interruptions left out)."""
    return [u for u in driver.execute_script("return window.__spoken") if "text" in u]


def ask(driver: Any, question: str) -> dict[str, str]:
    """Press a question's button: the one utterance it queues."""
    before = len(spoken(driver))
    click(driver, f"button[data-question='{question}']")
    said = spoken(driver)[before:]
    assert len(said) == 1, said
    return said[0]


def listen(driver: Any, team: str | None = None) -> None:
    click(driver, "#listen-toggle")
    assert driver.execute_script("return document.body.dataset.listen") == "true"
    if team is not None:
        click(driver, f"button[data-choose-team='{team}']")


def listed(text: str) -> list[str]:
    """The names an answer lists after its first colon: "Your agents, 2: A, B." or "...: row 1: A; row 3: B."."""
    rest = text.split(": ", 1)[1].removesuffix(".")
    names: list[str] = []
    for part in rest.split("; "):
        head, colon, tail = part.partition(": ")
        names += (tail if colon else head).split(", ")
    return names


def uncovered(game: AnyGame, key: tuple[Identity, ...], identity: Identity) -> list[str]:
    return [c for i, c in enumerate(game.board.cards) if key[i] is identity and not game.is_covered(i)]


def alphabetical(names: list[str]) -> list[str]:
    return sorted(names, key=lambda name: (fold_text(name), name))


def key_page_only(driver: Any) -> None:
    """What only a key page has: its private panel and script."""
    assert driver.execute_script("return document.body.dataset.mode") == "key"
    assert driver.execute_script("return Boolean(document.getElementById('listen-toggle'))")


# ---- what each page says ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("edition", "lang", "voice"), [(Edition.CLASSIC, Lang.EN, "en-US"), (Edition.PICTURES, Lang.IT, "it-IT")]
)
def test_competitive_key_read_aloud(driver: Any, edition: Edition, lang: Lang, voice: str) -> None:
    game, _ = mid_game(edition, lang)
    assert isinstance(game, CompetitiveGame)
    key, mine = game.board.key, game.team
    display = serve(game, lang)
    try:
        open_key(driver, display, "spymasters")
        listen(driver)
        assert spoken(driver)[-1]["lang"] == voice
        assert ask(driver, "agents")["text"] == Prompts.load(lang).text("display.listen_choose_team")
        click(driver, f"button[data-choose-team='{mine.value}']")

        agents = ask(driver, "agents")
        assert agents["lang"] == voice
        assert listed(agents["text"]) == alphabetical(uncovered(game, key, Identity.of_team(mine)))
        assert listed(ask(driver, "opponents")["text"]) == alphabetical(
            uncovered(game, key, Identity.of_team(mine.other))
        )
        assert listed(ask(driver, "bystanders")["text"]) == alphabetical(uncovered(game, key, Identity.BYSTANDER))
        assert listed(ask(driver, "assassin")["text"]) == uncovered(game, key, Identity.ASSASSIN)
        if edition is Edition.PICTURES:  # the spoken names, in the game's language: never the emoji
            assert all(name in game.board.cards and name.isupper() for name in listed(agents["text"]))

        click(driver, "button[data-order='grid']")  # row by row, in the order of the grid
        by_rows = ask(driver, "agents")["text"]
        assert listed(by_rows) == uncovered(game, key, Identity.of_team(mine))
        row = Prompts.load(lang).text("display.say_row", row="", cards="").strip(": ")
        first = game.board.cards.index(uncovered(game, key, Identity.of_team(mine))[0])
        assert f"{row} {first // game.board.grid.columns + 1}: " in by_rows

        left = ask(driver, "left")["text"]
        assert all(name in left for name in uncovered(game, key, Identity.of_team(mine)))
        assert str(game.agents_left(mine.other)) in left
        last = ask(driver, "last_clue")["text"]
        clue = next(clue for by, clue in reversed(game.state.clues) if by == mine.value)
        assert f"{clue.word}, {clue.number}" in last
        assert all(name in last for name in uncovered(game, key, Identity.of_team(mine)))

        click(driver, f"button[data-choose-team='{mine.other.value}']")  # the other spymaster's team
        assert listed(ask(driver, "agents")["text"]) == uncovered(game, key, Identity.of_team(mine.other))
        assert {u["lang"] for u in spoken(driver)} == {voice}
    finally:
        display.close()


@pytest.mark.parametrize(("lang", "voice"), [(Lang.PT_BR, "pt-BR"), (Lang.PT_PT, "pt-PT")])
def test_each_duet_side_speaks_only_its_side(driver: Any, lang: Lang, voice: str) -> None:
    game, _ = mid_game(Edition.DUET, lang)
    assert isinstance(game, DuetGame)
    display = serve(game, lang)
    heard: dict[str, list[str]] = {}
    try:
        for side in (Side.A, Side.B):
            key = game.board.side_key(side)
            open_key(driver, display, side.value)
            key_page_only(driver)
            assert not driver.execute_script("return Boolean(document.getElementById('team-choice'))")
            listen(driver)
            greens = ask(driver, "greens")
            assert greens["lang"] == voice
            heard[side.value] = listed(greens["text"])
            assert heard[side.value] == alphabetical(uncovered(game, key, Identity.GREEN))
            assert listed(ask(driver, "assassins")["text"]) == alphabetical(uncovered(game, key, Identity.ASSASSIN))
            # the bystanders the partner could still touch: a card marked from this side is known to be one
            hidden = [
                c
                for i, c in enumerate(game.board.cards)
                if key[i] is Identity.BYSTANDER and not game.is_covered(i) and side not in game.marks(i)
            ]
            assert listed(ask(driver, "bystanders")["text"]) == alphabetical(hidden)
            last = ask(driver, "last_clue")["text"]
            clue = next(clue for by, clue in reversed(game.state.clues) if by == side.value)
            assert f"{clue.word}, {clue.number}" in last
            assert {u["lang"] for u in spoken(driver)} == {voice}
        assert heard["a"] != heard["b"]  # each page its own side: what A hears is not what B hears
    finally:
        display.close()


# ---- a covered card of the holder's, announced on the key page only -----------------------------


def test_covered_card_is_announced_on_the_key_page_only(driver: Any) -> None:
    game, _ = mid_game(Edition.CLASSIC, Lang.EN)
    assert isinstance(game, CompetitiveGame)
    mine = game.team
    display = serve(game, Lang.EN)
    public_tab = driver.current_window_handle
    try:
        emulate(driver, *SIZES["landscape"])
        driver.get(display.url)
        wait_for(driver, f"{CARDS}.length === 25 && document.body.dataset.connected === 'true'")
        driver.execute_script(SPY)
        assert not driver.execute_script("return Boolean(document.getElementById('covered-said'))")
        assert not driver.execute_script("return Array.from(document.scripts).some(s => s.src.includes('key'))")

        driver.switch_to.new_window("tab")
        open_key(driver, display, "spymasters")
        listen(driver, mine.value)

        card = uncovered(game, game.board.key, Identity.of_team(mine))[0]
        game.guess(card)
        display.show(game)
        wait_for(driver, "document.getElementById('covered-said').textContent !== ''")
        announcement = f"{card}, your agent, was covered."
        assert driver.execute_script("return document.getElementById('covered-said').textContent") == announcement
        region = driver.find_element("id", "covered-said")
        assert region.get_attribute("role") == "status" and region.get_attribute("aria-live") == "polite"
        assert spoken(driver)[-1] == {"text": announcement, "lang": "en-US"}

        # a card of the other team's is not "yours"; nor is anything said again on the next change
        count = len(spoken(driver))
        game.guess(uncovered(game, game.board.key, Identity.of_team(mine.other))[0])  # wrong: the turn passes
        display.show(game)
        wait_for(driver, f"{COVERED}.length === {sum(game.is_covered(i) for i in range(25))}")
        display.said("Blue spymaster, your clue.")
        wait_for(driver, "document.getElementById('said').textContent === 'Blue spymaster, your clue.'")
        assert len(spoken(driver)) == count

        driver.switch_to.window(public_tab)
        wait_for(driver, f"{COVERED}.length === {sum(game.is_covered(i) for i in range(25))}")
        assert driver.execute_script("return window.__spoken") == []
        assert announcement not in driver.page_source
    finally:
        for handle in driver.window_handles[1:]:
            driver.switch_to.window(handle)
            driver.close()
        driver.switch_to.window(driver.window_handles[0])
        display.close()


def test_duet_green_found_is_announced_on_its_side_only(driver: Any) -> None:
    game, _ = mid_game(Edition.DUET, Lang.IT)
    assert isinstance(game, DuetGame) and game.guesser is not None
    giver = game.guesser.other  # the guesser's right guess is a green of the giver's side
    display = serve(game, Lang.IT)
    try:
        tabs = {}
        for side in (giver, giver.other):
            if tabs:
                driver.switch_to.new_window("tab")
            open_key(driver, display, side.value)
            listen(driver)
            tabs[side] = driver.current_window_handle
        key, other = game.board.side_key(giver), game.board.side_key(giver.other)
        card = next(
            c
            for i, c in enumerate(game.board.cards)
            if key[i] is Identity.GREEN and other[i] is not Identity.GREEN and not game.is_covered(i)
        )
        game.guess(card)
        display.show(game)
        driver.switch_to.window(tabs[giver])
        wait_for(driver, "document.getElementById('covered-said').textContent !== ''")
        assert spoken(driver)[-1] == {"text": f"{card}, il tuo agente verde, è stato trovato.", "lang": "it-IT"}
        driver.switch_to.window(tabs[giver.other])
        wait_for(driver, f"{COVERED}.some(li => li.querySelector('.name').textContent === {json.dumps(card)})")
        assert driver.execute_script("return document.getElementById('covered-said').textContent") == ""
        assert [u for u in spoken(driver) if card in u["text"]] == []
    finally:
        for handle in driver.window_handles[1:]:
            driver.switch_to.window(handle)
            driver.close()
        driver.switch_to.window(driver.window_handles[0])
        display.close()


# ---- keyboard alone, and the accessibility audit ------------------------------------------------


def focused(driver: Any) -> str:
    """The focused element, named as a test can compare: its id, or its data attribute and value."""
    return driver.execute_script(  # type: ignore[no-any-return]
        "const e = document.activeElement; const d = e.dataset;"
        "return e.id || (d.chooseTeam && 'team:' + d.chooseTeam) || (d.question && 'ask:' + d.question)"
        "  || (d.order && 'order:' + d.order) || e.tagName.toLowerCase() + ':' + e.textContent.trim().slice(0, 30);"
    )


def tab_to(driver: Any, wanted: str, *, back: bool = False, limit: int = 60) -> list[str]:
    """Press Tab (Shift+Tab when `back`) until `wanted` has the focus; the elements focused on the way."""
    path = []
    for _ in range(limit):
        keys = ActionChains(driver)
        if back:
            keys.key_down(Keys.SHIFT).send_keys(Keys.TAB).key_up(Keys.SHIFT).perform()
        else:
            keys.send_keys(Keys.TAB).perform()
        path.append(focused(driver))
        if path[-1] == wanted:
            return path
    raise AssertionError(f"Tab never reached {wanted}: {path}")


def test_keyboard_alone(driver: Any) -> None:
    game, _ = mid_game(Edition.CLASSIC, Lang.EN)
    assert isinstance(game, CompetitiveGame)
    mine = game.team.value
    display = serve(game, Lang.EN, on_check=clue_checker(lambda: game))
    try:
        open_key(driver, display, "spymasters")
        assert tab_to(driver, "listen-toggle") == ["listen-toggle"]  # the first stop on the page
        ActionChains(driver).send_keys(Keys.ENTER).perform()
        wait_for(driver, "document.body.dataset.listen === 'true'")
        path = tab_to(driver, "check-word")
        assert path == [
            "team:red",
            "team:blue",
            *(f"ask:{q}" for q in ("agents", "assassin", "opponents", "bystanders", "left", "last_clue")),
            "order:alpha",
            "order:grid",
            "listen-stop",
            "check-word",
        ]
        tab_to(driver, f"team:{mine}", back=True)  # Shift+Tab back to the player's team; Space chooses it
        ActionChains(driver).send_keys(Keys.SPACE).perform()
        assert (
            driver.find_element("css selector", f"button[data-choose-team='{mine}']").get_attribute("aria-pressed")
            == "true"
        )
        tab_to(driver, "ask:agents")
        ActionChains(driver).send_keys(Keys.ENTER).perform()
        text = spoken(driver)[-1]["text"]
        assert text.startswith("Your agents, ") and listed(text) == alphabetical(
            uncovered(game, game.board.key, Identity.of_team(Team(mine)))
        )
        tab_to(driver, "order:grid")
        ActionChains(driver).send_keys(Keys.SPACE).perform()
        assert driver.find_element("css selector", "button[data-order='grid']").get_attribute("aria-pressed") == "true"
        tab_to(driver, "check-word")
        visible = game.visible_cards()[0]
        ActionChains(driver).send_keys(visible.lower(), Keys.ENTER).perform()
        wait_for(driver, "document.getElementById('check-answer').textContent !== ''")
        ruling = driver.execute_script("return document.getElementById('check-answer').textContent")
        assert ruling == f"{visible} is not allowed: {visible} is on the table."
        assert spoken(driver)[-1] == {"text": ruling, "lang": "en-US"}
        tab_to(driver, "listen-toggle")
        ActionChains(driver).send_keys(Keys.SPACE).perform()  # listen mode off: the board is back
        wait_for(driver, "document.body.dataset.listen === 'false'")
        assert driver.find_element("id", "board").is_displayed()
    finally:
        display.close()


@pytest.mark.parametrize(
    ("edition", "viewer"), [(Edition.CLASSIC, "spymasters"), (Edition.PICTURES, "spymasters"), (Edition.DUET, "a")]
)
def test_accessibility_audit_in_listen_mode(driver: Any, edition: Edition, viewer: str) -> None:
    """axe-core on the key page in listen mode, every panel shown and filled, light and dark, both orientations."""
    assert AXE.exists(), "axe-core is missing: npm ci --prefix tests/browser"
    game, _ = mid_game(edition, Lang.EN)
    if isinstance(game, CompetitiveGame):
        game.end_turn()
        game.reject_clue("BRAVO", "visible_word")  # a penalty: the spymasters' page offers cards to cover
    display = serve(game, Lang.EN, on_cover=lambda card: False, on_check=clue_checker(lambda: game))
    try:
        open_key(driver, display, viewer, "landscape")
        listen(driver, game.team.value if isinstance(game, CompetitiveGame) else None)
        ask(driver, "left")
        driver.find_element("id", "check-word").send_keys("ocean\n")
        wait_for(driver, "document.getElementById('check-answer').textContent !== ''")
        if isinstance(game, CompetitiveGame):
            wait_for(driver, "!document.getElementById('cover').hidden")
            # off the screen in listen mode, reached by a screen reader: it activates the button as a click does
            driver.execute_script("document.querySelector('#cover-cards button').click()")
            wait_for(driver, "document.getElementById('cover-answer').textContent !== ''")
        assert not driver.find_element("id", "board").is_displayed()  # by ear only: the key is off the screen
        found, audits = {}, 0
        for scheme in ("light", "dark"):
            for size in SIZES:
                emulate(driver, *SIZES[size], scheme)
                violations = axe_violations(driver)
                audits += 1
                if violations:
                    found[f"{scheme} {size}"] = violations
        assert not found, json.dumps(found, indent=1)
        assert audits == 4
    finally:
        display.close()


# ---- listen mode keeps the key off the screen ------------------------------------------------------


def whole_page(driver: Any) -> bytes:
    """A screenshot of the whole page, below the fold too."""
    width, height = driver.execute_script(
        "return [document.documentElement.scrollWidth, document.documentElement.scrollHeight]"
    )
    clip = {"x": 0, "y": 0, "width": width, "height": height, "scale": 1}
    shot = driver.execute_cdp_cmd("Page.captureScreenshot", {"captureBeyondViewport": True, "clip": clip})
    return base64.b64decode(shot["data"])


def test_listen_mode_never_shows_the_key_on_screen(driver: Any) -> None:
    """The page says listen mode hides the key from the screen: two boards with the same words and the
    same public game but different keys give the very same pixels in listen mode, after every
    question (the last answer, where the assassin is, stays for a screen reader only), while what is
    said aloud differs."""
    first = deal(Edition.CLASSIC, Lang.EN, seed=11)
    boards = [first, hidden_twin(first, new_game(first), seed=5)]
    assert boards[0].key != boards[1].key and boards[0].cards == boards[1].cards
    pictures: list[list[bytes]] = [[], []]
    heard: list[list[str]] = [[], []]
    for n, board in enumerate(boards):
        game = new_game(board)
        game.reject_clue("BRAVO", "visible_word")  # a penalty: the page offers the team's own agents to cover
        display = serve(game, Lang.EN, on_cover=lambda card: False, on_check=clue_checker(lambda g=game: g))
        try:
            open_key(driver, display, "spymasters")
            listen(driver, game.team.value)
            wait_for(driver, "!document.getElementById('cover').hidden")
            for question in QUESTIONS[True]:
                heard[n].append(ask(driver, question)["text"])
                assert driver.execute_script("return document.getElementById('answer').textContent") == heard[n][-1]
                box = driver.execute_script("return document.getElementById('answer').getBoundingClientRect().toJSON()")
                assert box["width"] <= 1 and box["height"] <= 1, "the answer is for a screen reader, not the screen"
                pictures[n].append(whole_page(driver))
        finally:
            display.close()
    assert heard[0] != heard[1], "the two keys are told apart by ear"
    assert pictures[0] == pictures[1], "nothing of the key shows on the screen"
