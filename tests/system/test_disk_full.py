"""A full disk while a game is saved: the game goes on in memory, the host says so once, and nothing
already saved is damaged.

``test_store.py`` checks the Session alone with `save_game` replaced by a function that raises.
Here the whole `voicehost play --text` runs in-process (the real CLI, Session, store and Host), and
the disk fills up under it between two utterances: every write into the game's folder fails at
the operating-system level with ENOSPC, below Python's buffered and text layers, as a full file
system does (`FullDisk`). Where the test machine allows mounting a tiny tmpfs, the same game is
also played against a real full file system.
"""

from __future__ import annotations

import contextlib
import errno
import io
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from engine.lang import Lang
from tests.scripting import (
    ROOT,
    SCRIPTS,
    cli_env,
    console_notes_only,
    lines_text,
    parse_script,
    play_command,
    read_events,
    run_cli,
)
from voicehost import cli
from voicehost.prompts import Prompts
from voicehost.storage.saves import load_game

SCRIPT = "en-classic-all-found"
FULL_AT, FREED_AT = 9, 20
"""The disk is full from utterance 9 on (a clue, guesses, a turn's end: events 4 to 12 are lost
to the disk) and freed again from utterance 20 on."""


class FullRaw(io.RawIOBase):
    """A file's raw OS-level writes, which fail with ENOSPC while the disk is full."""

    def __init__(self, raw: io.FileIO, disk: FullDisk) -> None:
        self._raw = raw
        self._disk = disk

    def write(self, data: Any) -> int:
        if self._disk.full:
            self._disk.refused += 1
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return self._raw.write(data)

    def writable(self) -> bool:
        return True

    def readable(self) -> bool:
        return self._raw.readable()

    def readinto(self, buffer: Any) -> int | None:
        return self._raw.readinto(buffer)

    def seekable(self) -> bool:
        return self._raw.seekable()

    def seek(self, offset: int, whence: int = 0) -> int:
        return self._raw.seek(offset, whence)

    def tell(self) -> int:
        return self._raw.tell()

    def fileno(self) -> int:
        return self._raw.fileno()

    def close(self) -> None:
        self._raw.close()
        super().close()

    @property
    def name(self) -> Any:
        return self._raw.name

    @property
    def mode(self) -> str:
        return self._raw.mode


class FullDisk:
    """Files opened for writing under `folder` go through `FullRaw` (see `install`)."""

    def __init__(self, folder: Path, only: str | None = None) -> None:
        self.folder = folder.resolve()
        self.only = only  # a file name: only that file's writes fail (it lives on another, full disk)
        self.full = False
        self.refused = 0

    def _ours(self, file: Any) -> bool:
        if isinstance(file, int):
            with contextlib.suppress(OSError):
                file = os.readlink(f"/proc/self/fd/{file}")
        if not isinstance(file, str | os.PathLike):
            return False
        path = Path(file).resolve()
        return path.is_relative_to(self.folder) and (self.only is None or path.name == self.only)

    def install(self, monkeypatch: pytest.MonkeyPatch) -> None:
        """Replace io.open, which os.fdopen and Path.open call, for files of the folder opened to write."""
        real_open = io.open

        def opening(
            file: Any, mode: str = "r", buffering: int = -1, encoding: str | None = None, *args: Any, **kwargs: Any
        ) -> Any:
            if not any(flag in mode for flag in "wax+") or not self._ours(file):
                return real_open(file, mode, buffering, encoding, *args, **kwargs)
            binary = mode.replace("t", "").replace("b", "") + "b"
            closefd = kwargs.pop("closefd", True)
            raw = real_open(file, binary, buffering=0, closefd=closefd)
            buffered = io.BufferedWriter(FullRaw(raw, self))
            if "b" in mode:
                return buffered
            newline = kwargs.get("newline", args[1] if len(args) > 1 else None)
            errors = kwargs.get("errors", args[0] if args else None)
            return io.TextIOWrapper(buffered, encoding=encoding or "utf-8", errors=errors, newline=newline)

        monkeypatch.setattr(io, "open", opening)


class Table:
    """Standard input of the CLI: the script's lines, filling and freeing the disk between them."""

    def __init__(self, lines: list[str], disk: FullDisk, folder: Path, full_at: int, freed_at: int | None) -> None:
        self.lines, self.disk, self.folder = lines, disk, folder
        self.full_at, self.freed_at = full_at, freed_at
        self.save_when_full: bytes | None = None
        self.log_when_full: str | None = None
        self.checks: list[str] = []

    def __iter__(self) -> Iterator[str]:
        for number, line in enumerate(self.lines, start=1):
            if number == self.full_at:
                self.disk.full = True
                self.save_when_full = (self.folder / "save.json").read_bytes()
                self.log_when_full = (self.folder / "events.jsonl").read_text(encoding="utf-8")
            if number == self.freed_at:
                self.check_nothing_was_damaged()
                self.disk.full = False
            yield line + "\n"
        if self.disk.full:
            self.check_nothing_was_damaged()

    def readline(self, limit: int = -1) -> str:
        """As the CLI reads standard input: one line at a time, "" at the end."""
        if not hasattr(self, "_feed"):
            self._feed = iter(self)
        return next(self._feed, "")

    def isatty(self) -> bool:
        return False

    def check_nothing_was_damaged(self) -> None:
        """While the disk is full: the last save is the one from before, whole; no temporary file is left."""
        save = self.folder / "save.json"
        if save.read_bytes() != self.save_when_full:
            self.checks.append("the save changed while the disk was full")
        leftovers = [path.name for path in self.folder.iterdir() if path.name.startswith(".save.json.")]
        if leftovers:
            self.checks.append(f"temporary files left behind: {leftovers}")
        try:
            load_game(save)
        except Exception as exc:  # a SaveError would mean the save was damaged
            self.checks.append(f"the save no longer loads: {exc}")


def play_in_process(script_args: list[str], stdin: Any, folder: Path) -> tuple[int, list[str], str]:
    out, err = io.StringIO(), io.StringIO()
    saved_stdin = sys.stdin
    sys.stdin = stdin
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = cli.main(
                [
                    "play",
                    "--text",
                    *script_args,
                    "--save",
                    str(folder / "save.json"),
                    "--events",
                    str(folder / "events.jsonl"),
                ]
            )
    finally:
        sys.stdin = saved_stdin
    return code, out.getvalue().splitlines(), err.getvalue()


EN = Prompts.load(Lang.EN)


def save_failed_text(place: Path, what: str = "save") -> str:
    """What the host says once when the disk refuses the save (or the events log)."""
    return EN.text(f"error.{what}_failed", place=str(place), reason=EN.text("os_reason.disk_full"))


@pytest.fixture(scope="module")
def whole(tmp_path_factory: pytest.TempPathFactory) -> Any:
    script = parse_script(SCRIPTS / f"{SCRIPT}.txt")
    run = run_cli(script.args, script.stdin, tmp_path_factory.mktemp("whole"))
    assert run.returncode == 0, run.stderr
    return run


def fill_and_free(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, freed_at: int | None = FREED_AT
) -> tuple[FullDisk, Table, int, list[str], str]:
    """The script played in-process, the disk full from FULL_AT and freed at `freed_at` (None: never)."""
    script = parse_script(SCRIPTS / f"{SCRIPT}.txt")
    disk = FullDisk(tmp_path)
    disk.install(monkeypatch)
    table = Table(script.feed, disk, tmp_path, FULL_AT, freed_at)
    code, said, err = play_in_process(script.args, table, tmp_path)
    monkeypatch.undo()
    return disk, table, code, said, err


def test_a_disk_that_fills_up_and_frees_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, whole: Any) -> None:
    disk, table, code, said, err = fill_and_free(tmp_path, monkeypatch)
    assert code == 0, err
    assert console_notes_only(err), err
    assert disk.refused > 0, "the disk was never written while full: the test tests nothing"
    assert table.checks == []
    # The game went on in memory: it ended as the uninterrupted one, and the host said so once.
    assert said[-1] == whole.said[-1]
    warnings = [line for line in said if save_failed_text(tmp_path / "save.json") in line]
    assert len(warnings) == 1, warnings
    assert said.count(EN.text("error.save_recovered")) == 1, "saved again: said once"
    # Once the disk had room again, the save caught up: it is whole and complete.
    assert [e.to_dict() for e in load_game(tmp_path / "save.json").game.events] == whole.events
    # The log is whole lines, each an event of the game, in order.
    events, _ = read_events(tmp_path / "events.jsonl")
    assert all(event in whole.events for event in events)
    assert [e["seq"] for e in events] == sorted(e["seq"] for e in events)


def test_the_events_log_catches_up_once_the_disk_has_room(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, whole: Any
) -> None:
    _, _, code, _, err = fill_and_free(tmp_path, monkeypatch)
    assert code == 0, err
    events, text = read_events(tmp_path / "events.jsonl")
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1)), "seq has a gap"
    assert text == whole.events_text


def test_a_disk_that_stays_full_to_the_end(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, whole: Any) -> None:
    """Full from utterance 9 to the end of input: the game is played out in memory and the program
    ends cleanly; what was saved before the disk filled is whole and can be resumed."""
    _, table, code, said, err = fill_and_free(tmp_path, monkeypatch, freed_at=None)
    assert table.checks == []
    assert code == 1, "the game ended with moves that are not on disk"
    assert "not on disk" in err and "the disk is full" in err
    assert said[-1] == whole.said[-1], "the game was played to its end in memory"
    assert len([line for line in said if save_failed_text(tmp_path / "save.json") in line]) == 1
    saved = load_game(tmp_path / "save.json").game
    kept = [e.to_dict() for e in saved.events]
    assert kept == whole.events[: len(kept)] and len(kept) < len(whole.events)
    events, _ = read_events(tmp_path / "events.jsonl")
    assert events == whole.events[: len(events)]


def test_an_events_log_on_a_full_disk_to_the_end(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, whole: Any) -> None:
    """The save has room, the events log (--events on another disk) does not, to the end of input:
    the game is played out, the host says it once, and the program ends cleanly."""
    script = parse_script(SCRIPTS / f"{SCRIPT}.txt")
    disk = FullDisk(tmp_path, only="events.jsonl")
    disk.install(monkeypatch)
    table = Table(script.feed, disk, tmp_path, FULL_AT, None)
    table.check_nothing_was_damaged = lambda: None  # type: ignore[method-assign]  # the save is written
    code, said, err = play_in_process(script.args, table, tmp_path)
    monkeypatch.undo()
    assert code == 1 and "the log" in err, err
    assert said[-1] == whole.said[-1]
    assert len([line for line in said if save_failed_text(tmp_path / "events.jsonl", "log") in line]) == 1
    assert [e.to_dict() for e in load_game(tmp_path / "save.json").game.events] == whole.events
    # What the log took before its disk filled up is there, in whole lines: nothing refused was half written.
    events, text = read_events(tmp_path / "events.jsonl")
    assert text.endswith("\n") and events == whole.events[: len(events)] and len(events) < len(whole.events)


# ---- a real full file system -----------------------------------------------------------------


@pytest.fixture
def tiny_tmpfs(tmp_path: Path) -> Iterator[Path]:
    """A 64 KiB tmpfs, where the machine lets this user mount one (root in a privileged container)."""
    mount = tmp_path / "tiny"
    mount.mkdir()
    if shutil.which("mount") is None or os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root and mount(8)")
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(mount)], capture_output=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.decode(errors='replace').strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def test_a_real_full_file_system(tiny_tmpfs: Path, whole: Any) -> None:
    """The CLI in a subprocess, its save and log on a tmpfs filled up to its last five pages: the two
    locks (save and log) take one each; the save (the old one and the new one side by side) and the
    log fit in the other three until the save outgrows a page, a third of the way into the game."""
    script = parse_script(SCRIPTS / f"{SCRIPT}.txt")
    page = os.sysconf("SC_PAGE_SIZE")
    if page != 4096:
        pytest.skip(f"the sizes here are worked out for 4 KiB pages, not {page}")
    stats = os.statvfs(tiny_tmpfs)
    room = 5 * page
    (tiny_tmpfs / "filler").write_bytes(b"x" * (stats.f_bavail * stats.f_frsize - room))
    save, events = tiny_tmpfs / "save.json", tiny_tmpfs / "events.jsonl"
    done = subprocess.run(
        play_command(script.args, save, events),
        input=lines_text(script.feed),
        capture_output=True,
        text=True,
        encoding="utf-8",
        cwd=ROOT,
        env=cli_env(),
        timeout=60,
    )
    said = done.stdout.splitlines()
    assert done.returncode == 1 and "not on disk" in done.stderr, done.stderr
    assert said[-1] == whole.said[-1], "the game was played to its end in memory"
    assert len([line for line in said if save_failed_text(save) in line]) == 1, "said once"
    kept = [e.to_dict() for e in load_game(save).game.events]
    assert kept == whole.events[: len(kept)] and len(kept) < len(whole.events), "the last good save is whole"
    lines = events.read_text(encoding="utf-8").splitlines()
    assert [json.loads(line) for line in lines] == whole.events[: len(lines)], "the log is whole lines"
