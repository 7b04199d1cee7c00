"""What the host's steps use of the host (`voicehost.referee.host.Host`), as protocols.

The steps (`acting.py`, `clue_giving.py`, `guessing.py`, `commands.py`, the questions in
`questions.py`) are functions of the host, and the host calls them: typed against these protocols
they never import host.py, so no import goes round in a circle. Each protocol is what one kind of step
uses: `Table` every step, `Answering` a question taking its answer, `Commanding` a command (and acting,
which may do one).

A question is asked of the table and the table waits on it: they name each other, so the questions'
base (`Question`) lives here too, with the clue they carry (`PendingClue`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from engine.editions import AnyGame
from engine.events import Event
from engine.game import Player
from engine.legality import ClueRuling
from engine.pieces import Side
from voicehost.prompts import Prompts
from voicehost.referee.announcer import Announcer
from voicehost.referee.attention import Listening
from voicehost.referee.timer import SandTimer
from voicehost.understanding import Command, Grid, Understanding


@dataclass
class PendingClue:
    """A clue heard but not given yet: waiting for a ruling, a confirmation or its giver's name."""

    word: str
    number: int | None
    spelled: bool
    ruling: ClueRuling | None = None


@dataclass
class Question:
    """Something the host asked and waits an answer to."""

    offers: tuple[str, ...] = field(default=(), init=False)
    """Cards the question names: what the recognizer scores as candidates while it waits."""
    yes_no: bool = field(default=True, init=False)
    """Whether yes and no are answers to it."""

    def ask(self, host: Answering) -> None:
        raise NotImplementedError

    def take(self, host: Answering, heard: Understanding, side: Side | None) -> bool:
        raise NotImplementedError

    def hear_afresh_on_all_cards(self) -> bool:
        """Whether an utterance that is no answer is read again against every visible card."""
        return False


class Table(Protocol):
    """What every step uses: the game, the words, whose turn a Duet player claimed, and saying,
    asking and recording what happened."""

    chosen_side: Side | None

    @property
    def game(self) -> AnyGame: ...

    @property
    def p(self) -> Prompts: ...

    @property
    def announce(self) -> Announcer: ...

    @property
    def grid(self) -> Grid: ...

    def say(self, text: str, *, remember: bool = True) -> None: ...

    def t(self, key: str, **params: Any) -> str: ...

    def ask(self, question: Question) -> None: ...

    def done(self, events: Sequence[Event], intro: str = "") -> None: ...

    def record(self, events: Sequence[Event]) -> None: ...


class Answering(Table, Protocol):
    """What a question uses to act on its answer: the moves themselves go through the host, so that
    questions.py need not import the modules that ask its questions."""

    question: Question | None

    def repeat_question(self, question: Question) -> None: ...

    def clue_giver(self) -> Player | None: ...

    def reason(self, ruling: ClueRuling | None) -> str: ...

    def clue(self, clue: PendingClue) -> None: ...

    def give_clue(self, clue: PendingClue) -> None: ...

    def reject_clue(self, clue: PendingClue, ruling: ClueRuling | None) -> None: ...

    def reveal(self, card: str) -> None: ...

    def command(self, command: Command) -> None: ...


class Settings(Protocol):
    """The host's settings a command reads."""

    @property
    def timer_seconds(self) -> int | None: ...

    @property
    def seed(self) -> int: ...


class Commanding(Table, Protocol):
    """What the table's commands use: the sand timer, the way of listening, the last line said, and
    the life cycle (a new game, quitting)."""

    listening: Listening

    @property
    def timer(self) -> SandTimer: ...

    @property
    def settings(self) -> Settings: ...

    @property
    def last_said(self) -> str: ...

    def name(self) -> str: ...

    def unheard_text(self) -> str: ...

    def key_request(self, command: Command, word: str = "") -> None: ...

    def after_change(self) -> None: ...

    def start_new_game(self) -> None: ...

    def quit(self) -> None: ...

    def unsaved_detail(self) -> str | None: ...
