"""Characters that are not letters a player reads: terminal controls, text-direction overrides, and letters
of another script drawn like Latin ones. A board file is a shared file: its card names reach terminals and
speech, and the clue rules compare them with what players say."""

from __future__ import annotations

import unicodedata
from functools import lru_cache
from typing import Final

from confusable_homoglyphs import confusables

BIDI_CONTROLS: Final = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
"""Marks, embeddings, overrides and isolates: they reorder what a terminal shows ("\u202e" prints the rest
backwards)."""


def is_control(ch: str) -> bool:
    """A character a terminal acts on instead of showing (escape, NUL, bell, C1) or one that reorders the
    line around it."""
    return unicodedata.category(ch) == "Cc" or ch in BIDI_CONTROLS


def controls_in(text: str) -> list[str]:
    """The control characters of `text`, each once, as escapes a person can read ("\\x1b", "\\u202e")."""
    found = dict.fromkeys(ch for ch in text if is_control(ch))
    return [_escaped(ch) for ch in found]


def shown(text: str, keep: str = "\n") -> str:
    """`text` safe to print: every control character (but those in `keep`) written as its escape."""
    if not any(is_control(ch) for ch in text):
        return text
    return "".join(ch if ch in keep or not is_control(ch) else _escaped(ch) for ch in text)


def _escaped(ch: str) -> str:
    return repr(ch)[1:-1] if ord(ch) < 0x100 else f"\\u{ord(ch):04x}"


def latin_lookalikes(text: str) -> str:
    """`text` (lowercased) with each letter of another script that is drawn like a Latin letter replaced by
    that letter (Unicode's confusables, through `confusable_homoglyphs`): "сroissant" written with Cyrillic
    с and о reads "croissant". Other letters are kept as they are."""
    return "".join(_latin_lookalike(ch) for ch in text.casefold())


@lru_cache(maxsize=4096)
def _latin_lookalike(ch: str) -> str:
    if ch.isascii() or not ch.isalpha() or unicodedata.name(ch, "").startswith("LATIN"):
        return ch
    found = confusables.is_confusable(ch, greedy=True, preferred_aliases=["latin"]) or []
    for entry in found:
        for glyph in entry.get("homoglyphs", ()):
            latin = str(glyph.get("c", ""))
            if len(latin) == 1 and "a" <= latin.casefold() <= "z":
                return latin.casefold()
    return ch
