"""How noisy the room was when a move was said: a rough signal-to-noise estimate of one utterance.

The decision's confidence depends on the room: the same scores are worth less when other players talk
over the guess. The detector hands the recognizer an utterance with a little of the room around it (its
pre-roll and closing silence) and the pauses between its words: the quieter 20 ms frames are the room,
the loudest the speech over it. The estimate is the gap between the loudest tenth of the frames and the
frame a quarter of the way up from the quietest, in dB, capped at 40. Not the very quietest frames:
talk around the table has pauses too, and a short utterance may fall in one (on the bench's babble the
quietest tenth read as a quiet room for most guesses heard with four talkers at 10 dB). With the quarter,
the median guess of the tuning voices reads 40 clean, about 18 at 20 dB of babble, 15 at 10 dB and 12
at 5 dB, though one clean guess in ten reads under 20. It is a feature of the calibrated decision, never
a verdict of its own.
"""

from __future__ import annotations

from typing import Final

import numpy as np

from voicehost.audio.samples import Audio

FRAME_SAMPLES: Final = 320
"""20 ms at 16 kHz."""
ROOM_QUANTILE: Final = 0.25
SPEECH_QUANTILE: Final = 0.9
"""The room is the level of the frame a quarter of the way up, the speech that of the loudest tenth."""
FLOOR_DB: Final = 0.0
CEILING_DB: Final = 40.0
"""Estimates are kept within these: above 40 dB every room is quiet enough."""


def snr_db(audio: Audio) -> float | None:
    """The speech's level over the room's, in dB (FLOOR_DB..CEILING_DB); None for under 0.1 s of audio."""
    count = len(audio) // FRAME_SAMPLES
    if count < 5:
        return None
    frames = audio[: count * FRAME_SAMPLES].astype(np.float64).reshape(count, FRAME_SAMPLES)
    power = np.sort(np.mean(frames**2, axis=1))
    room = float(power[int(count * ROOM_QUANTILE)])
    speech = float(np.mean(power[int(count * SPEECH_QUANTILE) :]))
    if speech <= 0.0:
        return FLOOR_DB
    ratio = 10.0 * np.log10(speech / max(room, speech * 10 ** (-CEILING_DB / 10)))
    return round(float(min(CEILING_DB, max(FLOOR_DB, ratio))), 2)
