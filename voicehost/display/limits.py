"""What clients may hold of the display, so that no phone, broken or hostile, can lock the others out.

`Connections` bounds the connections served at once. A connection still sending its request is the
cheapest to drop: when every place is taken, the one that has been sending the longest is closed to
make room (a client dripping a header line every few seconds gives way to the next real request).

`StreamSlots` bounds the event streams: a few per client address, and fewer in all than connections,
so room stays for pages and new clients. A client opening one more than its share loses its own
oldest stream (a phone that reloaded over bad Wi-Fi keeps its newest); when all are taken, the
client holding the most gives up its oldest. An ended stream's browser reconnects by itself.
"""

from __future__ import annotations

import contextlib
import itertools
import socket
import threading
from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass
class _Connection:
    sock: socket.socket
    order: int
    reading: bool = True


class Connections:
    """Thread-safe: `admit` from the accepting thread, `request_read` and `release` from each connection's."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._lock = threading.Lock()
        self._open: dict[int, _Connection] = {}
        self._order = itertools.count()

    def admit(self, sock: socket.socket) -> bool:
        """Take a new connection; when all places are taken, close the one that has been sending its
        request the longest to make room. False when every place serves a whole request."""
        with self._lock:
            if len(self._open) >= self.limit:
                reading = [c for c in self._open.values() if c.reading]
                if not reading:
                    return False
                oldest = min(reading, key=lambda c: c.order)
                del self._open[id(oldest.sock)]
                _cut(oldest.sock)
            self._open[id(sock)] = _Connection(sock, next(self._order))
            return True

    def request_read(self, sock: socket.socket) -> None:
        """The request arrived whole: from now on this connection is being served, not dropped for room."""
        with self._lock:
            found = self._open.get(id(sock))
            if found is not None:
                found.reading = False

    def release(self, sock: socket.socket) -> None:
        with self._lock:
            found = self._open.get(id(sock))
            if found is not None and found.sock is sock:
                del self._open[id(sock)]

    def __len__(self) -> int:
        with self._lock:
            return len(self._open)


def _cut(sock: socket.socket) -> None:
    """Wake the connection's thread: its next read returns at once and the thread ends."""
    with contextlib.suppress(OSError):
        sock.shutdown(socket.SHUT_RDWR)


@dataclass(eq=False)
class Ticket:
    """One open event stream; `ended` turns true when it must give way."""

    client: str
    order: int
    ended: bool = field(default=False)


class StreamSlots:
    """Thread-safe. `wake` is called after a stream is told to end, so that it notices at once."""

    def __init__(self, per_client: int, total: int, wake: Callable[[], None]) -> None:
        self.per_client = per_client
        self.total = total
        self._wake = wake
        self._lock = threading.Lock()
        self._open: list[Ticket] = []
        self._order = itertools.count()

    def open(self, client: str) -> Ticket:
        """A place for one more stream of `client`, made by ending another one if needed."""
        with self._lock:
            ended = None
            mine = [t for t in self._open if t.client == client]
            if len(mine) >= self.per_client:
                ended = mine[0]
            elif len(self._open) >= self.total:
                counts: dict[str, int] = {}
                for ticket in self._open:
                    counts[ticket.client] = counts.get(ticket.client, 0) + 1
                greediest = max(counts, key=counts.__getitem__)  # on a tie, the one whose streams are oldest
                ended = next(t for t in self._open if t.client == greediest)
            if ended is not None:
                ended.ended = True
                self._open.remove(ended)
            ticket = Ticket(client, next(self._order))
            self._open.append(ticket)
        if ended is not None:
            self._wake()
        return ticket

    def close(self, ticket: Ticket) -> None:
        with self._lock:
            if ticket in self._open:
                self._open.remove(ticket)

    def count(self, client: str | None = None) -> int:
        with self._lock:
            return sum(1 for t in self._open if client is None or t.client == client)
