"""The questions the host asks the table, each a small object that holds its own data and takes its answer.

A question is asked once (`ask`), may be asked again (`ask` after a non-answer), and `take`s the next
utterance: it acts and returns True, or returns False when the utterance is no answer and the host
should hear it afresh (another guess, another clue, a command). While a question waits, the
recognizer listens for what it offers (`offers`) and for yes or no (`yes_no`).

A question acts through the host as `table.Answering` sees it (the host's `reveal`, `give_clue`, ...):
never through the modules that ask the questions, which import this one. Their base (`Question`) and
the clue they carry (`PendingClue`) live in table.py, which names them in the host's protocols.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from engine.pieces import Side
from voicehost.referee.table import Answering, PendingClue, Question
from voicehost.understanding import Action, Command, HeardClue, HeardCommand, HeardGuess, NotUnderstood, Understanding

__all__ = [
    "AskClueGiver",
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
    """A command that is no answer ("score", "repeat"): it is done, and the question is dropped."""
    return isinstance(heard, HeardCommand) and heard.command not in (Command.YES, Command.NO)


@dataclass
class ConfirmGuess(Question):
    """ "CEREJA or CEBOLA?": the host was not sure which card was meant."""

    candidates: list[str] = field(default_factory=list)
    belief: dict[str, float] = field(default_factory=dict)
    """What the first hearing made of each card offered (its share, 0..1): the answer adds to it."""
    place: str = ""
    """The card was named by its place ("B3"): the question says the place and the card."""

    def __post_init__(self) -> None:
        self.offers = tuple(self.candidates)

    def ask(self, host: Answering) -> None:
        names = self.candidates
        if self.place and len(names) == 1:
            host.say(host.t("guess.confirm_place", place=self.place, card=names[0]))
        elif len(names) == 1:
            host.say(host.t("guess.confirm_one", card=names[0]))
        elif len(names) == 2:
            host.say(host.t("guess.confirm_two", first=names[0], second=names[1]))
        else:
            host.say(host.t("guess.confirm_many", first=names[0], second=names[1], third=names[2]))

    def take(self, host: Answering, heard: Understanding, side: Side | None) -> bool:
        yes, no = is_yes(heard), is_no(heard)
        if isinstance(heard, HeardGuess) and heard.action is Action.ACCEPT:
            host.reveal(heard.card)
        elif isinstance(heard, HeardGuess | NotUnderstood | HeardClue) and not (yes or no):
            return False
        elif yes and len(self.candidates) == 1:
            host.reveal(self.candidates[0])
        elif no:
            host.say(host.t("guess.retry"))
        elif is_other_command(heard):
            return False
        else:
            host.ask(self)
        return True

    def hear_afresh_on_all_cards(self) -> bool:
        return True


@dataclass
class PutClueToOpponent(Question):
    """A clue spelling cannot decide, put to the opposing spymaster (Duet: the partner) to accept or reject."""

    clue: PendingClue = field(default_factory=lambda: PendingClue("", None, False))

    def ask(self, host: Answering) -> None:
        giver = host.clue_giver()
        assert giver is not None
        why = host.reason(self.clue.ruling)
        host.say(host.announce.doubtful_clue(self.clue.word, why, giver))

    def take(self, host: Answering, heard: Understanding, side: Side | None) -> bool:
        if is_yes(heard):
            host.give_clue(self.clue)
            return True
        if is_no(heard):
            host.reject_clue(self.clue, self.clue.ruling)
            return True
        if isinstance(heard, HeardCommand):
            return False
        host.repeat_question(self)
        return True


@dataclass
class ConfirmHeardClue(Question):
    """ "Clue: tomato, 3? Yes or no.": a clue heard with low confidence."""

    clue: PendingClue = field(default_factory=lambda: PendingClue("", None, False))

    def ask(self, host: Answering) -> None:
        number = host.t("info.unlimited") if self.clue.number is None else self.clue.number
        host.say(host.t("input.confirm_clue", word=self.clue.word, number=number))

    def take(self, host: Answering, heard: Understanding, side: Side | None) -> bool:
        if is_yes(heard):
            host.clue(self.clue)
            return True
        if is_no(heard):
            host.say(host.t("clue.refused_give_again"))
            return True
        return False  # another clue, or a command: heard afresh


@dataclass
class ConfirmCommand(Question):
    """A command heard with low confidence that would change the game ("pass?")."""

    command: Command = Command.REPEAT
    heard_text: str = ""

    def ask(self, host: Answering) -> None:
        host.say(host.t("input.confirm_command", what=self.heard_text))

    def take(self, host: Answering, heard: Understanding, side: Side | None) -> bool:
        if is_yes(heard):
            host.command(self.command)
            return True
        if is_no(heard):
            host.say(host.announce.next_prompt() or host.t("end.play_again"))
            return True
        return False


@dataclass
class ConfirmBeforeActing(Question):
    """ "Undo CEREJA? Yes or no.", "Quit now?", "A new game?": a step that is hard to take back."""

    prompt: str = ""
    act: Callable[[], None] = lambda: None

    def ask(self, host: Answering) -> None:
        host.say(self.prompt)

    def take(self, host: Answering, heard: Understanding, side: Side | None) -> bool:
        if is_yes(heard):
            self.act()
            return True
        if is_no(heard):
            host.say(host.announce.next_prompt() or host.t("end.play_again"))
            return True
        if is_other_command(heard):
            return False
        host.repeat_question(self)
        return True


@dataclass
class AskClueGiver(Question):
    """Duet: a clue was heard while either player could give it: "Who gave the clue, A or B?"."""

    clue: PendingClue = field(default_factory=lambda: PendingClue("", None, False))

    def __post_init__(self) -> None:
        self.yes_no = False

    def ask(self, host: Answering) -> None:
        host.say(host.t("game.who_gave_clue"))

    def take(self, host: Answering, heard: Understanding, side: Side | None) -> bool:
        if side is None:
            if is_other_command(heard):
                return False
            host.say(host.t("game.who_gave_clue"), remember=False)
            host.question = self
            return True
        host.chosen_side = side
        host.clue(self.clue)
        return True


@dataclass
class AskGuesser(Question):
    """Duet sudden death: a card was named while both players may guess: "Who is guessing, A or B?"."""

    card: str = ""

    def __post_init__(self) -> None:
        self.yes_no = False

    def ask(self, host: Answering) -> None:
        host.say(host.t("turn.sudden_death_who"))

    def take(self, host: Answering, heard: Understanding, side: Side | None) -> bool:
        if side is None:
            host.say(host.t("turn.sudden_death_who"), remember=False)
            host.question = self
            return True
        host.chosen_side = side
        host.reveal(self.card)
        return True
