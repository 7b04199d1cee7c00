"""The host's mouth: every announcement printed, and spoken to a loudspeaker or into a WAV file.

`make_mouth` builds the one a game needs (its `_make_*` factories are the places tests swap), in the
voice `make_synthesizer` picks: espeak-ng, or Piper when asked for and installed.
"""

from __future__ import annotations

import logging
import sys
from pathlib import Path
from typing import IO, Final

from engine.lang import Lang
from voicehost.mouth.base import Mouth, NoSpeaker, PrintMouth, SpeechError, SpeechSynthesizer, voice_notice
from voicehost.mouth.espeak import Synthesizer
from voicehost.mouth.recording import FileMouth
from voicehost.mouth.speaker import Output, SpeakerMouth

LOG: Final = logging.getLogger(__name__)

__all__ = [
    "FileMouth",
    "Mouth",
    "NoSpeaker",
    "Output",
    "PrintMouth",
    "SpeakerMouth",
    "SpeechError",
    "SpeechSynthesizer",
    "Synthesizer",
    "make_mouth",
    "make_synthesizer",
]


def make_synthesizer(lang: Lang, voice: str | None = None) -> SpeechSynthesizer:
    """espeak-ng, the voice that always works; a Piper voice when asked for (--voice piper) and installed,
    else espeak-ng after saying why. SpeechError when espeak-ng cannot speak either."""
    if voice == "piper":
        from voicehost.mouth.piper import PiperSynthesizer

        try:
            return PiperSynthesizer.for_lang(lang)
        except SpeechError as exc:
            LOG.debug("no Piper voice: %s", exc)
            print(f"voicehost: {voice_notice(exc, lang, 'error.piper_missing')}", file=sys.stderr)
    return Synthesizer(lang)


def make_mouth(
    lang: Lang, audio_out: Path | None, out: IO[str] | None = None, voice: str | None = None
) -> SpeakerMouth | FileMouth | None:
    """Speakers (through sounddevice) or --audio-out, in the voice asked for (`make_synthesizer`); None when
    no voice can speak (the host prints).

    A file that cannot be written is a SpeechError: the player asked for it, so the game does not start."""
    out = out or sys.stdout
    try:
        synthesizer = make_synthesizer(lang, voice)
    except SpeechError as exc:
        LOG.debug("no voice: %s", exc)
        print(f"voicehost: {voice_notice(exc, lang)}", file=sys.stderr)
        return None
    if audio_out is not None:
        return FileMouth(audio_out, synthesizer, out=out, err=sys.stderr)
    return SpeakerMouth(synthesizer, out=out, err=sys.stderr)
