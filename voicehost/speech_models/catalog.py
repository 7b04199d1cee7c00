"""Speech models: which one a language and engine use (the manifest), and where an installed one lives."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Final

MARKER: Final = ".voicehost-installed"


class ModelError(Exception):
    """A model that is missing, corrupt or cannot be fetched; the message says what to do."""


@dataclass(frozen=True)
class ModelSpec:
    id: str
    engine: str
    langs: tuple[str, ...]
    dir: str
    size_mb: int
    machine: str
    source: Mapping[str, Any]
    sha256: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ModelSpec:
        return cls(
            id=data["id"],
            engine=data["engine"],
            langs=tuple(data["langs"]),
            dir=data["dir"],
            size_mb=int(data.get("size_mb", 0)),
            machine=data.get("machine", ""),
            source=dict(data["source"]),
            sha256=dict(data.get("sha256", {})),
        )

    @property
    def where_from(self) -> str:
        if "url" in self.source:
            return str(self.source["url"])
        if "files" in self.source:
            return str(self.source["files"])
        return "the package registry: " + ", ".join(self.source["pypi"])


@dataclass(frozen=True)
class Manifest:
    models: tuple[ModelSpec, ...]
    defaults: Mapping[str, Mapping[str, str]]

    @classmethod
    def load(cls) -> Manifest:
        data = json.loads(
            resources.files("voicehost.speech_models").joinpath("manifest.json").read_text(encoding="utf-8")
        )
        return cls(tuple(ModelSpec.from_dict(item) for item in data["models"]), data["defaults"])

    def get(self, model_id: str) -> ModelSpec:
        for spec in self.models:
            if spec.id == model_id:
                return spec
        raise ModelError(f"no model called {model_id!r}; see: voicehost models list")

    def default_for(self, lang: str, engine: str) -> ModelSpec:
        try:
            return self.get(self.defaults[engine][lang])
        except KeyError:
            raise ModelError(f"no {engine} model is known for {lang}") from None


def checkout_models_dir() -> Path | None:
    """The models/ folder of a source checkout (beside pyproject.toml), where `make models` installs."""
    root = Path(__file__).resolve().parents[2]
    return root / "models" if (root / "pyproject.toml").is_file() else None


def models_dir() -> Path:
    """$VOICEHOST_MODELS, else the checkout's models/ folder when writable, else the user's data folder."""
    if os.environ.get("VOICEHOST_MODELS"):
        return Path(os.environ["VOICEHOST_MODELS"])
    project = checkout_models_dir()
    if project is not None and os.access(project if project.exists() else project.parent, os.W_OK):
        return project
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "voicehost" / "models"


def installed_path(spec: ModelSpec, root: Path | None = None) -> Path | None:
    path = (root or models_dir()) / spec.dir
    return path if (path / MARKER).exists() else None


def require(spec: ModelSpec, root: Path | None = None, lang: str | None = None) -> Path:
    """The installed model's folder, or a ModelError that says how to install it."""
    path = installed_path(spec, root)
    if path is None:
        lang = lang or spec.langs[0]
        raise ModelError(
            f"the {spec.engine} model {spec.id} is not installed. Install it with: "
            f"voicehost models install {lang} --engine {spec.engine}"
        )
    return path


def reinstall_advice(folder: Path, engine: str, root: Path | None = None) -> str:
    """The command that replaces a damaged model, for the error a recognizer raises at load time.

    The model is the manifest's one with that folder name, else the engine's default. `install`
    keeps a folder it already installed, so repairing that very folder takes --force; a folder of
    the player's own (--model) is left alone and a good copy goes to the models folder instead."""
    try:
        manifest = Manifest.load()
        known = [spec for spec in manifest.models if spec.engine == engine]
        spec = next((spec for spec in known if spec.dir == folder.name), None) or manifest.get(
            next(iter(manifest.defaults[engine].values()))
        )
    except (ModelError, KeyError, StopIteration, OSError, ValueError):
        return f"Install a {engine} model with: voicehost models install en --engine {engine}"
    target = (root or models_dir()) / spec.dir
    command = f"voicehost models install {spec.id} --engine {engine}"
    if folder.resolve() == target.resolve():
        return f"Reinstall it with: {command} --force"
    return f"Install a working copy with: {command} (it goes to {target})"
