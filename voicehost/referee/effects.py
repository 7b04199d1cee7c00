"""What the referee's steps decide should happen, as data: the host applies it in one place (`Host.apply`).

A step (a guess, a clue, a command, a question's answer) looks at the table (`View`) and returns a list
of effects; it never speaks, asks or moves the game itself. So a step is a pure function that a test can
call, and the host is the one place where the game changes, the table is spoken to, and the log is kept.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar, Union

from engine.editions import AnyGame
from engine.events import Event
from engine.pieces import Side
from voicehost.referee.view import View
from voicehost.understanding import Command, HeardCommand, Understanding
from voicehost.understanding.moment import ListenMode
from voicehost.understanding.results import READ_ONLY


@dataclass(frozen=True)
class Question:
    """Something the host asked and waits an answer to."""

    yes_no: ClassVar[bool] = True
    """Whether yes and no are answers to it."""
    afresh_on_all_cards: ClassVar[bool] = False
    """Whether an utterance that is no answer is read again against every visible card."""

    @property
    def offers(self) -> tuple[str, ...]:
        """Cards the question names: what the recognizer scores as candidates while it waits."""
        return ()

    def ask(self, view: View) -> str:
        raise NotImplementedError

    def take(self, view: View, heard: Understanding, side: Side | None) -> list[Effect] | None:
        raise NotImplementedError

    @property
    def belief(self) -> tuple[tuple[str, float], ...]:
        """What the first hearing made of the cards asked about (their shares): the answer adds to it."""
        return ()

    def kept_by(self, heard: Understanding) -> bool:
        """Whether the question still waits after `heard`, which was no answer: after a read-only command
        (the score, the board read out) the table is still to answer it."""
        return (
            isinstance(heard, HeardCommand) and heard.command in READ_ONLY and heard.command is not Command.STOP_TALKING
        )


@dataclass(frozen=True)
class Say:
    """A line for the table; `remember`: what "repeat" says again (a reply to a mishearing is not)."""

    text: str
    remember: bool = True


@dataclass(frozen=True)
class Ask:
    """Ask the table a question; the next utterance goes to it first. `again`: the same question once
    more, as it was said last."""

    question: Question
    again: bool = False


@dataclass(frozen=True)
class Play:
    """A move on the game (`action` runs the engine's action and returns its events), announced with
    `intro` first; `announce=False` only records the events (the step says what follows itself)."""

    action: Callable[[AnyGame], list[Event]]
    intro: str = ""
    announce: bool = True
    clears_side: bool = True  # the Duet side a player claimed was for this move


@dataclass(frozen=True)
class Follow:
    """Act on `understood` as if just heard for sure (a question answered "yes": its move, without doubt)."""

    understood: Understanding
    side: Side | None = None


@dataclass(frozen=True)
class Claim:
    """A Duet player says who they are: the next clue or sudden-death guess is theirs (None: forgotten)."""

    side: Side | None


@dataclass(frozen=True)
class Whisper:
    """A line for the spymaster's earpiece only (`--key-audio`): never the table's."""

    text: str


@dataclass(frozen=True)
class Timer:
    """Flip, pause or resume the sand timer (said "not running" when there is none to pause or resume)."""

    command: Command


@dataclass(frozen=True)
class Listen:
    """From now on, listen this way (addressed: only what is said to the host moves the game)."""

    mode: ListenMode


@dataclass(frozen=True)
class Denied:
    """The table answered "no" to a move asked back ("CEREJA?", "pass?"): the scores alone do not offer it to
    the next line (`Moment.denied`). One line only: a "yes" misheard as "no" must not lock a card out."""

    cards: tuple[str, ...] = ()
    commands: tuple[Command, ...] = ()


@dataclass(frozen=True)
class NewGame:
    """Deal a new game and start it."""


@dataclass(frozen=True)
class Quit:
    """End the session (the game stays saved)."""


Effect = Union[Say, Ask, Play, Follow, Claim, Whisper, Timer, Listen, Denied, NewGame, Quit]  # noqa: UP007
