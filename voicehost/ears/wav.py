"""WAV files in and out: any rate, channel count and sample format in, 16-bit mono PCM out.

Python's `wave` module reads integer PCM only, and recorders (sox, Audacity, browsers) often write
float or WAVE_FORMAT_EXTENSIBLE files, so the RIFF chunks are parsed here.
"""

from __future__ import annotations

import os
import struct
import wave
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Final

import numpy as np
import numpy.typing as npt

from voicehost.ears.audio import SAMPLE_RATE, Audio, AudioError
from voicehost.ears.resample import Resampler

WAVE_FORMAT_PCM: Final = 0x0001
WAVE_FORMAT_IEEE_FLOAT: Final = 0x0003
WAVE_FORMAT_EXTENSIBLE: Final = 0xFFFE
READ_BLOCK_SECONDS: Final = 10.0
"""Recordings are decoded this much at a time: a long one never sits in memory as float64."""
MAX_CHUNKS: Final = 64
MAX_FMT_BYTES: Final = 1024
MAX_CHANNELS: Final = 64
MAX_RATE: Final = 768_000


# ---- WAV files --------------------------------------------------------------------------------------


def read_wav(path: str | os.PathLike[str]) -> Audio:
    """A WAV file as 16 kHz mono float32: any rate, any channel count, 8/16/24/32-bit PCM or 32/64-bit float.

    Python's `wave` module reads integer PCM only, and recorders (sox, Audacity, browsers) often write
    float or WAVE_FORMAT_EXTENSIBLE files, so the RIFF chunks are parsed here.
    """
    blocks = list(wav_blocks(path))
    return np.concatenate(blocks) if blocks else np.zeros(0, dtype=np.float32)


def read_wav_tail(path: str | os.PathLike[str], seconds: float) -> Audio:
    """The last `seconds` of a recording, read block by block: memory stays bounded on any length."""
    keep = max(1, round(seconds * SAMPLE_RATE))
    tail = np.zeros(0, dtype=np.float32)
    for block in wav_blocks(path):
        tail = np.concatenate([tail, block])[-keep:]
    return tail


@dataclass(frozen=True)
class WavFormat:
    """Where a WAV file's samples are, and how they are written."""

    tag: int
    channels: int
    rate: int
    bits: int
    frame: int  # bytes per frame (all channels)
    data_start: int
    data_bytes: int | None  # None: up to the end of the file (a streaming writer left the size unset)


def wav_format(path: str | os.PathLike[str]) -> WavFormat:
    """The format of a WAV file, read from its header only; AudioError when it cannot be read."""
    path = Path(path)
    try:
        if path.is_dir():
            raise AudioError(f"{path} is a folder, not a recording")
        if path.exists() and not path.is_file():
            raise AudioError(f"{path} is not a regular file, so it cannot be a recording")
        with path.open("rb") as handle:
            return _parse_header(handle, path)
    except FileNotFoundError:
        raise AudioError(f"no recording at {path}") from None
    except OSError as exc:
        raise AudioError(f"cannot read the recording {path}: {exc.strerror or exc}") from None


def wav_blocks(path: str | os.PathLike[str], block_seconds: float = READ_BLOCK_SECONDS) -> Iterator[Audio]:
    """A recording as 16 kHz mono float32 blocks, decoded and resampled as it is read."""
    path = Path(path)
    fmt = wav_format(path)
    resampler = Resampler(fmt.rate, SAMPLE_RATE) if fmt.rate != SAMPLE_RATE else None
    frames_per_block = max(1, round(block_seconds * fmt.rate))
    left = fmt.data_bytes
    try:
        with path.open("rb") as handle:
            handle.seek(fmt.data_start)
            carry = b""
            while left is None or left > 0:
                want = frames_per_block * fmt.frame if left is None else min(frames_per_block * fmt.frame, left)
                data = handle.read(want)
                if not data:
                    break
                if left is not None:
                    left -= len(data)
                data = carry + data
                usable = len(data) - len(data) % fmt.frame
                carry = data[usable:]
                if usable:
                    mono = _decode(data[:usable], fmt, path)
                    yield resampler.process(mono) if resampler is not None else mono
    except OSError as exc:
        raise AudioError(f"cannot read the recording {path}: {exc.strerror or exc}") from None
    if resampler is not None:
        yield resampler.flush()


def _parse_header(handle: BinaryIO, path: Path) -> WavFormat:
    head = handle.read(12)
    if len(head) < 12 or head[:4] != b"RIFF" or head[8:12] != b"WAVE":
        kind = "an RF64 file (too large for plain WAV)" if head[:4] == b"RF64" else "not a WAV file"
        raise AudioError(f"{path} is {kind}: convert it with `sox {path.name} -r 16000 -c 1 out.wav`")
    fmt: bytes | None = None
    pos = 12
    for _ in range(MAX_CHUNKS):
        chunk = handle.read(8)
        if len(chunk) < 8:
            break
        chunk_id, size = chunk[:4], struct.unpack_from("<I", chunk, 4)[0]
        if chunk_id == b"data":
            if fmt is None or len(fmt) < 16:
                break
            data_bytes = None if size in (0, 0xFFFFFFFF) else size  # a streaming writer's unset size
            return _format(fmt, pos + 8, data_bytes, path)
        if chunk_id == b"fmt ":
            fmt = handle.read(min(size, MAX_FMT_BYTES))
            handle.seek(pos + 8 + size + (size & 1))
        else:
            handle.seek(size + (size & 1), os.SEEK_CUR)
        pos += 8 + size + (size & 1)
    raise AudioError(f"{path} is a damaged WAV file (no format or no audio data)")


def _format(fmt: bytes, data_start: int, data_bytes: int | None, path: Path) -> WavFormat:
    tag, channels, rate, _byte_rate, block_align, bits = struct.unpack_from("<HHIIHH", fmt)
    if tag == WAVE_FORMAT_EXTENSIBLE and len(fmt) >= 26:
        tag = struct.unpack_from("<H", fmt, 24)[0]  # the sub-format GUID starts with the plain format tag
    if channels < 1 or channels > MAX_CHANNELS or rate < 1 or rate > MAX_RATE or bits not in (8, 16, 24, 32, 64):
        raise AudioError(f"{path} has an impossible format ({channels} channels, {rate} Hz, {bits} bits)")
    supported = (tag == WAVE_FORMAT_IEEE_FLOAT and bits in (32, 64)) or (tag == WAVE_FORMAT_PCM and bits <= 32)
    if not supported:
        raise AudioError(
            f"{path} uses WAV format 0x{tag:04x} with {bits}-bit samples, which cannot be read: "
            f"convert it with `sox {path.name} -b 16 -r 16000 -c 1 out.wav`"
        )
    frame = max(block_align, bits // 8 * channels)
    return WavFormat(tag, channels, rate, bits, frame, data_start, data_bytes)


def _decode(pcm: bytes, fmt: WavFormat, path: Path) -> Audio:
    """Whole frames of samples as mono float32 in [-1, 1]."""
    width = fmt.bits // 8
    raw = np.frombuffer(pcm, dtype=np.uint8).reshape(-1, fmt.frame)[:, : width * fmt.channels]
    flat = np.ascontiguousarray(raw).reshape(-1)
    samples: npt.NDArray[np.float64]
    if fmt.tag == WAVE_FORMAT_IEEE_FLOAT:
        samples = flat.view("<f4" if fmt.bits == 32 else "<f8").astype(np.float64)
    elif fmt.bits == 8:
        samples = (flat.astype(np.float64) - 128.0) / 128.0
    elif fmt.bits == 16:
        samples = flat.view("<i2") / 32768.0
    elif fmt.bits == 24:
        triples = flat.reshape(-1, 3).astype(np.int32)
        ints = triples[:, 0] | (triples[:, 1] << 8) | (triples[:, 2] << 16)
        samples = np.where(ints >= 1 << 23, ints - (1 << 24), ints) / float(1 << 23)
    else:
        samples = flat.view("<i4") / float(1 << 31)
    mono = np.nan_to_num(samples.reshape(-1, fmt.channels).mean(axis=1), nan=0.0, posinf=1.0, neginf=-1.0)
    clipped: Audio = np.clip(mono, -1.0, 1.0).astype(np.float32)
    return clipped


def write_wav(path: str | os.PathLike[str], audio: Audio, rate: int = SAMPLE_RATE) -> None:
    """Mono 16-bit PCM, the format every player and recognizer opens."""
    samples = np.asarray(audio, dtype=np.float32).reshape(-1)
    try:
        with wave.open(str(path), "wb") as out:
            out.setnchannels(1)
            out.setsampwidth(2)
            out.setframerate(int(rate))
            out.writeframes(to_pcm16(samples))
    except OSError as exc:
        raise AudioError(f"cannot write the recording {path}: {exc.strerror or exc}") from None


def to_pcm16(audio: Audio) -> bytes:
    """Little-endian 16-bit samples, clipped rather than wrapped around."""
    scaled = np.clip(np.asarray(audio, dtype=np.float32), -1.0, 1.0) * 32767.0
    return np.round(scaled).astype("<i2").tobytes()
