"""What the host asked, read from the words it said: the simulated players' ears for the host.

A player at a table knows only what the host says. The bench's players read each announcement (its
text, as the mouth receives it) against the language's prompt templates (voicehost/prompts/<lang>.toml,
read when a game starts, so a reworded file needs no change here): each template's literal text must be
there, its placeholders are wildcards, the cards' placeholders match only the cards on the table. Only
the templates that ask the table something are looked for, by their keys (`QUESTIONS`); everything else
the host says is no question (a result, a re-prompt, "Sorry?"). `Announcements` is the host's mouth as
the players hear it: every announcement's text, and when it was said.
"""

from __future__ import annotations

import re
import string
import time
import tomllib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from importlib import resources
from typing import Any, Final

from engine.lang import Lang


class Asked(StrEnum):
    """What a question of the host is about, and so how a player answers it."""

    CARDS = "cards"  # "CEREJA?", "CEREJA ou CEBOLA?", "B3, CEREJA?": yes, no, or the card's name
    CLUE = "clue"  # "Clue: fruit, 2? Yes or no."
    NUMBER = "number"  # "Fruit: how many?": the clue's number
    COMMAND = "command"  # "Did you say: pass? Yes or no."
    UNDO = "undo"  # "Undo the last guess, CEREJA? Yes or no.", "Undo the clue fruit, 2?", "Undo the pass?"
    QUIT = "quit"  # "Quit now? ..."
    NEW_GAME = "new_game"  # "Start a new game? ..."
    DOUBTFUL = "doubtful"  # "Blue spymaster: is the clue X allowed? ... Yes or no?" (the opponent answers)
    SIDE = "side"  # Duet: "Who gives this clue, A or B?"


QUESTIONS: Final[dict[str, Asked]] = {
    "guess.confirm_one": Asked.CARDS,
    "guess.confirm_two": Asked.CARDS,
    "guess.confirm_many": Asked.CARDS,
    "guess.confirm_place": Asked.CARDS,
    "input.confirm_clue": Asked.CLUE,
    "clue.ask_number": Asked.NUMBER,
    "input.confirm_command": Asked.COMMAND,
    "undo.confirm": Asked.UNDO,
    "undo.confirm_clue": Asked.UNDO,
    "undo.confirm_pass": Asked.UNDO,
    "game.quit_confirm": Asked.QUIT,
    "game.quit_confirm_unsaved": Asked.QUIT,
    "game.new_game_confirm": Asked.NEW_GAME,
    "clue.doubtful": Asked.DOUBTFUL,
    "clue.doubtful_duet": Asked.DOUBTFUL,
    "game.who_gave_clue": Asked.SIDE,
    "turn.sudden_death_who": Asked.SIDE,
    "earpiece.which_side": Asked.SIDE,
}
"""The templates that ask the table something, by key (the keys are code; their wording is the prompt
files'). A key a file lacks is left out; a question under a key not listed here reads as no question,
and the player then says the move again, as one does after "Sorry?"."""

CARD_FIELDS: Final = frozenset({"card", "first", "second", "third"})
"""Placeholders that hold a card's name: they match only the cards on the table."""


@dataclass(frozen=True)
class Question:
    """One question read in an announcement: what it is about and what filled its placeholders."""

    key: str
    asked: Asked
    fields: dict[str, str] = field(default_factory=dict)

    @property
    def cards(self) -> list[str]:
        """The cards the question offers, in the order said."""
        return [self.fields[name] for name in ("card", "first", "second", "third") if self.fields.get(name)]


def prompt_file(lang: Lang) -> dict[str, Any]:
    """The language's prompt file as it is now (read afresh: no cache, the wording may have changed)."""
    text = resources.files("voicehost.prompts").joinpath(f"{lang.value}.toml").read_text(encoding="utf-8")
    return tomllib.loads(text)


class Reader:
    """Reads the host's announcements for the questions of one game (one language, one board)."""

    def __init__(self, lang: Lang, cards: Iterable[str], prompts: dict[str, Any] | None = None) -> None:
        data = prompt_file(lang) if prompts is None else prompts
        names = sorted({card for card in cards}, key=len, reverse=True)  # longest first: "ICE CREAM" before "ICE"
        card_pattern = "|".join(re.escape(name) for name in names) or r"(?!)"
        self._patterns: list[tuple[str, Asked, re.Pattern[str], int]] = []
        for key, asked in QUESTIONS.items():
            table, _, name = key.partition(".")
            template = data.get(table, {}).get(name)
            if isinstance(template, str) and template.strip():
                pattern, literal = _pattern(template, card_pattern)
                self._patterns.append((key, asked, pattern, literal))

    def question(self, announcement: str) -> Question | None:
        """The question the announcement asks, if any: the template with the most literal text that
        matches (so "B3, CEREJA?" is the place's question, not the bare card's)."""
        text = " ".join(announcement.split())
        best: tuple[int, int, Question] | None = None
        for key, asked, pattern, literal in self._patterns:
            for found in pattern.finditer(text):
                fields = {name: value.strip() for name, value in found.groupdict().items() if value is not None}
                score = (literal, found.end() - found.start())
                if best is None or score > best[:2]:
                    best = (*score, Question(key, asked, _unnumbered(fields)))
        return None if best is None else best[2]

    def questions(self, announcements: Sequence[str]) -> list[Question]:
        """The questions asked in each announcement, in order (an announcement asks one at most)."""
        return [found for text in announcements if (found := self.question(text)) is not None]


def _unnumbered(fields: dict[str, str]) -> dict[str, str]:
    """Placeholders said twice in a template were named name, name__2, ...: keep the first."""
    return {name.split("__")[0]: value for name, value in reversed(fields.items())}


def _pattern(template: str, card_pattern: str) -> tuple[re.Pattern[str], int]:
    """A regular expression for a filled template, and how many literal characters it holds.

    Whitespace in the literal text matches any run of it (or none: an empty placeholder leaves two
    spaces the host folds into one); a card placeholder matches a card of the table, case aside; any
    other placeholder matches anything, even nothing ({why} may be empty). The template may be said in
    the middle of a longer announcement, after or before other sentences."""
    parts: list[str] = []
    literal = 0
    seen: dict[str, int] = {}
    for text, name, _spec, _conversion in string.Formatter().parse(template):
        literal += len(text.strip())
        parts.append(r"\s*".join(re.escape(piece) for piece in re.split(r"\s+", text)))
        if name is None:
            continue
        base = name.split(".")[0].split("[")[0]
        seen[base] = seen.get(base, 0) + 1
        group = base if seen[base] == 1 else f"{base}__{seen[base]}"
        value = card_pattern if base in CARD_FIELDS else r".*?"
        parts.append(f"(?P<{group}>{value})")
    body = "".join(parts)
    return re.compile(rf"(?:^|(?<=[\s.!?:;,]))(?:{body})(?=$|[\s.!?:;,])", re.IGNORECASE), literal


@dataclass(frozen=True)
class Said:
    """One announcement, as the mouth received it, and when (time.monotonic)."""

    text: str
    at: float


class Announcements:
    """The host's mouth as the players hear it: every announcement's text, in order, passed on to
    another mouth when there is one (a loudspeaker, a satellite)."""

    def __init__(self, forward: Callable[[str], None] | None = None) -> None:
        self.said: list[Said] = []
        self._forward = forward

    def say(self, text: str) -> None:
        self.said.append(Said(text, time.monotonic()))
        if self._forward is not None:
            self._forward(text)
