"""What every mouth shares: the protocol the host speaks to, the errors, and falling back to print.

Every announcement is also printed, one per line, for players who read better than they hear and
for logs. A voice that breaks mid-game never stops the game: the mouth says so once on stderr, in the
game's language, and goes on printing; what broke goes to the log (`--debug`).
"""

from __future__ import annotations

import logging
import sys
from typing import IO, Final, Protocol

from engine.characters import shown
from engine.lang import Lang
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


LOG: Final = logging.getLogger(__name__)


def voice_notice(exc: BaseException, lang: Lang | None, key: str = "error.voice_failed") -> str:
    """What the players read when the voice cannot speak: what broke (with the command that mends it, where
    there is one), then what happens now in the game's language (English without one)."""
    from voicehost.prompts import Prompts

    reason = str(exc) if isinstance(exc, SpeechError) else f"The host's voice failed ({type(exc).__name__}: {exc})."
    return f"{reason} {Prompts.load(lang or Lang.EN).text(key)}"


class _Fallback:
    """Remembers that the voice broke, and tells the players once, in the game's language."""

    def __init__(self, err: IO[str] | None, lang: Lang | None = None) -> None:
        self.active = False
        self._err = err
        self._lang = lang

    def trip(self, exc: BaseException) -> None:
        if self.active:
            return
        self.active = True
        LOG.debug("the host's voice failed: %s", exc, exc_info=not isinstance(exc, SpeechError))
        print(f"voicehost: {voice_notice(exc, self._lang)}", file=self._err or sys.stderr, flush=True)


def _print_line(text: str, out: IO[str] | None) -> None:
    print(shown(" ".join(text.split())), file=out or sys.stdout, flush=True)  # never a control character raw


class PrintMouth:
    """Text mode, or no voice at all: every announcement is one line on standard output."""

    def __init__(self, out: IO[str] | None = None) -> None:
        self._out = out

    def say(self, text: str) -> None:
        _print_line(text, self._out or sys.stdout)
