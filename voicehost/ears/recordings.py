"""A recording played back as a stream of chunks, as a microphone would deliver it (--audio-in)."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from typing import Final

import numpy as np

from voicehost.audio.samples import SAMPLE_RATE, Audio
from voicehost.audio.wav import wav_blocks

CHUNK_SECONDS: Final = 0.1
"""Audio handed to the recognizer at a time: short enough for a snappy end of speech, long enough
that Python's per-chunk overhead stays negligible."""


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
