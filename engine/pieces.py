"""Values of the game: teams, identities, clues. Frozen, so a state can never be edited by accident."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Final

UNLIMITED: Final = "unlimited"
"""How an unlimited clue number is written in events and board files."""


class Team(StrEnum):
    """A side of a competitive game."""

    RED = "red"
    BLUE = "blue"

    @property
    def other(self) -> Team:
        return Team.BLUE if self is Team.RED else Team.RED


class Side(StrEnum):
    """A player of Duet, named by the side of the key card they see."""

    A = "a"
    B = "b"

    @property
    def other(self) -> Side:
        return Side.B if self is Side.A else Side.A


class Identity(StrEnum):
    """What hides under a card, as the key card shows it."""

    RED = "red"
    BLUE = "blue"
    BYSTANDER = "bystander"
    ASSASSIN = "assassin"
    GREEN = "green"

    @classmethod
    def of_team(cls, team: Team) -> Identity:
        return cls(team.value)


class Edition(StrEnum):
    """The box the game comes from; the grid can still be chosen apart (rules allow mixing)."""

    CLASSIC = "classic"
    PICTURES = "pictures"
    DUET = "duet"

    @property
    def competitive(self) -> bool:
        return self is not Edition.DUET


class TurnEndReason(StrEnum):
    WRONG_GUESS = "wrong_guess"
    PASSED = "passed"
    LIMIT = "limit"
    PENALTY = "penalty"
    TIMER = "timer"


class Winner(StrEnum):
    RED = "red"
    BLUE = "blue"
    PLAYERS = "players"
    NONE = "none"

    @classmethod
    def of_team(cls, team: Team) -> Winner:
        return cls(team.value)


class EndReason(StrEnum):
    ALL_FOUND = "all_found"
    ASSASSIN = "assassin"
    SUDDEN_DEATH = "sudden_death"
    OUT_OF_TIME = "out_of_time"


@dataclass(frozen=True)
class Clue:
    """One word and one number; `number` None means unlimited."""

    word: str
    number: int | None

    @property
    def number_value(self) -> int | str:
        """As events write it: an integer, or "unlimited"."""
        return UNLIMITED if self.number is None else self.number

    @property
    def limits_guesses(self) -> bool:
        """0 and unlimited lift the guess limit (expert clues); any other number allows number + 1."""
        return self.number is not None and self.number > 0


@dataclass(frozen=True)
class GridSize:
    columns: int
    rows: int

    @property
    def cells(self) -> int:
        return self.columns * self.rows


@dataclass(frozen=True)
class KeyCounts:
    """How many of each identity a competitive key card holds."""

    starting_agents: int
    other_agents: int
    bystanders: int
    assassins: int

    @property
    def total(self) -> int:
        return self.starting_agents + self.other_agents + self.bystanders + self.assassins


GRID_5X5: Final = GridSize(5, 5)
GRID_5X4: Final = GridSize(5, 4)

COMPETITIVE_COUNTS: Final[dict[GridSize, KeyCounts]] = {
    GRID_5X5: KeyCounts(9, 8, 7, 1),
    GRID_5X4: KeyCounts(8, 7, 4, 1),
}
"""Counts follow the grid, not the deck: words on 5x4 use the Pictures counts and pictures on 5x5 the classic ones."""
