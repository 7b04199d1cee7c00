"""How far a window of sound stands above the room behind it: the player speaking to the host is nearer the
microphone, and louder, than the other players talking among themselves.

The voice activity detector hears every voice as speech, the table's other talkers too: in a room where they
never stop, an utterance never closes and runs to its longest (12 s of their talk with the move somewhere in
it). The segmenter therefore counts a window as the player's speech only where it is also loud enough over
the room's background level (`Background`): a low percentile of the recent windows' levels, which the
player's few seconds of speech do not lift, and which follows the room when the talk around the table
starts or stops. In a quiet room the background is the microphone's hiss, and every word stands far above it.
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass
from typing import Final

import numpy as np

from voicehost.audio.samples import Audio

BACKGROUND_WINDOWS: Final = 188
"""The background is measured over the last this many windows (6 s of 32 ms): longer than a move, so the
player's own speech stays a minority of it."""
BACKGROUND_PERCENTILE: Final = 20.0
"""The background is this percentile of those windows' levels: where the room's talk sits between the
player's words."""
MIN_BACKGROUND_WINDOWS: Final = 16
"""Before this much of the room was heard (half a second), no background is known and nothing is gated."""
SMOOTHING_WINDOWS: Final = 3
"""A window's level, for speech to begin, is its power averaged with the windows just before it (96 ms): a
syllable, not a click..."""
SUSTAIN_WINDOWS: Final = 10
"""...and, for speech to go on, averaged over this many (320 ms): the other talkers' syllables rise above
their own level for a moment, and each such burst would hold a finished utterance open (chosen with the
margins in `voicehost.ears.vad`)."""
SILENCE_DB: Final = -120.0
"""The level of digital silence (a window of zeros)."""


def level_db(window: Audio) -> float:
    """The mean power of a window, in dB relative to full scale (SILENCE_DB for zeros)."""
    power = float(np.mean(np.square(window, dtype=np.float64))) if len(window) else 0.0
    return 10.0 * math.log10(power) if power > 10 ** (SILENCE_DB / 10) else SILENCE_DB


@dataclass(frozen=True)
class Above:
    """How many dB a window stands above the room's background: `onset` smoothed over SMOOTHING_WINDOWS (for
    speech to begin), `sustained` over the longer `sustain` windows (for it to go on). Infinite while too
    little of the room was heard to know its level."""

    onset: float
    sustained: float


class Background:
    """The room's level behind the player, window by window, and how far each window stands above it."""

    def __init__(self, sustain: int = SUSTAIN_WINDOWS) -> None:
        self._levels: deque[float] = deque(maxlen=BACKGROUND_WINDOWS)
        self._powers: deque[float] = deque(maxlen=max(sustain, SMOOTHING_WINDOWS))
        self._sustain = sustain

    def above(self, window: Audio, *, learn: bool = True) -> Above:
        """How far the window stands above the background heard before it. `learn`: the window is of the
        room (not while the host itself talks: its voice is no background a player must rise above)."""
        level = level_db(window)
        self._powers.append(10 ** (level / 10))
        known = len(self._levels) >= MIN_BACKGROUND_WINDOWS
        floor = (
            float(np.percentile(np.fromiter(self._levels, dtype=np.float64), BACKGROUND_PERCENTILE)) if known else 0.0
        )
        if learn:
            self._levels.append(level)
        if not known:
            return Above(math.inf, math.inf)
        return Above(self._mean_db(SMOOTHING_WINDOWS) - floor, self._mean_db(self._sustain) - floor)

    def _mean_db(self, windows: int) -> float:
        recent = list(self._powers)[-windows:]
        return 10.0 * math.log10(max(sum(recent) / len(recent), 10 ** (SILENCE_DB / 10)))
