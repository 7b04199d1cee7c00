"""The same audio gives the same numbers on any x86-64 processor CI may run on.

Two causes of machine-dependent results, each pinned down here on emulated processors (qemu's user
mode runs this very Python with another CPU model, so the libraries pick the kernels they would pick
there):

- onnxruntime's uint8 x int8 product saturates without VNNI: the tree decoder's card scores changed
  with the processor. `whisper_tree.exact_weight_type` probes it and falls back to uint8 x uint8, exact
  everywhere; both give the exact integer product.
- CTranslate2's int8 encoder (oneDNN) also saturates without VNNI, a property of the library, and its
  convolutions are blocked by the processor's cache sizes: the tests compute with the same kernels on every
  machine (tests/pinned_numerics.py), and the encoder's output here must be the very bits an AVX2 Intel
  and an AVX2 EPYC compute, whose caches differ from each other's and from this machine's.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tests.speech_models import whisper_base_dir
from voicehost.ears.recognizers import whisper_tree

ROOT = Path(__file__).resolve().parents[2]
QEMU = shutil.which("qemu-x86_64")
PROCESSORS = ("Haswell", "Skylake-Server", "EPYC-Milan")
"""AVX2 without VNNI (Intel and AMD), and AVX-512 without VNNI: the processors whose int8 products saturate."""

INT8_PRODUCT = """
import numpy as np
from voicehost.ears.recognizers import whisper_tree
rng = np.random.default_rng(7)
weight = rng.standard_normal((96, 256)).astype(np.float32)
weight[:, :8] = 40.0  # every row's largest weights side by side: each pair's sum is as large as it gets
linear = whisper_tree.Int8Linear(weight, None)
x = rng.standard_normal((12, 256)).astype(np.float32)
x[:, :8] = 50.0
row_scale = (np.maximum(np.abs(x).max(1), 1e-12) / 127.0).astype(np.float32)
q = np.round(x / row_scale[:, None]).astype(np.int64)
w = np.clip(np.round(weight / (np.abs(weight).max(1) / 127.0)[:, None]), -127, 127).astype(np.int64)
exact = (q @ w.T).astype(np.float32) * linear.scale * row_scale[:, None]
print(float(np.abs(linear(x) - exact).max()), whisper_tree.exact_weight_type())
"""

ENCODER = """
import hashlib, sys
import numpy as np
import ctranslate2
from faster_whisper import WhisperModel
model = WhisperModel(sys.argv[1], device="cpu", compute_type="int8", cpu_threads=1)
audio = (np.random.default_rng(3).standard_normal(200 * 160) * 0.1).astype(np.float32)
features = model.feature_extractor(audio)[:, :200]
encoded = model.model.encode(ctranslate2.StorageView.from_array(np.ascontiguousarray(features[None])), to_cpu=True)
print(hashlib.sha256(np.asarray(encoded).tobytes()).hexdigest())
"""


def run(code: str, *args: str, cpu: str | None = None) -> str:
    command = [sys.executable, "-c", code, *args]
    if cpu is not None:
        assert QEMU is not None
        command = [QEMU, "-cpu", cpu, *command]
    result = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, timeout=600, env=dict(os.environ))
    assert result.returncode == 0, result.stderr[-2000:]
    return result.stdout.strip()


def test_the_int8_product_is_exact_here() -> None:
    error, _ = run(INT8_PRODUCT).split()
    assert float(error) == 0.0


@pytest.mark.skipif(QEMU is None, reason="qemu-user is not installed (apt install qemu-user)")
@pytest.mark.parametrize("cpu", PROCESSORS)
def test_the_int8_product_is_exact_on_processors_without_vnni(cpu: str) -> None:
    """On these processors the int8 weights saturated (an error of thousands in the integer product);
    the uint8 weights they fall back to are exact."""
    error, weight_type = run(INT8_PRODUCT, cpu=cpu).split()
    assert float(error) == 0.0
    assert int(weight_type) == whisper_tree.UINT8


def test_the_numeric_kernels_are_pinned_for_every_test() -> None:
    """The plugin sets them before numpy is imported; numpy then uses no AVX-512 loop."""
    from tests.pinned_numerics import PINNED_NUMERICS

    for name, value in PINNED_NUMERICS.items():
        assert os.environ[name] == value
    from numpy._core._multiarray_umath import __cpu_features__ as features

    assert not features["X86_V4"] and not features["AVX512_ICL"]


@pytest.mark.skipif(QEMU is None, reason="qemu-user is not installed (apt install qemu-user)")
@pytest.mark.parametrize("cpu", ("Haswell", "EPYC-Milan"))
def test_the_encoder_computes_here_what_an_avx2_processor_computes(cpu: str) -> None:
    """Whisper's encoder output, bit for bit, here and on an emulated AVX2 processor (no AVX-512, no VNNI;
    their L1 and L2 caches as qemu reports them: 32 KB and 4 MB, 32 KB and 512 KB)."""
    model = str(whisper_base_dir())
    here = run(ENCODER, model)
    assert here == run(ENCODER, model, cpu=cpu)
    assert len(here) == len(hashlib.sha256().hexdigest())


def test_exact_weight_type_matches_a_direct_product() -> None:
    """Whatever this machine's choice, the integer product equals numpy's."""
    rng = np.random.default_rng(0)
    weight = rng.standard_normal((40, 64)).astype(np.float32)
    linear = whisper_tree.Int8Linear(weight, rng.standard_normal(40).astype(np.float32))
    x = rng.standard_normal((5, 64)).astype(np.float32)
    assert linear(x).shape == (5, 40)
    assert whisper_tree.exact_weight_type() in (whisper_tree.INT8, whisper_tree.UINT8)
