"""Scoring many candidate transcripts against one utterance in one pass of Whisper's decoder.

The host hears a guess by scoring every visible card as a forced transcript (log P(card | audio)).
CTranslate2, which runs the encoder and the free transcript, can force a batch of prompts, but it
projects the audio into the decoder's cross-attention keys and values again for every row of the
batch (its batch of encoder outputs must match its batch of prompts): about 20 ms a card on two
cores, 300-800 ms a guess. Here the keys and values are projected once per utterance, the candidates
are laid out as one token tree (the start tokens, a lead-in and shared first tokens computed once),
and one forward pass over the tree (each node attends to itself and its ancestors only) gives every
node's next-token distribution. The tree grows as candidates are asked for (`Scoring`): what one call
computed, the next reuses, and a node's numbers never depend on the others computed with it.

What it costs: every node goes through six layers and the vocabulary's projection (about 50 million
int8 products, the projection half of them), and every pass reads all the weights once (about 50 MB):
so the candidates of an utterance are scored in as few passes as possible.

The decoder's weights are read from the CTranslate2 model.bin faster-whisper loads (no second model),
and its linear layers run int8 through onnxruntime's MatMulInteger (weights quantized per output
column, activations per row, as CTranslate2's int8 does), which faster-whisper already installs.
Measured against CTranslate2's own forced decoding on 300 utterances of the four test boards: the
same top card within int8 noise; float32 here equals CTranslate2's float32 exactly. The same input
gives bit-identical scores on every run, with one thread or two.
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import math
import mmap
import struct
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Final, TypeVar

import numpy as np
import numpy.typing as npt

Floats = npt.NDArray[np.float32]
T = TypeVar("T")

EPSILON: Final = 1e-5
"""Whisper's layer-norm epsilon."""
LINEARS: Final = (
    "self_attention/linear_0",
    "self_attention/linear_1",
    "attention/linear_0",
    "attention/linear_1",
    "attention/linear_2",
    "ffn/linear_0",
    "ffn/linear_1",
)
DTYPES: Final = (np.float32, np.int8, np.int16, np.int32, np.float16)
"""CTranslate2's model.bin type codes."""


class DecoderFormatError(ValueError):
    """model.bin is not a CTranslate2 Whisper model this decoder can read."""


def read_model(path: Path) -> dict[str, npt.NDArray[Any]]:
    """CTranslate2's model.bin (binary versions 5 and 6): each variable by name, memory-mapped; int8
    weights of a model converted with --quantization int8 are dequantized."""
    mapped = np.memmap(path, dtype=np.uint8, mode="r")
    buffer = memoryview(mapped)  # type: ignore[arg-type]  # numpy arrays are buffers; its stubs do not say so
    position = 0

    def take(fmt: str) -> int:
        nonlocal position
        (value,) = struct.unpack_from(fmt, buffer, position)
        position += struct.calcsize(fmt)
        return int(value)

    def text() -> str:
        nonlocal position
        size = take("H")
        value = bytes(buffer[position : position + size - 1]).decode()
        position += size
        return value

    try:
        version = take("I")
        if version not in (5, 6):
            raise DecoderFormatError(f"model.bin binary version {version} (5 or 6 are read)")
        text(), take("I")  # the model's name, its specification revision
        variables: dict[str, npt.NDArray[Any]] = {}
        for _ in range(take("I")):
            name = text()
            shape = [take("I") for _ in range(take("B"))]
            dtype = np.dtype(DTYPES[take("B")])
            size = take("I")
            count = size // dtype.itemsize
            variables[name] = np.frombuffer(mapped, dtype=dtype, count=count, offset=position).reshape(shape)
            position += size
        for _ in range(take("I")):
            alias, target = text(), text()
            variables[alias] = variables[target]
    except (struct.error, IndexError, ValueError, UnicodeDecodeError) as exc:
        raise DecoderFormatError(f"model.bin cannot be read as a CTranslate2 model ({exc})") from None
    for name in [name for name in variables if name.endswith("weight_scale")]:
        weight = name.removesuffix("_scale")
        variables[weight] = variables[weight].astype(np.float32) / variables[name].reshape(-1, 1)
    return variables


def release(array: npt.NDArray[Any], *, whole_file: bool = False) -> None:
    """Let the pages of `array` go from this process's memory when it is read from a mapped file
    (`read_model`): once quantized, a weight is not read again, yet its pages would stay resident as long
    as the mapping (the decoder's: 100 MB). Read again (an embedding's row), a page comes back alone.
    `whole_file`: every page of the file `array` lies in, also those the kernel mapped around the pages
    read (reading the variables' headers one after another maps most of the file: 80 MB of the encoder's
    weights, which the decoder never reads)."""
    base: Any = array
    while base is not None and not isinstance(base, np.memmap):
        base = base.base
    mapping = getattr(base, "_mmap", None)
    if base is None or mapping is None or not hasattr(mapping, "madvise"):
        return
    page = mmap.PAGESIZE
    start = 0 if whole_file else array.ctypes.data - base.ctypes.data
    first = start // page * page
    end = len(mapping) if whole_file else -(-(start + array.nbytes) // page) * page
    with contextlib.suppress(OSError, ValueError):
        mapping.madvise(mmap.MADV_DONTNEED, first, min(end, len(mapping)) - first)


# ---- int8 products through onnxruntime: a one-node ONNX model, written as protobuf bytes -----------------


def _varint(number: int) -> bytes:
    out = bytearray()
    while True:
        low, number = number & 0x7F, number >> 7
        out.append(low | (0x80 if number else 0))
        if not number:
            return bytes(out)


def _field(number: int, payload: bytes | int) -> bytes:
    if isinstance(payload, int):
        return _varint(number << 3) + _varint(payload)
    return _varint(number << 3 | 2) + _varint(len(payload)) + payload


UINT8: Final = 2
INT8: Final = 3
"""ONNX element types of the operands."""


def _matmul_integer_model(rows: int, columns: int, weight_type: int) -> bytes:
    """An ONNX model of one node: Y(int32)[M, N] = (A(uint8)[M, K] - a_zero) @ (B[K, N] - b_zero), B int8
    (`INT8`, b_zero 0) or uint8 (`UINT8`, b_zero an input: 128 for int8 values shifted up). B is an input,
    not a constant of the model: the weights stay in the caller's array, the one copy of them."""

    def value(name: str, element_type: int, dims: list[int | str]) -> bytes:
        shape = b"".join(_field(1, _field(1, d) if isinstance(d, int) else _field(2, d.encode())) for d in dims)
        return _field(1, name.encode()) + _field(2, _field(1, _field(1, element_type) + _field(2, shape)))

    inputs = ("A", "B", "zp", "bzp") if weight_type == UINT8 else ("A", "B", "zp")
    node = b"".join(_field(1, name.encode()) for name in inputs) + _field(2, b"Y")
    node += _field(4, b"MatMulInteger")
    graph = _field(1, node) + _field(2, b"g")
    graph += _field(11, value("A", UINT8, ["M", rows])) + _field(11, value("B", weight_type, [rows, columns]))
    graph += _field(11, value("zp", UINT8, [1]))
    if weight_type == UINT8:
        graph += _field(11, value("bzp", UINT8, [1]))
    graph += _field(12, value("Y", 6, ["M", columns]))
    return _field(1, 8) + _field(8, _field(1, b"") + _field(2, 17)) + _field(7, graph)


def _session(model: bytes, threads: int = 1) -> Any:
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads, options.inter_op_num_threads = threads, 1
    options.log_severity_level = 4
    # every utterance brings new shapes: an arena per layer would keep the largest of each (hundreds of MB)
    options.enable_cpu_mem_arena = False
    options.enable_mem_pattern = False
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")  # leave the cores to CTranslate2
    return onnxruntime.InferenceSession(model, options, providers=["CPUExecutionProvider"])


@cache
def exact_weight_type() -> int:
    """The weight type whose integer products are exact on this processor: int8 where onnxruntime's
    uint8 x int8 kernel is exact (processors with VNNI), else uint8.

    Without VNNI (AVX2, and AVX-512 before Cascade Lake) onnxruntime multiplies uint8 by int8 with
    `vpmaddubsw`, which saturates each pair's sum at 32,767: on such a processor the same utterance got
    other card scores than on a VNNI one (a voice game that played here asked back nearly every move
    there). uint8 x uint8 widens to 16 bits first and is exact everywhere, about 2.5 times slower than
    VNNI's int8. Probed once with the worst case (255 x 127, pair after pair), so both are bit-identical."""
    probe = np.full((64, 8), 127, dtype=np.int8)
    activations = np.full((2, 64), 255, dtype=np.uint8)
    exact = (activations.astype(np.int64) - 128) @ probe.astype(np.int64)
    session = _session(_matmul_integer_model(*probe.shape, INT8))
    got = session.run(None, {"A": activations, "B": probe, "zp": np.full(1, 128, np.uint8)})[0]
    return INT8 if np.array_equal(got, exact) else UINT8


QUANTIZE_ROWS: Final = 4096
ATTENTION_BLOCK: Final = 128
"""Nodes attended for at once: their gathered ancestor chains, and their scores over the audio's frames."""
MAX_WORKERS: Final = 4
"""Threads a pass's rows are shared between, at most (one per core the recognizer is given)."""
MIN_SHARED_ROWS: Final = 16
"""Fewer new nodes than this are computed in one thread: handing a block over costs more than it saves."""
PROJECTION_BLOCK: Final = 128
"""Rows projected onto the vocabulary at once: 128 x 51,865 integer products are 27 MB."""
NORMALIZER_ROWS: Final = 8
"""Rows whose softmax over the vocabulary is taken at once: 1.7 MB of floats, within the processor's cache."""


class Products:
    """One buffer for the integer products of a decoder's linear layers, which run one after another:
    reused, so a pass allocates none (a fresh 27 MB block of products is also 7,000 page faults, and
    what glibc keeps of such blocks stays in the process). One thread at a time."""

    def __init__(self) -> None:
        self._buffer = np.empty(0, dtype=np.int32)

    def take(self, rows: int, columns: int) -> npt.NDArray[np.int32]:
        """Room for `rows` x `columns` products, valid until the next `take`."""
        if self._buffer.size < rows * columns:
            self._buffer = np.empty(rows * columns, dtype=np.int32)
        return self._buffer[: rows * columns].reshape(rows, columns)


class Int8Linear:
    """x @ W + b with W quantized per output column and x per row, the product in integers."""

    def __init__(
        self, weight: npt.NDArray[Any], bias: Floats | None, *, threads: int = 1, products: Products | None = None
    ) -> None:
        """`weight`: (outputs, inputs), as stored; quantized a block of rows at a time into the one array
        the products read, so loading never holds a float copy of the largest matrix (the vocabulary's
        projection: 100 MB) nor a second copy of its integers. `threads`: the products' threads;
        `products`: where they are written (shared by the layers of a decoder)."""
        import onnxruntime

        outputs, inputs = weight.shape
        self.scale = np.empty(outputs, dtype=np.float32)
        quantized = np.empty((inputs, outputs), dtype=np.int8)  # transposed: (inputs, outputs)
        for start in range(0, outputs, QUANTIZE_ROWS):
            rows = np.asarray(weight[start : start + QUANTIZE_ROWS], dtype=np.float32)
            scale = np.maximum(np.abs(rows).max(1), 1e-12) / 127.0
            self.scale[start : start + len(rows)] = scale
            quantized[:, start : start + len(rows)] = np.clip(np.round(rows / scale[:, None]), -127, 127).T
        self.bias = bias
        self.zero = np.full(1, 128, np.uint8)
        weight_type = exact_weight_type()
        if weight_type == UINT8:  # the same values shifted up, their zero point 128: exact without VNNI
            unsigned = quantized.view(np.uint8)
            np.bitwise_xor(unsigned, np.uint8(0x80), out=unsigned)  # v + 128 for every int8 v, in place
            self.weights: npt.NDArray[Any] = unsigned
            self.feeds: dict[str, npt.NDArray[Any]] = {"B": unsigned, "zp": self.zero, "bzp": self.zero}
        else:
            self.weights = quantized
            self.feeds = {"B": quantized, "zp": self.zero}
        self.session: Any = _session(_matmul_integer_model(inputs, outputs, weight_type), threads)
        self._values = {name: onnxruntime.OrtValue.ortvalue_from_numpy(value) for name, value in self.feeds.items()}
        self._ortvalue = onnxruntime.OrtValue.ortvalue_from_numpy
        self._products = products or Products()
        self.outputs = outputs

    def __call__(self, x: Floats, into: Products | None = None) -> Floats:
        products, row_scale = self.products(x, into)
        y: Floats = self.scaled(products, row_scale)
        if self.bias is not None:
            y += self.bias
        return y

    def products(self, x: Floats, into: Products | None = None) -> tuple[npt.NDArray[np.int32], Floats]:
        """The integer products of x's rows (quantized per row) with the weights, written into `into` (the
        layers' own `Products` when None; valid until its next `take`), and each row's scale."""
        row_scale = (np.maximum(np.abs(x).max(1), 1e-12) / 127.0).astype(np.float32)
        quantized = (np.round(x / row_scale[:, None]) + 128).astype(np.uint8)
        products = (into or self._products).take(len(x), self.outputs)
        binding = self.session.io_binding()  # written into `products`, read from the arrays themselves
        binding.bind_ortvalue_input("A", self._ortvalue(quantized))
        for name, value in self._values.items():
            binding.bind_ortvalue_input(name, value)
        binding.bind_ortvalue_output("Y", self._ortvalue(products))
        self.session.run_with_iobinding(binding)
        return products, row_scale

    def scaled(self, products: npt.NDArray[np.int32], row_scale: Floats) -> Floats:
        """Integer products as floats: each column's scale, then each row's (the bias is not added)."""
        y: Floats = products.astype(np.float32)
        y *= self.scale
        y *= row_scale[:, None]
        return y


# ---- the decoder -----------------------------------------------------------------------------------------


def _layer_norm(x: Floats, gamma: Floats, beta: Floats) -> Floats:
    centered = x - x.mean(-1, keepdims=True)
    normed: Floats = centered / np.sqrt((centered * centered).mean(-1, keepdims=True) + EPSILON) * gamma + beta
    return normed


def _gelu(x: Floats) -> Floats:
    """Exact GELU (as CTranslate2's); erf by Abramowitz-Stegun 7.1.26 (error below 1.5e-7):
    0.5 x (1 + sign(x) erf(|x| / sqrt 2)), erf(z) = 1 - t (a1 + t (a2 + ...)) exp(-z^2), t = 1 / (1 + p z).
    Computed in place, operation by operation, in float32: a layer's (nodes x 2048) arrays are a few MB."""
    z = np.abs(x)
    z *= np.float32(1 / math.sqrt(2))
    t = np.multiply(z, 0.3275911, dtype=np.float32)
    t += 1
    np.divide(1, t, out=t)
    poly = np.multiply(t, 1.061405429, dtype=np.float32)
    for coefficient in (-1.453152027, 1.421413741, -0.284496736, 0.254829592):
        poly += coefficient
        poly *= t
    np.negative(z, out=t)
    t *= z
    np.exp(t, out=t)
    poly *= t
    np.subtract(1, poly, out=poly)  # erf(|x| / sqrt 2)
    np.sign(x, out=t)
    t *= poly
    t += 1
    out: Floats = np.multiply(x, 0.5, dtype=np.float32)
    out *= t
    return out


def _softmax(scores: Floats) -> Floats:
    exp = np.exp(scores - scores.max(-1, keepdims=True))
    out: Floats = exp / exp.sum(-1, keepdims=True)
    return out


@cache
def _blas() -> Any:
    """numpy's BLAS, to be held to one thread while an utterance is heard: its products there are small (a
    node's query against the audio, the mel filters), and OpenBLAS's threads cost far more than they give:
    the same products took 50 times as long with two threads as with one on a loaded 2-core machine.
    None without threadpoolctl."""
    try:
        from threadpoolctl import ThreadpoolController
    except ImportError:
        return None
    return ThreadpoolController()


def one_blas_thread() -> contextlib.AbstractContextManager[object]:
    """numpy's BLAS held to one thread within (see `_blas`); nothing without threadpoolctl. The limit is the
    process's: one thread at a time may be within (OpenBLAS's count goes astray when several set it)."""
    controller = _blas()
    return contextlib.nullcontext() if controller is None else controller.limit(limits=1, user_api="blas")


@dataclass(frozen=True)
class Memory:
    """Each decoder layer's cross-attention keys (transposed: heads, head size, frames) and values (heads,
    frames, head size) for one utterance."""

    keys: list[Floats]
    values: list[Floats]

    @property
    def frames(self) -> int:
        return int(self.values[0].shape[1]) if self.values else 0


@dataclass(frozen=True)
class _Step:
    """One decoder layer as a pass goes through it: its weights, the utterance's keys and values over the
    audio, and the tree's self-attention cache of that layer (room made for the pass's nodes)."""

    layer: dict[str, Any]
    audio_keys: Floats
    audio_values: Floats
    keys: Floats
    values: Floats


class TreeScorer:
    """log P(tokens | audio, prefix) for many (prefix, tokens) pairs in one pass of Whisper's decoder."""

    def __init__(self, model_dir: Path, *, threads: int = 1) -> None:
        """`threads`: for the vocabulary's projection, the largest of the integer products (exact with any
        number), and the workers a pass's nodes are shared between (`each`): each layer's products are too
        small to share within (one thread pool each, woken some 40 times a pass), its rows are not."""
        weights = read_model(Path(model_dir) / "model.bin")
        self._products = Products()
        try:
            self.heads = int(np.asarray(weights.get("decoder/num_heads", 8)).reshape(-1)[0])
            self.embeddings = weights["decoder/embeddings/weight"]  # float16: rows converted on lookup
            self.positions = self._floats(weights, "decoder/position_encodings/encodings")
            self.final_norm = (
                self._floats(weights, "decoder/layer_norm/gamma"),
                self._floats(weights, "decoder/layer_norm/beta"),
            )
            self.width = int(self.embeddings.shape[1])
            self.layers: list[dict[str, Any]] = []
            index = 0
            while f"decoder/layer_{index}/ffn/linear_0/weight" in weights:
                prefix = f"decoder/layer_{index}/"
                layer: dict[str, Any] = {}
                for name in LINEARS:
                    weight = weights[prefix + name + "/weight"]
                    bias = self._floats(weights, prefix + name + "/bias")
                    layer[name] = Int8Linear(weight, bias, products=self._products)
                    release(weight)
                for norm in ("self_attention", "attention", "ffn"):
                    layer[norm] = (
                        self._floats(weights, prefix + norm + "/layer_norm/gamma"),
                        self._floats(weights, prefix + norm + "/layer_norm/beta"),
                    )
                self.layers.append(layer)
                index += 1
            projection = weights.get("decoder/projection/weight", weights["decoder/embeddings/weight"])
            self.projection = Int8Linear(projection, None, threads=threads, products=self._products)
            release(projection)  # the embeddings' too, when they are the same: their rows come back as looked up
            release(self.embeddings, whole_file=True)
        except KeyError as exc:
            raise DecoderFormatError(f"model.bin has no {exc} (not a Whisper model)") from None
        if not self.layers:
            raise DecoderFormatError("model.bin has no decoder layers (not a Whisper model)")
        self.head_size = self.width // self.heads
        self._workers = [self._products, *(Products() for _ in range(min(threads, MAX_WORKERS) - 1))]
        self._pool = (
            ThreadPoolExecutor(len(self._workers) - 1, thread_name_prefix="voicehost-decoder")
            if len(self._workers) > 1
            else None
        )

    def parts(self, rows: int) -> list[slice]:
        """A pass's rows as one block for each worker (one block when too few to be worth sharing)."""
        shares = len(self._workers) if rows >= MIN_SHARED_ROWS else 1
        bounds = [rows * i // shares for i in range(shares + 1)]
        return [slice(start, stop) for start, stop in itertools.pairwise(bounds)]

    def each(self, parts: Sequence[slice], step: Callable[[slice, Products, T], None], arguments: Sequence[T]) -> None:
        """`step` over each block of rows (with its worker's products buffer and its argument), the first in
        this thread and the others in the pool's at the same time (the layers' integer products and numpy's
        let go of the interpreter); back when all are done. Each row is computed on its own, so the scores
        are the same, bit for bit, however the rows are shared.
        A block the pool no longer takes (the process ending while the priors ahead are computed) is
        computed in this thread."""
        pool, here, others = self._pool, [0], []
        for number in range(1, len(parts)):
            assert pool is not None  # several blocks only with several workers (`parts`)
            try:
                others.append(pool.submit(step, parts[number], self._workers[number], arguments[number]))
            except RuntimeError:  # the interpreter is ending (the pool takes no more work): computed here
                here.append(number)
        for number in here:
            step(parts[number], self._workers[number], arguments[number])
        for other in others:
            other.result()

    @staticmethod
    def _floats(weights: dict[str, npt.NDArray[Any]], name: str) -> Floats:
        return np.ascontiguousarray(weights[name], dtype=np.float32)

    def memory(self, encoded: Any) -> Memory:
        """The cross-attention keys and values of every layer: once per utterance, whatever the candidates."""
        frames = np.asarray(encoded, dtype=np.float32).reshape(-1, self.width)
        keys, values = [], []
        for layer in self.layers:
            both = layer["attention/linear_1"](frames).reshape(len(frames), 2, self.heads, self.head_size)
            keys.append(np.ascontiguousarray(both[:, 0].transpose(1, 2, 0)))
            values.append(np.ascontiguousarray(both[:, 1].transpose(1, 0, 2)))
        return Memory(keys, values)

    def scoring(self, memory: Memory) -> Scoring:
        """The candidates' tree for one utterance, grown as candidates are asked for (see `Scoring`)."""
        return Scoring(self, memory)

    def score(self, memory: Memory, pairs: Sequence[tuple[Sequence[int], Sequence[int]]]) -> list[float]:
        """log P(tokens | audio, prefix) for each (prefix, tokens); each prefix starts with the start tokens."""
        return self.scoring(memory).score(pairs)


class Scoring:
    """One utterance's candidates as a token tree, grown as they are asked for: every node (a token after
    its prefix) goes through the decoder once, whichever call asks for it first, and what it gives is kept
    (its keys and values in each layer for the nodes below it, its next-token log-probabilities).

    A node's numbers never depend on the other nodes computed with it: each product is made node by node
    or row by row (the self-attention over its own ancestors, its attention over the audio as a product
    of its own, integer products row by row), so a candidate scores the same, bit for bit, alone or among
    a board's worth, what one call computed serves the next unchanged (the host's name readings go in the
    cards' pass), and a board's priors are the same computed ahead or when needed."""

    def __init__(self, scorer: TreeScorer, memory: Memory) -> None:
        self._scorer = scorer
        self._memory = memory
        self._index: dict[tuple[int, ...], int] = {}
        self._tokens: list[int] = []
        self._depth: list[int] = []
        self._chains: list[tuple[int, ...]] = []  # each node's ancestors from the root, and itself
        self._keys: list[Floats] = []  # per layer: (heads, nodes, head size), grown as nodes come
        self._values: list[Floats] = []
        self._hidden = np.zeros((0, scorer.width), dtype=np.float32)  # each node's output, normed
        self._logprob: dict[tuple[int, int], float] = {}  # (node, next token) -> log P
        self._expected: list[tuple[Sequence[int], Sequence[int]]] = []

    @property
    def nodes(self) -> int:
        """How many nodes went through the decoder so far."""
        return len(self._tokens)

    def expect(self, pairs: Sequence[tuple[Sequence[int], Sequence[int]]]) -> None:
        """Pairs that will be asked for later: computed with the next ones asked for, in the same pass.
        A pass costs reading every weight of the decoder once (about 50 MB), whatever its size."""
        self._expected += pairs

    def score(self, pairs: Sequence[tuple[Sequence[int], Sequence[int]]]) -> list[float]:
        """log P(tokens | audio, prefix) for each (prefix, tokens); each prefix starts with the start tokens.
        Only the nodes and rows no earlier call computed are computed now (with those `expect`ed)."""
        if not pairs:
            return []
        expected, self._expected = self._expected, []
        known = len(self._tokens)
        wanted: list[list[tuple[int, int]]] = []  # (node before the token, the token) for each scored token
        for prefix, candidate in [*pairs, *expected]:
            sequence = (*prefix, *candidate)
            self._add(sequence[:-1])
            wanted.append([(self._index[sequence[:i]], sequence[i]) for i in range(len(prefix), len(sequence))])
        with one_blas_thread():
            if len(self._tokens) > known:
                self._forward(known)
            missing: dict[int, set[int]] = {}
            for steps in wanted:
                for step in steps:
                    if step not in self._logprob:
                        missing.setdefault(step[0], set()).add(step[1])
            if missing:
                self._project(missing)
        return [float(sum(self._logprob[step] for step in steps)) for steps in wanted[: len(pairs)]]

    def _add(self, sequence: tuple[int, ...]) -> None:
        for end in range(1, len(sequence) + 1):
            key = sequence[:end]
            if key not in self._index:
                self._index[key] = len(self._tokens)
                self._tokens.append(key[-1])
                self._depth.append(end - 1)
                parent = self._chains[self._index[key[:-1]]] if end > 1 else ()
                self._chains.append((*parent, len(self._tokens) - 1))

    def _project(self, needed: dict[int, set[int]]) -> None:
        """Each row's log-probabilities of the tokens asked after it: the whole vocabulary's normalizer, a
        block of rows' integer products at a time and their softmax a few rows at a time (27 MB of products
        for a block; a few rows' worth stays in the processor's cache)."""
        projection = self._scorer.projection
        rows = sorted(needed)
        for start in range(0, len(rows), PROJECTION_BLOCK):
            block = rows[start : start + PROJECTION_BLOCK]
            products, row_scale = projection.products(self._hidden[block])
            for first in range(0, len(block), NORMALIZER_ROWS):
                logits = projection.scaled(
                    products[first : first + NORMALIZER_ROWS], row_scale[first : first + NORMALIZER_ROWS]
                )
                nodes = block[first : first + NORMALIZER_ROWS]
                asked = [(row, node, token) for row, node in enumerate(nodes) for token in needed[node]]
                wanted = [logits[row, token] for row, _, token in asked]
                top = logits.max(-1)
                logits -= top[:, None]
                np.exp(logits, out=logits)
                log_z = top + np.log(logits.sum(-1))
                for (row, node, token), logit in zip(asked, wanted, strict=True):
                    self._logprob[(node, token)] = float(logit - log_z[row])

    def _grown(self, arrays: list[Floats], layer: int, size: int) -> Floats:
        """Layer `layer`'s (heads, nodes, head size) cache with room for `size` nodes."""
        scorer = self._scorer
        if len(arrays) <= layer:
            arrays.append(np.zeros((scorer.heads, max(size, 64), scorer.head_size), dtype=np.float32))
        elif arrays[layer].shape[1] < size:
            grown = np.zeros((scorer.heads, max(size, 2 * arrays[layer].shape[1]), scorer.head_size), np.float32)
            grown[:, : arrays[layer].shape[1]] = arrays[layer]
            arrays[layer] = grown
        return arrays[layer]

    def _forward(self, known: int) -> None:
        """The decoder over the nodes from `known` on, whose ancestors are all computed or among them. A node
        attends to itself and its ancestors only (one causal sequence per path from the root), nodes of
        the same depth together, so self-attention costs nodes x depth, not nodes x nodes. The nodes are
        shared between the scorer's workers (`TreeScorer.each`), a block of rows each: every layer, each
        writes its rows' keys and values first, then (once all are written, for a node's ancestors may be
        another's) attends and goes on with its rows alone."""
        scorer = self._scorer
        size = len(self._tokens)
        tokens = np.asarray(self._tokens[known:])
        depth = np.asarray(self._depth[known:])
        parts = scorer.parts(size - known)
        depths = [self._by_depth(known, part) for part in parts]
        x: Floats = scorer.embeddings[tokens].astype(np.float32) + scorer.positions[depth]
        query: Floats = np.empty((scorer.heads, size - known, scorer.head_size), dtype=np.float32)
        for number, (layer, keys_t, values) in enumerate(
            zip(scorer.layers, self._memory.keys, self._memory.values, strict=True)
        ):
            step = _Step(
                layer, keys_t, values, self._grown(self._keys, number, size), self._grown(self._values, number, size)
            )
            # every node's keys and values in before any node attends: its ancestors may be another block's
            scorer.each(parts, functools.partial(self._keys_in, step, known, x, query), depths)
            scorer.each(parts, functools.partial(self._rest, step, known, x, query), depths)
        hidden = np.zeros((size, scorer.width), dtype=np.float32)
        hidden[:known] = self._hidden[:known]
        hidden[known:] = _layer_norm(x, *scorer.final_norm)
        self._hidden = hidden

    def _keys_in(
        self, step: _Step, known: int, x: Floats, query: Floats, part: slice, products: Products, _: object
    ) -> None:
        """One layer's self-attention keys and values of `part`'s nodes into the tree's cache, their queries
        into `query`."""
        scorer, layer = self._scorer, step.layer
        rows = part.stop - part.start
        normed = _layer_norm(x[part], *layer["self_attention"])
        both = layer["self_attention/linear_0"](normed, products).reshape(rows, 3, scorer.heads, scorer.head_size)
        query[:, part], key, value = both.transpose(1, 2, 0, 3)
        step.keys[:, known + part.start : known + part.stop] = key
        step.values[:, known + part.start : known + part.stop] = value

    def _rest(
        self,
        step: _Step,
        known: int,
        x: Floats,
        query: Floats,
        part: slice,
        products: Products,
        by_depth: dict[int, list[int]],
    ) -> None:
        """The rest of one layer for `part`'s nodes (their attention over their ancestors and over the audio,
        the feed-forward), written back into their rows of `x`."""
        scorer, layer = self._scorer, step.layer
        heads, head_size, width = scorer.heads, scorer.head_size, scorer.width
        scale = np.float32(1 / math.sqrt(head_size))
        rows = part.stop - part.start
        attended = np.empty((heads, rows, head_size), dtype=np.float32)
        for members in by_depth.values():
            for start in range(0, len(members), ATTENTION_BLOCK):  # the gathered chains are big
                block = members[start : start + ATTENTION_BLOCK]
                chain = np.asarray([self._chains[known + offset] for offset in block])  # (nodes, depth + 1)
                keys = step.keys[:, chain].transpose(0, 1, 3, 2)  # (heads, nodes, head size, depth + 1)
                asked = np.multiply(query[:, block], scale, dtype=np.float32)
                weights = _softmax((asked[:, :, None, :] @ keys)[:, :, 0, :])
                own = [offset - part.start for offset in block]
                attended[:, own] = (weights[:, :, None, :] @ step.values[:, chain])[:, :, 0, :]
        y = x[part] + layer["self_attention/linear_1"](attended.transpose(1, 0, 2).reshape(rows, width), products)
        normed = _layer_norm(y, *layer["attention"])
        asked = layer["attention/linear_0"](normed, products).reshape(rows, heads, head_size).transpose(1, 0, 2)
        heard = np.empty_like(asked)
        for start in range(0, rows, ATTENTION_BLOCK):  # nodes x audio frames scores: a block at a time
            span = slice(start, start + ATTENTION_BLOCK)
            # each node's product of its own (a row of one), so that its numbers never depend on the others
            scores = np.multiply(asked[:, span], scale, dtype=np.float32)[:, :, None, :] @ step.audio_keys[:, None]
            heard[:, span] = (_softmax(scores) @ step.audio_values[:, None])[:, :, 0, :]
        y = y + layer["attention/linear_2"](heard.transpose(1, 0, 2).reshape(rows, width), products)
        inner = layer["ffn/linear_0"](_layer_norm(y, *layer["ffn"]), products)
        x[part] = y + layer["ffn/linear_1"](_gelu(inner), products)

    def _by_depth(self, known: int, part: slice) -> dict[int, list[int]]:
        """The nodes of `part` (offsets from `known`) by depth: attended for together."""
        found: dict[int, list[int]] = {}
        for offset in range(part.start, part.stop):
            found.setdefault(self._depth[known + offset], []).append(offset)
        return found
