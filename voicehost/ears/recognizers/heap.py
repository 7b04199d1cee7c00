"""The hearing process's malloc heap: one arena, and what it frees handed back.

glibc gives a thread that allocates while another holds the heap an arena of its own (up to 8 per core),
and each arena keeps what its thread freed. The ears' thread, the priors computed ahead and a board's
examples each computing in turn grew arenas that stayed: over 10 minutes heard the peak was 510 MB with
them, 448 MB with one heap, and the same real-time factor (`python -m bench --sections resources`): the
threads that compute take turns anyway (one holds the recognizer's lock at a time).
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import logging
from functools import cache
from typing import Final

M_ARENA_MAX: Final = -8
"""glibc's mallopt parameter for the most arenas the process may have."""

log = logging.getLogger(__name__)


@cache
def _libc() -> ctypes.CDLL | None:
    name = ctypes.util.find_library("c")
    if name is None:
        return None
    try:
        return ctypes.CDLL(name)
    except OSError:
        return None


@cache
def one_heap() -> bool:
    """Limit the process to one malloc arena from now on, where the C library is glibc; whether it did.
    Once per process, when the recognizer is built: before its own threads (the priors ahead, the examples)
    start; threads that already have an arena (a display's, the microphone's) keep it."""
    libc = _libc()
    with contextlib.suppress(AttributeError):
        done = libc is not None and bool(libc.mallopt(M_ARENA_MAX, 1))
        log.debug("one malloc arena: %s", done)
        return done
    return False


def return_freed_memory() -> None:
    """What glibc kept of the blocks freed since (loading, an utterance's working arrays) goes back to the
    system: else the process keeps its largest working set of every kind (100 MB more after 10 minutes)."""
    libc = _libc()
    with contextlib.suppress(AttributeError):
        if libc is not None:
            libc.malloc_trim(0)
