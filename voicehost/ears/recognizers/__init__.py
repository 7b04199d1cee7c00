"""The recognizers, and the one factory that makes them from a choice of engine and model.

The engines are adapters around heavy libraries (faster-whisper, vosk), imported only here, inside
the factory, and installed as extras (`pip install 'voicehost[whisper]'` or `[vosk]`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Final

from engine.lang import Lang
from voicehost.ears.heard import Recognizer
from voicehost.ears.streams import Ears, SegmentedEars, StreamingEars

if TYPE_CHECKING:
    from voicehost.ears.recognizers.vosk.recognizer import VoskRecognizer

ENGINES: Final = ("vosk", "whisper")


def make_recognizer(engine: str, model_dir: Path) -> Recognizer:
    """The engine's recognizer of one utterance at a time (`voicehost hear` on recordings), with its model
    loaded (ModelError says what to install when it is missing)."""
    if engine == "whisper":
        return _whisper(model_dir)
    if engine == "vosk":
        return _vosk(model_dir)
    raise ValueError(f"unknown engine {engine!r}: choose one of {', '.join(ENGINES)}")


def make_ears(engine: str, model_dir: Path) -> Ears:
    """Utterances from a stream: whisper behind the voice activity detector, vosk on its own."""
    if engine == "whisper":
        return SegmentedEars(_whisper(model_dir))
    if engine == "vosk":
        return StreamingEars(_vosk(model_dir))
    raise ValueError(f"unknown engine {engine!r}: choose one of {', '.join(ENGINES)}")


def unheard_check(ears: Ears, lang: Lang) -> Callable[[Sequence[str]], Sequence[str]] | None:
    """`HostSettings.unheard` for these ears: which cards their recognizer cannot hear by any of their
    names (vosk: a word outside the model's vocabulary); None when it hears any word (whisper)."""
    recognizer = getattr(ears, "recognizer", None)
    check: Callable[[Sequence[str]], Sequence[str]] | None = getattr(recognizer, "unheard", None)
    if check is None:
        return None
    from voicehost.ears.recognizers.vosk.vocabulary import cards_unheard

    return cards_unheard(check, lang)


def _whisper(model_dir: Path) -> Recognizer:
    from voicehost.ears.recognizers.whisper import WhisperRecognizer

    return WhisperRecognizer(model_dir)


def _vosk(model_dir: Path) -> VoskRecognizer:
    from voicehost.ears.recognizers.vosk.recognizer import VoskRecognizer

    return VoskRecognizer(model_dir)
