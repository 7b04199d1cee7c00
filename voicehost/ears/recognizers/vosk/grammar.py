"""The closed set vosk hears while guessing, as a grammar: its own module because the recognizer builds
it and the endpointer cuts on it (`endpoint`), and neither should import the other for it."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property


@dataclass(frozen=True)
class Grammar:
    """The phrases vosk may hear while guessing, and those it cannot (a word outside the model)."""

    phrases: tuple[str, ...]
    unknown: tuple[str, ...] = ()
    cards: tuple[str, ...] = ()  # the phrases that are cards
    fillers: tuple[str, ...] = ()  # the phrases that are other words of the language: no card, no command
    repeats: int = 1  # how many times every phrase but a filler is written into the JSON (KEYWORD_REPEATS)

    @cached_property
    def without_fillers(self) -> Grammar:
        """The same grammar with no fillers: what a filler result is decoded again in."""
        fillers = frozenset(self.fillers)
        return Grammar(tuple(p for p in self.phrases if p not in fillers), self.unknown, self.cards)

    @cached_property
    def filler_words(self) -> frozenset[str]:
        """The words of the fillers: none of them is a word of a card or another phrase (`grammar_for`),
        so a result word among them is a filler wherever it stands."""
        return frozenset(word for filler in self.fillers for word in filler.split())

    def to_json(self) -> str:
        """vosk's grammar argument; raw UTF-8 because vosk's JSON reader ignores \\u escapes.

        vosk estimates a bigram model from the phrases it is given, counting each as often as it is
        listed: every phrase but a filler is listed `repeats` times, so a filler weighs that much less."""
        fillers = frozenset(self.fillers)
        listed = [phrase for phrase in self.phrases for _ in range(1 if phrase in fillers else self.repeats)]
        return json.dumps(listed, ensure_ascii=False)

    def ends_one_guess(self, words: Sequence[str]) -> bool:
        """Whether these words can be a whole utterance: they end with a whole phrase that no longer
        phrase goes on from, and name no card before it.

        vosk turns a grammar into a word bigram model, so it decodes any run of the grammar's words:
        "passo" alone where only "passo a vez" is a phrase, a lead-in as other cards. Words that could
        still become a longer phrase ("não" of "não é isso") are not a whole utterance yet."""
        whole, started, cards = self._parts
        tails = [tuple(words[-n:]) for n in range(len(words), 0, -1)]  # longest first
        if any(tail in started for tail in tails):
            return False
        last = next((tail for tail in tails if tail in whole), None)
        if last is None:
            return False
        before = tuple(words[: len(words) - len(last)])
        return not any(before[i : i + len(card)] == card for card in cards for i in range(len(before)))

    @cached_property
    def _parts(self) -> tuple[frozenset[tuple[str, ...]], frozenset[tuple[str, ...]], tuple[tuple[str, ...], ...]]:
        """The phrases as word tuples, every shorter start of one of them, and the cards as word tuples."""
        split = [tuple(phrase.split()) for phrase in self.phrases]
        starts = frozenset(words[:n] for words in split for n in range(1, len(words)))
        return frozenset(split), starts, tuple(tuple(card.split()) for card in self.cards)
