"""The host's voice by Piper: a natural neural voice, when one is installed for the game's language.

piper-tts is an optional extra (`pip install 'voicehost[piper]'`; GPL-3.0-or-later), imported only when
a Piper voice is made. Its voices are installed as models (`voicehost models install LANG --engine
piper`): an ONNX file and its .onnx.json beside it. espeak-ng stays the voice that always works.

Piper speaks at its voice's own rate (22050 Hz for the "medium" voices) and one sentence at a time:
`sentences` hands each over as soon as it is ready, at that rate, for an output that streams (a
satellite's speaker); `synthesize` gives the whole announcement at 16 kHz, as every mouth takes it.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final

import numpy as np

from engine.lang import Lang
from voicehost.audio.resample import Resampler
from voicehost.audio.samples import SAMPLE_RATE, Audio
from voicehost.mouth.base import SpeechError
from voicehost.speech_models.catalog import Manifest, ModelError, installed_path

LENGTH_SCALE: Final = 1.1
"""A little slower than the voice's own pace (1.0): card names must be understood the first time."""
VOLUME: Final = 0.8
"""Piper scales every sentence to full scale; a little below it leaves room for the resampler's ringing."""
NOISE_SEED: Final = 20261124
"""A Piper voice draws random noise for its prosody (the model's RandomNormalLike operators), from a
generator onnxruntime seeds when it loads the model, by default differently in every process: the same
announcements came out as different audio on every run (3 runs, 3 different "CHERRY: a red agent.", one
of them heard as "Terry"). Seeded, a game's announcements are the same audio on every run (tests and
recordings reproducible), and still vary from one announcement to the next."""


def _piper() -> Any:
    """The piper module, or SpeechError saying what to install."""
    try:
        import piper
    except ImportError:
        raise SpeechError("A Piper voice needs piper-tts: pip install 'voicehost[piper]'.") from None
    return piper


def _seed_noise() -> None:
    """Seed onnxruntime's random operators before a model is loaded (NOISE_SEED)."""
    try:
        import onnxruntime
    except ImportError:  # piper-tts brings onnxruntime; without it the load says what is missing
        return
    onnxruntime.set_seed(NOISE_SEED)


def install_advice(lang: Lang) -> str:
    return f"voicehost models install {lang.value} --engine piper"


def voice_file(lang: Lang, root: Path | None = None) -> Path:
    """The installed Piper voice of the language (its .onnx file), or SpeechError saying how to install one."""
    try:
        spec = Manifest.load().default_for(lang.value, "piper")
    except ModelError:
        raise SpeechError(f"No Piper voice is known for {lang.value}.") from None
    folder = installed_path(spec, root)
    if folder is None:
        raise SpeechError(f"No Piper voice for {lang.value} is installed (install one with: {install_advice(lang)}).")
    found = sorted(folder.glob("*.onnx"))
    if len(found) != 1 or not found[0].with_name(found[0].name + ".json").is_file():
        raise SpeechError(
            f"The Piper voice in {folder} is incomplete: it needs one .onnx file and its .onnx.json "
            f"(reinstall it with: {install_advice(lang)} --force)."
        )
    return found[0]


class PiperSynthesizer:
    """Text to speech with one Piper voice (an .onnx model and its .onnx.json)."""

    def __init__(self, model: Path, config: Path | None = None, *, length_scale: float = LENGTH_SCALE) -> None:
        piper = _piper()
        config = config or model.with_name(model.name + ".json")
        _seed_noise()
        try:
            self._voice = piper.PiperVoice.load(str(model), config_path=str(config))
        except Exception as exc:  # onnxruntime and json fail in many ways on a damaged file
            raise SpeechError(f"The Piper voice {model} cannot be loaded ({type(exc).__name__}: {exc}).") from None
        self._config = piper.SynthesisConfig(length_scale=length_scale, volume=VOLUME)
        self.rate = int(self._voice.config.sample_rate)
        self._lock = threading.Lock()
        self.last_seconds = 0.0  # how long the last whole synthesis took, for logs and benchmarks
        self.lang: Lang | None = None  # the game's language, when made for one (`for_lang`)

    @classmethod
    def for_lang(cls, lang: Lang, root: Path | None = None) -> PiperSynthesizer:
        """The installed voice of the game's language; SpeechError when there is none."""
        synthesizer = cls(voice_file(lang, root))
        synthesizer.lang = lang
        return synthesizer

    def sentences(self, text: str) -> Iterator[Audio]:
        """`text` spoken one sentence at a time, at the voice's own rate (`rate`), each as soon as it is ready."""
        text = " ".join(text.split())
        if not text:
            return
        try:
            chunks = iter(self._voice.synthesize(text, syn_config=self._config))
            while True:
                with self._lock:  # onnxruntime is shared by every announcement: one sentence at a time
                    chunk = next(chunks, None)
                if chunk is None:
                    return
                yield np.asarray(chunk.audio_float_array, dtype=np.float32).reshape(-1)
        except Exception as exc:  # phonemizer or onnxruntime errors
            raise SpeechError(f"Piper could not speak ({type(exc).__name__}: {exc}).") from None

    def synthesize(self, text: str) -> Audio:
        """`text` spoken, as 16 kHz mono float32 (one resampler over the sentences: no seams between them)."""
        started = time.perf_counter()
        resampler = Resampler(self.rate, SAMPLE_RATE) if self.rate != SAMPLE_RATE else None
        pieces: list[Audio] = []
        for sentence in self.sentences(text):
            pieces.append(resampler.process(sentence) if resampler is not None else sentence)
        if resampler is not None and pieces:
            pieces.append(resampler.flush())
        self.last_seconds = time.perf_counter() - started
        return np.concatenate(pieces).astype(np.float32) if pieces else np.zeros(0, dtype=np.float32)
