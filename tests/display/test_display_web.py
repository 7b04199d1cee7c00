"""The web display's server: addresses, the one 404, the private key pages, the event streams."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator

import pytest

from engine.competitive import CompetitiveGame
from engine.editions import new_game
from engine.lang import Lang
from engine.pieces import Edition, Identity
from tests.display_demo import deal, mid_game
from tests.display_support import PUBLIC_PATHS, raw_get, stream
from voicehost.display import DisplayError, WebDisplay, make_display
from voicehost.display.network import is_loopback
from voicehost.display.tokens import VIEWERS
from voicehost.prompts import Prompts

EN = Prompts.load(Lang.EN)


@pytest.fixture
def classic() -> Iterator[tuple[CompetitiveGame, WebDisplay]]:
    game, said = mid_game(Edition.CLASSIC)
    assert isinstance(game, CompetitiveGame)
    display = make_display("web", game, EN, port=0)
    assert isinstance(display, WebDisplay)
    display.said(said)
    yield game, display
    display.close()


def body(response: bytes) -> bytes:
    return response.partition(b"\r\n\r\n")[2]


def status(response: bytes) -> int:
    return int(response.split(b" ", 2)[1])


def test_public_addresses(classic: tuple[CompetitiveGame, WebDisplay]) -> None:
    game, display = classic
    page = raw_get(display.port, "/")
    assert status(page) == 200 and b'<html lang="en">' in page and b"Codenames \xe2\x80\x93 the board" in page
    assert b"Content-Security-Policy: default-src 'none'" in page and b"Referrer-Policy: no-referrer" in page
    state = json.loads(body(raw_get(display.port, "/state")))
    assert [card["name"] for card in state["view"]["cards"]] == list(game.board.cards)
    assert state["said"]["n"] == 1
    assert status(raw_get(display.port, "/static/board.js")) == 200
    assert b"text/css" in raw_get(display.port, "/static/board.css")


def test_every_unknown_address_gets_the_same_404(classic: tuple[CompetitiveGame, WebDisplay]) -> None:
    _, display = classic
    missing = ["/favicon.ico", "/key/", "/key/x", "/key/x/events", "/static/page.html", "/static/../web.py", "/a/b"]
    duet_token = display.tokens.token("a")  # a real token, but not of this game's viewers
    missing += [f"/key/{duet_token}", f"/key/{duet_token}/events", f"/key/{display.tokens.token('spymasters')}/x"]
    answers = {raw_get(display.port, path) for path in missing}
    assert len(answers) == 1 and status(answers.pop()) == 404


def test_other_methods_and_garbage_get_a_bare_status(classic: tuple[CompetitiveGame, WebDisplay]) -> None:
    _, display = classic
    assert status(raw_get(display.port, "/", method="POST")) == 501
    for garbage in (b"NONSENSE\r\n\r\n", b"GET / HTTP/2.0\r\n\r\n", b"GET / HTTP/x\r\n\r\n"):
        with socket.create_connection(("127.0.0.1", display.port), timeout=5) as conn:
            conn.sendall(garbage)
            answer = conn.recv(4096)
        assert answer == b"" or (answer.startswith(b"HTTP/1.0 ") and answer.endswith(b"\r\n\r\n")), answer


def test_key_page_is_private_and_shows_the_key(classic: tuple[CompetitiveGame, WebDisplay]) -> None:
    game, display = classic
    token = display.tokens.token("spymasters")
    path = display.key_url("spymasters").removeprefix(display.url.rstrip("/"))
    assert path == f"/key/{token}" and len(token) >= 24
    page = raw_get(display.port, path)
    assert status(page) == 200 and f'data-events="/key/{token}/events"'.encode() in page
    assert b"X-Robots-Tag: noindex" in page
    private = json.loads(body(raw_get(display.port, path + "/state")))
    assert private["key"]["identities"] == [identity.value for identity in game.board.key]
    for public_path in PUBLIC_PATHS:
        assert token.encode() not in raw_get(display.port, public_path)


def test_duet_has_one_key_page_per_side() -> None:
    game, _ = mid_game(Edition.DUET)
    display = WebDisplay(game, EN, port=0)
    try:
        for side, key in (("a", game.board.key_a), ("b", game.board.key_b)):
            private = json.loads(body(raw_get(display.port, f"/key/{display.tokens.token(side)}/state")))
            assert private["key"]["identities"] == [identity.value for identity in key]
        assert status(raw_get(display.port, f"/key/{display.tokens.token('spymasters')}")) == 404
        lines = display.console_lines()
        assert lines[0] == f"Board for everyone: {display.url}"
        assert sum(display.key_url(side) in line for line in lines for side in "ab") == 2
        assert not any("Warning" in line for line in lines)
    finally:
        display.close()


def test_console_lines_carry_the_links_and_qr_codes(classic: tuple[CompetitiveGame, WebDisplay]) -> None:
    _, display = classic
    lines = display.console_lines()
    assert display.key_url("spymasters") in lines[1]
    assert sum(1 for line in lines if set(line) <= {" ", "▀", "▄", "█"}) > 10
    assert lines[-1] == EN.text("display.console_local", address="127.0.0.1")
    assert "phones cannot reach the key pages" in lines[-1] and "without --host" in lines[-1]
    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("localhost")
    assert not is_loopback("0.0.0.0") and not is_loopback("192.168.1.2") and not is_loopback("tv.local")


def test_tokens_are_fresh_per_display() -> None:
    game, _ = mid_game(Edition.CLASSIC)
    first, second = WebDisplay(game, EN, port=0), WebDisplay(game, EN, port=0)
    try:
        assert {first.tokens.token(v) for v in VIEWERS}.isdisjoint({second.tokens.token(v) for v in VIEWERS})
    finally:
        first.close()
        second.close()


def test_port_taken_is_a_clear_error(classic: tuple[CompetitiveGame, WebDisplay]) -> None:
    game, display = classic
    with pytest.raises(DisplayError, match=f"127.0.0.1:{display.port}"):
        WebDisplay(game, EN, port=display.port)


def test_events_push_each_change_at_once(classic: tuple[CompetitiveGame, WebDisplay]) -> None:
    game, display = classic
    with stream(display) as events:
        assert b"Content-Type: text/event-stream" in events.head and events.retry == b"retry: 1000\n\n"
        first = events.next()
        assert first.startswith(b"id: ") and b"\ndata: {" in first
        card = next(
            c
            for i, c in enumerate(game.board.cards)
            if game.board.key[i] is Identity.of_team(game.team) and not game.is_covered(i)
        )
        game.guess(card)
        started = time.perf_counter()
        display.show(game)
        message = events.next()
        delay = time.perf_counter() - started
        assert delay < 0.1, f"the change took {delay * 1000:.1f} ms to be pushed"
        view = json.loads(message.partition(b"data: ")[2])["view"]
        assert next(c for c in view["cards"] if c["name"] == card)["covered"]
        display.show(game)  # no change: no message
        display.timer(30, True)
        assert json.loads(events.next().partition(b"data: ")[2])["timer"] == {"seconds": 30, "running": True}
        display.said("Hello.")
        assert json.loads(events.next().partition(b"data: ")[2])["said"] == {"n": 2, "text": "Hello."}


def test_key_stream_is_private_and_live(classic: tuple[CompetitiveGame, WebDisplay]) -> None:
    _game, display = classic
    with stream(display, f"/key/{display.tokens.token('spymasters')}/events") as events:
        assert b"X-Robots-Tag: noindex" in events.head
        assert json.loads(events.next().partition(b"data: ")[2])["key"]["viewer"] == "spymasters"
        display.said("Again.")
        assert json.loads(events.next().partition(b"data: ")[2])["said"]["text"] == "Again."


def test_drop_streams_ends_them_and_close_ends_everything(classic: tuple[CompetitiveGame, WebDisplay]) -> None:
    _, display = classic
    with stream(display) as events:
        events.next()
        display.drop_streams()
        with pytest.raises(EOFError):
            events.next()
    with stream(display) as events:  # a new stream works as before
        events.next()
        display.close()
        with pytest.raises(EOFError):
            events.next()


def test_show_said_and_timer_from_many_threads() -> None:
    game = new_game(deal(Edition.CLASSIC))
    display = WebDisplay(game, EN, port=0)
    errors: list[BaseException] = []

    def hammer(n: int) -> None:
        try:
            for i in range(50):
                display.show(game)
                display.said(f"{n}-{i}")
                display.timer(i, i % 2 == 0)
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    try:
        with stream(display) as events:
            threads = [threading.Thread(target=hammer, args=(n,)) for n in range(4)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            assert not errors
            state = json.loads(body(raw_get(display.port, "/state")))
            assert state["said"]["n"] == 200
            while json.loads(events.next().partition(b"data: ")[2])["said"]["n"] != 200:
                pass
    finally:
        display.close()


def test_new_game_at_the_table_keeps_the_links() -> None:
    game, _ = mid_game(Edition.CLASSIC)
    display = WebDisplay(game, EN, port=0)
    try:
        link = display.key_url("spymasters")
        fresh = new_game(deal(Edition.CLASSIC, seed=99))
        display.show(fresh)
        assert display.key_url("spymasters") == link
        state = json.loads(body(raw_get(display.port, f"/key/{display.tokens.token('spymasters')}/state")))
        assert state["key"]["identities"] == [identity.value for identity in fresh.board.key]
    finally:
        display.close()


def test_language_follows_the_game() -> None:
    game, _ = mid_game(Edition.PICTURES, Lang.PT_PT)
    display = WebDisplay(game, EN, port=0)
    try:
        page = raw_get(display.port, "/")
        assert b'<html lang="pt-PT">' in page and b"Imagens" in page
    finally:
        display.close()


def test_said_and_timer_never_read_the_game(
    classic: tuple[CompetitiveGame, WebDisplay], monkeypatch: pytest.MonkeyPatch
) -> None:
    """They may come from the timer's thread while the host changes the game: only `show` reads it."""
    _, display = classic

    def no_reading(game: object) -> None:
        raise AssertionError("the game was read")

    monkeypatch.setattr("voicehost.display.web.public_state", no_reading)
    display.said("Ten seconds left.")
    display.timer(10, True)
    state = json.loads(body(raw_get(display.port, "/state")))
    assert state["said"]["text"] == "Ten seconds left." and state["timer"] == {"seconds": 10, "running": True}
