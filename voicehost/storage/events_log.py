"""The public events log (--events): JSON Lines, each batch appended whole and fsynced as it happens.

Only whole lines are ever kept: the log remembers where its last fsynced line ends and cuts the
file back there before writing, so a line torn by a crash or refused by a full disk is written
again whole from the game's events. Nothing is held open (or buffered) between batches, so closing
has nothing left to write and cannot fail for a full disk.

A log belongs to one game at a time: a new game may follow a finished one in the same file (its
`seq` starts again at 1, as the events contract allows), never an unfinished one; a resumed game
continues only the log whose last game is this one.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Final

from engine.events import Event
from voicehost.storage.errors import StorageError
from voicehost.storage.reading import MiB, read_bytes

MAX_LOG_BYTES: Final = 256 * MiB
"""Thousands of games (one is about 10 KB); a longer file is not an events log of this host."""


@dataclass(frozen=True)
class LogTail:
    """What an existing log holds: its last game's first and last line, and where its whole lines end."""

    started: dict[str, object] | None  # the last game_started line
    last_seq: int
    over: bool  # the last game ended (game_over)
    good: int  # bytes of whole lines


def read_tail(path: Path) -> LogTail:
    """Scan an existing log (bounded); an absent or empty file is an empty log."""
    if not path.exists() and not path.is_symlink():
        return LogTail(None, 0, True, 0)
    data = read_bytes(path, MAX_LOG_BYTES, "events log")
    good = data.rfind(b"\n") + 1  # a fragment after the last newline is a line torn by a crash
    started: dict[str, object] | None = None
    last, over = 0, True
    for line in data[:good].split(b"\n"):
        try:
            item = json.loads(line)
            kind, seq = item["type"], int(item["seq"])
        except (ValueError, KeyError, TypeError):
            continue  # a torn line in the middle, left by an older version: skipped
        if kind == "game_started":
            started, last, over = item, 0, False
        last = max(last, seq)
        over = over or kind == "game_over"
    torn = data[good:]
    if (good and started is None) or (torn and not _torn_line(torn)):
        # notes without a final newline, or any other file: cutting it back to its whole lines would erase it
        raise StorageError(
            f"{path} is not an events log of voicehost (no game starts in it): it was left untouched; "
            "give another --events file"
        )
    return LogTail(started, last, over, good)


def _torn_line(fragment: bytes) -> bool:
    """Whether the bytes after the last newline are the start of a line this log writes (a crash tore it),
    rather than text of another file, which must never be cut off."""
    opening = b'{"seq": '
    if not (fragment.startswith(opening) or opening.startswith(fragment)):
        return False
    text = fragment.decode("utf-8", "replace")
    try:
        _, end = json.JSONDecoder().raw_decode(text)
    except ValueError:
        return True  # a line cut short
    return end == len(text)  # a whole line short of its newline, not a line with other text after it


class EventLog:
    """The --events file of one game; see the module docstring."""

    def __init__(self, path: Path, events: Sequence[Event], *, resumed: bool) -> None:
        """Open the log for the game whose events so far are `events` (its game_started first).

        A new game after an unfinished one, a resumed game whose log holds another game, or one whose
        log is ahead of its save (its next events would be skipped as already written) is refused
        (StorageError) and the file is left as it was."""
        self.path = path
        tail = read_tail(path)
        started = events[0].to_dict() if events else None
        same_game = tail.started is not None and started is not None and _same_start(tail.started, started)
        if resumed and tail.started is not None and not same_game:
            raise StorageError(f"the events log {path} holds another game than this save: give its own --events file")
        saved = max((event.seq for event in events), default=0)
        if resumed and same_game and tail.last_seq > saved:
            raise StorageError(
                f"the events log {path} is ahead of this save (it holds events up to {tail.last_seq}, the save up "
                f"to {saved}): the save is older than the log, so resuming would leave the new events out of it. "
                "Resume the newer save, or give another --events file; both files were left untouched"
            )
        if not resumed and not tail.over:
            raise StorageError(
                f"the events log {path} holds a game that is not finished: resume it (--resume with its save), "
                "or give another --events file"
            )
        self.last_seq = tail.last_seq if resumed and same_game else 0
        self._good = tail.good
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            with path.open("ab", buffering=0) as handle:  # create it, and cut off a torn last line now
                _cut_back(handle.fileno(), self._good)
        except OSError as exc:
            raise StorageError(f"the events log cannot be written at {path}: {exc.strerror or exc}") from None

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


def _same_start(logged: dict[str, object], started: dict[str, object]) -> bool:
    keys = ("edition", "lang", "cards", "variants")
    return all(logged.get(key) == started.get(key) for key in keys)


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
