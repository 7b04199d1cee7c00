"""The HTTP side: a stdlib ThreadingHTTPServer, one thread per request, event streams included.

Every response carries the same safety headers (no caching, no referrer, a strict content
security policy); errors of any kind are the one 404 page or a bare status, never a stack trace.
"""

from __future__ import annotations

import socket
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Final

from voicehost.display.hub import StreamEnded
from voicehost.display.routes import NOT_FOUND, Page, Site, Stream

KEEPALIVE_SECONDS: Final = 15.0
"""A comment line this often keeps proxies and phones from closing an idle stream."""
RETRY_MS: Final = 1000
"""How long a browser waits before reconnecting a lost stream (sent as the stream's `retry:`)."""
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

    def __init__(self, address: tuple[str, int], site: Site) -> None:
        if ":" in address[0]:
            self.address_family = socket.AF_INET6
        self.site = site
        super().__init__(address, Handler)


class Handler(BaseHTTPRequestHandler):
    server: DisplayServer
    server_version = "voicehost"
    protocol_version = "HTTP/1.0"

    def version_string(self) -> str:
        return self.server_version

    def do_GET(self) -> None:
        target = self.server.site.resolve(self.path)
        if isinstance(target, Stream):
            self._stream(target)
        else:
            self._send(target)

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
