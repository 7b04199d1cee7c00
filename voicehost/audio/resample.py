"""Sample-rate conversion (recordings, microphones, voices and satellites at any rate) with libsoxr."""

from __future__ import annotations

from typing import Final

import numpy as np
import soxr

from voicehost.audio.samples import Audio

QUALITY: Final = "HQ"
"""libsoxr's high quality: a stop band past 120 dB, flat through the pass band, in float32."""


class Resampler:
    """Band-limited rate conversion of a stream: `process` may be fed any chunk sizes and gives what is
    ready so far; `flush` gives the rest, the input taken as ended. The output does not depend on how the
    input was cut into chunks, and starts in step with the input (libsoxr compensates its filter's delay)."""

    def __init__(self, src_rate: int, dst_rate: int) -> None:
        if src_rate <= 0 or dst_rate <= 0:
            raise ValueError(f"sample rates must be positive, not {src_rate} and {dst_rate}")
        self._stream = soxr.ResampleStream(int(src_rate), int(dst_rate), 1, dtype="float32", quality=QUALITY)

    def process(self, chunk: Audio) -> Audio:
        """The output samples the chunk completes."""
        return self._convert(chunk, last=False)

    def flush(self) -> Audio:
        """The remaining output; the resampler takes no more input after it."""
        return self._convert(np.zeros(0, dtype=np.float32), last=True)

    def _convert(self, chunk: Audio, *, last: bool) -> Audio:
        samples = np.ascontiguousarray(chunk, dtype=np.float32).reshape(-1)
        out: Audio = np.asarray(self._stream.resample_chunk(samples, last=last), dtype=np.float32)
        return out


def resample(audio: Audio, src_rate: int, dst_rate: int) -> Audio:
    """`audio` converted from `src_rate` to `dst_rate`: the very samples a `Resampler` gives, fed whole."""
    audio = np.asarray(audio, dtype=np.float32).reshape(-1)
    if src_rate == dst_rate:
        return audio
    resampler = Resampler(src_rate, dst_rate)
    return np.concatenate([resampler.process(audio), resampler.flush()])
