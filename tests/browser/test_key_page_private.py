"""A key page's private requests: covering a card and checking a clue, without saying either aloud.

Over raw HTTP: only a POST from the page itself, to a current key page's token, with a small JSON
body, reaches the host's callbacks; everything else is the one 404 or a bare status, and nothing
public changes when a request is refused. In a real browser, with the real referee (`Host.cover`):
the cover buttons appear on the spymasters' page only while a card waits to be covered, a press
covers the card, and a refused one is answered on that page only.
"""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from typing import Any

import pytest

from engine.competitive import CompetitiveGame
from engine.editions import new_game
from engine.game import Phase
from engine.lang import Lang
from engine.pieces import Edition, Identity
from engine.variants import Variants
from tests.display_demo import deal, mid_game
from tests.display_support import DATE, PUBLIC_PATHS, raw_get
from tests.headless import CHROMIUM, chromium, emulate, wait_for
from voicehost.display.private import clue_checker
from voicehost.display.server import MAX_BODY
from voicehost.display.web import WebDisplay
from voicehost.prompts import Prompts
from voicehost.referee.host import Host, HostSettings

EN = Prompts.load(Lang.EN)
CARDS = "document.querySelectorAll('#board li')"


def post(
    port: int, path: str, payload: object, *, origin: str | None = "same", extra: str = "", length: int | None = None
) -> bytes:
    """A POST as the page's fetch() sends it (Origin: this server), or as `origin` says."""
    body = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    host = f"127.0.0.1:{port}"
    headers = f"Host: {host}\r\nContent-Type: application/json\r\n{extra}"
    if origin is not None:
        headers += f"Origin: {'http://' + host if origin == 'same' else origin}\r\n"
    headers += f"Content-Length: {len(body) if length is None else length}\r\n" if length != -1 else ""
    with socket.create_connection(("127.0.0.1", port), timeout=5) as conn:
        conn.sendall(f"POST {path} HTTP/1.1\r\n{headers}\r\n".encode() + body)
        chunks = []
        while chunk := conn.recv(65536):
            chunks.append(chunk)
    return DATE.sub(b"\r\nDate: -", b"".join(chunks))


def status(response: bytes) -> int:
    return int(response.split(b" ", 2)[1])


def answer(response: bytes) -> Any:
    assert status(response) == 200, response
    assert b"X-Robots-Tag: noindex" in response and b"Cache-Control: no-store" in response
    return json.loads(response.partition(b"\r\n\r\n")[2])


def key_state(display: WebDisplay, viewer: str = "spymasters") -> Any:
    return json.loads(raw_get(display.port, f"/key/{display.tokens.token(viewer)}/state").partition(b"\r\n\r\n")[2])


def penalty(game: CompetitiveGame) -> None:
    """The team playing gives an invalid clue: the other team's spymaster may cover one of their agents."""
    if game.state.phase is not Phase.CLUE:
        game.end_turn()
    game.reject_clue("BRAVO", "visible_word")
    assert game.state.penalty_for is game.team and game.cover_choices()


@pytest.fixture
def penalized() -> Iterator[tuple[CompetitiveGame, WebDisplay, list[str]]]:
    """A Classic game waiting for the penalty cover, served with recording callbacks."""
    game, _ = mid_game(Edition.CLASSIC)
    assert isinstance(game, CompetitiveGame)
    penalty(game)
    asked: list[str] = []

    def cover(card: str) -> bool:
        asked.append(card)
        if card not in game.cover_choices():
            return False
        game.cover(card)
        display.show(game)
        return True

    display = WebDisplay(game, EN, port=0, on_cover=cover, on_check=clue_checker(lambda: game))
    yield game, display, asked
    display.close()


# ---- over raw HTTP -----------------------------------------------------------------------------


def test_cover_and_check_reach_the_callbacks(penalized: tuple[CompetitiveGame, WebDisplay, list[str]]) -> None:
    game, display, asked = penalized
    base = f"/key/{display.tokens.token('spymasters')}"
    offer = key_state(display)["key"]["cover"]
    mine = [c for i, c in enumerate(game.board.cards) if game.board.key[i] is Identity.of_team(game.team)]
    assert offer["cards"] == [c for c in mine if c in game.visible_cards()]
    assert offer["why"].startswith(f"{game.team.value.capitalize()} spymaster: you may cover one of your own agents")

    bystander = next(c for i, c in enumerate(game.board.cards) if game.board.key[i] is Identity.BYSTANDER)
    assert answer(post(display.port, f"{base}/cover", {"card": bystander})) == {
        "ok": False,
        "text": f"{bystander} cannot be covered now.",
    }
    assert answer(post(display.port, f"{base}/cover", {"card": offer["cards"][0]})) == {
        "ok": True,
        "text": f"{offer['cards'][0]}: covered.",
    }
    assert asked == [bystander, offer["cards"][0]]
    assert key_state(display)["key"]["cover"] is None  # covered: nothing waits any more

    visible = game.visible_cards()[0]
    assert answer(post(display.port, f"{base}/check", {"word": visible.lower()})) == {
        "text": f"{visible} is not allowed: {visible} is on the table."
    }
    assert answer(post(display.port, f"{base}/check", {"word": "zebra"})) == {"text": "ZEBRA: allowed."}
    assert answer(post(display.port, f"{base}/check", {"word": "FBI"}))["text"].startswith("FBI is doubtful")


def test_only_the_page_itself_may_ask(penalized: tuple[CompetitiveGame, WebDisplay, list[str]]) -> None:
    game, display, asked = penalized
    port, token = display.port, display.tokens.token("spymasters")
    card = game.cover_choices()[0]
    not_found = raw_get(port, "/nowhere")
    before = {path: raw_get(port, path) for path in PUBLIC_PATHS}

    mistyped = token[:-1] + ("y" if token.endswith("x") else "x")  # one letter off (a token may end in "x")
    wrong = [f"/key/{mistyped}/cover", f"/key/{display.tokens.token('a')}/cover", f"/key/{token}/uncover", "/key/"]
    for path in wrong:  # a wrong token, a token of no viewer of this game, another action: the one 404
        assert post(port, path, {"card": card}) == not_found
    assert raw_get(port, f"/key/{token}/cover") == not_found  # POST only
    assert status(post(port, "/", {"card": card})) == 501  # nothing else takes a POST
    assert status(post(port, "/state", {"card": card})) == 501

    assert status(post(port, f"/key/{token}/cover", {"card": card}, origin=None)) == 403
    assert status(post(port, f"/key/{token}/cover", {"card": card}, origin="http://evil.example")) == 403
    assert status(post(port, f"/key/{token}/cover", {"card": card}, extra="Sec-Fetch-Site: cross-site\r\n")) == 403
    assert status(post(port, f"/key/{token}/cover", {"card": card, "pad": "x" * MAX_BODY})) == 413
    assert status(post(port, f"/key/{token}/cover", {"card": card}, length=-1)) == 411
    assert status(post(port, f"/key/{token}/cover", b"{not json")) == 400
    assert status(post(port, f"/key/{token}/cover", ["card"])) == 400
    assert status(post(port, f"/key/{token}/cover", {"word": card})) == 400
    assert status(post(port, f"/key/{token}/cover", {"card": "X" * 65})) == 400
    assert status(post(port, f"/key/{token}/check", {"word": 7})) == 400

    assert asked == []  # none of these reached the host
    assert {path: raw_get(port, path) for path in PUBLIC_PATHS} == before
    for response in (post(port, f"/key/{token}/cover", {"card": card}, origin=None), not_found):
        assert token.encode() not in response and card.encode() not in response


def test_without_callbacks_there_is_nothing_to_ask() -> None:
    game, _ = mid_game(Edition.CLASSIC)
    assert isinstance(game, CompetitiveGame)
    penalty(game)
    display = WebDisplay(game, EN, port=0)
    try:
        token = display.tokens.token("spymasters")
        assert key_state(display)["key"]["cover"] is None and key_state(display)["key"]["check"] is False
        for what, field in (("cover", "card"), ("check", "word")):
            assert post(display.port, f"/key/{token}/{what}", {field: "X"}) == raw_get(display.port, "/nowhere")
        calls: list[str] = []
        display.handle_private(on_cover=lambda card: calls.append(card) or False, on_check=lambda word: word)
        assert key_state(display)["key"]["cover"]["cards"] == game.cover_choices()
        assert answer(post(display.port, f"/key/{token}/check", {"word": " hello "})) == {"text": "hello"}
    finally:
        display.close()


def test_a_failing_callback_is_a_bare_error_not_a_trace(capsys: pytest.CaptureFixture[str]) -> None:
    game, _ = mid_game(Edition.CLASSIC)

    def broken(word: str) -> str:
        raise RuntimeError("the host broke")

    display = WebDisplay(game, EN, port=0, on_check=broken)
    try:
        response = post(display.port, f"/key/{display.tokens.token('spymasters')}/check", {"word": "zebra"})
        assert status(response) == 500 and b"broke" not in response
        assert "Traceback" not in capsys.readouterr().err
    finally:
        display.close()


def test_cover_is_offered_only_while_a_card_waits_and_only_to_the_spymasters() -> None:
    game = new_game(deal(Edition.CLASSIC, seed=3), Variants(coop=True))
    assert isinstance(game, CompetitiveGame)
    display = WebDisplay(game, EN, port=0, on_cover=lambda card: False, on_check=lambda word: "")
    try:
        assert key_state(display)["key"]["cover"] is None  # the players' clue comes first
        game.give_clue("ALPHA", 1)
        display.show(game)
        assert key_state(display)["key"]["cover"] is None
        game.guess(game.board.cards[game.board.key.index(Identity.BYSTANDER)])  # wrong: the simulated team's turn
        display.show(game)
        assert game.state.phase is Phase.SIMULATED_TURN
        enemy = Identity.of_team(game.players_team.other)
        offer = key_state(display)["key"]["cover"]
        assert offer["cards"] == [
            c for i, c in enumerate(game.board.cards) if game.board.key[i] is enemy and not game.is_covered(i)
        ]
        assert offer["why"] == "The simulated team's turn: choose which enemy agent it covers."
        assert b'"cover"' not in raw_get(display.port, "/state")
    finally:
        display.close()

    duet, _ = mid_game(Edition.DUET)
    display = WebDisplay(duet, EN, port=0, on_cover=lambda card: True, on_check=lambda word: "")
    try:
        for side in ("a", "b"):
            assert key_state(display, side)["key"]["cover"] is None
            response = post(display.port, f"/key/{display.tokens.token(side)}/cover", {"card": duet.board.cards[0]})
            assert response == raw_get(display.port, "/nowhere")  # no Duet page covers anything
    finally:
        display.close()


# ---- in a real browser, with the real referee ------------------------------------------------------


class ShownMouth:
    """The host's announcements, on the public page's live region (as `voicehost play` wires them)."""

    def __init__(self) -> None:
        self.display: WebDisplay | None = None
        self.lines: list[str] = []

    def say(self, text: str) -> None:
        self.lines.append(text)
        if self.display is not None:
            self.display.said(text)


@pytest.fixture(scope="module")
def driver() -> Iterator[Any]:
    if not CHROMIUM.exists():
        pytest.skip("needs Debian's chromium (apt-get install chromium)")
    with chromium() as browser:
        yield browser


def test_penalty_cover_from_the_key_page_in_a_browser(driver: Any) -> None:
    game, _ = mid_game(Edition.CLASSIC)
    assert isinstance(game, CompetitiveGame)
    mouth = ShownMouth()
    display = WebDisplay(game, EN, port=0)
    mouth.display = display
    host = Host(game, EN, mouth, settings=HostSettings(key_pages=True), on_events=lambda g, events: display.show(g))
    asked: list[str] = []

    def cover(card: str) -> bool:
        asked.append(card)
        return host.cover(card)

    display.handle_private(on_cover=cover, on_check=clue_checker(lambda: host.game))
    public_tab = driver.current_window_handle
    try:
        emulate(driver, 1280, 720)
        driver.get(display.url)
        wait_for(driver, f"{CARDS}.length === 25 && document.body.dataset.connected === 'true'")
        assert not driver.execute_script("return Boolean(document.getElementById('cover'))")  # never public
        driver.switch_to.new_window("tab")
        emulate(driver, 412, 915)
        driver.get(display.key_url("spymasters"))
        wait_for(driver, f"{CARDS}.length === 25 && document.body.dataset.connected === 'true'")
        driver.execute_script("sessionStorage.clear()")
        assert driver.execute_script("return document.getElementById('cover').hidden")  # nothing to cover yet

        penalty(game)
        display.show(game)
        wait_for(driver, "!document.getElementById('cover').hidden")
        buttons = driver.find_elements("css selector", "#cover-cards button")
        assert [b.text for b in buttons] == game.cover_choices()
        assert driver.find_element("id", "cover-why").text.startswith(f"{game.team.value.capitalize()} spymaster")

        chosen = buttons[1].text
        index = game.board.cards.index(chosen)
        buttons[1].click()
        wait_for(driver, f"document.getElementById('cover-answer').textContent === {json.dumps(chosen + ': covered.')}")
        assert asked == [chosen] and game.is_covered(index)
        wait_for(driver, "document.querySelectorAll('#cover-cards button').length === 0")
        assert driver.execute_script("return document.activeElement.id") == "cover-answer"  # focus not lost
        driver.switch_to.window(public_tab)
        wait_for(driver, f"{CARDS}[{index}].dataset.covered === 'true'")
        assert chosen + ": covered." not in driver.page_source

        # a second penalty; the table moves on (a clue) before the page has seen it: the press is refused
        driver.switch_to.window(driver.window_handles[1])
        game.give_clue("ZEBRA", 1)
        game.guess(
            next(
                c
                for i, c in enumerate(game.board.cards)
                if game.board.key[i] is Identity.BYSTANDER and not game.is_covered(i)
            )
        )
        penalty(game)
        display.show(game)
        wait_for(driver, "document.querySelectorAll('#cover-cards button').length > 0")
        assert driver.execute_script("return document.getElementById('cover-answer').textContent") == ""
        game.give_clue("YAK", 1)  # the spymaster gave a clue instead: nothing waits to be covered any more
        said, public = len(mouth.lines), raw_get(display.port, "/state")
        stale = driver.find_element("css selector", "#cover-cards button")
        refused = stale.text
        stale.click()
        refusal = json.dumps(f"{refused} cannot be covered now.")
        wait_for(driver, f"document.getElementById('cover-answer').textContent === {refusal}")
        assert asked[-1] == refused and not game.is_covered(game.board.cards.index(refused))
        assert len(mouth.lines) == said and raw_get(display.port, "/state") == public  # nothing public happened
        driver.switch_to.window(public_tab)
        assert "cannot be covered" not in driver.page_source
    finally:
        for handle in driver.window_handles[1:]:
            driver.switch_to.window(handle)
            driver.close()
        driver.switch_to.window(driver.window_handles[0])
        host.close()
        display.close()
