"""Where the host keeps things by default: the user's data folder (XDG_DATA_HOME)."""

from __future__ import annotations

import os
from pathlib import Path


def data_dir() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "voicehost"


def default_save_path() -> Path:
    """The game `play` keeps when no --save is given (an unfinished one is kept aside, never replaced)."""
    return data_dir() / "current-game.json"


def kept_games_dir() -> Path:
    """Where an unfinished default game goes when a new one starts, still resumable."""
    return data_dir() / "unfinished-games"


def campaigns_path() -> Path:
    return data_dir() / "campaigns.json"
