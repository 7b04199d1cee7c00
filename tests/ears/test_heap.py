"""One malloc heap for the hearing process: threads that allocate share the main arena."""

from __future__ import annotations

import subprocess
import sys

import pytest

COUNT_HEAPS = """
import ctypes, ctypes.util, sys, threading
from voicehost.ears.recognizers.heap import one_heap
if sys.argv[1] == "one":
    assert one_heap()
libc = ctypes.CDLL(ctypes.util.find_library("c"))
libc.malloc.restype = ctypes.c_void_p
libc.free.argtypes = [ctypes.c_void_p]
def work():
    blocks = [libc.malloc(4096) for _ in range(100)]
    for block in blocks:
        libc.free(block)
threads = [threading.Thread(target=work) for _ in range(4)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
libc.open_memstream.restype = ctypes.c_void_p
text, size = ctypes.c_char_p(), ctypes.c_size_t()
stream = libc.open_memstream(ctypes.byref(text), ctypes.byref(size))
libc.malloc_info(0, ctypes.c_void_p(stream))
libc.fclose(ctypes.c_void_p(stream))
print(text.value.decode().count("<heap nr="))
"""


def _heaps(mode: str) -> int:
    done = subprocess.run([sys.executable, "-c", COUNT_HEAPS, mode], capture_output=True, text=True, check=True)
    return int(done.stdout.strip())


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's arenas")
def test_threads_share_one_heap_once_asked() -> None:
    assert _heaps("default") > 1  # each thread gets an arena of its own by default
    assert _heaps("one") == 1
