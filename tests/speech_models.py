"""The installed speech models the real-audio tests use, or a skip that says how to install them."""

from __future__ import annotations

from pathlib import Path

import pytest

from voicehost.speech_models import Manifest, installed_path


def whisper_base_dir() -> Path:
    found = installed_path(Manifest.load().get("whisper-base"))
    if found is None:
        pytest.skip("Whisper base is not installed: voicehost models install whisper-base")
    return found
