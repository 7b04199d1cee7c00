"""WAV files in and out with libsndfile (soundfile): any channel count and sample format in, read block by
block and resampled to 16 kHz mono float32; 16-bit mono PCM out."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import numpy as np
import numpy.typing as npt
import soundfile

from voicehost.audio.resample import Resampler
from voicehost.audio.samples import SAMPLE_RATE, Audio, AudioError, pcm16

READ_BLOCK_SECONDS: Final = 10.0
"""Recordings are decoded this much at a time: a long one never sits in memory whole."""
MAX_BLOCK_SAMPLES: Final = 1 << 20
"""And never more samples than this a block, whatever the channel count (4 MB of float32)."""
MAX_CHANNELS: Final = 64
RATES: Final = (8000, 192_000)
"""The sample rates a recording may have: telephone to studio. A header with another rate is damaged or
hostile (1 Hz would stretch a second of samples into hours of work, 767,999 Hz would cost gigabytes)."""
WAV_MAGIC: Final = ((b"RIFF", b"WAVE"), (b"RF64", b"WAVE"))


@dataclass(frozen=True)
class WavFormat:
    """What a WAV file's header says."""

    rate: int
    channels: int
    frames: int
    subtype: str  # libsndfile's name of the sample format: PCM_16, FLOAT, ULAW, ...


def read_wav(path: str | os.PathLike[str]) -> Audio:
    """A WAV file as 16 kHz mono float32: any rate from 8 to 192 kHz, any channel count, any sample format
    libsndfile reads (8/16/24/32-bit PCM, 32/64-bit float, µ-law, A-law, ADPCM)."""
    blocks = list(wav_blocks(path))
    return np.concatenate(blocks) if blocks else np.zeros(0, dtype=np.float32)


def read_wav_tail(path: str | os.PathLike[str], seconds: float) -> Audio:
    """The last `seconds` of a recording, read block by block: memory stays bounded on any length."""
    keep = max(1, round(seconds * SAMPLE_RATE))
    tail = np.zeros(0, dtype=np.float32)
    for block in wav_blocks(path):
        tail = np.concatenate([tail, block])[-keep:]
    return tail


def wav_format(path: str | os.PathLike[str]) -> WavFormat:
    """The format of a WAV file, read from its header only; AudioError when it cannot be played."""
    path = Path(path)
    _check_file(path)
    try:
        info = soundfile.info(str(path))
    except soundfile.LibsndfileError as exc:
        raise AudioError(
            f"{path} is a damaged WAV file, or its format cannot be read ({exc.error_string}): "
            f"convert it with `sox {path.name} -b 16 -r 16000 -c 1 out.wav`"
        ) from None
    except (OSError, RuntimeError) as exc:
        raise AudioError(f"cannot read the recording {path}: {exc}") from None
    if not 1 <= info.channels <= MAX_CHANNELS:
        raise AudioError(f"{path} has an impossible format ({info.channels} channels)")
    low, high = RATES
    if not low <= info.samplerate <= high:
        raise AudioError(
            f"{path} says its sample rate is {info.samplerate} Hz; recordings from {low // 1000} to "
            f"{high // 1000} kHz can be played: convert it with `sox {path.name} -r 16000 -c 1 out.wav`"
        )
    return WavFormat(int(info.samplerate), int(info.channels), int(info.frames), str(info.subtype))


def wav_blocks(path: str | os.PathLike[str], block_seconds: float = READ_BLOCK_SECONDS) -> Iterator[Audio]:
    """A recording as 16 kHz mono float32 blocks, decoded and resampled as it is read."""
    path = Path(path)
    fmt = wav_format(path)
    resampler = Resampler(fmt.rate, SAMPLE_RATE) if fmt.rate != SAMPLE_RATE else None
    frames = max(1, min(round(block_seconds * fmt.rate), MAX_BLOCK_SAMPLES // fmt.channels))
    try:
        with soundfile.SoundFile(str(path)) as sound:
            for block in sound.blocks(blocksize=frames, dtype="float32", always_2d=True):
                mono = _mono(block)
                yield resampler.process(mono) if resampler is not None else mono
    except soundfile.LibsndfileError as exc:
        raise AudioError(f"{path} is a damaged WAV file ({exc.error_string})") from None
    except (OSError, RuntimeError) as exc:
        raise AudioError(f"cannot read the recording {path}: {exc}") from None
    if resampler is not None:
        yield resampler.flush()


def write_wav(path: str | os.PathLike[str], audio: Audio, rate: int = SAMPLE_RATE) -> None:
    """Mono 16-bit PCM (`pcm16`), the format every player and recognizer opens."""
    try:
        soundfile.write(str(path), pcm16(audio), int(rate), subtype="PCM_16", format="WAV")
    except (soundfile.LibsndfileError, OSError, RuntimeError) as exc:
        reason = exc.error_string if isinstance(exc, soundfile.LibsndfileError) else exc
        raise AudioError(f"cannot write the recording {path}: {reason}") from None


def _check_file(path: Path) -> None:
    """A regular file that starts as a WAV file does: anything else is refused with what it is."""
    try:
        info = path.stat()
        if stat.S_ISDIR(info.st_mode):
            raise AudioError(f"{path} is a folder, not a recording")
        if not stat.S_ISREG(info.st_mode):
            raise AudioError(f"{path} is not a regular file, so it cannot be a recording")
        with path.open("rb") as handle:
            head = handle.read(12)
    except FileNotFoundError:
        raise AudioError(f"no recording at {path}") from None
    except OSError as exc:
        raise AudioError(f"cannot read the recording {path}: {exc.strerror or exc}") from None
    if (head[:4], head[8:12]) not in WAV_MAGIC:
        raise AudioError(f"{path} is not a WAV file: convert it with `sox {path.name} -r 16000 -c 1 out.wav`")


def _mono(block: npt.NDArray[np.float32]) -> Audio:
    """Frames of any channel count as one channel in [-1, 1] (a float file may hold anything)."""
    mean = block.mean(axis=1, dtype=np.float64) if block.shape[1] > 1 else block[:, 0].astype(np.float64)
    mono: Audio = np.clip(np.nan_to_num(mean, nan=0.0, posinf=1.0, neginf=-1.0), -1.0, 1.0).astype(np.float32)
    return mono
