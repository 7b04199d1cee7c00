"""Scripted games as data, and the real CLI to play them: shared by the tests that play scripts.

A script (``tests/scripts/*.txt``, format in ``tests/system/test_scripted_games.py``) is parsed into a
`Script`, its lines said to the host the addressed way (``--listen addressed``, the host's name first)
unless the script chooses ``--listen`` itself; `run_cli` plays it with ``voicehost play --text`` in a
subprocess. For the crash tests: `probe` plays a script in-process through the same CLI, one utterance
at a time, and records after each how many events the events file holds and what the host is waiting
for; `kill_after` pipes utterances into a live ``play``, waits for a number of events, and SIGKILLs it.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import shlex
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.lang import Lang
from voicehost.understanding.talk import spoken_host_name

ROOT = Path(__file__).resolve().parent.parent
SCRIPTS = ROOT / "tests" / "scripts"
BOARDS = ROOT / "tests" / "boards"
TIMEOUT = 60


# ---- scripts ---------------------------------------------------------------------------------


@dataclass
class Script:
    path: Path
    args: list[str]
    feed: list[str]
    expect_over: dict[str, str]
    expect_types: list[str] | None = None
    expect_events: list[tuple[int, str, dict[str, str]]] = field(default_factory=list)
    expect_say: list[str] = field(default_factory=list)
    expect_not_say: list[str] = field(default_factory=list)
    expect_last_say: str | None = None
    expect_console: list[str] = field(default_factory=list)  # printed on the console (stderr), never said
    xfail: str | None = None

    @property
    def name(self) -> str:
        return self.path.stem

    @property
    def stdin(self) -> str:
        return lines_text(self.feed)


def lines_text(lines: list[str]) -> str:
    """Utterances as standard input: one a line."""
    return "".join(line + "\n" for line in lines)


def _fields(words: list[str]) -> dict[str, str]:
    out = {}
    for word in words:
        key, sep, value = word.partition("=")
        if not sep:
            raise ValueError(f"expected field=value, got {word!r}")
        out[key] = value
    return out


def parse_script(path: Path) -> Script:
    text = path.read_text(encoding="utf-8")
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()  # the file's final newline ends the last line, it is not an empty utterance
    args: list[str] | None = None
    over: dict[str, str] | None = None
    script = Script(path, [], [], {})
    for line in lines:
        if not line.startswith("#"):
            script.feed.append(line)
            continue
        header, sep, value = line[1:].strip().partition(":")
        if not sep:
            continue
        header, value = header.strip(), value.strip()
        if header == "args":
            args = shlex.split(value)
        elif header == "expect":
            kind, *rest = shlex.split(value)
            if kind != "game_over":
                raise ValueError(f"{path.name}: '# expect:' is about game_over")
            over = _fields(rest)
        elif header == "expect-events":
            script.expect_types = value.split()
        elif header == "expect-event":
            seq, kind, *rest = shlex.split(value)
            script.expect_events.append((int(seq), kind, _fields(rest)))
        elif header == "expect-say":
            script.expect_say.append(value)
        elif header == "expect-not-say":
            script.expect_not_say.append(value)
        elif header == "expect-last-say":
            script.expect_last_say = value
        elif header == "expect-console":
            script.expect_console.append(value)
        elif header == "xfail":
            script.xfail = value
    if args is None or over is None:
        raise ValueError(f"{path.name}: '# args:' and '# expect:' are required")
    script.args, script.expect_over = args, over
    if "--listen" not in args:  # every move said to the host, as a table playing the addressed way does
        name = spoken_host_name(Lang.parse(str(board_of(args)["lang"])))
        script.args = [*args, "--listen", "addressed"]
        script.feed = [addressed(line, name) for line in script.feed]
    return script


def addressed(line: str, name: str) -> str:
    """A line said to the host: its name first ("host, the walrus"); silence stays silence."""
    return f"{name}, {line}" if line.strip() else line


def board_of(args: list[str]) -> dict[str, Any]:
    board = args[args.index("--board") + 1]
    data: dict[str, Any] = json.loads((ROOT / board).read_text(encoding="utf-8"))
    return data


# ---- running the CLI -------------------------------------------------------------------------


@dataclass
class Run:
    returncode: int
    stdout: str
    stderr: str
    events: list[dict[str, Any]]
    events_text: str

    @property
    def said(self) -> list[str]:
        return self.stdout.split("\n")[:-1] if self.stdout.endswith("\n") else self.stdout.split("\n")


def cli_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("LC_") and k not in ("LANG", "LANGUAGE")}
    env["LC_ALL"] = "C.UTF-8"
    env["PYTHONIOENCODING"] = "utf-8"
    return env


def play_command(args: list[str], save: Path, events: Path) -> list[str]:
    command = [sys.executable, "-m", "voicehost.cli", "play", "--text", *args]
    return [*command, "--save", str(save), "--events", str(events)]


def resume_command(save: Path, events: Path) -> list[str]:
    return [sys.executable, "-m", "voicehost.cli", "play", "--text", "--resume", str(save), "--events", str(events)]


def read_events(path: Path) -> tuple[list[dict[str, Any]], str]:
    if not path.exists():
        return [], ""
    text = path.read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()], text


def event_lines(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines()) if path.exists() else 0


def run_cli(args: list[str], stdin: str, workdir: Path) -> Run:
    workdir.mkdir(parents=True, exist_ok=True)
    save, events = workdir / "save.json", workdir / "events.jsonl"
    return _run(play_command(args, save, events), stdin, events)


def resume_cli(save: Path, events: Path, stdin: str) -> Run:
    return _run(resume_command(save, events), stdin, events)


def _run(command: list[str], stdin: str, events: Path) -> Run:
    """`play` in a subprocess, fed `stdin` to its end; what it printed and the events it logged."""
    done = subprocess.run(
        command,
        input=stdin,
        capture_output=True,
        text=True,
        encoding="utf-8",
        cwd=ROOT,
        env=cli_env(),
        timeout=TIMEOUT,
    )
    parsed, text = read_events(events)
    return Run(done.returncode, done.stdout, done.stderr, parsed, text)


# ---- crashing it -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Step:
    """The table after `lines` utterances: events in the file, and what the host waits for."""

    lines: int
    events: int
    question: str | None  # the host's pending question (its class name), None when it asked nothing
    chosen_side: str | None  # Duet: a side named for the next clue or guess, kept only in memory


def probe(script: Script, workdir: Path) -> tuple[list[Step], Run]:
    """Play the script in-process through the real CLI, noting a `Step` after every utterance.

    The CLI reads standard input line by line and hands each line to `Host.hear`; wrapping that
    method is how the steps are seen, whatever the CLI does around it. Returns the steps (the first
    one before any utterance) and the run, whose events must be those of the subprocess run.
    """
    from voicehost import cli
    from voicehost.referee.host import Host

    workdir.mkdir(parents=True, exist_ok=True)
    save, events = workdir / "save.json", workdir / "events.jsonl"
    steps: list[Step] = []
    original = Host.hear

    def note(host: Host, lines: int) -> None:
        chosen = host.chosen_side  # kept in memory only: a cut must not fall while it is set
        side = chosen.value if chosen is not None else None
        question = type(host.question).__name__ if host.question is not None else None
        steps.append(Step(lines, event_lines(events), question, side))

    def hear(self: Host, *args: Any, **kwargs: Any) -> None:
        if not steps:
            note(self, 0)
        original(self, *args, **kwargs)
        note(self, len(steps))

    out, err = io.StringIO(), io.StringIO()
    stdin = sys.stdin
    Host.hear = hear  # type: ignore[method-assign]
    try:
        sys.stdin = io.StringIO(script.stdin)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = cli.main(["play", "--text", *script.args, "--save", str(save), "--events", str(events)])
    finally:
        Host.hear = original  # type: ignore[method-assign]
        sys.stdin = stdin
    parsed, text = read_events(events)
    return steps, Run(code, out.getvalue(), err.getvalue(), parsed, text)


def kill_after(command: list[str], stdin: str, events: Path, expected: int) -> None:
    """Pipe `stdin` into a live `play` (left open, as at a table), wait until the events file has
    `expected` lines, and SIGKILL the process."""
    process = subprocess.Popen(
        command,
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        text=True,
        encoding="utf-8",
        cwd=ROOT,
        env=cli_env(),
    )
    try:
        assert process.stdin is not None
        process.stdin.write(stdin)
        process.stdin.flush()
        deadline = time.monotonic() + TIMEOUT
        while event_lines(events) < expected:
            assert process.poll() is None, f"the host stopped before it was killed, at {event_lines(events)} events"
            assert time.monotonic() < deadline, f"{events} never reached {expected} lines"
            time.sleep(0.005)
    finally:
        os.kill(process.pid, signal.SIGKILL)
        process.wait(timeout=10)
        if process.stdin is not None:
            with contextlib.suppress(OSError):  # the reader is dead: the pipe is broken
                process.stdin.close()
    assert process.returncode == -signal.SIGKILL


def console_notes_only(err: str) -> bool:
    """Whether standard error holds nothing but the console's notes for the table's organizer (how to see
    the key in private): no warning, no error."""
    return all("voicehost key" in line for line in err.splitlines())
