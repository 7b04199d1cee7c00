"""What the tests that play a whole game by voice against the real host share: the sand timer's clock,
which they move by hand, and the host the players watch to know when they may speak.

Used by tests/system/test_faults_in_game.py (a microphone unplugged, the voice breaking) and
tests/voice/test_satellite.py (the satellite killed mid-game).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from engine.events import EventType
from voicehost.referee.host import Host


class SandClock:
    """The sand timer's clock: time passes only when the test says so."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class WatchedHost(Host):
    """The real host; the players watch it to know when they may speak, and count its pauses: whether it
    started, how many utterances it handled, how often the microphone (or the satellite) was lost and back."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.handled = 0
        self.lost = 0
        self.back = 0
        self.started = threading.Event()
        self.changed = threading.Condition()

    def start(self, *, resumed: bool = False) -> None:
        super().start(resumed=resumed)
        self.started.set()

    def hear(self, *args: Any, **kwargs: Any) -> None:
        super().hear(*args, **kwargs)
        with self.changed:
            self.handled += 1
            self.changed.notify_all()

    def microphone_lost(self) -> None:
        super().microphone_lost()
        with self.changed:
            self.lost += 1
            self.changed.notify_all()

    def microphone_back(self) -> None:
        super().microphone_back()
        with self.changed:
            self.back += 1
            self.changed.notify_all()

    def wait_until(self, condition: Callable[[], bool], timeout: float) -> bool:
        """Whether `condition` came true within `timeout` seconds (checked at every change counted here)."""
        with self.changed:
            return self.changed.wait_for(condition, timeout)


def guesses(host: Host) -> int:
    """Guesses made so far in the host's game."""
    return sum(1 for event in host.game.events if event.type is EventType.GUESS)
