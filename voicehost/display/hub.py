"""Where the latest snapshot of each page waits for the event streams that push it.

One condition variable serves every channel: `publish` wakes all streams at once, so a change
reaches the browsers within milliseconds, and a channel whose bytes did not change wakes nobody
(the number of messages a stream sends depends on what it shows, nothing else).
"""

from __future__ import annotations

import threading
from collections.abc import Callable


class StreamEnded(Exception):
    """The display closed, or asked every open stream to end (the browsers reconnect by themselves)."""


class Hub:
    """Thread-safe: `publish` from any thread, `wait` from each stream's server thread."""

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self._channels: dict[str, tuple[int, bytes]] = {}
        self._generation = 0
        self._closed = False

    def publish(self, channel: str, payload: bytes) -> bool:
        """Store the channel's new payload; True when it differs from the last one (and streams were woken)."""
        with self._changed:
            version, current = self._channels.get(channel, (0, b""))
            if current == payload and version:
                return False
            self._channels[channel] = (version + 1, payload)
            self._changed.notify_all()
            return True

    def current(self, channel: str) -> tuple[int, bytes] | None:
        with self._changed:
            return self._channels.get(channel)

    @property
    def generation(self) -> int:
        with self._changed:
            return self._generation

    def wait(
        self, channel: str, seen: int, generation: int, timeout: float, ended: Callable[[], bool] = lambda: False
    ) -> tuple[int, bytes] | None:
        """The channel's payload once its version passes `seen`; None after `timeout` seconds of no change.

        Raises StreamEnded when the hub closes, `drop_streams` ran since `generation` was read, or
        `ended()` turns true (checked whenever `wake` is called).
        """
        with self._changed:

            def stop() -> bool:
                return self._closed or self._generation != generation or ended()

            def ready() -> bool:
                return stop() or self._channels.get(channel, (0, b""))[0] > seen

            self._changed.wait_for(ready, timeout)
            if stop():
                raise StreamEnded()
            found = self._channels.get(channel)
            return found if found is not None and found[0] > seen else None

    def wake(self) -> None:
        """Have every waiting stream check whether it was told to end."""
        with self._changed:
            self._changed.notify_all()

    def drop_streams(self) -> None:
        """End every open stream (the server restarts them): EventSource reconnects after its retry delay."""
        with self._changed:
            self._generation += 1
            self._changed.notify_all()

    def close(self) -> None:
        with self._changed:
            self._closed = True
            self._changed.notify_all()
