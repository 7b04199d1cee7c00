"""A player's line as the host's microphone gets it: a bench voice's speech (cached), in a condition's
room and noise, seeded, so that the same line in the same game is the same audio on every run."""

from __future__ import annotations

import zlib
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Final

import numpy as np

from bench.noise import Condition, apply
from bench.voices import VOICES, TestVoice, synthesize
from engine.lang import Lang
from voicehost.audio.samples import SAMPLE_RATE, Audio

LEAD_S: Final = 0.25
TAIL_S: Final = 0.1
"""Around a line's speech, what the condition's noise covers: the other talkers are going on when the
player starts, and stop soon after (the room between lines is quiet but for its hiss)."""


@dataclass(frozen=True)
class Line:
    """A line as the microphone gets it: the speech in the condition's noise, and where its speech ends."""

    audio: Audio
    speech_end: int  # samples into `audio`


def find_voice(voice_id: str, speed: int | None = None) -> TestVoice:
    """A bench voice by its id ("rhvoice:bdl", "pico:it-IT", "espeak:it+m3"), at another speed if given
    (espeak-ng's in words a minute)."""
    for voices in VOICES.values():
        for voice in voices:
            if voice.id == voice_id:
                return voice if speed is None else replace(voice, speed=speed)
    raise KeyError(f"no bench voice {voice_id!r} (bench/voices.py VOICES)")


def line_audio(voice: TestVoice, text: str, condition: Condition, *, seed: int, lang: Lang, cache_dir: Path) -> Line:
    """`text` said by `voice` (cached synthesis), with LEAD_S and TAIL_S of room around it, in the
    condition (its room and its noise over the whole line, seeded by `seed`)."""
    speech = synthesize(voice, text, cache_dir=cache_dir)
    head, tail = round(LEAD_S * SAMPLE_RATE), round(TAIL_S * SAMPLE_RATE)
    clip = np.concatenate([np.zeros(head, np.float32), speech, np.zeros(tail, np.float32)])
    heard = apply(condition, clip, seed=seed, lang=lang.value, cache_dir=cache_dir)
    return Line(np.clip(heard, -1.0, 1.0).astype(np.float32), head + len(speech))


def seed_of(*parts: object) -> int:
    return zlib.crc32("\0".join(str(part) for part in parts).encode())
