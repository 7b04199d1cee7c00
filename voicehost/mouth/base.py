"""What every mouth shares: the protocol the host speaks to, the errors, and falling back to print.

Every announcement is also printed, one per line, for players who read better than they hear and
for logs. A voice that breaks mid-game never stops the game: the mouth says so once on stderr and
goes on printing.
"""

from __future__ import annotations

import sys
from typing import IO, Protocol

from engine.characters import shown
from voicehost.audio.samples import Audio


class Mouth(Protocol):
    """Where announcements go: printed lines, or speech (and printed lines)."""

    def say(self, text: str) -> None: ...


class SpeechError(Exception):
    """The host cannot speak (no espeak-ng, no voice for the language, espeak-ng failing); meant for the player."""


class NoSpeaker(SpeechError):
    """There is no loudspeaker to play the voice on."""


class SpeechSynthesizer(Protocol):
    """Text to 16 kHz mono audio (tests give a fake)."""

    def synthesize(self, text: str) -> Audio: ...


class _Fallback:
    """Remembers that the voice broke, and tells the players once."""

    def __init__(self, err: IO[str] | None) -> None:
        self.active = False
        self._err = err

    def trip(self, exc: BaseException) -> None:
        if self.active:
            return
        self.active = True
        reason = str(exc) if isinstance(exc, SpeechError) else f"The host's voice failed ({type(exc).__name__}: {exc})."
        print(
            f"voicehost: {reason} The game goes on: announcements are printed, not spoken.",
            file=self._err or sys.stderr,
            flush=True,
        )


def _print_line(text: str, out: IO[str] | None) -> None:
    print(shown(" ".join(text.split())), file=out or sys.stdout, flush=True)  # never a control character raw


class PrintMouth:
    """Text mode, or no voice at all: every announcement is one line on standard output."""

    def __init__(self, out: IO[str] | None = None) -> None:
        self._out = out

    def say(self, text: str) -> None:
        _print_line(text, self._out or sys.stdout)
