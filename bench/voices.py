"""Synthetic players: several speech synthesizers per language, the closest to people first.

RHVoice, Pico and MBROLA sound nearer to people than espeak-ng's own formant voices, which are kept as
the *hard tail* (`TestVoice.hard_tail`): what a recognizer finds hardest. Every voice is synthesized to
16 kHz mono float32, its leading and trailing silence trimmed, and cached on disk by (engine version,
voice, speed, text): the same inputs read the same bytes on every run. Each synthesizer runs in its own
process on its own files, so `synthesize_many` runs them in parallel (checked: the same bytes as one at
a time, for RHVoice-test, pico2wave and espeak-ng with and without MBROLA).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import ClassVar, Final

import numpy as np
import numpy.typing as npt

Audio = npt.NDArray[np.float32]
SAMPLE_RATE: Final = 16_000
LANGS: Final = ("pt-BR", "pt-PT", "it", "en", "ko")
ENGINES: Final = ("rhvoice", "pico", "mbrola", "espeak")
TIMEOUT_S: Final = 30.0
"""A synthesizer that takes longer on one sentence is hung, not slow."""
PIPELINE: Final = "v1 sox-float -40dB-trim"
"""Part of the cache key: change it when the resampling or the trimming changes."""
ESPEAK_WPM: Final = 175
"""espeak-ng's default speed, also MBROLA's through it."""
ESPEAK_CORPUS_WPM: Final = 150
"""espeak-ng's own voices speak at this speed, as in bench/corpus.py."""
TRIM_DB: Final = -40.0
"""A 10 ms frame this far below the loudest one is silence (the engines' own floor is -60 to -80 dB)."""
ENV: Final = {**os.environ, "LC_ALL": "C.UTF-8"}
"""espeak-ng may decode its text by the locale's charset and garble accents under LC_ALL=C (1.51 here reads
UTF-8 either way; a UTF-8 locale for every engine costs nothing)."""

RHVOICE_DATA: Final = (Path("/usr/share/RHVoice"), Path("/usr/local/share/RHVoice"))
"""Its languages/ and voices/ folders."""
PICO_LANG: Final = (Path("/usr/share/pico/lang"), Path("/usr/local/share/pico/lang"))
MBROLA_VOICES: Final = (Path("/usr/share/mbrola"), Path("/usr/local/share/mbrola"))


class VoiceUnavailable(RuntimeError):
    """The voice's synthesizer or data is missing, or it failed, hung or said nothing."""


@dataclass(frozen=True)
class TestVoice:
    """One synthetic player. `name` is what the engine is given: an RHVoice profile, a pico2wave language,
    an espeak-ng voice (MBROLA ones are espeak-ng's "mb-xx1" voices). `speed` is in the engine's own unit,
    None for its default: percent for RHVoice and Pico (Pico through sox tempo), words per minute for
    espeak-ng and MBROLA."""

    __test__: ClassVar[bool] = False  # pytest collects classes named Test*: not this one

    id: str
    lang: str
    engine: str
    name: str
    speed: int | None = None

    def __post_init__(self) -> None:
        if self.lang not in LANGS or self.engine not in ENGINES:
            raise ValueError(f"{self.id}: lang must be one of {LANGS}, engine one of {ENGINES}")

    @property
    def hard_tail(self) -> bool:
        """espeak-ng's own formant voices: intelligible but unlike any person."""
        return self.engine == "espeak"


def _voices(lang: str, *ids: str) -> tuple[TestVoice, ...]:
    """Voices from "engine:name" ids; espeak-ng's at 150 words per minute, as bench/corpus.py has them."""
    return tuple(
        TestVoice(voice_id, lang, engine, name, ESPEAK_CORPUS_WPM if engine == "espeak" else None)
        for voice_id in ids
        for engine, _, name in [voice_id.partition(":")]
    )


VOICES: Final[dict[str, tuple[TestVoice, ...]]] = {
    "pt-BR": _voices(
        "pt-BR", "rhvoice:Leticia-F123", "mbrola:mb-br1", "mbrola:mb-br4", "espeak:pt-br", "espeak:pt-br+f3"
    ),
    "pt-PT": _voices("pt-PT", "mbrola:mb-pt1", "espeak:pt", "espeak:pt+f3"),
    "it": _voices("it", "pico:it-IT", "mbrola:mb-it3", "espeak:it", "espeak:it+m3"),
    "en": _voices(
        "en", "rhvoice:slt", "rhvoice:bdl", "rhvoice:clb", "rhvoice:alan", "rhvoice:lyubov", "rhvoice:evgeniy-eng",
        "pico:en-US", "pico:en-GB", "mbrola:mb-us1", "mbrola:mb-us2", "mbrola:mb-en1",
        "espeak:en-us", "espeak:en-us+f3",
    ),
    "ko": _voices("ko", "espeak:ko"),
}  # fmt: skip
"""Per language, people-like voices first, espeak-ng's (the hard tail) last. RHVoice's lyubov and evgeniy-eng
speak English with a Russian accent, as some players do. pt-PT has no RHVoice or Pico voice."""


# ---- what is installed ----------------------------------------------------------------------------


def _run(command: Sequence[str], *, text: str | None = None) -> subprocess.CompletedProcess[bytes]:
    """Runs a synthesizer, raising VoiceUnavailable if it is missing, hangs or exits non-zero."""
    try:
        return subprocess.run(
            command,
            input=None if text is None else text.encode(),
            capture_output=True,
            env=ENV,
            timeout=TIMEOUT_S,
            check=True,
        )
    except FileNotFoundError:
        raise VoiceUnavailable(f"{command[0]} is not installed") from None
    except subprocess.TimeoutExpired:
        raise VoiceUnavailable(f"{command[0]} took more than {TIMEOUT_S:g} s: {' '.join(command)}") from None
    except subprocess.CalledProcessError as exc:
        said = exc.stderr.decode(errors="replace").strip().splitlines()[-3:]
        raise VoiceUnavailable(f"{' '.join(command)} exited with {exc.returncode}: {' / '.join(said)}") from None


def _first(folders: Iterable[Path], name: str) -> Path | None:
    return next((folder / name for folder in folders if (folder / name).exists()), None)


@cache
def _espeak_data() -> Path:
    out = _run(["espeak-ng", "--version"]).stdout.decode()
    return Path(out.split("Data at:")[-1].strip())


@cache
def why_unavailable(voice: TestVoice) -> str | None:
    """Why the voice cannot be synthesized here, or None if it can."""
    binary = {"rhvoice": "RHVoice-test", "pico": "pico2wave"}.get(voice.engine, "espeak-ng")
    needed = [binary, "sox"] + (["mbrola"] if voice.engine == "mbrola" else [])
    missing = [tool for tool in needed if shutil.which(tool) is None]
    if missing:
        return f"{', '.join(missing)} not installed"
    if voice.engine == "rhvoice":
        # RHVoice-test given a profile it lacks speaks with another voice and exits 0: look for the folder.
        found = _first((data / "voices" for data in RHVOICE_DATA), voice.name)
        return None if found else f"no RHVoice voice {voice.name} in {RHVOICE_DATA[0]}/voices"
    if voice.engine == "pico":
        found = _first(PICO_LANG, f"{voice.name}_ta.bin")
        return None if found else f"no pico2wave language {voice.name} in {PICO_LANG[0]}"
    base, _, variant = voice.name.partition("+")
    try:
        # -q: no sound; exits 1 if the voice (or its MBROLA database) is missing.
        _run(["espeak-ng", "-q", "-v", base, "a"])
    except VoiceUnavailable as exc:
        return str(exc)
    if variant and not (_espeak_data() / "voices" / "!v" / variant).exists():
        return f"no espeak-ng variant {variant}"  # an unknown variant is silently ignored
    return None


def available(voice: TestVoice) -> bool:
    """The voice's synthesizer, sox and the voice's data are installed and it speaks."""
    return why_unavailable(voice) is None


@cache
def engine_version(engine: str) -> str:
    """What changes when the engine or its data is upgraded. RHVoice-test --version says "none" and
    pico2wave has no version at all, so theirs is the size and time of their binary and data files."""
    if engine in ("espeak", "mbrola"):
        version = _run(["espeak-ng", "--version"]).stdout.decode().strip()
        folders: tuple[Path, ...] = MBROLA_VOICES if engine == "mbrola" else ()
    else:
        version = engine
        folders = RHVOICE_DATA if engine == "rhvoice" else PICO_LANG
    binary = {"rhvoice": "RHVoice-test", "pico": "pico2wave", "mbrola": "mbrola"}.get(engine)
    paths = [Path(shutil.which(binary) or binary)] if binary else []
    paths += sorted(path for folder in folders if folder.exists() for path in folder.rglob("*") if path.is_file())
    stats = [(path, path.stat()) for path in paths if path.exists()]
    fingerprint = "|".join(f"{path}:{stat.st_size}:{int(stat.st_mtime)}" for path, stat in stats)
    return f"{version} {hashlib.sha256(fingerprint.encode()).hexdigest()[:16]}"


# ---- speech -----------------------------------------------------------------------------------------


def cache_path(voice: TestVoice, text: str, *, cache_dir: Path, speed_factor: float = 1.0) -> Path:
    key = "\0".join((PIPELINE, engine_version(voice.engine), voice.id, str(voice.speed), f"{speed_factor:g}", text))
    return cache_dir / f"{voice.engine}-{hashlib.sha256(key.encode()).hexdigest()[:24]}.f32"


def synthesize(voice: TestVoice, text: str, *, cache_dir: Path, speed_factor: float = 1.0) -> Audio:
    """`text` said by `voice`: 16 kHz mono float32 in [-1, 1], silence trimmed at both ends. Cached in
    `cache_dir` (raw little-endian float32): the same arguments give the same bytes on every run."""
    path = cache_path(voice, text, cache_dir=cache_dir, speed_factor=speed_factor)
    if path.exists():
        return np.fromfile(path, dtype="<f4").astype(np.float32)
    reason = why_unavailable(voice)
    if reason is not None:
        raise VoiceUnavailable(f"{voice.id}: {reason}")
    with tempfile.TemporaryDirectory(prefix="voices-") as folder:
        made = Path(folder) / "speech.wav"  # pico2wave only writes to a name ending in .wav
        tempo = _speak(voice, text, made, speed_factor)
        audio = trim(_to_16k(made, Path(folder) / "speech.f32", tempo))
    if len(audio) == 0:
        raise VoiceUnavailable(f"{voice.id} said nothing for {text!r}")
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f"{path.name}.{os.getpid()}.{id(audio)}.tmp")
    audio.astype("<f4").tofile(partial)
    os.replace(partial, path)  # whole files only, even with several writers
    return audio


def synthesize_many(
    said: Iterable[tuple[TestVoice, str]], *, cache_dir: Path, speed_factor: float = 1.0, workers: int | None = None
) -> list[Audio]:
    """`synthesize` for each (voice, text), a few processes at a time (safe: each engine process writes
    its own file and reads no shared state)."""
    pairs = list(said)
    with ThreadPoolExecutor(max_workers=workers or max(2, os.cpu_count() or 2)) as pool:
        return list(pool.map(lambda p: synthesize(p[0], p[1], cache_dir=cache_dir, speed_factor=speed_factor), pairs))


def _speak(voice: TestVoice, text: str, out: Path, speed_factor: float) -> float:
    """Runs the engine into `out` (a WAV at its own rate); returns the tempo sox still has to apply."""
    if voice.engine == "rhvoice":
        # Reads the text on stdin; writes 24 kHz. -r is a percentage of the voice's normal rate.
        rate = round((voice.speed or 100) * speed_factor)
        _run(["RHVoice-test", "-p", voice.name, "-r", str(rate), "-o", str(out)], text=text)
        return 1.0
    if voice.engine == "pico":
        # No rate option: sox's tempo does it. "--" so that a text starting with "-" is not an option.
        _run(["pico2wave", "-l", voice.name, "-w", str(out), "--", text])
        return (voice.speed or 100) / 100 * speed_factor
    # espeak-ng, with MBROLA for the mb-* voices: those print "unknown diphone" warnings (mb-it3 on many
    # Italian words) and put silence in, exiting 0; only the exit status counts. mb-pt1 writes 22.05 kHz.
    wpm = round((voice.speed or ESPEAK_WPM) * speed_factor)
    _run(["espeak-ng", "-v", voice.name, "-s", str(wpm), "-w", str(out), "--stdin"], text=text)
    return 1.0


def _to_16k(wav: Path, raw: Path, tempo: float) -> Audio:
    """sox to 16 kHz mono float32. Float, not 16-bit: sox dithers when it reduces the bit depth, with a
    random seed, and two runs then differ (seen with `sox in.wav -b 16 out.wav rate 16000`)."""
    effects = ["tempo", "-s", f"{tempo:g}"] if tempo != 1.0 else []
    _run(["sox", "-V1", str(wav), "-t", "raw", "-e", "floating-point", "-b", "32", "-L", "-c", "1",
          "-r", str(SAMPLE_RATE), str(raw), *effects])  # fmt: skip
    audio: Audio = np.fromfile(raw, dtype="<f4").astype(np.float32)
    return np.clip(audio, -1.0, 1.0)


def trim(audio: Audio, *, threshold_db: float = TRIM_DB, frame: int = SAMPLE_RATE // 100) -> Audio:
    """From the first to the last 10 ms frame within `threshold_db` of the loudest, plus a frame each side
    (so that a soft first or last consonant keeps its edge). Silence gives an empty array."""
    count = len(audio) // frame
    if count == 0:
        return audio[:0]
    frames = audio[: count * frame].astype(np.float64).reshape(count, frame)
    rms = np.sqrt(np.mean(frames**2, axis=1))
    loud = np.flatnonzero(rms > rms.max() * 10 ** (threshold_db / 20))
    if rms.max() <= 1e-6 or len(loud) == 0:
        return audio[:0]
    start, end = max(0, int(loud[0]) - 1) * frame, min(len(audio), (int(loud[-1]) + 2) * frame)
    return audio[start:end].astype(np.float32)
