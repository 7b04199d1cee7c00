"""Announcements printed at once and spoken one after another by a worker thread, so the game never waits.

The loudspeaker (`SpeakerMouth`) and a satellite's speaker (`SatelliteMouth`) differ only in how one
announcement is spoken (`QueuedMouth._speak`); the queue, the barge-in (`stop`) and the `speaking` state
the voice loop's echo gate reads are kept here, in one place.
"""

from __future__ import annotations

import queue
import threading
from abc import ABC, abstractmethod
from types import TracebackType
from typing import IO, Self

from voicehost.mouth.base import _Fallback, _print_line


class QueuedMouth(ABC):
    """Prints each announcement at once and queues it; a worker thread speaks each in turn (`_speak`).

    `speaking` is true from the first queued announcement until the last one is done: the voice loop's
    echo gate reads it, so the host never takes its own voice for a player's. `stop()` is the barge-in:
    the current announcement is cut and queued ones are dropped. Subclasses set their own state before
    calling `__init__`, which starts the worker."""

    def __init__(self, *, out: IO[str] | None, err: IO[str] | None, thread_name: str) -> None:
        self._out = out
        self._fallback = _Fallback(err, getattr(getattr(self, "_synthesizer", None), "lang", None))
        self._queue: queue.Queue[tuple[str, threading.Event] | None] = queue.Queue()
        self._lock = threading.Lock()
        self._cancels: list[threading.Event] = []  # one per announcement queued or playing
        self._pending = 0
        self._speaking = threading.Event()
        self._idle = threading.Event()
        self._idle.set()
        self.played: int = 0  # announcements heard to the end
        self.interrupted: int = 0  # announcements cut short by stop()
        self._thread = threading.Thread(target=self._run, name=thread_name, daemon=True)
        self._thread.start()

    @abstractmethod
    def _speak(self, text: str, cancel: threading.Event) -> None:
        """Speak one announcement on the worker thread, cutting it short once `cancel` is set."""

    @property
    def speaking(self) -> bool:
        """True while an announcement is queued or being spoken (until the speaker has played it)."""
        return self._speaking.is_set()

    @property
    def silent(self) -> bool:
        """True once the voice broke and the mouth only prints."""
        return self._fallback.active

    def say(self, text: str) -> None:
        """Print the line now and speak it as soon as the ones before it are done."""
        _print_line(text, self._out)
        if self.silent or not text.strip():
            return
        cancel = threading.Event()
        with self._lock:
            self._cancels.append(cancel)
            self._pending += 1
            if self._pending == 1:
                self._idle.clear()
                self._speaking.set()
        self._queue.put((text, cancel))

    def stop(self) -> None:
        """Cut the current announcement short and drop the queued ones (a player said "stop")."""
        with self._lock:
            for cancel in self._cancels:
                cancel.set()
            self._cancels.clear()

    def wait_idle(self, timeout: float | None = None) -> bool:
        """Block until everything queued has been spoken (or dropped); False on timeout."""
        return self._idle.wait(timeout)

    def close(self, *, drain: bool = True, timeout: float | None = 30.0) -> None:
        """Stop the worker: after the queued announcements (drain) or at once."""
        if not drain:
            self.stop()
        self._queue.put(None)
        self._thread.join(timeout)

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    # ---- the worker thread ---------------------------------------------------------------------------

    def _run(self) -> None:
        while True:
            item = self._queue.get()
            if item is None:
                return
            text, cancel = item
            try:
                if not cancel.is_set() and not self.silent:
                    self._speak(text, cancel)
            except Exception as exc:  # whatever breaks the voice, the game goes on
                self._fallback.trip(exc)
            finally:
                self._finished(cancel)

    def _finished(self, cancel: threading.Event) -> None:
        with self._lock:
            if cancel in self._cancels:
                self._cancels.remove(cancel)
            self._pending -= 1
            if self._pending == 0:
                self._speaking.clear()
                self._idle.set()
