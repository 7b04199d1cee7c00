"""The save file: the board, the host's settings and every event, rewritten crash-safe after each event.

A save that cannot be used is refused whole with a reason and left untouched: read bounded
(`reading`), its shape checked (`documents`), then replayed by the rules engine, which refuses any
event the rules would not have produced.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from engine.board import Board
from engine.editions import AnyGame, replay
from engine.errors import GameError
from engine.events import Event
from voicehost.storage.atomic import write_atomically
from voicehost.storage.documents import DocumentError, SaveDocument, check
from voicehost.storage.errors import SaveError, StorageError
from voicehost.storage.reading import MiB, load_json

SAVE_FORMAT: Final = "voicehost-save"
SAVE_VERSION: Final = 1
MAX_SAVE_BYTES: Final = 8 * MiB
"""A save of a long game is about 10 KB."""


@dataclass
class SavedGame:
    game: AnyGame
    settings: dict[str, Any] = field(default_factory=dict)


def save_game(path: Path, game: AnyGame, settings: Mapping[str, Any] | None = None) -> None:
    """Write the save (OSError when the disk refuses: the old save stays as it was)."""
    document = {
        "format": SAVE_FORMAT,
        "version": SAVE_VERSION,
        "board": game.board.to_dict(),
        "settings": dict(settings or {}),
        "events": [event.to_dict() for event in game.events],
    }
    write_atomically(path, json.dumps(document, ensure_ascii=False, indent=1))


def load_game(path: Path) -> SavedGame:
    """Read and replay a save; any problem raises SaveError and leaves the file as it was."""
    try:
        data = load_json(path, MAX_SAVE_BYTES, "saved game")
    except StorageError as exc:
        raise SaveError(str(exc)) from None
    if not isinstance(data, dict) or data.get("format") != SAVE_FORMAT:
        raise SaveError(f"{path} is not a voicehost saved game")
    if data.get("version") != SAVE_VERSION:
        raise SaveError(f"{path} was saved by another version of voicehost ({data.get('version')!r:.20})")
    try:
        check(SaveDocument, data)
    except DocumentError as exc:
        raise SaveError(f"{path} is damaged: {exc}") from None
    try:
        board = Board.from_dict(data["board"])
        game = replay(board, [Event.from_dict(item) for item in data["events"]])
    except GameError as exc:
        raise SaveError(f"{path}: {exc}") from None
    return SavedGame(game, dict(data.get("settings") or {}))


def is_unfinished_game(path: Path) -> bool | None:
    """Whether `path` holds a voicehost game that has not ended (None: it holds no readable game)."""
    try:
        return not load_game(path).game.over
    except SaveError:
        return None
