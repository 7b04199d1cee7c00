"""Which recognizer and model a game uses: --engine and --model as given, else what is installed."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Final

from engine.lang import Lang
from voicehost.speech_models.catalog import Manifest, ModelError, installed_path, require

DEFAULT_ENGINE: Final = "vosk"
"""Small machines run vosk; a machine with whisper's model only (what the registries ship) uses it."""


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
