"""The HTTP side: a stdlib ThreadingHTTPServer, one thread per connection, event streams included.

Every response carries the same safety headers (no caching, no referrer, a strict content
security policy); errors of any kind are the one 404 page or a bare status, never a stack trace,
and nothing is printed on the host's console. A request is served only if its Host header names
this server (`network.HostCheck`: a DNS-rebinding page sends its own name and gets a bare 421).

A home network is not hostile, but a phone left open or a broken client must not use the host up:
the whole request must arrive within REQUEST_SECONDS (however slowly it drips in), at most
MAX_CONNECTIONS are served at once, and when all are taken the connection that has been sending its
request the longest makes room (`limits.Connections`); event streams are capped per client address
and in all, below MAX_CONNECTIONS (`limits.StreamSlots`). HEAD answers as GET does, without the body.

POST is taken only by a key page's private requests (`Site.action`): a wrong token is the one 404,
another origin a bare 403, a missing length 411, a malformed one 400, a body over MAX_BODY bytes a
bare 413; elsewhere POST is not implemented.
"""

from __future__ import annotations

import contextlib
import io
import logging
import re
import socket
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Final
from urllib.parse import urlsplit

from voicehost.display.hub import StreamEnded
from voicehost.display.limits import Connections, StreamSlots
from voicehost.display.network import HostCheck
from voicehost.display.routes import NOT_FOUND, Page, Site, Stream

LOG: Final = logging.getLogger(__name__)
KEEPALIVE_SECONDS: Final = 15.0
"""A comment line this often keeps proxies and phones from closing an idle stream."""
REQUEST_SECONDS: Final = 10.0
"""How long a client has to send its whole request (line, headers, body); then the connection is closed."""
WRITE_SECONDS: Final = 30.0
"""A write may block this long (a phone that stopped reading) before the connection is closed."""
MAX_CONNECTIONS: Final = 64
"""Connections served at once: a TV, a few phones and their reconnections fit many times over."""
MAX_STREAMS: Final = 48
"""Event streams open at once, below MAX_CONNECTIONS: room always stays for pages and new clients."""
STREAMS_PER_CLIENT: Final = 8
"""Event streams one client address may hold: a TV or a phone with a few tabs."""
RETRY_MS: Final = 1000
"""How long a browser waits before reconnecting a lost stream (sent as the stream's `retry:`)."""
MAX_BODY: Final = 200
"""Bytes a private request's body may have: `{"word": ...}` with a long word fits."""
LENGTH: Final = re.compile(r"[0-9]+")
"""A Content-Length: ASCII digits only (`int` would also take "²", "+1" or "1_0")."""
HEADERS: Final = {
    "Cache-Control": "no-store",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cross-Origin-Resource-Policy": "same-origin",
    "X-Frame-Options": "DENY",
    "Content-Security-Policy": (
        "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; "
        "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    ),
}
BARE: Final = "text/plain; charset=utf-8"


class DisplayServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 128  # a burst of connections waits to be accepted instead of being refused

    def __init__(self, address: tuple[str, int], site: Site) -> None:
        if ":" in address[0]:
            self.address_family = socket.AF_INET6
        self.site = site
        self.connections = Connections(MAX_CONNECTIONS)
        self.streams = StreamSlots(STREAMS_PER_CLIENT, MAX_STREAMS, site.hub.wake)
        super().__init__(address, Handler)
        self.host_check = HostCheck(address[0])

    def process_request(self, request: Any, client_address: Any) -> None:
        """A thread per connection while there is room (made by dropping the slowest request if need be);
        otherwise a bare 503 at once, from this thread."""
        if not self.connections.admit(request):
            with contextlib.suppress(OSError):
                request.sendall(b"HTTP/1.0 503 Service Unavailable\r\nContent-Length: 0\r\nRetry-After: 1\r\n\r\n")
            self.shutdown_request(request)
            return
        try:
            super().process_request(request, client_address)
        except BaseException:
            self.connections.release(request)
            raise

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self.connections.release(request)

    def handle_error(self, request: Any, client_address: Any) -> None:
        """The host's console is for the players: a failed request is noted in the debug log only."""
        LOG.debug("a display request failed", exc_info=True)


class DeadlineReader(io.RawIOBase):
    """Reads a socket until a fixed moment: each read may wait only for the time left, so a client
    dripping a byte now and then cannot stretch its request past the deadline."""

    def __init__(self, sock: socket.socket, deadline: float) -> None:
        super().__init__()
        self._sock = sock
        self._deadline = deadline

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        left = self._deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("the request did not arrive in time")
        self._sock.settimeout(left)
        return self._sock.recv_into(buffer)


class Handler(BaseHTTPRequestHandler):
    server: DisplayServer
    server_version = "voicehost"
    protocol_version = "HTTP/1.0"
    timeout = REQUEST_SECONDS  # the whole request must arrive within this many seconds

    def setup(self) -> None:
        super().setup()
        self.rfile.close()  # the socket stays open: only the reader is replaced by one with a deadline
        self.rfile = io.BufferedReader(DeadlineReader(self.connection, time.monotonic() + float(self.timeout or 0)))
        self._responded = False

    def handle(self) -> None:
        try:
            super().handle()
        except (TimeoutError, OSError):
            self.close_connection = True  # a client that stopped sending, or left: nothing to answer
        except Exception:  # a bug: a bare 500 for the client, the debug log for the developer
            LOG.debug("a display request failed", exc_info=True)
            if not self._responded:
                self._send(Page(500, BARE, b""))
            self.close_connection = True

    def version_string(self) -> str:
        return self.server_version

    def do_GET(self) -> None:
        if not self._admitted():
            return
        target = self.server.site.resolve(self.path)
        if isinstance(target, Stream):
            if self.command == "HEAD":
                self._headers(200, "text/event-stream; charset=utf-8", None, target.private)
                return
            self._stream(target)
        else:
            self._send(target)

    do_HEAD = do_GET

    def do_POST(self) -> None:
        """A key page's private request; the body is read only once the token and origin are right."""
        if not self._admitted():
            return
        if not urlsplit(self.path).path.startswith("/key/"):
            self.send_error(501)
            return
        action = self.server.site.action(self.path)
        if action is None:
            self._send(NOT_FOUND)
            return
        if not self._same_origin():
            self._send(Page(403, BARE, b"", private=True))
            return
        length = self._body_length()
        if isinstance(length, Page):
            self._send(length)
            return
        body = self.rfile.read(length)
        if len(body) == length:  # otherwise the client left mid-request
            self._send(action(body))

    def _admitted(self) -> bool:
        """The request arrived whole; it is served only if its Host header names this server."""
        self.server.connections.request_read(self.connection)
        hosts = self.headers.get_all("Host") or []
        if not hosts and self.request_version == "HTTP/1.0":
            return True  # no browser leaves it out (HTTP/1.1 requires it), so no rebinding page can
        arrived_at = str(self.connection.getsockname()[0])
        if len(hosts) == 1 and self.server.host_check.allows(hosts[0], arrived_at):
            return True
        self._send(Page(421 if hosts else 400, BARE, b""))
        return False

    def _body_length(self) -> int | Page:
        """The body's length from a single well-formed Content-Length, or the bare status that refuses it."""
        values = self.headers.get_all("Content-Length") or []
        if not values or self.headers.get("Transfer-Encoding") is not None:
            return Page(411, BARE, b"", private=True)
        digits = values[0].strip()
        if len(values) != 1 or not LENGTH.fullmatch(digits):
            return Page(400, BARE, b"", private=True)
        if len(digits.lstrip("0")) > len(str(MAX_BODY)) or int(digits) > MAX_BODY:
            return Page(413, BARE, b"", private=True)
        return int(digits)

    def _same_origin(self) -> bool:
        """Only the page itself may ask: a browser names the page that sends a POST (Origin, and
        Sec-Fetch-Site when it knows it), and another site cannot forge either."""
        host, origin = self.headers.get("Host"), self.headers.get("Origin")
        fetched_from = self.headers.get("Sec-Fetch-Site", "same-origin")
        return host is not None and origin == f"http://{host}" and fetched_from == "same-origin"

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """Malformed requests and other methods: the bare status, same headers, an empty body."""
        self._send(NOT_FOUND if code == 404 else Page(code, BARE, b""))

    def log_message(self, format: str, *args: Any) -> None:  # the host's console is for the players
        return

    def _headers(self, status: int, content_type: str, length: int | None, private: bool) -> None:
        self._responded = True
        self.connection.settimeout(WRITE_SECONDS)  # a reader that stopped reading is let go
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        if length is not None:
            self.send_header("Content-Length", str(length))
        for name, value in HEADERS.items():
            self.send_header(name, value)
        if private:
            self.send_header("X-Robots-Tag", "noindex")
        self.end_headers()

    def _send(self, page: Page) -> None:
        try:
            self._headers(page.status, page.content_type, len(page.body), page.private)
            if self.command != "HEAD":
                self.wfile.write(page.body)
        except OSError:
            self.close_connection = True

    def _stream(self, stream: Stream) -> None:
        """Server-sent events: the current snapshot at once, then each change, until the hub ends it or
        this client's newer streams (or a new client's) need its place."""
        hub = self.server.site.hub
        generation, seen = hub.generation, 0
        ticket = self.server.streams.open(str(self.client_address[0]))
        try:
            self._headers(200, "text/event-stream; charset=utf-8", None, stream.private)
            self.wfile.write(b"retry: %d\n\n" % RETRY_MS)
            while True:
                found = hub.wait(stream.channel, seen, generation, KEEPALIVE_SECONDS, lambda: ticket.ended)
                if found is None:
                    self.wfile.write(b": keep-alive\n\n")
                    continue
                seen, payload = found
                self.wfile.write(b"id: %d\ndata: %s\n\n" % (seen, payload))
        except (OSError, StreamEnded):
            pass
        finally:
            self.server.streams.close(ticket)
        self.close_connection = True
