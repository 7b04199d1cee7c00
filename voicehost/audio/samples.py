"""The one format every part of the host hears and speaks (16 kHz mono float32 in [-1, 1]), and the one
conversion to and from the 16-bit PCM of files, devices and satellites."""

from __future__ import annotations

from typing import Final

import numpy as np
import numpy.typing as npt

SAMPLE_RATE: Final = 16000
"""Every engine here hears 16 kHz mono float32 in [-1, 1]."""

Audio = npt.NDArray[np.float32]

PCM_TYPES: Final = {1: "<i1", 2: "<i2", 4: "<i4"}
"""Signed little-endian samples by their width in bytes (3, 24-bit, is read apart: numpy has no such type)."""


class AudioError(Exception):
    """A recording or an audio device cannot be used; the message is meant for the player."""


def pcm16(audio: Audio) -> npt.NDArray[np.int16]:
    """16-bit samples: clipped rather than wrapped around, scaled by 32767 and rounded (not truncated)."""
    scaled = np.clip(np.asarray(audio, dtype=np.float32).reshape(-1), -1.0, 1.0) * 32767.0
    return np.round(scaled).astype("<i2")


def to_pcm16(audio: Audio) -> bytes:
    """Little-endian 16-bit samples (`pcm16`), as a WAV file, vosk or a satellite's speaker takes them."""
    return pcm16(audio).tobytes()


def from_pcm(data: bytes, width: int = 2, channels: int = 1) -> Audio:
    """Signed little-endian PCM of `width` bytes a sample as mono float32 in [-1, 1) (channels averaged); a
    trailing partial frame is dropped. ValueError for a width other than 1 to 4 bytes."""
    if width not in (1, 2, 3, 4) or channels < 1:
        raise ValueError(f"{width}-byte samples in {channels} channels")
    frame = width * channels
    data = data[: len(data) - len(data) % frame]
    if width == 3:
        triples = np.frombuffer(data, dtype=np.uint8).reshape(-1, 3).astype(np.int32)
        ints = triples[:, 0] | (triples[:, 1] << 8) | (triples[:, 2] << 16)
        samples = (np.where(ints >= 1 << 23, ints - (1 << 24), ints) / float(1 << 23)).astype(np.float32)
    else:
        samples = (np.frombuffer(data, dtype=PCM_TYPES[width]) / float(1 << (8 * width - 1))).astype(np.float32)
    if channels > 1:
        samples = samples.reshape(-1, channels).mean(axis=1, dtype=np.float64).astype(np.float32)
    mono: Audio = samples
    return mono
