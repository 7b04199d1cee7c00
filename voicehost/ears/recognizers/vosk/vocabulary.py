"""What a vosk model can hear: the words of its vocabulary, and the cards (and other phrases) spelled
with them.

A vosk model hears only the words its graph holds: a card outside them can never be guessed by its
name (the grammar leaves it out), so the host says at the start which cards to name by their place
(`HostSettings.unheard`), and a dealt game prefers the cards the model knows (`voicehost deal`,
`voicehost play` without --board). `VoskVocabulary` loads only the model's graph, not its decoders:
enough for `voicehost deal` and `voicehost models list`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, Final

from engine.decks import aliases_of
from engine.lang import Lang
from voicehost.speech_models import ModelError

SPLIT_INSIDE_WORD: Final = re.compile(r"[-'’]")
"""A card the model does not know as one word ("guarda-chuva", "dell'acqua") may be known as its parts."""


def spell(phrase: str, knows: Callable[[str], bool]) -> str | None:
    """The phrase as words the model knows, or None when one of them is outside its vocabulary."""
    words: list[str] = []
    for word in phrase.split():
        if knows(word):
            words.append(word)
            continue
        parts = [part for part in SPLIT_INSIDE_WORD.split(word) if part]
        if len(parts) < 2 or not all(knows(part) for part in parts):
            return None
        words.extend(parts)
    return " ".join(words)


def unheard_of(phrases: Iterable[str], knows: Callable[[str], bool]) -> list[str]:
    """The phrases (cards as printed) a model with this vocabulary cannot hear, in their order."""
    return [phrase for phrase in phrases if spell(" ".join(phrase.lower().split()), knows) is None]


def cards_unheard(
    unheard: Callable[[Sequence[str]], Sequence[str]], lang: Lang
) -> Callable[[Sequence[str]], list[str]]:
    """`HostSettings.unheard` for a game in `lang`: the cards the recognizer cannot hear by any of their
    names (a picture heard by another of its names can still be guessed by voice)."""

    def check(cards: Sequence[str]) -> list[str]:
        out: list[str] = []
        for card in cards:
            names = [card, *aliases_of(card, lang)]
            if len(unheard(names)) == len(names):
                out.append(card)
        return out

    return check


class VoskVocabulary:
    """A vosk model's vocabulary, without its recognizers: the graph's word list, loaded by vosk.Model."""

    def __init__(self, model_dir: Path) -> None:
        try:
            import vosk
        except ImportError:
            raise ModelError("the vosk engine needs the vosk package: pip install 'voicehost[vosk]'") from None
        vosk.SetLogLevel(-1)
        if not Path(model_dir).is_dir():
            raise ModelError(f"there is no vosk model in {model_dir}")
        try:
            self.model: Any = vosk.Model(str(model_dir))
        except Exception as exc:  # vosk raises a bare Exception("Failed to create a model")
            raise ModelError(f"the vosk model in {model_dir} cannot be loaded ({exc})") from None
        self._known: dict[str, bool] = {}

    def knows(self, word: str) -> bool:
        """Whether the model's vocabulary has this exact word."""
        if word not in self._known:
            self._known[word] = int(self.model.vosk_model_find_word(word)) > 0  # 0 is <eps>, -1 unknown
        return self._known[word]

    def unheard(self, cards: Sequence[str]) -> list[str]:
        """The cards (as printed) this model cannot hear: a word of them is outside its vocabulary."""
        return unheard_of(cards, self.knows)
