"""A recording played back as a stream of chunks, as a microphone would deliver it (--audio-in)."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from typing import Final

import numpy as np

from voicehost.audio.samples import SAMPLE_RATE, Audio
from voicehost.audio.wav import wav_blocks

CHUNK_SECONDS: Final = 0.032
"""Audio handed to the ears at a time: one voice-detector window (512 samples at 16 kHz), so the end of
speech is seen within a window of its happening. With 0.1 s chunks each utterance's close waited up to
100 ms for the chunk that held it: on the quick latency bench, end of speech → first sample went from
384 / 552 to 332 / 502 ms p50 / p90 and vosk → result from 189 / 227 to 162 / 175 ms; the per-chunk
overhead (a queue hand-off, a loudness for the echo gate) stays far under a millisecond."""


def file_chunks(
    path: str | os.PathLike[str],
    chunk_seconds: float = CHUNK_SECONDS,
    realtime: bool = False,
    *,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
) -> Iterator[Audio]:
    """A recording cut into chunks, as a microphone would deliver it (--audio-in).

    realtime=True hands each chunk over when it would have finished being recorded, so timers and
    end-of-speech delays behave as at a table; False is as fast as possible (tests, benchmarks).
    """
    size = max(1, round(chunk_seconds * SAMPLE_RATE))
    start = clock()
    sent = 0
    pending = np.zeros(0, dtype=np.float32)
    blocks = wav_blocks(path)
    for block in _with_end(blocks):
        pending = np.concatenate([pending, block]) if block is not None else pending
        while len(pending) >= size or (block is None and len(pending)):
            chunk, pending = pending[:size], pending[size:]
            sent += len(chunk)
            if realtime:
                due = start + sent / SAMPLE_RATE  # scheduled from the start: no drift
                delay = due - clock()
                if delay > 0:
                    sleep(delay)
            yield chunk


def _with_end(blocks: Iterator[Audio]) -> Iterator[Audio | None]:
    """The blocks, then None: the moment to hand over what is left."""
    yield from blocks
    yield None
