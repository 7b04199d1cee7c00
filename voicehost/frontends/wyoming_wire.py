"""Wyoming messages over TCP, read with bounds: what a satellite sends is never trusted.

A Wyoming message is a JSON header line, then `data_length` bytes of JSON and `payload_length` bytes
of payload. The wyoming library reads whatever lengths the header announces (a `payload_length` of
2e9 would be buffered) and turns a bad message into a silent end of the connection; here each part
is bounded before anything is read, and a message that breaks the protocol becomes a WireError with
the Problem a player is told.

Timeouts are `asyncio.timeout`, never `asyncio.wait_for`: on Python 3.11, `wait_for` swallows a
cancellation that comes as its inner write completes, and a watchdog cancelled while it pinged would
run on until its own timeout.

Connections end with a reset, not a graceful close: wyoming-satellite (up to 1.4 at least) leaves a
connection it has refused (another server holds it) half-open for good once the client closes it
gracefully, one file descriptor each time; a reset makes it free the socket.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import struct
import unicodedata
from typing import Any, Final

from wyoming.event import Event, async_write_event
from wyoming.info import Describe

from voicehost.frontends.satellite_problems import MALFORMED, TOO_LARGE, Problem

MAX_HEADER_BYTES: Final = 64 * 1024
"""A header line is a few hundred bytes; asyncio's own default limit for a line."""
MAX_DATA_BYTES: Final = 64 * 1024
"""A satellite's `info` (the largest JSON it sends) is a few kilobytes."""
MAX_PAYLOAD_BYTES: Final = 1024 * 1024
"""An audio chunk is 2 KiB from wyoming-satellite (1024 samples); 1 MiB is over a second of 48 kHz
32-bit stereo. A message announcing more is refused before a byte of it is read."""
MAX_NAME_CHARS: Final = 60


class WireError(Exception):
    """The peer broke the protocol; `problem` says how, for the player."""

    def __init__(self, problem: Problem) -> None:
        super().__init__(problem.key)
        self.problem = problem


async def open_connection(host: str, port: int, timeout: float) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """A TCP connection whose reader refuses header lines longer than MAX_HEADER_BYTES."""
    async with asyncio.timeout(timeout):
        return await asyncio.open_connection(host, port, limit=MAX_HEADER_BYTES)


async def read_event(reader: asyncio.StreamReader) -> Event | None:
    """The next message, None once the connection has closed; WireError when it breaks the protocol."""
    try:
        line = await reader.readuntil(b"\n")
    except asyncio.IncompleteReadError:
        return None  # closed, possibly in the middle of a line
    except asyncio.LimitOverrunError:
        raise WireError(Problem(MALFORMED)) from None
    header = _json_object(line)
    kind = header.get("type")
    if not isinstance(kind, str) or not kind:
        raise WireError(Problem(MALFORMED))
    data_length = _length(header.get("data_length"), MAX_DATA_BYTES)
    payload_length = _length(header.get("payload_length"), MAX_PAYLOAD_BYTES)
    data = header.get("data") or {}
    if not isinstance(data, dict):
        raise WireError(Problem(MALFORMED))
    try:
        if data_length:
            data = {**data, **_json_object(await reader.readexactly(data_length))}
        payload = await reader.readexactly(payload_length) if payload_length else None
    except asyncio.IncompleteReadError:
        return None
    return Event(type=kind, data=data, payload=payload)


async def write_event(writer: asyncio.StreamWriter, event: Event, timeout: float) -> None:
    async with asyncio.timeout(timeout):
        await async_write_event(event, writer)


async def describe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, timeout: float) -> tuple[bool, str]:
    """Ask the service what it is: (whether it is a satellite, the name it gives). EOFError when it
    closes first, TimeoutError when it does not answer within `timeout`."""

    async def info() -> Event:
        while True:
            event = await read_event(reader)
            if event is None:
                raise EOFError("closed before describing itself")
            if event.type == "info":
                return event

    await write_event(writer, Describe().event(), timeout)
    async with asyncio.timeout(timeout):
        answer = await info()
    satellite = answer.data.get("satellite")
    if not isinstance(satellite, dict):
        return False, ""
    return True, printable_name(satellite.get("name"))


def reset(writer: asyncio.StreamWriter) -> None:
    """Drop the connection at once with a reset (see the module: the satellite then frees it)."""
    sock = writer.get_extra_info("socket")
    if sock is not None:
        with contextlib.suppress(OSError):
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    writer.transport.abort()


def printable_name(name: Any) -> str:
    """A name a satellite gives itself, safe to print and to say: no control or direction characters."""
    if not isinstance(name, str):
        return ""
    kept = "".join(ch for ch in name if ch.isprintable() and unicodedata.category(ch) != "Cf")
    return " ".join(kept.split())[:MAX_NAME_CHARS]


def _length(value: Any, limit: int) -> int:
    if value is None:
        return 0
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise WireError(Problem(MALFORMED))
    if value > limit:
        raise WireError(Problem(TOO_LARGE, {"size": value, "limit": limit}))
    return value


def _json_object(raw: bytes) -> dict[str, Any]:
    try:
        value = json.loads(raw)
    except (ValueError, RecursionError):  # not JSON, not UTF-8, or nested beyond reason
        raise WireError(Problem(MALFORMED)) from None
    if not isinstance(value, dict):
        raise WireError(Problem(MALFORMED))
    return value
