"""Hostile and broken clients against the real display server, over real sockets.

Each attacker connects from its own loopback address (127.0.0.2, ...) and the players from others,
as phones on a home network would: slow clients dripping a header line every 2 seconds, one client
opening 64 event streams, many clients each opening their share, malformed lengths and lone
surrogates in the key page's private requests, and pages elsewhere that reach the server under their
own name (DNS rebinding). The players keep being served; nothing is ever answered with a traceback,
on the wire or on the console. The times measured are printed (-s), never asserted.
"""

from __future__ import annotations

import contextlib
import json
import selectors
import socket
import time
from collections.abc import Iterator

import pytest

from engine.lang import Lang
from engine.pieces import Edition
from tests.display_demo import mid_game
from voicehost.display import server
from voicehost.display.network import lan_address
from voicehost.display.private import clue_checker
from voicehost.display.web import WebDisplay
from voicehost.prompts import Prompts

EN = Prompts.load(Lang.EN)
PLAYER = "127.0.0.3"
"""Where the players' requests come from; attackers use 127.0.0.2 and up."""
PYTHON_NAMES = (b"Traceback", b"Error", b"Exception", b'File "')


@pytest.fixture
def display() -> Iterator[WebDisplay]:
    game, said = mid_game(Edition.CLASSIC)
    web = WebDisplay(game, EN, port=0, on_cover=lambda card: False, on_check=clue_checker(lambda: game))
    web.said(said)
    yield web
    web.close()


def connect(port: int, source: str, host: str = "127.0.0.1") -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.settimeout(5)
    sock.bind((source, 0))
    sock.connect((host, port))
    return sock


def ask(port: int, request: bytes, source: str = PLAYER, host: str = "127.0.0.1") -> bytes:
    """A whole request from `source`, and the whole answer."""
    with connect(port, source, host) as sock:
        sock.sendall(request)
        chunks = []
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks)


def get(port: int, path: str = "/", source: str = PLAYER, host: str = "127.0.0.1") -> bytes:
    return ask(port, f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\n\r\n".encode(), source, host)


def status(response: bytes) -> int:
    return int(response.split(b" ", 2)[1]) if response.startswith(b"HTTP/") else 0


def body(response: bytes) -> bytes:
    return response.partition(b"\r\n\r\n")[2]


def open_stream(port: int, source: str) -> socket.socket:
    sock = connect(port, source)
    sock.sendall(f"GET /events HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
    return sock


def first_snapshot(sock: socket.socket) -> bytes:
    """What a stream sent up to its first snapshot (or all it sent before closing)."""
    received = b""
    while b"\ndata: {" not in received and (chunk := sock.recv(65536)):
        received += chunk
    return received


def still_open(socks: list[socket.socket], quiet: float = 0.5) -> list[socket.socket]:
    """Read every socket until none has said anything for `quiet` seconds; the ones the server did not close."""
    ended: set[socket.socket] = set()
    with selectors.DefaultSelector() as selector:
        for sock in socks:
            sock.setblocking(False)
            selector.register(sock, selectors.EVENT_READ)
        while ready := selector.select(quiet):
            for key, _ in ready:
                sock = key.fileobj
                assert isinstance(sock, socket.socket)
                try:
                    data = sock.recv(65536)
                except OSError:
                    data = b""
                if not data:
                    ended.add(sock)
                    selector.unregister(sock)
    for sock in socks:
        sock.setblocking(True)
    return [sock for sock in socks if sock not in ended]


def no_traceback(capfd: pytest.CaptureFixture[str]) -> None:
    out, err = capfd.readouterr()
    assert "Traceback" not in out + err and "Error" not in out + err, err[-2000:]


# ---- slow clients --------------------------------------------------------------------------------


def test_slow_clients_dripping_header_lines_do_not_keep_the_board_at_503(
    display: WebDisplay, capfd: pytest.CaptureFixture[str]
) -> None:
    """More slow clients than the server has places, each sending another header line every 2 s: the
    players' requests are all answered (the slowest request makes room), none gets 503."""
    port = display.port
    slow = [connect(port, "127.0.0.2") for _ in range(server.MAX_CONNECTIONS + 8)]
    for sock in slow:
        sock.sendall(b"GET /state HTTP/1.1\r\n")
    answers, waits = [], []
    for line in range(3):
        for sock in slow:
            with contextlib.suppress(OSError):  # unless it was let go to make room
                sock.sendall(b"X-Slow-%d: yes\r\n" % line)
        started = time.perf_counter()
        answers.append(status(get(port, "/state")))
        waits.append((time.perf_counter() - started) * 1000)
        time.sleep(2)
    cut = len(slow) - len(still_open(slow, quiet=0.2))
    for sock in slow:
        sock.close()
    no_traceback(capfd)
    print(f"\nslow clients: players answered {answers} in {[round(w, 1) for w in waits]} ms; {cut} slow ones cut")
    assert answers == [200, 200, 200]
    assert cut >= 8, "the slow clients over the limit were let go"


def test_a_request_must_arrive_whole_before_its_deadline_however_it_drips(
    display: WebDisplay, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The deadline is for the whole request, not for each read: a header line every 0.25 s, each well
    within the deadline of 1 s, still ends the connection once the deadline passes."""
    monkeypatch.setattr(server.Handler, "timeout", 1.0)
    sock = connect(display.port, "127.0.0.2")
    sent, started, answer = 0, time.perf_counter(), b"?"
    try:
        sock.sendall(b"GET / HTTP/1.1\r\n")
        for sent in range(1, 21):  # 5 seconds of header lines
            time.sleep(0.25)
            sock.sendall(b"X-Drip-%d: yes\r\n" % sent)
            sock.settimeout(0.01)
            try:
                answer = sock.recv(1)
            except TimeoutError:
                continue
            if answer == b"":
                break
    except OSError:
        answer = b""
    finally:
        sock.close()
    print(f"\ndripping client cut after {(time.perf_counter() - started) * 1000:.0f} ms, {sent} header lines")
    assert answer == b"" and sent < 20, "the server let the dripping client go"


# ---- event streams -------------------------------------------------------------------------------


def test_one_client_opening_64_event_streams_does_not_lock_the_others_out(
    display: WebDisplay, capfd: pytest.CaptureFixture[str]
) -> None:
    port = display.port
    started = time.perf_counter()
    streams = [open_stream(port, "127.0.0.2") for _ in range(64)]
    alive = still_open(streams)
    opened = (time.perf_counter() - started) * 1000
    try:
        started = time.perf_counter()
        page, state = get(port, "/"), get(port, "/state")
        served = (time.perf_counter() - started) * 1000
        assert status(page) == 200 and status(state) == 200
        with open_stream(port, PLAYER) as mine:
            assert first_snapshot(mine).startswith(b"HTTP/1.0 200")
        report = f"{len(alive)} kept ({opened:.0f} ms to open them all); players served in {served:.1f} ms"
        assert len(alive) == server.STREAMS_PER_CLIENT, "the client keeps its newest streams, up to its share"
    finally:
        for sock in streams:
            sock.close()
    no_traceback(capfd)
    print(f"\n64 event streams from one client: {report}")


def test_many_clients_each_with_their_share_of_streams_leave_room_for_a_new_one(display: WebDisplay) -> None:
    port = display.port
    clients = [f"127.0.0.{n}" for n in range(10, 18)]  # 8 clients x 8 streams: as many as there are places
    streams = [open_stream(port, client) for client in clients for _ in range(8)]
    try:
        still_open(streams)
        with open_stream(port, PLAYER) as newcomer:
            assert first_snapshot(newcomer).startswith(b"HTTP/1.0 200")
        assert status(get(port, "/")) == 200
        assert len(still_open(streams)) <= server.MAX_STREAMS - 1, "the server keeps fewer streams than places"
    finally:
        for sock in streams:
            sock.close()


# ---- the key page's private requests ---------------------------------------------------------------


def post(display: WebDisplay, what: str, length: bytes, body: bytes, extra: bytes = b"") -> bytes:
    host = f"127.0.0.1:{display.port}".encode()
    path = f"/key/{display.tokens.token('spymasters')}/{what}".encode()
    head = b"POST %s HTTP/1.1\r\nHost: %s\r\nOrigin: http://%s\r\n" % (path, host, host)
    if length != b"-":
        head += b"Content-Length: %s\r\n" % length
    return ask(display.port, head + extra + b"\r\n" + body)


@pytest.mark.parametrize(
    ("length", "expected"),
    [
        (b"\xb2", 400),  # "²" in the header's Latin-1: a digit to str.isdigit, not to int
        ("١٠".encode(), 400),  # Arabic-Indic digits, as UTF-8 bytes
        (b"+5", 400),
        (b"-1", 400),
        (b"1_0", 400),
        (b"0x10", 400),
        (b"5 5", 400),
        (b"", 400),
        (b"-", 411),  # none at all
        (b"201", 413),
        (b"9" * 5000, 413),  # more digits than int() takes
    ],
)
def test_a_malformed_content_length_is_a_bare_400(
    display: WebDisplay, capfd: pytest.CaptureFixture[str], length: bytes, expected: int
) -> None:
    answer = post(display, "check", length, b'{"word": "ocean"}')
    assert status(answer) == expected and body(answer) == b"", answer
    assert not any(name in answer for name in PYTHON_NAMES)
    no_traceback(capfd)


def test_two_content_lengths_or_a_chunked_body_are_refused(display: WebDisplay) -> None:
    assert status(post(display, "check", b"17", b'{"word": "ocean"}', extra=b"Content-Length: 16\r\n")) == 400
    assert status(post(display, "check", b"-", b"", extra=b"Transfer-Encoding: chunked\r\n")) == 411


@pytest.mark.parametrize("what", ["check", "cover"])
@pytest.mark.parametrize("word", ["\\ud800", "\\udfff", "OCE\\udc80AN", "\\u0000", "\\u001b[31mRED"])
def test_unreadable_text_in_a_private_request_is_a_clear_400(
    display: WebDisplay, capfd: pytest.CaptureFixture[str], what: str, word: str
) -> None:
    """A lone surrogate (JSON can spell one; no UTF-8 text holds one) or a control character: the page is
    told, in the game's language, that the word cannot be read."""
    field = "word" if what == "check" else "card"
    payload = f'{{"{field}": "{word}"}}'.encode()
    answer = post(display, what, str(len(payload)).encode(), payload)
    assert status(answer) == 400, answer
    assert json.loads(body(answer)) == {"ok": False, "text": EN.text("display.request_unreadable")}
    assert not any(name in answer for name in PYTHON_NAMES)
    no_traceback(capfd)


# ---- the Host header (DNS rebinding) -------------------------------------------------------------


def test_only_requests_naming_this_server_are_served(display: WebDisplay, capfd: pytest.CaptureFixture[str]) -> None:
    port, token = display.port, display.tokens.token("spymasters")
    for path in ("/", "/state", "/events", f"/key/{token}", f"/key/{token}/state", "/static/board.js"):
        for host in ("rebind.example", "rebind.example.", "127.0.0.1.nip.io", "[::1", "a b", "127.0.0.1@evil"):
            answer = ask(port, f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\n\r\n".encode())
            assert status(answer) == 421 and body(answer) == b"", (path, host, answer)
        for host in ("127.0.0.1", "localhost", "LOCALHOST", "[::1]", "localhost."):
            if path != "/events":
                assert status(ask(port, f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\n\r\n".encode())) == 200
    forged = f"POST /key/{token}/check HTTP/1.1\r\nHost: rebind.example:{port}\r\nOrigin: http://rebind.example:{port}"
    assert status(ask(port, f'{forged}\r\nContent-Length: 16\r\n\r\n{{"word": "sea"}}'.encode())) == 421
    two = f"GET /state HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nHost: rebind.example:{port}\r\n\r\n"
    assert status(ask(port, two.encode())) == 421
    assert status(ask(port, b"GET /state HTTP/1.1\r\n\r\n")) == 400  # HTTP/1.1 requires a Host
    assert status(ask(port, b"GET /state HTTP/1.0\r\n\r\n")) == 200  # no browser leaves it out
    no_traceback(capfd)


def test_on_the_local_network_the_address_and_the_machine_name_are_served() -> None:
    address = lan_address()
    if address is None:
        pytest.skip("this machine has no network route")
    game, _ = mid_game(Edition.CLASSIC)
    web = WebDisplay(game, EN, host=address, port=0)
    try:
        assert web.url == f"http://{address}:{web.port}/" and web.key_url("a").startswith(web.url)
        assert status(get(web.port, "/state", source=address, host=address)) == 200
        name = socket.gethostname()
        request = f"GET /state HTTP/1.1\r\nHost: {name}:{web.port}\r\n\r\n".encode()
        assert status(ask(web.port, request, source=address, host=address)) == 200
        request = f"GET /state HTTP/1.1\r\nHost: rebind.example:{web.port}\r\n\r\n".encode()
        assert status(ask(web.port, request, source=address, host=address)) == 421
        with pytest.raises(OSError):  # it listens on the network's address only
            get(web.port, "/", source="127.0.0.1")
    finally:
        web.close()
