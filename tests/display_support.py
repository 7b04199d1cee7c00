"""Helpers for the display tests: raw HTTP as a browser sees it, and event streams read message by message."""

from __future__ import annotations

import re
import socket
import time
from collections.abc import Iterator
from contextlib import contextmanager

from voicehost.display.web import WebDisplay

PUBLIC_PATHS = (
    "/",
    "/state",
    "/static/board.css",
    "/static/board.js",
    "/static/page.html",
    "/favicon.ico",
    "/key/",
    "/key/not-a-token",
    "/key/not-a-token/events",
    "/key/not-a-token/state",
    "/state?x=1",
    "/events/",
    "/nowhere",
    "/static/../web.py",
)
"""Every public address, and the addresses that must be the one 404."""
DATE = re.compile(rb"\r\nDate: [^\r]*")


def raw_get(port: int, path: str, method: str = "GET") -> bytes:
    """The whole response, status line and headers included (the Date header blanked: it is the clock)."""
    with socket.create_connection(("127.0.0.1", port), timeout=5) as conn:
        conn.sendall(f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
        chunks = []
        while chunk := conn.recv(65536):
            chunks.append(chunk)
    return DATE.sub(b"\r\nDate: -", b"".join(chunks))


class EventStream:
    """An open `/events` (or key) stream; `next()` returns the next message's raw bytes."""

    def __init__(self, port: int, path: str) -> None:
        self.conn = socket.create_connection(("127.0.0.1", port), timeout=5)
        self.conn.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
        self.buffer = b""
        head = self._until(b"\r\n\r\n")
        self.head = DATE.sub(b"\r\nDate: -", head)
        self.retry = self._until(b"\n\n")

    def _until(self, end: bytes) -> bytes:
        while end not in self.buffer:
            chunk = self.conn.recv(65536)
            if not chunk:
                raise EOFError("the stream ended")
            self.buffer += chunk
        message, _, self.buffer = self.buffer.partition(end)
        return message + end

    def next(self) -> bytes:
        """The next data message (keep-alive comments skipped)."""
        while True:
            message = self._until(b"\n\n")
            if not message.startswith(b":"):
                return message

    def close(self) -> None:
        self.conn.close()


@contextmanager
def stream(display: WebDisplay, path: str = "/events") -> Iterator[EventStream]:
    events = EventStream(display.port, path)
    try:
        yield events
    finally:
        events.close()


def wait_until(check: object, timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():  # type: ignore[operator]
        if time.monotonic() > deadline:
            raise AssertionError("timed out")
        time.sleep(0.01)
