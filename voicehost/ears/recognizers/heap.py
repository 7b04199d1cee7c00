"""One malloc heap for the process that hears with Whisper.

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
def one_heap() -> bool:
    """Limit the process to one malloc arena from now on, where the C library is glibc; whether it did.
    Once per process: threads that already have an arena keep it, so it is called before the threads start."""
    name = ctypes.util.find_library("c")
    if name is None:
        return False
    with contextlib.suppress(OSError, AttributeError):
        done = bool(ctypes.CDLL(name).mallopt(M_ARENA_MAX, 1))
        log.debug("one malloc arena: %s", done)
        return done
    return False
