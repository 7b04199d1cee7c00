"""Speech models: the catalog of models per language and engine, their installation, and the choice of one."""

from __future__ import annotations

from voicehost.speech_models.catalog import (
    MARKER,
    Manifest,
    ModelError,
    ModelSpec,
    checkout_models_dir,
    installed_path,
    models_dir,
    reinstall_advice,
    require,
)
from voicehost.speech_models.install import check_files, install, text_progress

__all__ = [
    "MARKER",
    "Manifest",
    "ModelError",
    "ModelSpec",
    "check_files",
    "checkout_models_dir",
    "install",
    "installed_path",
    "models_dir",
    "reinstall_advice",
    "require",
    "text_progress",
]
