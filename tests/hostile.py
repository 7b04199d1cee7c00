"""Running the real CLI in-process as a careless or hostile user would, and checking it ended well.

`run` calls `voicehost.cli.main` with its own standard input and output and its own data folder
(XDG_DATA_HOME), and returns the exit code and what was printed. `ended_well` is the promise every
such run must keep: exit 0, 1 or 2, no Python traceback printed, and no crash report written (a
crash report means an error nobody explained to the player).
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from voicehost import cli


@dataclass(frozen=True)
class Ran:
    code: int
    out: str
    err: str
    data: Path

    @property
    def said(self) -> list[str]:
        return self.out.splitlines()

    def crash_reports(self) -> list[Path]:
        folder = self.data / "voicehost" / "crash-reports"
        return sorted(folder.iterdir()) if folder.is_dir() else []

    def ended_well(self) -> bool:
        return self.code in (0, 1, 2) and "Traceback" not in self.out + self.err and not self.crash_reports()

    def why(self) -> str:
        reports = "".join(path.read_text(encoding="utf-8")[-2000:] for path in self.crash_reports())
        return f"exit {self.code}\nstdout: {self.out[-600:]}\nstderr: {self.err[-600:]}\n{reports}"


def run(argv: Sequence[str], stdin: str = "", *, data: Path) -> Ran:
    """`voicehost ARGV` in this process, with `stdin` typed in, XDG_DATA_HOME=`data`, and `data` as the
    working folder (a relative --out or --save lands there, never in the checkout)."""
    out, err = io.StringIO(), io.StringIO()
    saved_stdin, saved_env, saved_cwd = sys.stdin, os.environ.get("XDG_DATA_HOME"), os.getcwd()
    os.environ["XDG_DATA_HOME"] = str(data)
    sys.stdin = io.StringIO(stdin)
    data.mkdir(parents=True, exist_ok=True)
    os.chdir(data)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = cli.main(list(argv))
    finally:
        os.chdir(saved_cwd)
        sys.stdin = saved_stdin
        if saved_env is None:
            os.environ.pop("XDG_DATA_HOME", None)
        else:
            os.environ["XDG_DATA_HOME"] = saved_env
    return Ran(code, out.getvalue(), err.getvalue(), data)
