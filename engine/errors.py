"""Errors a player can understand.

Each error has a stable `key` (looked up in the prompt files, so the host can say it in the
game's language) and `params` to fill in; `str(error)` is the English text for logs and tests.
Two families, as in python-chess: malformed input (it cannot mean anything here) versus an
illegal action (it means something, but the rules forbid it now).
"""

from __future__ import annotations

from typing import Any, ClassVar


class GameError(Exception):
    """Base of every error the engine raises on purpose."""

    key: ClassVar[str] = "game_error"
    template: ClassVar[str] = "{detail}"

    def __init__(self, **params: Any) -> None:
        self.params = params
        super().__init__(self.template.format(**params))


class MalformedAction(GameError):
    """The action cannot mean anything on this board (an unknown card, a number out of range)."""

    key = "malformed"


class IllegalAction(GameError):
    """The action is understood but the rules forbid it now."""

    key = "illegal"


class UnknownCard(MalformedAction):
    key = "unknown_card"
    template = "{card} is not on the board"


class NumberOutOfRange(MalformedAction):
    key = "number_out_of_range"
    template = "the number of a clue must be from {low} to {high}, or unlimited; {number} is not allowed"


class EmptyClue(MalformedAction):
    key = "empty_clue"
    template = "a clue needs one word and one number"


class CardAlreadyCovered(IllegalAction):
    key = "card_already_covered"
    template = "{card} is already covered"


class CardAlreadyMarked(IllegalAction):
    key = "card_already_marked"
    template = "{card} was already found to be a bystander for this clue giver"


class WrongPhase(IllegalAction):
    key = "wrong_phase"
    template = "{detail}"


class ClueExpected(WrongPhase):
    key = "clue_expected"
    template = "the {by} spymaster must give a clue first"


class GuessExpected(WrongPhase):
    key = "guess_expected"
    template = "a clue was already given: it is time to guess"


class MustGuessOnce(IllegalAction):
    key = "must_guess_once"
    template = "the operatives must make at least one guess before they stop"


class NotYourTurn(IllegalAction):
    key = "not_your_turn"
    template = "it is not {by}'s turn"


class GameIsOver(IllegalAction):
    key = "game_over"
    template = "the game is over"


class NotAllowedInThisGame(IllegalAction):
    key = "not_allowed"
    template = "{detail}"


class NobodyGuesses(WrongPhase):
    key = "nobody_guesses"
    template = "nobody guesses now"


class NoTurnsInSuddenDeath(NotAllowedInThisGame):
    key = "no_turns_in_sudden_death"
    template = "in sudden death there are no turns to end: guess or lose"


class NoCluesInSuddenDeath(NotAllowedInThisGame):
    key = "no_clues_in_sudden_death"
    template = "time is up: no more clues, only guesses in sudden death"


class SayWhoGivesTheClue(NotAllowedInThisGame):
    key = "say_who_gives_the_clue"
    template = "say who gives the clue: A or B"


class SayWhoGuesses(NotAllowedInThisGame):
    key = "say_who_guesses"
    template = "in sudden death, say who is guessing: A or B"


class SideIsDone(NotAllowedInThisGame):
    key = "side_is_done"
    template = "all of {side}'s greens are found: {other} gives the clues"


class NothingLeftToFind(NotAllowedInThisGame):
    key = "nothing_left_to_find"
    template = "{side} has no words left to find"


class NothingToCover(NotAllowedInThisGame):
    key = "nothing_to_cover"
    template = "no card can be covered now"


class NotACardToCover(NotAllowedInThisGame):
    """A card named for a penalty or the simulated team that is not one it may cover."""

    key = "not_a_card_to_cover"
    template = "{card} cannot be covered now"


class CoverFirst(NotAllowedInThisGame):
    key = "cover_first"
    template = "first cover one card for the simulated team"


class NothingToUndo(IllegalAction):
    key = "nothing_to_undo"
    template = "there is no move to undo"


class BoardError(GameError):
    """A board file that cannot be played: the message says which rule it breaks."""

    key = "bad_board"
    template = "bad board: {detail}"


class LogError(GameError):
    """A saved event log that does not replay on its board: refused whole, never half-loaded."""

    key = "bad_log"
    template = "the saved game does not replay: {detail}"
