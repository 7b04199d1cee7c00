"""Where a game is kept: the save file (board + events) and the public events log.

The save is rewritten after every event, crash-safe: write a temporary file beside it, fsync,
then rename over the old one, so a kill -9 leaves either the old or the new save, never half.
A save that cannot be read is refused whole with a reason; it is never half-loaded or overwritten.
The events log holds whole lines only, and follows the save: what a crash or a full disk kept out
of it is written again from the game's events once writing works.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO, Final

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
    """The --events file: JSON Lines, each batch appended whole and fsynced as events happen.

    Only whole lines are ever kept: the log remembers where its last fsynced line ends and cuts
    the file back there before writing, so a line torn by a crash or refused by a full disk is
    written again whole from the game's events. Nothing is held open (or buffered) between
    batches, so closing has nothing left to write and cannot fail for a full disk.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        self.last_seq, self._good = _scan(path)
        with path.open("ab", buffering=0) as handle:  # create it, and cut off a torn last line now
            _cut_back(handle.fileno(), self._good)

    def append(self, events: Iterable[Event]) -> None:
        """Write the events not in the file yet (seq > last_seq); an OSError leaves only whole lines."""
        lines, last = [], self.last_seq
        for event in events:
            if event.seq <= last:
                continue  # already written before a crash, a resume or a full disk
            lines.append(json.dumps(event.to_dict(), ensure_ascii=False) + "\n")
            last = event.seq
        if not lines:
            return
        data = "".join(lines).encode("utf-8")
        handle = self.path.open("ab", buffering=0)
        try:
            _cut_back(handle.fileno(), self._good)
            _write_all(handle, data)
            os.fsync(handle.fileno())
            handle.close()
        except BaseException:
            with contextlib.suppress(OSError):
                handle.close()  # what the disk refused is dropped here; what it half took, cut off below
            with contextlib.suppress(OSError):
                os.truncate(self.path, self._good)
            raise
        self._good += len(data)
        self.last_seq = last

    def new_game(self) -> None:
        """A new game in the same file starts again at seq 1 (after a game_over)."""
        self.last_seq = 0

    def close(self) -> None:
        """Nothing to flush: every batch was written whole or cut off when it was appended."""


def _scan(path: Path) -> tuple[int, int]:
    """The last seq of the file's whole lines, and the byte offset where its whole lines end."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return 0, 0
    good = data.rfind(b"\n") + 1  # a fragment after the last newline is a line torn by a crash
    last = 0
    for line in data[:good].split(b"\n"):
        try:
            item = json.loads(line)
            last = 0 if item["type"] == "game_started" else last
            last = max(last, int(item["seq"]))
        except (ValueError, KeyError, TypeError):
            continue  # a torn line in the middle, left by an older version: skipped
    return last, good


def _cut_back(fd: int, good: int) -> None:
    """Drop whatever follows the last whole line (a torn line, a batch a full disk half took)."""
    if os.fstat(fd).st_size > good:
        os.ftruncate(fd, good)


def _write_all(handle: BinaryIO, data: bytes) -> None:
    """Write every byte: an unbuffered write to a nearly full disk may take only part of them."""
    view = memoryview(data)
    while view:
        view = view[handle.write(view) :]
    handle.flush()
