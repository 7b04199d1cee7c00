"""What an utterance means, one result type per intent: a clue, a guess, a command, or nothing usable.

Each carries what was heard, what the host should do (act at once, ask back, or ask again) and a
confidence; only a guess has cards, only a clue has a word and a number, only a command a command.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import ClassVar, Final


class Phase(Enum):
    """What the game expects now; it decides how a few phase-dependent words are read."""

    CLUE = "clue"
    GUESS = "guess"


class Command(Enum):
    """Things players ask the host that are neither a clue nor a guess."""

    PASS = "pass"
    REPEAT = "repeat"
    READ_BOARD = "read_board"
    SCORE = "score"
    CLUES_SO_FAR = "clues_so_far"
    TIMER_FLIP = "timer_flip"
    TIMER_PAUSE = "timer_pause"
    TIMER_RESUME = "timer_resume"
    TIME_LEFT = "time_left"  # "how much time is left?": the sand timer's seconds, said
    UNDO = "undo"
    HELP = "help"
    YES = "yes"
    NO = "no"
    NEW_GAME = "new_game"
    QUIT = "quit"
    STOP_TALKING = "stop_talking"
    ALL_MY_GREENS_FOUND = "all_my_greens_found"
    COVER_FOR_ME = "cover_for_me"  # the host picks the penalty or simulated card, so nobody names it aloud
    LISTEN_ADDRESSED = "listen_addressed"  # from now on a move counts only said to the host
    LISTEN_OPEN = "listen_open"  # from now on a move counts whenever it has the form of one
    READ_BOARD_PLACES = "read_board_places"  # read the hidden cards each with its place ("B3, CEREJA")
    # A blind spymaster's requests (see voicehost/referee/earpiece.py): asked aloud, answered in private.
    READ_KEY = "read_key"  # the whole key of the spymaster giving the clue, alphabetically
    READ_KEY_GRID = "read_key_grid"  # the same, row by row
    READ_MY_AGENTS = "read_my_agents"  # their agents still hidden, alphabetically
    READ_MY_AGENTS_GRID = "read_my_agents_grid"  # the same, row by row
    CHECK_CLUE = "check_clue"  # "is OCEAN allowed?" (`HeardClueCheck`); said without a word: how to ask
    WHOSE_TURN = "whose_turn"  # "whose turn is it?": what the host waits for, said again


class Intent(Enum):
    """What kind of move the utterance is, whatever the phase allows."""

    CLUE = "clue"
    GUESS = "guess"
    COMMAND = "command"
    UNKNOWN = "unknown"


class Action(Enum):
    """What the host should do with it: act at once, ask back first, or ask again."""

    ACCEPT = "accept"
    CONFIRM = "confirm"
    REPROMPT = "reprompt"


@dataclass(frozen=True)
class SpokenClue:
    """A clue as said: ``word`` lowercased with accents kept; ``number`` None means unlimited."""

    word: str
    number: int | None
    spelled: bool


@dataclass(frozen=True)
class Candidate:
    """A visible card that could be what was said, with its similarity score (0..100)."""

    card: str
    score: float


@dataclass(frozen=True)
class Understanding:
    """What one utterance means; the subclasses carry what only their intent has."""

    heard: str
    action: Action
    confidence: float
    intent: ClassVar[Intent]


@dataclass(frozen=True)
class HeardClue(Understanding):
    clue: SpokenClue
    intent: ClassVar[Intent] = Intent.CLUE
    by_ear: bool = False  # heard by a recognizer, not typed: a rule it seems to break is asked back first


@dataclass(frozen=True)
class HeardGuess(Understanding):
    """A visible card, the likeliest first among `candidates` (what a question back offers)."""

    card: str
    candidates: tuple[Candidate, ...]
    intent: ClassVar[Intent] = Intent.GUESS
    place: str = ""  # the card was named by its place on the grid ("B3"), not by its name


@dataclass(frozen=True)
class HeardCommand(Understanding):
    command: Command
    intent: ClassVar[Intent] = Intent.COMMAND


@dataclass(frozen=True)
class HeardClueCheck(HeardCommand):
    """ "Is OCEAN allowed?": a clue word to rule on in private, never a clue (its command is CHECK_CLUE)."""

    word: str = ""


@dataclass(frozen=True)
class HeardNumber(Understanding):
    """A number said alone ("três", "3") while a clue is awaited: no clue by itself, the answer to "how
    many?" after a clue's word heard without one."""

    number: int | None  # None: unlimited
    intent: ClassVar[Intent] = Intent.CLUE


@dataclass(frozen=True)
class HeardWord(Understanding):
    """One word said alone while a clue is awaited ("fruta"): a clue's word, its number still to come."""

    word: str
    spelled: bool
    intent: ClassVar[Intent] = Intent.CLUE


@dataclass(frozen=True)
class HeardSide(Understanding):
    """Duet: a player saying who they are, and nothing else ("A", "player B"): the next clue or
    sudden-death guess is theirs."""

    side: str  # "a" or "b"
    intent: ClassVar[Intent] = Intent.COMMAND


@dataclass(frozen=True)
class HeardCorrection(Understanding):
    """The spymaster correcting the clue just given, before any guess ("no, the clue is fruit", "no,
    fruit, 2"): the word, and the number when said again (else the clue keeps its number)."""

    word: str
    spelled: bool
    number: int | None
    has_number: bool
    intent: ClassVar[Intent] = Intent.CLUE


@dataclass(frozen=True)
class NotUnderstood(Understanding):
    """Nothing usable: the host asks again (its action is always REPROMPT)."""

    nearest: str | None = None  # the card the scores came nearest to, short of asking back about it
    intent: ClassVar[Intent] = Intent.UNKNOWN


@dataclass(frozen=True)
class OffGrid(Understanding):
    """A place named that is not on the grid ("row six"): the host says how big the grid is."""

    row: int
    column: int
    intent: ClassVar[Intent] = Intent.UNKNOWN


# Commands that only read out information: doing a wrong one costs nothing, so they
# are never confirmed, even when the recognizer is unsure.
READ_ONLY: Final = frozenset(
    {
        Command.REPEAT,
        Command.READ_BOARD,
        Command.READ_BOARD_PLACES,
        Command.SCORE,
        Command.CLUES_SO_FAR,
        Command.HELP,
        Command.STOP_TALKING,
        Command.WHOSE_TURN,
        Command.TIME_LEFT,
    }
)
ANSWERS: Final = frozenset({Command.YES, Command.NO})
ASKS_FIRST: Final = frozenset({Command.UNDO, Command.QUIT, Command.NEW_GAME})
"""Commands the host confirms anyway before acting ("Undo CEREJA? Yes or no."): never asked back first."""
KEY_REQUESTS: Final = frozenset(
    {Command.READ_KEY, Command.READ_KEY_GRID, Command.READ_MY_AGENTS, Command.READ_MY_AGENTS_GRID, Command.CHECK_CLUE}
)
"""A spymaster's private requests: answered in the earpiece (--key-audio), never aloud; they change nothing."""
