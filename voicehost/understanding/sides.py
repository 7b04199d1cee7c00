"""Duet: a player naming their side of the key ("A", "o B", "fui eu, o A", "player b")."""

from __future__ import annotations

from typing import Final

from engine.lang import Lang, fold_text
from engine.pieces import Side
from voicehost.understanding.vocabulary import vocabulary

MAX_SIDE_WORDS: Final = 5
"""Longer utterances are something else that happens to end in a letter."""


def side_named(text: str, lang: Lang) -> Side | None:
    """The side named when the utterance is only that: the last word a side's name, the words before it
    lead-ins of the vocabulary (`side_leads`); None otherwise."""
    vocab = vocabulary(lang)
    words = [word.strip(".,!?:;'\"") for word in fold_text(text).replace("'", " ").split()]
    words = [word for word in words if word]
    if not words or len(words) > MAX_SIDE_WORDS or words[-1] not in vocab.sides:
        return None
    if all(word in vocab.side_leads for word in words[:-1]):
        return vocab.sides[words[-1]]
    return None


MAX_PREFIX_WORDS: Final = 3
"""A side said before a move: "A", "player A", "it's me, A"."""


def side_first(text: str, lang: Lang) -> tuple[Side, str] | None:
    """A Duet player naming their side before their move ("A: touro, dois", "player B, the cherry"):
    the side and the words of the move; None when the utterance does not start so, or is the side alone."""
    words = text.replace(":", " ").replace(",", " ").split()
    marked = any(mark in text for mark in (":", ","))  # "A: touro", not the article "a touro"
    for size in range(1, min(MAX_PREFIX_WORDS, len(words) - 1) + 1):
        side = side_named(" ".join(words[:size]), lang)
        if side is None or not (marked or size > 1):
            continue
        rest = " ".join(words[size:])
        if side_named(rest, lang) is None:
            return side, rest
    return None
