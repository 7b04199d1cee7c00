"""A satellite's sound: its audio chunks checked and turned into the ears' 16 kHz mono.

Wyoming audio is signed little-endian PCM (`width` bytes a sample, 1 to 4: 24-bit is three bytes) with
`channels` interleaved, at `rate`. Only what a microphone can sensibly give is taken: 8 to 48 kHz, up
to 8 channels. Anything else would cost the resampler minutes or gigabytes (1 Hz is 16000 output
samples an input sample; 5000011 Hz a filter table of hundreds of megabytes), so it is refused with a
Problem the player is told, never silently dropped.

The one place the satellite's microphone reaches the ears' resampler.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from voicehost.audio.resample import Resampler
from voicehost.audio.samples import SAMPLE_RATE, Audio
from voicehost.frontends.satellite_problems import BAD_CHANNELS, BAD_RATE, BAD_WIDTH, MALFORMED, Problem

MIN_RATE: Final = 8000
MAX_RATE: Final = 48000
MAX_CHANNELS: Final = 8
WIDTHS: Final = (1, 2, 3, 4)


class UnusableAudio(Exception):
    """A chunk whose format cannot be heard; `problem` says why, for the player."""

    def __init__(self, problem: Problem) -> None:
        super().__init__(problem.key)
        self.problem = problem


@dataclass(frozen=True)
class ChunkFormat:
    rate: int
    width: int
    channels: int


def chunk_format(data: dict[str, Any]) -> ChunkFormat:
    """The format an `audio-chunk` announces, checked; UnusableAudio when it cannot be heard."""
    rate, width, channels = data.get("rate"), data.get("width"), data.get("channels", 1)
    if not all(_is_int(value) for value in (rate, width, channels)):
        raise UnusableAudio(Problem(MALFORMED))
    assert isinstance(rate, int) and isinstance(width, int) and isinstance(channels, int)
    if not MIN_RATE <= rate <= MAX_RATE:
        raise UnusableAudio(Problem(BAD_RATE, {"rate": rate, "low": MIN_RATE, "high": MAX_RATE}))
    if width not in WIDTHS:
        raise UnusableAudio(Problem(BAD_WIDTH, {"width": width}))
    if not 1 <= channels <= MAX_CHANNELS:
        raise UnusableAudio(Problem(BAD_CHANNELS, {"channels": channels, "most": MAX_CHANNELS}))
    return ChunkFormat(rate, width, channels)


def decode(payload: bytes, fmt: ChunkFormat) -> Audio:
    """Whole frames of signed PCM as mono float32 in [-1, 1] at the chunk's own rate."""
    frame = fmt.width * fmt.channels
    raw = np.frombuffer(payload, dtype=np.uint8, count=len(payload) - len(payload) % frame)
    ints: npt.NDArray[np.int32]
    if fmt.width == 3:
        triples = raw.reshape(-1, 3).astype(np.int32)
        unsigned = triples[:, 0] | (triples[:, 1] << 8) | (triples[:, 2] << 16)
        ints = np.where(unsigned >= 1 << 23, unsigned - (1 << 24), unsigned).astype(np.int32)
    else:
        ints = raw.view({1: "<i1", 2: "<i2", 4: "<i4"}[fmt.width]).astype(np.int32)
    samples = ints.astype(np.float64) / float(1 << (8 * fmt.width - 1))
    if fmt.channels > 1:
        samples = samples.reshape(-1, fmt.channels).mean(axis=1)
    return samples.astype(np.float32)


class ToEars:
    """A satellite's chunks as 16 kHz mono, one resampler kept for as long as the rate stays."""

    def __init__(self) -> None:
        self._resampler: tuple[int, Resampler] | None = None

    def to_16khz(self, audio: Audio, rate: int) -> Audio:
        """`audio` (decoded from a chunk checked by `chunk_format`, at `rate`) at 16 kHz."""
        if rate == SAMPLE_RATE:
            return audio
        if self._resampler is None or self._resampler[0] != rate:
            self._resampler = (rate, Resampler(rate, SAMPLE_RATE))
        return self._resampler[1].process(audio)


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
