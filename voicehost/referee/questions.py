"""The questions the host asks the table, each a small object that holds its own data and takes its answer.

A question is asked (`ask`: what to say), and `take`s the next utterance: the effects of its answer, or
None when the utterance is no answer and should be heard afresh (another guess, another clue, a command).
While a question waits, the ears listen for what it offers (`offers`) and for yes or no (`yes_no`).
An answer that is a move ("yes" to "CEREJA?") is followed as if heard for sure (`Follow`), so the move
goes through the same step as any other.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from engine.pieces import Side
from voicehost.referee import rulings
from voicehost.referee.effects import Ask, Claim, Denied, Effect, Follow, Question, Say
from voicehost.referee.rulings import PendingClue
from voicehost.referee.view import View
from voicehost.understanding import (
    Action,
    Candidate,
    Command,
    HeardClue,
    HeardCommand,
    HeardGuess,
    HeardNumber,
    NotUnderstood,
    SpokenClue,
    Understanding,
)

__all__ = [
    "AskClueGiver",
    "AskClueNumber",
    "AskGuesser",
    "ConfirmBeforeActing",
    "ConfirmCommand",
    "ConfirmGuess",
    "ConfirmHeardClue",
    "PendingClue",
    "PutClueToOpponent",
    "Question",
]


def is_yes(heard: Understanding) -> bool:
    return isinstance(heard, HeardCommand) and heard.command is Command.YES


def is_no(heard: Understanding) -> bool:
    return isinstance(heard, HeardCommand) and heard.command is Command.NO


def is_other_command(heard: Understanding) -> bool:
    """A command that is no answer ("score", "repeat"): it is done, and the question waits again."""
    return isinstance(heard, HeardCommand) and heard.command not in (Command.YES, Command.NO)


@dataclass(frozen=True)
class ConfirmGuess(Question):
    """ "CEREJA or CEBOLA?": the host was not sure which card was meant."""

    candidates: tuple[str, ...] = ()
    shares: tuple[tuple[str, float], ...] = ()
    place: str = ""  # the card was named by its place ("B3"): the question says the place and the card
    afresh_on_all_cards: ClassVar[bool] = True

    @property
    def offers(self) -> tuple[str, ...]:
        return self.candidates

    @property
    def belief(self) -> tuple[tuple[str, float], ...]:
        return self.shares

    def ask(self, view: View) -> str:
        names = self.candidates
        if self.place and len(names) == 1:
            return view.t("guess.confirm_place", place=self.place, card=names[0])
        if len(names) == 1:
            return view.t("guess.confirm_one", card=names[0])
        if len(names) == 2:
            return view.t("guess.confirm_two", first=names[0], second=names[1])
        return view.t("guess.confirm_many", first=names[0], second=names[1], third=names[2])

    def take(self, view: View, heard: Understanding, side: Side | None) -> list[Effect] | None:
        yes, no = is_yes(heard), is_no(heard)
        if isinstance(heard, HeardGuess) and heard.action is Action.ACCEPT:
            return [Follow(heard, side)]
        if isinstance(heard, HeardGuess | NotUnderstood | HeardClue) and not (yes or no):
            return None
        if yes and len(self.candidates) == 1:
            card = self.candidates[0]
            return [Follow(HeardGuess(card, Action.ACCEPT, 1.0, card, (Candidate(card, 100.0),)), side)]
        if no:
            return [Denied(cards=self.candidates), Say(view.t("guess.retry"))]
        if is_other_command(heard):
            return None
        return [Ask(self)]


@dataclass(frozen=True)
class PutClueToOpponent(Question):
    """A clue spelling cannot decide, put to the opposing spymaster (Duet: the partner) to accept or reject."""

    clue: PendingClue = field(default_factory=lambda: PendingClue("", None, False))

    def ask(self, view: View) -> str:
        giver = view.clue_giver()
        assert giver is not None
        return view.announce.doubtful_clue(self.clue.word, view.reason(self.clue.ruling), giver)

    def take(self, view: View, heard: Understanding, side: Side | None) -> list[Effect] | None:
        if is_yes(heard):
            return rulings.give(view, self.clue)
        if is_no(heard):
            return rulings.reject(view, self.clue, self.clue.ruling)
        if isinstance(heard, HeardCommand):
            return None
        return [Ask(self, again=True)]


@dataclass(frozen=True)
class ConfirmHeardClue(Question):
    """ "Clue: tomato, 3? Yes or no.": a clue heard with low confidence."""

    clue: PendingClue = field(default_factory=lambda: PendingClue("", None, False))

    def ask(self, view: View) -> str:
        number = view.t("info.unlimited") if self.clue.number is None else self.clue.number
        return view.t("input.confirm_clue", word=self.clue.word, number=number)

    def take(self, view: View, heard: Understanding, side: Side | None) -> list[Effect] | None:
        if is_yes(heard):  # confirmed by its spymaster: as sure as typed, a rule it breaks costs the penalty
            clue = SpokenClue(self.clue.word, self.clue.number, self.clue.spelled)
            return [Follow(HeardClue(self.clue.word, Action.ACCEPT, 1.0, clue), side)]
        if is_no(heard):
            return [Say(view.t("clue.refused_give_again"))]
        return None  # another clue, or a command: heard afresh


@dataclass(frozen=True)
class AskClueNumber(Question):
    """ "Fruit: how many?": a clue's word heard without its number; a number alone answers it."""

    word: str = ""
    spelled: bool = False
    yes_no: ClassVar[bool] = False

    def ask(self, view: View) -> str:
        return view.t("clue.ask_number", word=self.word)

    def take(self, view: View, heard: Understanding, side: Side | None) -> list[Effect] | None:
        if is_no(heard) or is_yes(heard):  # "no": that was not the clue's word
            return [Say(view.t("input.reprompt_clue"), remember=False)]
        if not isinstance(heard, HeardNumber):
            return None
        clue = SpokenClue(self.word, heard.number, self.spelled)
        by_ear = heard.confidence < 1.0
        return [Follow(HeardClue(f"{self.word} {heard.heard}", heard.action, heard.confidence, clue, by_ear), side)]


@dataclass(frozen=True)
class ConfirmCommand(Question):
    """A command heard with low confidence that would change the game ("pass?")."""

    command: Command = Command.REPEAT
    heard_text: str = ""
    afresh_on_all_cards: ClassVar[bool] = True  # "pass?" answered "rondine": the card is the move

    def ask(self, view: View) -> str:
        return view.t("input.confirm_command", what=self.heard_text.strip(" .,;:!?"))

    def take(self, view: View, heard: Understanding, side: Side | None) -> list[Effect] | None:
        if is_yes(heard):
            return [Follow(HeardCommand(self.heard_text, Action.ACCEPT, 1.0, self.command), side)]
        if is_no(heard):
            return [Denied(commands=(self.command,)), Say(view.announce.next_prompt() or view.t("end.play_again"))]
        return None


@dataclass(frozen=True)
class ConfirmBeforeActing(Question):
    """ "Undo CEREJA? Yes or no.", "Quit now?", "A new game?": a step that is hard to take back."""

    prompt: str = ""
    then: tuple[Effect, ...] = ()

    def ask(self, view: View) -> str:
        return self.prompt

    def take(self, view: View, heard: Understanding, side: Side | None) -> list[Effect] | None:
        if is_yes(heard):
            return list(self.then)
        if is_no(heard):
            return [Say(view.announce.next_prompt() or view.t("end.play_again"))]
        if is_other_command(heard):
            return None
        return [Ask(self, again=True)]


@dataclass(frozen=True)
class AskClueGiver(Question):
    """Duet: a clue was heard while either player could give it: "Who gave the clue, A or B?"."""

    clue: PendingClue = field(default_factory=lambda: PendingClue("", None, False))
    yes_no: ClassVar[bool] = False

    def ask(self, view: View) -> str:
        return view.t("game.who_gave_clue")

    def take(self, view: View, heard: Understanding, side: Side | None) -> list[Effect] | None:
        if side is None:
            if is_other_command(heard):
                return None
            return [Ask(self, again=True)]
        clue = SpokenClue(self.clue.word, self.clue.number, self.clue.spelled)
        return [Claim(side), Follow(HeardClue(self.clue.word, Action.ACCEPT, 1.0, clue), side)]


@dataclass(frozen=True)
class AskGuesser(Question):
    """Duet sudden death: a card was named while both players may guess: "Who is guessing, A or B?"."""

    card: str = ""
    yes_no: ClassVar[bool] = False

    def ask(self, view: View) -> str:
        return view.t("turn.sudden_death_who")

    def take(self, view: View, heard: Understanding, side: Side | None) -> list[Effect] | None:
        if side is None:
            return [Ask(self, again=True)]
        guess = HeardGuess(self.card, Action.ACCEPT, 1.0, self.card, (Candidate(self.card, 100.0),))
        return [Claim(side), Follow(guess, side)]
