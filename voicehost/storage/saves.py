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
    write_atomically(path, json.dumps(save_document(game, settings), ensure_ascii=False, indent=1))


def save_document(game: AnyGame, settings: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """What a save holds: the board, the host's settings and every event."""
    return {
        "format": SAVE_FORMAT,
        "version": SAVE_VERSION,
        "board": game.board.to_dict(),
        "settings": dict(settings or {}),
        "events": [event.to_dict() for event in game.events],
    }


def load_game(path: Path) -> SavedGame:
    """Read and replay a save; any problem raises SaveError and leaves the file as it was."""
    try:
        data = load_json(path, MAX_SAVE_BYTES, "saved game")
    except StorageError as exc:
        raise SaveError(str(exc)) from None
    return game_from_document(data, str(path))


def game_from_document(data: Any, where: str) -> SavedGame:
    """A save's document checked (its shape, then by replaying it) and its game; SaveError naming `where`."""
    if not isinstance(data, dict) or data.get("format") != SAVE_FORMAT:
        raise SaveError(f"{where} is not a voicehost saved game")
    if data.get("version") != SAVE_VERSION:
        raise SaveError(f"{where} was saved by another version of voicehost ({data.get('version')!r:.20})")
    try:
        check(SaveDocument, data)
    except DocumentError as exc:
        raise SaveError(f"{where} is damaged: {exc}") from None
    try:
        board = Board.from_dict(data["board"])
        game = replay(board, [Event.from_dict(item) for item in data["events"]])
    except GameError as exc:
        raise SaveError(f"{where}: {exc}") from None
    return SavedGame(game, dict(data.get("settings") or {}))


def is_unfinished_game(path: Path) -> bool | None:
    """Whether `path` holds a voicehost game that has not ended (None: it holds no readable game)."""
    try:
        return not load_game(path).game.over
    except SaveError:
        return None
