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
