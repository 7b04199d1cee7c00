"""Sound waiting for the voice loop, bounded by how much sound it holds, not by how many chunks.

A satellite decides its chunk size: 1024 samples from wyoming-satellite, but nothing stops one from
sending two million. A queue capped at N chunks would then hold gigabytes; this one holds at most
`max_samples` of sound (and at most `max_items` entries, for a flood of tiny chunks) and drops the
oldest sound first. Markers (lost, back, a notice) are never dropped and keep their place.
"""

from __future__ import annotations

import collections
import threading
from typing import Final

import numpy as np

from voicehost.audio.samples import Audio

MAX_ITEMS: Final = 4096
"""Entries kept at most: 4096 chunks of wyoming-satellite's 64 ms are over four minutes."""


class SoundQueue:
    """A thread-safe FIFO of sound chunks and markers; `put_sound` never blocks and never grows past
    the caps: what does not fit is the oldest sound, dropped and counted."""

    def __init__(self, max_samples: int, max_items: int = MAX_ITEMS) -> None:
        self.max_samples = max_samples
        self.max_items = max_items
        self.queued_samples = 0
        self.dropped_samples = 0
        self._items: collections.deque[object] = collections.deque()
        self._changed = threading.Condition()

    def put_sound(self, audio: Audio) -> None:
        with self._changed:
            if len(audio) > self.max_samples:  # one chunk longer than the whole queue: its end is kept
                self.dropped_samples += len(audio) - self.max_samples
                audio = np.ascontiguousarray(audio[-self.max_samples :])
            self._items.append(audio)
            self.queued_samples += len(audio)
            while self.queued_samples > self.max_samples or len(self._items) > self.max_items:
                if not self._drop_oldest_sound():
                    break
            self._changed.notify_all()

    def put_marker(self, marker: object) -> None:
        with self._changed:
            self._items.append(marker)
            self._changed.notify_all()

    def get(self, timeout: float) -> object | None:
        """The oldest entry, or None when nothing came within `timeout` seconds."""
        with self._changed:
            if not self._changed.wait_for(lambda: bool(self._items), timeout):
                return None
            item = self._items.popleft()
            if isinstance(item, np.ndarray):
                self.queued_samples -= len(item)
            return item

    def _drop_oldest_sound(self) -> bool:
        for index, item in enumerate(self._items):
            if isinstance(item, np.ndarray):
                del self._items[index]
                self.queued_samples -= len(item)
                self.dropped_samples += len(item)
                return True
        return False
