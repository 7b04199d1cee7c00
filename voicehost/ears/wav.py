"""WAV files in and out: any rate, channel count and sample format in, 16-bit mono PCM out.

Python's `wave` module reads integer PCM only, and recorders (sox, Audacity, browsers) often write
float or WAVE_FORMAT_EXTENSIBLE files, so the RIFF chunks are parsed here.
"""

from __future__ import annotations

import os
import struct
import wave
from pathlib import Path
from typing import Final

import numpy as np
import numpy.typing as npt

from voicehost.ears.audio import SAMPLE_RATE, Audio, AudioError
from voicehost.ears.resample import resample

WAVE_FORMAT_PCM: Final = 0x0001
WAVE_FORMAT_IEEE_FLOAT: Final = 0x0003
WAVE_FORMAT_EXTENSIBLE: Final = 0xFFFE


# ---- WAV files --------------------------------------------------------------------------------------


def read_wav(path: str | os.PathLike[str]) -> Audio:
    """A WAV file as 16 kHz mono float32: any rate, any channel count, 8/16/24/32-bit PCM or 32/64-bit float.

    Python's `wave` module reads integer PCM only, and recorders (sox, Audacity, browsers) often write
    float or WAVE_FORMAT_EXTENSIBLE files, so the RIFF chunks are parsed here.
    """
    path = Path(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise AudioError(f"no recording at {path}") from None
    except IsADirectoryError:
        raise AudioError(f"{path} is a folder, not a recording") from None
    except OSError as exc:
        raise AudioError(f"cannot read the recording {path}: {exc.strerror or exc}") from None
    samples, rate = _decode_wav(data, path)
    return resample(samples, rate, SAMPLE_RATE)


def _decode_wav(data: bytes, path: Path) -> tuple[Audio, int]:
    """The mono samples and the rate of a RIFF/WAVE file's bytes."""
    if len(data) < 12 or data[:4] != b"RIFF" or data[8:12] != b"WAVE":
        kind = "an RF64 file (too large for plain WAV)" if data[:4] == b"RF64" else "not a WAV file"
        raise AudioError(f"{path} is {kind}: convert it with `sox {path.name} -r 16000 -c 1 out.wav`")
    fmt: bytes | None = None
    pcm: bytes | None = None
    pos = 12
    while pos + 8 <= len(data):
        chunk_id = data[pos : pos + 4]
        size = struct.unpack_from("<I", data, pos + 4)[0]
        body = data[pos + 8 : pos + 8 + size]  # streaming writers leave the size at 0 or 2**32-1: take what is there
        if chunk_id == b"fmt ":
            fmt = body
        elif chunk_id == b"data":
            pcm = body if size not in (0, 0xFFFFFFFF) else data[pos + 8 :]
            break
        pos += 8 + size + (size & 1)
    if fmt is None or len(fmt) < 16 or pcm is None:
        raise AudioError(f"{path} is a damaged WAV file (no format or no audio data)")
    tag, channels, rate, _byte_rate, block_align, bits = struct.unpack_from("<HHIIHH", fmt)
    if tag == WAVE_FORMAT_EXTENSIBLE and len(fmt) >= 26:
        tag = struct.unpack_from("<H", fmt, 24)[0]  # the sub-format GUID starts with the plain format tag
    if channels < 1 or rate < 1 or bits not in (8, 16, 24, 32, 64):
        raise AudioError(f"{path} has an impossible format ({channels} channels, {rate} Hz, {bits} bits)")
    width = bits // 8
    frame = max(block_align, width * channels)
    usable = len(pcm) - len(pcm) % frame
    raw = np.frombuffer(pcm[:usable], dtype=np.uint8).reshape(-1, frame)[:, : width * channels]
    flat = np.ascontiguousarray(raw).reshape(-1)
    samples: npt.NDArray[np.float64]
    if tag == WAVE_FORMAT_IEEE_FLOAT and bits in (32, 64):
        samples = flat.view("<f4" if bits == 32 else "<f8").astype(np.float64)
    elif tag == WAVE_FORMAT_PCM and bits == 8:
        samples = (flat.astype(np.float64) - 128.0) / 128.0
    elif tag == WAVE_FORMAT_PCM and bits == 16:
        samples = flat.view("<i2") / 32768.0
    elif tag == WAVE_FORMAT_PCM and bits == 24:
        triples = flat.reshape(-1, 3).astype(np.int32)
        ints = triples[:, 0] | (triples[:, 1] << 8) | (triples[:, 2] << 16)
        samples = np.where(ints >= 1 << 23, ints - (1 << 24), ints) / float(1 << 23)
    elif tag == WAVE_FORMAT_PCM and bits == 32:
        samples = flat.view("<i4") / float(1 << 31)
    else:
        raise AudioError(
            f"{path} uses WAV format 0x{tag:04x} with {bits}-bit samples, which cannot be read: "
            f"convert it with `sox {path.name} -b 16 -r 16000 -c 1 out.wav`"
        )
    mono = samples.reshape(-1, channels).mean(axis=1)
    return np.clip(mono, -1.0, 1.0).astype(np.float32), rate


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
