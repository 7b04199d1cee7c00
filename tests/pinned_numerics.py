"""A pytest plugin loaded before anything else (pyproject's `addopts = -p tests.pinned_numerics`).

The same commit gives the same result on any x86-64 machine CI may run on. Speech libraries pick their
kernels by the processor's instruction sets, and int8 products give other numbers with and without VNNI
(oneDNN's u8 x s8 saturates on AVX2: a voice game asked 18 questions in 20 utterances on an AVX2 EPYC,
5 in 25 on an AVX-512 one). Every test computes as an AVX2 processor does, the baseline of every CI
machine: CTranslate2's own kernels, OpenBLAS (numpy's products) and numpy's loops. oneDNN (the encoder's
convolutions and products) is held to AVX: its AVX2 convolution picks its blocking by the processor's cache
sizes, so an Intel Xeon (48 KB of L1, 2 MB of L2 a core) summed the encoder's second convolution in another
order than an EPYC, and four voice tests heard other words there; its AVX kernels block alike everywhere.
Set before numpy or CTranslate2 is imported, for the tests and every subprocess they start. Checked bit for
bit under `qemu-x86_64` as an AVX2 Intel and an AVX2 EPYC (tests/system/test_numerics.py).
"""

from __future__ import annotations

import os
from typing import Final

PINNED_NUMERICS: Final = {
    "ONEDNN_MAX_CPU_ISA": "AVX",
    "CT2_FORCE_CPU_ISA": "AVX2",
    "CT2_USE_MKL": "0",
    "OPENBLAS_CORETYPE": "Haswell",
    "NPY_DISABLE_CPU_FEATURES": "X86_V4,AVX512_ICL,AVX512_SPR",
}
os.environ.update(PINNED_NUMERICS)
