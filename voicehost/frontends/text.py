"""--text: every line typed is what a player would say; every line printed is one announcement."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Sequence
from typing import IO, Final

from voicehost.mouth import Mouth, PrintMouth
from voicehost.referee.host import Host

MAX_LINE_CHARS: Final = 4096
"""A longer line is read in pieces of this size: a pasted book must not fill the memory."""


class TextFrontend:
    """Reads standard input line by line until the game ends or the input does (the game stays saved)."""

    note = ""
    unheard: Callable[[Sequence[str]], Sequence[str]] | None = None  # typed words are all understood

    def __init__(self, lines: IO[str] | None = None, out: IO[str] | None = None) -> None:
        self._lines = lines or sys.stdin
        self.mouth: Mouth = PrintMouth(out)
        if self._lines.isatty():
            with contextlib.suppress(ImportError):  # arrow keys edit the line instead of typing escapes
                import readline  # noqa: F401

    def run(self, host: Host) -> None:
        while not host.finished:
            line = self._lines.readline(MAX_LINE_CHARS)
            if not line:
                return
            host.hear(line.rstrip("\n"))

    def close(self) -> None:
        """Standard input and output are the terminal's: nothing to close."""
