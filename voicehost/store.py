"""Where a game is kept: the save file (board + events) and the public events log.

The save is rewritten after every event, crash-safe: write a temporary file beside it, fsync,
then rename over the old one, so a kill -9 leaves either the old or the new save, never half.
A save that cannot be read is refused whole with a reason; it is never half-loaded or overwritten.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, TextIO

from engine.board import Board
from engine.editions import AnyGame, replay
from engine.errors import GameError
from engine.events import Event

SAVE_FORMAT: Final = "voicehost-save"
SAVE_VERSION: Final = 1


class SaveError(Exception):
    """A save file that cannot be used, with a reason a player can act on."""


def default_save_path() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "voicehost" / "current-game.json"


@dataclass
class SavedGame:
    game: AnyGame
    settings: dict[str, Any] = field(default_factory=dict)


def write_atomically(path: Path, text: str) -> None:
    """Replace `path` with `text` so that a crash at any moment leaves the old or the new file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    dir_fd = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)


def save_game(path: Path, game: AnyGame, settings: Mapping[str, Any] | None = None) -> None:
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
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise SaveError(f"there is no saved game at {path}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise SaveError(f"{path} cannot be read ({exc})") from None
    try:
        document = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SaveError(f"{path} is not a saved game: broken JSON at line {exc.lineno}") from None
    if not isinstance(document, dict) or document.get("format") != SAVE_FORMAT:
        raise SaveError(f"{path} is not a voicehost saved game")
    if document.get("version") != SAVE_VERSION:
        raise SaveError(f"{path} was saved by another version of voicehost ({document.get('version')})")
    try:
        board = Board.from_dict(document["board"])
        events = [Event.from_dict(item) for item in document["events"]]
        game = replay(board, events)
    except (KeyError, TypeError) as exc:
        raise SaveError(f"{path} is incomplete ({exc})") from None
    except GameError as exc:
        raise SaveError(f"{path}: {exc}") from None
    return SavedGame(game, dict(document.get("settings") or {}))


class EventLog:
    """The --events file: JSON Lines, appended and flushed as events happen."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        self._handle: TextIO = path.open("a", encoding="utf-8")
        self.last_seq = _last_seq(path)

    def append(self, events: Iterable[Event]) -> None:
        for event in events:
            if event.seq <= self.last_seq:
                continue  # already written before a crash or a resume
            self._handle.write(json.dumps(event.to_dict(), ensure_ascii=False) + "\n")
            self.last_seq = event.seq
        self._handle.flush()
        os.fsync(self._handle.fileno())

    def new_game(self) -> None:
        """A new game in the same file starts again at seq 1 (after a game_over)."""
        self.last_seq = 0

    def close(self) -> None:
        self._handle.close()


def _last_seq(path: Path) -> int:
    last = 0
    try:
        with path.open(encoding="utf-8") as handle:
            for line in handle:
                try:
                    item = json.loads(line)
                    last = 0 if item["type"] == "game_started" else last
                    last = max(last, int(item["seq"]))
                except (ValueError, KeyError, TypeError):
                    continue  # a line torn by a crash: the next event rewrites from the save
    except FileNotFoundError:
        pass
    return last
