"""The pages in a real browser: headless Debian Chromium driven by selenium.

Each edition renders, a reveal through the engine reaches the page live (the delay is measured),
the page reconnects when its stream or the whole server restarts, the key page shows the key, and
axe-core (npm, in tests/browser) finds no accessibility violation in light and dark, portrait and
landscape. Skipped only where /usr/bin/chromium is absent.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from engine.competitive import CompetitiveGame
from engine.duet import DuetGame
from engine.editions import AnyGame
from engine.lang import Lang
from engine.pieces import Edition, Identity, Side
from tests.display_demo import mid_game
from tests.headless import CHROMIUM, chromium, emulate, wait_for
from voicehost.display.web import WebDisplay
from voicehost.prompts import Prompts

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian's chromium (apt-get install chromium)")

AXE = Path(__file__).parents[1] / "browser" / "node_modules" / "axe-core" / "axe.min.js"
SIZES = {"portrait": (412, 915), "landscape": (1280, 720)}
CARDS = "document.querySelectorAll('#board li')"
DELAYS: dict[str, float] = {}


@pytest.fixture(scope="module")
def driver() -> Iterator[Any]:
    with chromium() as browser:
        yield browser
    if DELAYS:
        print("\nlive-update delays (ms):", json.dumps({k: round(v, 1) for k, v in DELAYS.items()}))


def start(edition: Edition, lang: Lang = Lang.EN, port: int = 0) -> tuple[AnyGame, WebDisplay]:
    game, said = mid_game(edition, lang)
    display = WebDisplay(game, Prompts.load(lang), port=port)
    display.said(said)
    return game, display


def open_page(driver: Any, url: str, cards: int, size: str = "landscape", scheme: str = "light") -> None:
    emulate(driver, *SIZES[size], scheme)
    driver.get(url)
    wait_for(driver, f"{CARDS}.length === {cards} && document.body.dataset.connected === 'true'")


def covered_on_page(driver: Any) -> list[str]:
    return driver.execute_script(  # type: ignore[no-any-return]
        f"return Array.from({CARDS}).filter(li => li.dataset.covered === 'true').map(li => li.dataset.identity)"
    )


def reveal(game: AnyGame) -> str:
    """One more right guess, through the engine; the card's name."""
    if isinstance(game, CompetitiveGame):
        wanted = Identity.of_team(game.team)
        key = game.board.key
    else:
        assert isinstance(game, DuetGame) and game.guesser is not None
        wanted, key = Identity.GREEN, game.board.side_key(game.guesser.other)
    card = next(c for i, c in enumerate(game.board.cards) if key[i] is wanted and not game.is_covered(i))
    game.guess(card)
    return card


def watch_board(driver: Any) -> None:
    """Note when the board next changes (the page's own clock is the machine's: Date.now())."""
    driver.execute_script(
        "window.__changed = 0; new MutationObserver(() => { window.__changed = window.__changed || Date.now(); })"
        ".observe(document.getElementById('board'), {attributes: true, subtree: true, childList: true});"
    )


def live_delay(driver: Any, display: WebDisplay, game: AnyGame, timeout: float = 5.0) -> float:
    """Show the game and measure, in ms, until the page's board changed."""
    watch_board(driver)
    started = time.time() * 1000
    display.show(game)
    changed = wait_for(driver, "window.__changed", timeout)
    return float(changed) - started  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("edition", "lang"), [(Edition.CLASSIC, Lang.EN), (Edition.PICTURES, Lang.IT), (Edition.DUET, Lang.PT_BR)]
)
def test_each_edition_renders_and_updates_live(driver: Any, edition: Edition, lang: Lang) -> None:
    game, display = start(edition, lang)
    try:
        open_page(driver, display.url, len(game.board.cards))
        assert driver.execute_script("return document.documentElement.lang") == lang.value
        names = driver.execute_script(f"return Array.from({CARDS}).map(li => li.querySelector('.name').textContent)")
        assert names == list(game.board.cards)
        before = covered_on_page(driver)
        assert len(before) == sum(game.is_covered(i) for i in range(len(game.board.cards)))
        if edition is Edition.PICTURES:
            assert all(
                driver.execute_script(f"return Array.from({CARDS}).map(li => li.querySelector('.emoji').textContent)")
            )
        card = reveal(game)
        delay = live_delay(driver, display, game)
        DELAYS[edition.value] = delay
        assert delay < 1000, f"the page took {delay:.0f} ms"
        wait_for(driver, f"{CARDS}[{game.board.cards.index(card)}].dataset.covered === 'true'")
        label = driver.execute_script(f"return {CARDS}[{game.board.cards.index(card)}].textContent")
        assert card in label and ("covered" in label or "coperta" in label or "coberta" in label)
        assert driver.execute_script("return document.getElementById('turn').textContent")
    finally:
        display.close()


def test_live_region_timer_and_end_of_game(driver: Any) -> None:
    game, display = start(Edition.CLASSIC)
    try:
        open_page(driver, display.url, 25)
        region = driver.find_element("id", "said")
        assert region.get_attribute("role") == "status" and region.get_attribute("aria-live") == "polite"
        display.said("OCEAN: a blue agent.")
        wait_for(driver, "document.getElementById('said').textContent === 'OCEAN: a blue agent.'")
        display.timer(75, True)
        wait_for(driver, "['1:15', '1:14'].includes(document.getElementById('timer-value').textContent)")
        display.timer(20, False)
        wait_for(driver, "document.getElementById('timer-value').textContent === '0:20 (paused)'")
        display.timer(None, False)
        wait_for(driver, "document.getElementById('timer').hidden")
        assert isinstance(game, CompetitiveGame)
        game.guess(game.board.cards[game.board.key.index(Identity.ASSASSIN)])
        display.show(game)
        wait_for(driver, "!document.getElementById('result').hidden")
        assert "wins" in driver.execute_script("return document.getElementById('result').textContent")
    finally:
        display.close()


def test_key_page_shows_the_key_over_the_board(driver: Any) -> None:
    game, display = start(Edition.DUET)
    assert isinstance(game, DuetGame)
    try:
        open_page(driver, display.key_url("a"), 25)
        keys = driver.execute_script(f"return Array.from({CARDS}).map(li => li.dataset.key)")
        assert keys == [identity.value for identity in game.board.key_a]
        assert "A" in driver.execute_script("return document.getElementById('note').textContent")
        assert driver.execute_script("return document.body.dataset.mode") == "key"
        assert len(covered_on_page(driver)) == 4
        reveal(game)
        delay = live_delay(driver, display, game)
        DELAYS["key page"] = delay
        assert delay < 1000
        assert len(covered_on_page(driver)) == 5
    finally:
        display.close()


def test_reconnects_when_the_stream_restarts(driver: Any) -> None:
    game, display = start(Edition.CLASSIC)
    try:
        open_page(driver, display.url, 25)
        before = len(covered_on_page(driver))
        display.drop_streams()
        wait_for(driver, "document.body.dataset.connected === 'false'")
        reveal(game)
        delay = live_delay(driver, display, game, timeout=5)
        DELAYS["after a stream restart"] = delay
        assert len(covered_on_page(driver)) == before + 1
        assert driver.execute_script("return document.body.dataset.connected") == "true"
    finally:
        display.close()


def test_reconnects_when_the_server_restarts(driver: Any) -> None:
    game, display = start(Edition.CLASSIC)
    port = display.port
    try:
        open_page(driver, display.url, 25)
        before = len(covered_on_page(driver))
        display.close()
        wait_for(driver, "document.body.dataset.connected === 'false'")
        time.sleep(1.2)  # at least one reconnection attempt meets a closed port
        reveal(game)
        display = WebDisplay(game, Prompts.load(Lang.EN), port=port)
        wait_for(driver, f"Array.from({CARDS}).filter(li => li.dataset.covered === 'true').length === {before + 1}", 10)
        wait_for(driver, "document.getElementById('connection').hidden")
    finally:
        display.close()


def axe_violations(driver: Any) -> list[dict[str, Any]]:
    if not driver.execute_script("return typeof window.axe !== 'undefined'"):
        driver.execute_script(AXE.read_text(encoding="utf-8"))
    return driver.execute_async_script(  # type: ignore[no-any-return]
        "const done = arguments[arguments.length - 1];"
        "axe.run(document, {resultTypes: ['violations']}).then(r => done(r.violations.map(v => ({"
        "  id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 3).map(n => n.target.join(' '))}))))"
        ".catch(e => done([{id: 'axe failed', help: String(e)}]));"
    )


@pytest.mark.parametrize("edition", [Edition.CLASSIC, Edition.PICTURES, Edition.DUET])
def test_accessibility_audit(driver: Any, edition: Edition) -> None:
    """axe-core on the public page and a key page, in light and dark, portrait and landscape."""
    assert AXE.exists(), "axe-core is missing: npm ci --prefix tests/browser"
    game, display = start(edition)
    try:
        display.timer(42, True)
        pages = [("board", display.url)]
        pages.append(("key", display.key_url("b" if edition is Edition.DUET else "spymasters")))
        found, audits = {}, 0
        for page, url in pages:
            open_page(driver, url, len(game.board.cards))
            for scheme in ("light", "dark"):
                for size in SIZES:
                    emulate(driver, *SIZES[size], scheme)
                    violations = axe_violations(driver)
                    audits += 1
                    if violations:
                        found[f"{page} {scheme} {size}"] = violations
        assert not found, json.dumps(found, indent=1)
        assert audits == 8
    finally:
        display.close()


def test_the_audit_does_find_violations(driver: Any) -> None:
    """A guard for the test above: the same audit on a broken page reports it."""
    _game, display = start(Edition.CLASSIC)
    try:
        open_page(driver, display.url, 25)
        emulate(driver, *SIZES["landscape"], "light")
        driver.execute_script(
            "document.documentElement.removeAttribute('lang');"
            "document.querySelector('#board li[data-covered=false] .name').style.color = 'rgb(215, 215, 215)';"
            "document.querySelector('#board li[data-covered=false] .name').removeAttribute('aria-hidden');"
        )
        assert {"html-has-lang", "color-contrast"} <= {v["id"] for v in axe_violations(driver)}
    finally:
        display.close()


def test_side_names_stay_out_of_the_public_page(driver: Any) -> None:
    """The key page's link appears nowhere on the public page, whatever the browser computes."""
    _game, display = start(Edition.DUET)
    try:
        open_page(driver, display.url, 25)
        html = driver.page_source
        for viewer in ("spymasters", Side.A.value, Side.B.value):
            assert display.tokens.token(viewer) not in html
        assert driver.execute_script("return document.body.dataset.mode") == "board"
        assert driver.execute_script(f"return Array.from({CARDS}).every(li => li.dataset.key === '')")
    finally:
        display.close()
