"""--text: every line typed is what a player would say; every line printed is one announcement."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import IO, Any, Final

from voicehost.mouth import Mouth, PrintMouth
from voicehost.referee.host import Host

MAX_LINE_CHARS: Final = 4096
"""A longer line is not a move: it is refused whole (a pasted book must neither fill the memory nor have
its last piece taken as a move)."""
MAX_LINE_BYTES: Final = 4 * MAX_LINE_CHARS
"""UTF-8 takes at most four bytes a character."""


@dataclass(frozen=True)
class TypedLine:
    """One line typed, or why it cannot be heard: `problem` is the prompt key of what to tell the player."""

    text: str
    problem: str | None = None


class LineReader:
    """Lines from standard input, each whole or refused whole: bytes decoded here (never by the locale, so
    invalid UTF-8 is a line not understood, not a crash), and a line over MAX_LINE_CHARS read to its end
    and dropped."""

    def __init__(self, stream: IO[str]) -> None:
        self._bytes: IO[bytes] | None = getattr(stream, "buffer", None)
        self._text = stream

    def next(self) -> TypedLine | None:
        """The next line (None at the end of the input)."""
        return self._next_bytes(self._bytes) if self._bytes is not None else self._next_text()

    def _next_bytes(self, stream: IO[bytes]) -> TypedLine | None:
        raw = stream.readline(MAX_LINE_BYTES + 1)
        if not raw:
            return None
        if len(raw) > MAX_LINE_BYTES:
            _skip_rest(stream, raw)
            return TypedLine("", "input.too_long")
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            return TypedLine(raw.decode("utf-8", "replace").rstrip("\r\n"), "input.unreadable")
        return _checked(text)

    def _next_text(self) -> TypedLine | None:
        line = self._text.readline(MAX_LINE_CHARS + 1)
        if not line:
            return None
        if len(line.rstrip("\r\n")) > MAX_LINE_CHARS:
            _skip_rest(self._text, line)
            return TypedLine("", "input.too_long")
        if any("\ud800" <= ch <= "\udfff" for ch in line):  # bytes a locale could not decode (surrogateescape)
            return TypedLine("", "input.unreadable")
        return _checked(line)


def _checked(line: str) -> TypedLine:
    text = line.rstrip("\r\n")
    return TypedLine("", "input.too_long") if len(text) > MAX_LINE_CHARS else TypedLine(text)


def _skip_rest(stream: IO[Any], read: str | bytes) -> None:
    """Read what is left of a line too long to keep, in bounded pieces, and drop it."""
    end = "\n" if isinstance(read, str) else b"\n"
    while read and not read.endswith(end):  # type: ignore[arg-type]
        read = stream.readline(MAX_LINE_BYTES)


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
        reader = LineReader(self._lines)
        while not host.finished:
            line = reader.next()
            if line is None:
                return
            if line.problem is not None:  # refused whole: no piece of it is taken as a move
                host.say(host.t(line.problem), remember=False)
                continue
            host.hear(line.text)

    def close(self) -> None:
        """Standard input and output are the terminal's: nothing to close."""
