"""The HTTP side: a stdlib ThreadingHTTPServer, one thread per connection, event streams included.

Every response carries the same safety headers (no caching, no referrer, a strict content
security policy); errors of any kind are the one 404 page or a bare status, never a stack trace.
A home network is not hostile, but a phone left open or a broken client must not use the host up:
a request must arrive whole within REQUEST_SECONDS, at most MAX_CONNECTIONS are served at once (the
rest get a bare 503 at once), and HEAD answers as GET does, without the body.

POST is taken only by a key page's private requests (`Site.action`): a wrong token is the one 404,
another origin a bare 403, a body over MAX_BODY bytes a bare 413; elsewhere POST is not implemented.
"""

from __future__ import annotations

import contextlib
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Final
from urllib.parse import urlsplit

from voicehost.display.hub import StreamEnded
from voicehost.display.routes import NOT_FOUND, Page, Site, Stream

KEEPALIVE_SECONDS: Final = 15.0
"""A comment line this often keeps proxies and phones from closing an idle stream."""
REQUEST_SECONDS: Final = 10.0
"""How long a client has to send its request line and headers; then the connection is closed."""
STREAM_WRITE_SECONDS: Final = 30.0
"""An event stream's write may block this long (a phone that stopped reading) before it is closed."""
MAX_CONNECTIONS: Final = 64
"""Connections served at once: a TV, a few phones and their reconnections fit many times over."""
RETRY_MS: Final = 1000
"""How long a browser waits before reconnecting a lost stream (sent as the stream's `retry:`)."""
MAX_BODY: Final = 200
"""Bytes a private request's body may have: `{"word": ...}` with a long word fits."""
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


class DisplayServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 16

    def __init__(self, address: tuple[str, int], site: Site) -> None:
        if ":" in address[0]:
            self.address_family = socket.AF_INET6
        self.site = site
        self.slots = threading.BoundedSemaphore(MAX_CONNECTIONS)
        super().__init__(address, Handler)

    def process_request(self, request: Any, client_address: Any) -> None:
        """A thread per connection while a slot is free; otherwise a bare 503 at once, from this thread."""
        if not self.slots.acquire(blocking=False):
            with contextlib.suppress(OSError):
                request.sendall(b"HTTP/1.0 503 Service Unavailable\r\nContent-Length: 0\r\nRetry-After: 1\r\n\r\n")
            self.shutdown_request(request)
            return
        try:
            super().process_request(request, client_address)
        except BaseException:
            self.slots.release()
            raise

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self.slots.release()


class Handler(BaseHTTPRequestHandler):
    server: DisplayServer
    server_version = "voicehost"
    protocol_version = "HTTP/1.0"
    timeout = REQUEST_SECONDS  # applied to the socket before the request is read

    def handle(self) -> None:
        try:
            super().handle()
        except (TimeoutError, OSError):
            self.close_connection = True  # a client that stopped sending, or left: nothing to answer

    def version_string(self) -> str:
        return self.server_version

    def do_GET(self) -> None:
        target = self.server.site.resolve(self.path)
        if isinstance(target, Stream):
            if self.command == "HEAD":
                self._headers(200, "text/event-stream; charset=utf-8", None, target.private)
                return
            self.connection.settimeout(STREAM_WRITE_SECONDS)  # a reader that stopped reading is let go
            self._stream(target)
        else:
            self._send(target)

    do_HEAD = do_GET

    def do_POST(self) -> None:
        """A key page's private request; the body is read only once the token and origin are right."""
        if not urlsplit(self.path).path.startswith("/key/"):
            self.send_error(501)
            return
        action = self.server.site.action(self.path)
        if action is None:
            self._send(NOT_FOUND)
            return
        if not self._same_origin():
            self._send(Page(403, "text/plain; charset=utf-8", b"", private=True))
            return
        length = self.headers.get("Content-Length", "")
        if not length.isdigit() or int(length) > MAX_BODY:
            self._send(Page(413 if length.isdigit() else 411, "text/plain; charset=utf-8", b"", private=True))
            return
        body = self.rfile.read(int(length))
        if len(body) == int(length):  # otherwise the client left mid-request
            self._send(action(body))

    def _same_origin(self) -> bool:
        """Only the page itself may ask: a browser names the page that sends a POST (Origin, and
        Sec-Fetch-Site when it knows it), and another site cannot forge either."""
        host, origin = self.headers.get("Host"), self.headers.get("Origin")
        fetched_from = self.headers.get("Sec-Fetch-Site", "same-origin")
        return host is not None and origin == f"http://{host}" and fetched_from == "same-origin"

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """Malformed requests and other methods: the bare status, same headers, an empty body."""
        self._send(NOT_FOUND if code == 404 else Page(code, "text/plain; charset=utf-8", b""))

    def log_message(self, format: str, *args: Any) -> None:  # the host's console is for the players
        return

    def _headers(self, status: int, content_type: str, length: int | None, private: bool) -> None:
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
        """Server-sent events: the current snapshot at once, then each change, until the hub ends it."""
        hub = self.server.site.hub
        generation, seen = hub.generation, 0
        try:
            self._headers(200, "text/event-stream; charset=utf-8", None, stream.private)
            self.wfile.write(b"retry: %d\n\n" % RETRY_MS)
            while True:
                found = hub.wait(stream.channel, seen, generation, KEEPALIVE_SECONDS)
                if found is None:
                    self.wfile.write(b": keep-alive\n\n")
                    continue
                seen, payload = found
                self.wfile.write(b"id: %d\ndata: %s\n\n" % (seen, payload))
        except (OSError, StreamEnded):
            pass
        self.close_connection = True
