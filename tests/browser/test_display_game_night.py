"""Game night in a real browser (headless Debian Chromium): the screens as the table sees them.

A TV at 1920x1080 across the room: whose turn, the clue, guesses left, the counts and the timer at
40 px or more, all on screen without scrolling. The timer says "time's up" (in the game's language)
once the sand has run out. When the game ends, the whole key is turned over on the public board. On
a phone, the key page shows the key grid first, above the fold. A page whose name was pointed at the
host (DNS rebinding) gets nothing. The sizes measured are printed (-s).
Skipped only where /usr/bin/chromium is absent.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from engine.competitive import CompetitiveGame
from engine.editions import AnyGame
from engine.lang import Lang
from engine.pieces import Edition, Identity
from tests.browser.test_display_browser import AXE, axe_violations
from tests.display_demo import finished, mid_game
from tests.headless import CHROMIUM, chromium, emulate, wait_for
from voicehost.display.web import WebDisplay
from voicehost.prompts import Prompts

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian's chromium (apt-get install chromium)")

TV = (1920, 1080)
ACROSS_THE_ROOM = 40.0
"""Pixels: the least type size read from a sofa on a 1920x1080 TV."""
SIDEBAR = ("#turn", "#clue", "#guesses", "#counters li", "#timer-value", "#result")
CARDS = "document.querySelectorAll('#board li')"
MEASURED: dict[str, dict[str, float]] = {}


@pytest.fixture(scope="module")
def driver() -> Iterator[Any]:
    with chromium() as browser:
        yield browser
    if MEASURED:
        print("\nsidebar type sizes at 1920x1080 (px):", json.dumps(MEASURED))


def serve(game: AnyGame, lang: Lang, said: str = "") -> WebDisplay:
    display = WebDisplay(game, Prompts.load(lang), port=0)
    display.said(said)
    return display


def open_page(driver: Any, url: str, size: tuple[int, int], cards: int = 25) -> None:
    emulate(driver, *size)
    driver.get(url)
    wait_for(driver, f"{CARDS}.length === {cards} && document.body.dataset.connected === 'true'")
    wait_for(driver, "document.fonts.status === 'loaded'")


def sizes(driver: Any) -> dict[str, list[float]]:
    """The type size of each sidebar element that shows something, and whether it all fits on screen."""
    return driver.execute_script(  # type: ignore[no-any-return]
        "const out = {};"
        "for (const selector of arguments[0]) {"
        "  const shown = Array.from(document.querySelectorAll(selector))"
        "    .filter(e => e.textContent.trim() && e.getClientRects().length);"
        "  if (shown.length) out[selector] = shown.map(e => parseFloat(getComputedStyle(e).fontSize));"
        "}"
        "return out;",
        list(SIDEBAR),
    )


def fits_on_screen(driver: Any) -> bool:
    return bool(
        driver.execute_script(
            "return document.documentElement.scrollHeight <= innerHeight"
            " && document.documentElement.scrollWidth <= innerWidth"
        )
    )


@pytest.mark.parametrize(
    ("edition", "lang", "over"),
    [
        (Edition.CLASSIC, Lang.PT_BR, False),
        (Edition.PICTURES, Lang.IT, False),
        (Edition.DUET, Lang.EN, False),
        (Edition.CLASSIC, Lang.PT_PT, True),
    ],
)
def test_the_sidebar_reads_across_the_room_on_a_tv(driver: Any, edition: Edition, lang: Lang, over: bool) -> None:
    game, said = (finished if over else mid_game)(edition, lang)
    display = serve(game, lang, said)
    try:
        if not over:
            display.timer(42, True)
        open_page(driver, display.url, TV, len(game.board.cards))
        found = sizes(driver)
        expected = {"#turn", "#clue", "#counters li"} | ({"#result"} if over else {"#timer-value"})
        if isinstance(game, CompetitiveGame) and not over:
            expected.add("#guesses")
        assert expected <= set(found), found
        MEASURED[f"{edition.value} {lang.value}{' over' if over else ''}"] = {k: min(v) for k, v in found.items()}
        small = {selector: px for selector, px in found.items() if min(px) < ACROSS_THE_ROOM}
        assert not small, f"smaller than {ACROSS_THE_ROOM} px: {small}"
        assert fits_on_screen(driver), "the TV shows the whole page without scrolling"
    finally:
        display.close()


@pytest.mark.parametrize(("lang", "up"), [(Lang.EN, "time's up"), (Lang.PT_BR, "acabou o tempo")])
def test_the_timer_says_times_up_when_the_sand_has_run_out(driver: Any, lang: Lang, up: str) -> None:
    game, said = mid_game(Edition.CLASSIC, lang)
    display = serve(game, lang, said)
    value = "document.getElementById('timer-value').textContent"
    try:
        open_page(driver, display.url, TV)
        display.timer(20, False)  # paused, with sand left
        paused = Prompts.load(lang).text("display.timer_paused")
        wait_for(driver, f"{value} === '0:20 ({paused})'")
        display.timer(0, False)  # the host stops it at 0 when the sand runs out
        wait_for(driver, f"{value} === {json.dumps(up)}")
        assert "0:00" not in driver.execute_script(f"return {value}")
        display.timer(1, True)  # counted down by the page between the host's updates
        wait_for(driver, f"{value} === {json.dumps(up)}", timeout=5)
        display.timer(90, True)  # the next turn turns the timer over
        wait_for(driver, f"['1:30', '1:29'].includes({value})")
    finally:
        display.close()


def chips(driver: Any) -> list[list[dict[str, str]]]:
    """What each card shows of the key once the game is over: its chips (identity, text)."""
    return driver.execute_script(  # type: ignore[no-any-return]
        f"return Array.from({CARDS}).map(li => Array.from(li.querySelectorAll('.reveal .chip'))"
        "  .map(chip => ({identity: chip.dataset.identity, text: chip.textContent})))"
    )


@pytest.mark.parametrize(("edition", "lang"), [(Edition.CLASSIC, Lang.EN), (Edition.DUET, Lang.IT)])
def test_the_whole_key_is_turned_over_on_the_board_when_the_game_ends(
    driver: Any, edition: Edition, lang: Lang
) -> None:
    game, said = mid_game(edition, lang)
    display = serve(game, lang, said)
    p = Prompts.load(lang)
    try:
        open_page(driver, display.url, TV)
        assert chips(driver) == [[] for _ in range(25)], "nothing of the key while the game goes on"
        holder = game.KEY_HOLDERS[0] if game.TEAMS else game.current_player.value  # type: ignore[union-attr]
        assassin = next(card for i, card in enumerate(game.board.cards) if game.key_for(holder)[i] is Identity.ASSASSIN)
        game.guess(assassin)
        assert game.over
        display.show(game)
        wait_for(driver, "!document.getElementById('result').hidden")
        shown = chips(driver)
        for index in range(25):
            if game.TEAMS:
                identity = game.board.key[index]
                expected = (
                    [] if game.is_covered(index) else [(identity.value, p.text(f"display.letter_{identity.value}"))]
                )
            else:
                expected = [
                    (key[index].value, f"{side} {p.text(f'display.letter_{key[index].value}')}")
                    for side, key in (("A", game.board.key_a), ("B", game.board.key_b))
                ]
            assert [(chip["identity"], chip["text"]) for chip in shown[index]] == expected, game.board.cards[index]
        label = driver.execute_script(f"return {CARDS}[0].querySelector('.label').textContent")
        first = game.key_for(game.KEY_HOLDERS[0])[0].value
        assert p.text(f"identity.{first}") in label, "a screen reader hears the key too"
    finally:
        display.close()


@pytest.mark.parametrize(
    ("edition", "viewer", "size"),
    [
        (Edition.CLASSIC, "spymasters", (412, 915)),
        (Edition.PICTURES, "spymasters", (390, 844)),
        (Edition.DUET, "a", (360, 740)),
    ],
)
def test_on_a_phone_the_key_page_shows_the_key_grid_first(
    driver: Any, edition: Edition, viewer: str, size: tuple[int, int]
) -> None:
    game, said = mid_game(edition, Lang.PT_BR)
    display = serve(game, Lang.PT_BR, said)
    try:
        display.timer(42, True)
        open_page(driver, display.key_url(viewer), size, len(game.board.cards))
        board, panel, status = (
            driver.execute_script(f"return document.getElementById('{name}').getBoundingClientRect().toJSON()")
            for name in ("board", "private", "turn")
        )
        assert board["bottom"] <= size[1], f"the key grid ends at {board['bottom']} px, below the fold"
        assert board["top"] < panel["top"] and board["top"] < status["top"], "the key grid comes first"
    finally:
        display.close()


def test_a_page_that_points_its_name_at_the_host_gets_nothing() -> None:
    """DNS rebinding, as the browser sees it: a name that resolves to the host's address is refused."""
    game, said = mid_game(Edition.CLASSIC, Lang.EN)
    display = serve(game, Lang.EN, said)
    try:
        with chromium("--host-resolver-rules=MAP rebind.test 127.0.0.1") as browser:
            browser.get(f"http://127.0.0.1:{display.port}/state")
            assert game.board.cards[0] in browser.page_source  # the host's own address: served
            for path in ("state", "", f"key/{display.tokens.token('spymasters')}/state"):
                browser.get(f"http://rebind.test:{display.port}/{path}")
                page = browser.page_source
                assert not any(card in page for card in game.board.cards), path
    finally:
        display.close()


@pytest.mark.parametrize("edition", [Edition.CLASSIC, Edition.DUET])
def test_accessibility_audit_of_the_finished_board(driver: Any, edition: Edition) -> None:
    """axe-core on the board with the whole key shown, light and dark, on a TV and a phone."""
    assert AXE.exists(), "axe-core is missing: npm ci --prefix tests/browser"
    game, said = finished(edition, Lang.EN)
    display = serve(game, Lang.EN, said)
    try:
        open_page(driver, display.url, TV)
        found = {}
        for scheme in ("light", "dark"):
            for size in (TV, (412, 915)):
                emulate(driver, *size, scheme)
                if violations := axe_violations(driver):
                    found[f"{scheme} {size}"] = violations
        assert not found, json.dumps(found, indent=1)
    finally:
        display.close()
