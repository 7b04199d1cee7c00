"""Words as the host compares them: tokens with their folded keys, and phrase sets matched as runs of words."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Final

from engine.lang import fold_text

MAX_TEXT_CHARS: Final = 500
"""Longer transcripts are chatter, not a move; they are not analysed."""


_ESCAPES: Final = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"  # CSI: arrow keys, colours ("\x1b[A")
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?"  # OSC: window titles
    r"|\x1b[PX^_][^\x1b]*(?:\x1b\\)?"  # DCS, SOS, PM, APC strings
    r"|\x1bO."  # SS3: arrow keys in application mode
    r"|\x1b[@-Z\\-_]?"  # any other escape
    r"|\x9b[0-?]*[ -/]*[@-~]"  # 8-bit CSI
)
"""What a terminal sends for keys that are not text: typed before a clue, "\x1b[Aharbor" is "harbor"."""
_SPACES: Final = frozenset("\t\n\r\v\f")
_APOSTROPHES: Final = frozenset("'\u2019\u2018\u02bc`\u00b4")
_PIECE: Final = re.compile(r"-+|'+|[^-']+")
_DIGITS_OR_NOT: Final = re.compile(r"[0-9]+|[^0-9]+")


@dataclass(frozen=True)
class Token:
    """One word heard: ``text`` to give back (accents kept), ``key`` to compare (folded)."""

    text: str
    key: str
    sep: str  # what joined it to the previous token: " ", "-", "'" or "" (digit split)
    chunk: int  # which whitespace-separated chunk of the input it came from
    minus: bool = False  # a dash right before it, at the start of its chunk: "-1"


def strip_controls(text: str) -> str:
    """The text without terminal escape sequences and invisible control or format characters, which are
    dropped, not turned into spaces: "tom\x01ato" is "tomato", not "tom ato"."""
    text = _ESCAPES.sub("", text)
    kept = (ch for ch in text if unicodedata.category(ch) not in ("Cc", "Cf") or ch in _SPACES)
    return "".join(" " if ch in _SPACES else ch for ch in kept)


def _clean_char(ch: str) -> str:
    """Keep letters, digits and marks; mark hyphens and apostrophes; blank the rest."""
    if ch in _APOSTROPHES:
        return "'"
    category = unicodedata.category(ch)
    if category == "Pd":
        return "-"
    if category[0] in "LNM":
        return ch
    return " "


def tokenize(text: str, join_apostrophes: bool) -> tuple[Token, ...]:
    """Split into words; hyphens split too but are remembered, for spelled clues."""
    cleaned = "".join(map(_clean_char, unicodedata.normalize("NFKC", strip_controls(text)).lower()))
    tokens: list[Token] = []
    for chunk_index, chunk in enumerate(cleaned.split()):
        if join_apostrophes:  # English: "it's" -> "its", "what's" -> "whats"
            chunk = chunk.replace("'", "")
        first = True
        sep = " "
        minus = chunk.startswith("-")
        for piece in _PIECE.findall(chunk):
            if piece[0] in "-'":  # Italian/Portuguese elision: "l'ancora" -> "l" "ancora"
                sep = piece[0]
                continue
            for part in _DIGITS_OR_NOT.findall(piece):  # "tomate3" -> "tomate" "3"
                key = fold_text(part)
                if key:
                    tokens.append(Token(part, key, " " if first else sep, chunk_index, minus and first))
                    first = False
                sep = ""
    return tuple(tokens)


def keys_of(tokens: Sequence[Token]) -> tuple[str, ...]:
    return tuple(token.key for token in tokens)


def text_of(tokens: Sequence[Token]) -> str:
    """The words as heard, lowercased, accents and inner hyphens kept."""
    return "".join((token.sep if i else "") + token.text for i, token in enumerate(tokens))


class Phrases:
    """A set of phrases (tuples of folded words), matched as whole runs of words."""

    def __init__(self, phrases: Iterable[tuple[str, ...]]) -> None:
        self._set: frozenset[tuple[str, ...]] = frozenset(p for p in phrases if p)
        self.lengths: tuple[int, ...] = tuple(sorted({len(p) for p in self._set}, reverse=True))

    def __contains__(self, keys: object) -> bool:
        return keys in self._set

    def phrases(self) -> frozenset[tuple[str, ...]]:
        return self._set

    def prefix(self, keys: tuple[str, ...], start: int = 0) -> int:
        """Length of the longest phrase starting at ``start``, 0 if none."""
        for n in self.lengths:
            if start + n <= len(keys) and keys[start : start + n] in self._set:
                return n
        return 0

    def suffix(self, keys: tuple[str, ...], end: int) -> int:
        """Length of the longest phrase ending at ``end``, 0 if none."""
        for n in self.lengths:
            if n <= end and keys[end - n : end] in self._set:
                return n
        return 0


def strip_start(tokens: Sequence[Token], phrases: Phrases, *, keep_one: bool) -> tuple[int, ...]:
    """Where the utterance could begin once lead-ins are dropped: (0, ..., core start)."""
    keys = keys_of(tokens)
    bounds = [0]
    while True:
        n = phrases.prefix(keys, bounds[-1])
        if n == 0 or (keep_one and bounds[-1] + n >= len(keys)):
            return tuple(bounds)
        bounds.append(bounds[-1] + n)
