"""The voiced sand timer: runs on its own thread and speaks while the host waits for players."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Final

WARNINGS: Final = (30, 10)
"""Spoken warnings, in seconds left; the last COUNTDOWN seconds are counted aloud."""
COUNTDOWN: Final = 5


class SandTimer:
    """Counts down `seconds`; calls `on_tick(event, seconds_left)` for started, warning, countdown,
    expired and paused. `clock` and `sleep` are injectable so tests need not wait."""

    def __init__(
        self,
        on_tick: Callable[[str, int], None],
        *,
        clock: Callable[[], float] = time.monotonic,
        resolution: float = 0.05,
    ) -> None:
        self._on_tick = on_tick
        self._clock = clock
        self._resolution = resolution
        self._lock = threading.Lock()
        self._deadline: float | None = None
        self._paused_left: float | None = None
        self._spoken: set[int] = set()
        self._generation = 0
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()

    @property
    def running(self) -> bool:
        with self._lock:
            return self._deadline is not None

    @property
    def paused(self) -> bool:
        with self._lock:
            return self._paused_left is not None

    @property
    def has_sand(self) -> bool:
        """Running or paused: there is sand whose seconds can be told (and "pause" means it)."""
        with self._lock:
            return self._deadline is not None or self._paused_left is not None

    def seconds_left(self) -> int:
        with self._lock:
            if self._paused_left is not None:
                return int(self._paused_left + 0.999)
            if self._deadline is None:
                return 0
            return max(0, int(self._deadline - self._clock() + 0.999))

    def flip(self, seconds: int) -> None:
        """Start (or restart) the sand running for `seconds`."""
        with self._lock:
            self._generation += 1
            self._deadline = self._clock() + seconds
            self._paused_left = None
            self._spoken = {mark for mark in (*WARNINGS, *range(1, COUNTDOWN + 1)) if mark >= seconds}
        self._on_tick("started", seconds)
        self._ensure_thread()

    def pause(self) -> bool:
        with self._lock:
            if self._deadline is None:
                return False
            self._paused_left = max(0.0, self._deadline - self._clock())
            self._deadline = None
            left = int(self._paused_left + 0.999)
        self._on_tick("paused", left)
        return True

    def resume(self) -> bool:
        with self._lock:
            if self._paused_left is None:
                return False
            self._deadline = self._clock() + self._paused_left
            self._paused_left = None
            left = int(self._deadline - self._clock() + 0.999)
        self._on_tick("resumed", left)
        return True

    def cancel(self) -> None:
        with self._lock:
            self._deadline = None
            self._paused_left = None

    def close(self) -> None:
        self.cancel()
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=1)

    def _ensure_thread(self) -> None:
        if self._thread is None or not self._thread.is_alive():
            self._stop.clear()
            self._thread = threading.Thread(target=self._run, name="sand-timer", daemon=True)
            self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(self._resolution):
            due: list[tuple[str, int]] = []
            with self._lock:
                if self._deadline is None:
                    continue
                left = self._deadline - self._clock()
                for mark in (*WARNINGS, *range(COUNTDOWN, 0, -1)):
                    if left <= mark and mark not in self._spoken and left > 0:
                        self._spoken.add(mark)
                        due.append(("warning" if mark in WARNINGS else "countdown", mark))
                if left <= 0:
                    self._deadline = None
                    due.append(("expired", 0))
            for event, seconds in due:
                self._on_tick(event, seconds)
