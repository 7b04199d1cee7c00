"""The one format every part of the ears hears: 16 kHz mono float32 in [-1, 1]."""

from __future__ import annotations

from typing import Final

import numpy as np
import numpy.typing as npt

SAMPLE_RATE: Final = 16000
"""Every engine here hears 16 kHz mono float32 in [-1, 1]."""

Audio = npt.NDArray[np.float32]


class AudioError(Exception):
    """A recording or an audio device cannot be used; the message is meant for the player."""
