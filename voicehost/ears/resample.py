"""Band-limited sample-rate conversion with numpy alone (recordings, microphones and voices at any rate)."""

from __future__ import annotations

import math
from typing import Final

import numpy as np

from voicehost.ears.audio import Audio

RESAMPLE_ZERO_CROSSINGS: Final = 16
"""Half-length of the windowed-sinc filter, in zero crossings: 16 gives a ~70 dB stop band."""
RESAMPLE_KAISER_BETA: Final = 8.6
RESAMPLE_ROLLOFF: Final = 0.95
"""The filter's cutoff as a fraction of the lower Nyquist frequency: a little below it, so what
would alias is attenuated before it gets there."""
RESAMPLE_MAX_PHASES: Final = 4096
"""Odd rate pairs (44101 Hz) would need a huge filter table; past this many phases the sub-sample
position is rounded to 1/4096 of a sample, an error far below 16-bit noise."""
RESAMPLE_BLOCK: Final = 8192


class Resampler:
    """Band-limited rate conversion with numpy alone: a Kaiser-windowed sinc evaluated at each output
    sample's position, the weights tabled per sub-sample phase (a polyphase filter).

    Works on a stream: `process` may be fed any chunk sizes and gives what is fully determined so
    far; `flush` gives the rest. Quality: ~70 dB stop band, flat to 0.95 × the lower Nyquist
    frequency; linear interpolation would fold 8–11 kHz of 22 kHz speech back into the speech band.
    """

    def __init__(self, src_rate: int, dst_rate: int) -> None:
        if src_rate <= 0 or dst_rate <= 0:
            raise ValueError(f"sample rates must be positive, not {src_rate} and {dst_rate}")
        common = math.gcd(int(src_rate), int(dst_rate))
        self._up = int(dst_rate) // common
        self._down = int(src_rate) // common
        cutoff = min(1.0, dst_rate / src_rate) * RESAMPLE_ROLLOFF
        self._half = math.ceil(RESAMPLE_ZERO_CROSSINGS / cutoff)
        self._phases = min(self._up, RESAMPLE_MAX_PHASES)
        self._offsets = np.arange(-self._half + 1, self._half + 1, dtype=np.int64)
        distance = self._offsets[None, :] - (np.arange(self._phases) / self._phases)[:, None]
        ratio = np.clip(1.0 - (distance / self._half) ** 2, 0.0, None)
        window = np.i0(RESAMPLE_KAISER_BETA * np.sqrt(ratio)) / np.i0(RESAMPLE_KAISER_BETA)
        table = cutoff * np.sinc(cutoff * distance) * window
        self._table = (table / table.sum(axis=1, keepdims=True)).astype(np.float32)  # unit gain at DC
        self._buffer = np.zeros(self._half, dtype=np.float32)  # silence before the first sample
        self._buffer_start = -self._half  # absolute input index of _buffer[0]
        self._next = 0  # next output sample
        self._received = 0

    def process(self, chunk: Audio) -> Audio:
        """The output samples whose whole filter window has arrived."""
        chunk = np.asarray(chunk, dtype=np.float32).reshape(-1)
        self._received += len(chunk)
        self._buffer = np.concatenate([self._buffer, chunk])
        last = self._buffer_start + len(self._buffer) - 1
        return self._produce(self._ready_until(last))

    def flush(self) -> Audio:
        """The remaining output, the input taken as silent after its end."""
        total = -(-self._received * self._up // self._down)
        self._buffer = np.concatenate([self._buffer, np.zeros(self._half + 2, dtype=np.float32)])
        last = self._buffer_start + len(self._buffer) - 1
        return self._produce(min(total, self._ready_until(last)))

    def _ready_until(self, last: int) -> int:
        # Output n needs inputs up to base(n) + half; rounding a phase may add one to base.
        limit = last - self._half
        return max(self._next, -(-limit * self._up // self._down)) if limit > 0 else self._next

    def _produce(self, end: int) -> Audio:
        pieces: list[Audio] = []
        for first in range(self._next, end, RESAMPLE_BLOCK):
            n = np.arange(first, min(end, first + RESAMPLE_BLOCK), dtype=np.int64)
            base, remainder = np.divmod(n * self._down, self._up)
            if self._phases == self._up:
                phase = remainder
            else:
                phase = (remainder * self._phases + self._up // 2) // self._up
                carry = phase == self._phases
                base = base + carry
                phase = np.where(carry, 0, phase)
            index = (base - self._buffer_start)[:, None] + self._offsets[None, :]
            pieces.append(np.einsum("ij,ij->i", self._buffer[index], self._table[phase]).astype(np.float32))
        self._next = max(self._next, end)
        needed_from = (self._next * self._down) // self._up - self._half + 1
        drop = max(0, min(needed_from - self._buffer_start, len(self._buffer)))
        self._buffer = self._buffer[drop:]
        self._buffer_start += drop
        return np.concatenate(pieces) if pieces else np.zeros(0, dtype=np.float32)


def resample(audio: Audio, src_rate: int, dst_rate: int) -> Audio:
    """`audio` converted from `src_rate` to `dst_rate` (see `Resampler` for the quality)."""
    audio = np.asarray(audio, dtype=np.float32).reshape(-1)
    if src_rate == dst_rate:
        return audio
    resampler = Resampler(src_rate, dst_rate)
    return np.concatenate([resampler.process(audio), resampler.flush()])
