"""The voice mode's devices: which recognizer and model, where the sound comes from, where it goes.

Each piece is built by a `_make_*`-style factory and fails with a message a player can act on
(which model to install, which flag to use instead of a missing microphone).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from engine.lang import Lang
from voicehost.ears.audio import Audio, AudioError
from voicehost.ears.microphone import NO_MICROPHONE_ADVICE, Microphone, MicrophoneLost, NoMicrophone, open_microphone
from voicehost.ears.recordings import file_chunks
from voicehost.mouth import FileMouth, SpeakerMouth, SpeechError, Synthesizer
from voicehost.speech_models import Manifest, ModelError, installed_path, require

DEFAULT_ENGINE = "vosk"


class DeviceError(Exception):
    """A device the voice mode needs is missing; the message says what to do instead."""


@dataclass(frozen=True)
class EngineChoice:
    engine: str
    model_dir: Path
    note: str = ""  # said once when the choice differs from what was asked


def choose_engine(engine: str | None, model: Path | None, lang: Lang, manifest: Manifest | None = None) -> EngineChoice:
    """--engine and --model as given; otherwise vosk's model for the language, or whisper's when only
    that one is installed (the package registries ship whisper base, not the vosk models)."""
    if model is not None:
        if not model.is_dir():
            raise ModelError(f"{model} is not a model folder")
        return EngineChoice(engine or DEFAULT_ENGINE, model)
    manifest = manifest or Manifest.load()
    wanted = engine or DEFAULT_ENGINE
    spec = manifest.default_for(lang.value, wanted)
    found = installed_path(spec)
    if found is not None:
        return EngineChoice(wanted, found)
    if engine is None:  # no preference given: any installed engine for this language will do
        other = manifest.default_for(lang.value, "whisper")
        found = installed_path(other)
        if found is not None:
            note = f"No vosk model for {lang.value} is installed: using whisper ({other.id})."
            return EngineChoice("whisper", found, note)
    return EngineChoice(wanted, require(spec, lang=lang.value))


def microphone_chunks(
    on_lost: Callable[[MicrophoneLost], None], on_back: Callable[[], None], advice: str
) -> tuple[Iterator[Audio], Microphone]:
    """Live audio from the default microphone, surviving its loss; DeviceError when there is none."""
    try:
        microphone = open_microphone()
    except NoMicrophone as exc:  # what went wrong, then what to do in the game's language, once
        raise DeviceError(f"{str(exc).replace(NO_MICROPHONE_ADVICE, '').strip()} {advice}".strip()) from None
    return microphone.resilient_chunks(on_lost, on_back), microphone


def recording_chunks(path: Path, realtime: bool) -> Iterator[Audio]:
    """--audio-in: the recording, checked before the game starts."""
    try:
        from voicehost.ears.wav import read_wav

        read_wav(path)
    except (AudioError, OSError) as exc:
        raise DeviceError(f"cannot read the recording {path}: {exc}") from None
    return file_chunks(path, realtime=realtime)


def make_mouth(lang: Lang, audio_out: Path | None, out: IO[str] | None = None) -> Any:
    """Speakers (through sounddevice) or --audio-out; printing only when espeak-ng cannot speak."""
    out = out or sys.stdout
    try:
        synthesizer = Synthesizer(lang)
    except SpeechError as exc:
        print(f"voicehost: {exc} The host prints what it would say.", file=sys.stderr)
        return None
    if audio_out is not None:
        return FileMouth(audio_out, synthesizer, out=out, err=sys.stderr)
    return SpeakerMouth(synthesizer, out=out, err=sys.stderr)
