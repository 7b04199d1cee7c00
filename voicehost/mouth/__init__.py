"""The host's mouth: every announcement printed, and spoken to a loudspeaker or into a WAV file.

`make_mouth` builds the one a game needs (its `_make_*` factories are the places tests swap).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import IO

from engine.lang import Lang
from voicehost.mouth.base import Mouth, NoSpeaker, PrintMouth, SpeechError, SpeechSynthesizer
from voicehost.mouth.espeak import Synthesizer
from voicehost.mouth.recording import FileMouth
from voicehost.mouth.speaker import Output, SpeakerMouth

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
]


def make_mouth(lang: Lang, audio_out: Path | None, out: IO[str] | None = None) -> SpeakerMouth | FileMouth | None:
    """Speakers (through sounddevice) or --audio-out; None when espeak-ng cannot speak (the host prints).

    A file that cannot be written is a SpeechError: the player asked for it, so the game does not start."""
    out = out or sys.stdout
    try:
        synthesizer = Synthesizer(lang)
    except SpeechError as exc:
        print(f"voicehost: {exc} The host prints what it would say.", file=sys.stderr)
        return None
    if audio_out is not None:
        return FileMouth(audio_out, synthesizer, out=out, err=sys.stderr)
    return SpeakerMouth(synthesizer, out=out, err=sys.stderr)
