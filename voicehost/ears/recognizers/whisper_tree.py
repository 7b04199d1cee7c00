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
import math
import struct
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Final

import numpy as np
import numpy.typing as npt

Floats = npt.NDArray[np.float32]

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


def _matmul_integer_model(weight: npt.NDArray[Any], weight_type: int) -> bytes:
    """An ONNX model of one node: Y(int32)[M, N] = (A(uint8)[M, K] - a_zero) @ (weight[K, N] - b_zero), the
    weight int8 (`INT8`, b_zero 0) or uint8 (`UINT8`, b_zero an input: 128 for int8 values shifted up)."""
    rows, columns = weight.shape

    def value(name: str, element_type: int, dims: list[int | str]) -> bytes:
        shape = b"".join(_field(1, _field(1, d) if isinstance(d, int) else _field(2, d.encode())) for d in dims)
        return _field(1, name.encode()) + _field(2, _field(1, _field(1, element_type) + _field(2, shape)))

    inputs = ("A", "B", "zp", "bzp") if weight_type == UINT8 else ("A", "B", "zp")
    node = b"".join(_field(1, name.encode()) for name in inputs) + _field(2, b"Y")
    node += _field(4, b"MatMulInteger")
    tensor = (
        _field(1, rows) + _field(1, columns) + _field(2, weight_type) + _field(8, b"B") + _field(9, weight.tobytes())
    )
    graph = _field(1, node) + _field(2, b"g") + _field(5, tensor)
    graph += _field(11, value("A", UINT8, ["M", rows])) + _field(11, value("zp", UINT8, [1]))
    if weight_type == UINT8:
        graph += _field(11, value("bzp", UINT8, [1]))
    graph += _field(12, value("Y", 6, ["M", columns]))
    return _field(1, 8) + _field(8, _field(1, b"") + _field(2, 17)) + _field(7, graph)


def _session(model: bytes) -> Any:
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads, options.inter_op_num_threads = 1, 1
    options.log_severity_level = 4
    # every utterance brings new shapes: an arena per layer would keep the largest of each (hundreds of MB)
    options.enable_cpu_mem_arena = False
    options.enable_mem_pattern = False
    options.add_session_config_entry("session.disable_prepacking", "1")  # a second copy of the weights
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
    session = _session(_matmul_integer_model(probe, INT8))
    got = session.run(None, {"A": activations, "zp": np.full(1, 128, np.uint8)})[0]
    return INT8 if np.array_equal(got, exact) else UINT8


QUANTIZE_ROWS: Final = 4096
ATTENTION_BLOCK: Final = 128
"""Nodes attended for at once: their gathered ancestor chains, and their scores over the audio's frames."""
PROJECTION_BLOCK: Final = 128
"""Rows projected onto the vocabulary at once: 128 x 51,865 integer products are 27 MB."""
NORMALIZER_ROWS: Final = 8
"""Rows whose softmax over the vocabulary is taken at once: 1.7 MB of floats, within the processor's cache."""


class Int8Linear:
    """x @ W + b with W quantized per output column and x per row, the product in integers."""

    def __init__(self, weight: npt.NDArray[Any], bias: Floats | None) -> None:
        """`weight`: (outputs, inputs), as stored; quantized a block of rows at a time, so loading never
        holds a float copy of the largest matrix (the vocabulary's projection: 100 MB)."""
        scales, blocks = [], []
        for start in range(0, len(weight), QUANTIZE_ROWS):
            rows = np.asarray(weight[start : start + QUANTIZE_ROWS], dtype=np.float32)
            scale = np.maximum(np.abs(rows).max(1), 1e-12) / 127.0
            scales.append(scale)
            blocks.append(np.clip(np.round(rows / scale[:, None]), -127, 127).astype(np.int8))
        self.scale = np.concatenate(scales).astype(np.float32)
        quantized = np.ascontiguousarray(np.concatenate(blocks).T)
        self.bias = bias
        self.zero = np.full(1, 128, np.uint8)
        weight_type = exact_weight_type()
        if weight_type == UINT8:  # the same values shifted up, their zero point 128: exact without VNNI
            quantized = (quantized.astype(np.int16) + 128).astype(np.uint8)
            self.feeds: dict[str, npt.NDArray[Any]] = {"zp": self.zero, "bzp": self.zero}
        else:
            self.feeds = {"zp": self.zero}
        self.session: Any = _session(_matmul_integer_model(quantized, weight_type))

    def __call__(self, x: Floats) -> Floats:
        products, row_scale = self.products(x)
        y: Floats = self.scaled(products, row_scale)
        if self.bias is not None:
            y += self.bias
        return y

    def products(self, x: Floats) -> tuple[npt.NDArray[np.int32], Floats]:
        """The integer products of x's rows (quantized per row) with the weights, and each row's scale."""
        row_scale = (np.maximum(np.abs(x).max(1), 1e-12) / 127.0).astype(np.float32)
        quantized = (np.round(x / row_scale[:, None]) + 128).astype(np.uint8)
        products: npt.NDArray[np.int32] = self.session.run(None, {"A": quantized, **self.feeds})[0]
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
    """Exact GELU (as CTranslate2's); erf by Abramowitz-Stegun 7.1.26 (error below 1.5e-7)."""
    z = np.abs(x) * np.float32(1 / math.sqrt(2))
    t = 1 / (1 + 0.3275911 * z)
    poly = ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t
    erf = 1 - poly * np.exp(-z * z)
    out: Floats = (0.5 * x * (1 + np.sign(x) * erf)).astype(np.float32)
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
    """numpy's BLAS held to one thread within (see `_blas`); nothing without threadpoolctl."""
    controller = _blas()
    return contextlib.nullcontext() if controller is None else controller.limit(limits=1, user_api="blas")


Linear = Callable[[Floats], Floats]


@dataclass(frozen=True)
class Memory:
    """Each decoder layer's cross-attention keys (transposed: heads, head size, frames) and values (heads,
    frames, head size) for one utterance."""

    keys: list[Floats]
    values: list[Floats]

    @property
    def frames(self) -> int:
        return int(self.values[0].shape[1]) if self.values else 0


class TreeScorer:
    """log P(tokens | audio, prefix) for many (prefix, tokens) pairs in one pass of Whisper's decoder."""

    def __init__(self, model_dir: Path) -> None:
        weights = read_model(Path(model_dir) / "model.bin")
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
                layer: dict[str, Any] = {
                    name: self._linear(
                        weights[prefix + name + "/weight"], self._floats(weights, prefix + name + "/bias")
                    )
                    for name in LINEARS
                }
                for norm in ("self_attention", "attention", "ffn"):
                    layer[norm] = (
                        self._floats(weights, prefix + norm + "/layer_norm/gamma"),
                        self._floats(weights, prefix + norm + "/layer_norm/beta"),
                    )
                self.layers.append(layer)
                index += 1
            projection = weights.get("decoder/projection/weight", weights["decoder/embeddings/weight"])
            self.projection = Int8Linear(projection, None)
        except KeyError as exc:
            raise DecoderFormatError(f"model.bin has no {exc} (not a Whisper model)") from None
        if not self.layers:
            raise DecoderFormatError("model.bin has no decoder layers (not a Whisper model)")
        self.head_size = self.width // self.heads

    @staticmethod
    def _floats(weights: dict[str, npt.NDArray[Any]], name: str) -> Floats:
        return np.ascontiguousarray(weights[name], dtype=np.float32)

    @staticmethod
    def _linear(weight: npt.NDArray[Any], bias: Floats | None) -> Linear:
        return Int8Linear(weight, bias)

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
    a board's worth, and scoring the first tokens of many candidates before the rest of a few changes no
    score (`WhisperRecognizer` prunes that way)."""

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
                top = logits.max(-1)
                log_z = top + np.log(np.exp(logits - top[:, None]).sum(-1))
                for row, node in enumerate(block[first : first + NORMALIZER_ROWS]):
                    for token in needed[node]:
                        self._logprob[(node, token)] = float(logits[row, token] - log_z[row])

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
        the same depth together, so self-attention costs nodes x depth, not nodes x nodes."""
        scorer = self._scorer
        heads, head_size, width = scorer.heads, scorer.head_size, scorer.width
        size = len(self._tokens)
        count = size - known
        tokens = np.asarray(self._tokens[known:])
        depth = np.asarray(self._depth[known:])
        by_depth: dict[int, list[int]] = {}
        for offset, node_depth in enumerate(self._depth[known:]):
            by_depth.setdefault(node_depth, []).append(offset)
        scale = np.float32(1 / math.sqrt(head_size))
        x: Floats = scorer.embeddings[tokens].astype(np.float32) + scorer.positions[depth]

        def split(y: Floats) -> Floats:  # (parts, heads, nodes, head size)
            return y.reshape(count, -1, heads, head_size).transpose(1, 2, 0, 3)

        for number, (layer, keys_t, values) in enumerate(
            zip(scorer.layers, self._memory.keys, self._memory.values, strict=True)
        ):
            query, key, value = split(layer["self_attention/linear_0"](_layer_norm(x, *layer["self_attention"])))
            cached_keys = self._grown(self._keys, number, size)
            cached_values = self._grown(self._values, number, size)
            cached_keys[:, known:size] = key
            cached_values[:, known:size] = value
            attended = np.empty((heads, count, head_size), dtype=np.float32)
            for members in by_depth.values():
                for start in range(0, len(members), ATTENTION_BLOCK):  # the gathered chains are big
                    block = members[start : start + ATTENTION_BLOCK]
                    chain = np.asarray([self._chains[known + offset] for offset in block])  # (nodes, depth + 1)
                    keys = cached_keys[:, chain].transpose(0, 1, 3, 2)  # (heads, nodes, head size, depth + 1)
                    weights = _softmax(((query[:, block] * scale)[:, :, None, :] @ keys)[:, :, 0, :])
                    attended[:, block] = (weights[:, :, None, :] @ cached_values[:, chain])[:, :, 0, :]
            x = x + layer["self_attention/linear_1"](attended.transpose(1, 0, 2).reshape(count, width))
            query = split(layer["attention/linear_0"](_layer_norm(x, *layer["attention"])))[0]
            attended = np.empty_like(query)
            for start in range(0, count, ATTENTION_BLOCK):  # nodes x audio frames scores: a block at a time
                span = slice(start, start + ATTENTION_BLOCK)
                # each node's product of its own (a row of one), so that its numbers never depend on the others
                scores = (query[:, span] * scale)[:, :, None, :] @ keys_t[:, None]
                attended[:, span] = (_softmax(scores) @ values[:, None])[:, :, 0, :]
            x = x + layer["attention/linear_2"](attended.transpose(1, 0, 2).reshape(count, width))
            x = x + layer["ffn/linear_1"](_gelu(layer["ffn/linear_0"](_layer_norm(x, *layer["ffn"]))))
        hidden = np.zeros((size, width), dtype=np.float32)
        hidden[:known] = self._hidden[:known]
        hidden[known:] = _layer_norm(x, *scorer.final_norm)
        self._hidden = hidden
