"""The shapes of the files the host keeps (saves, boards, events, campaigns), checked before use.

A file is first parsed as JSON (bounded, see `reading`), then checked here for types, ranges and
sizes with pydantic, strictly (no "5" for 5, no null for a card); only then do the rules engine's own
checks run (a board's key structure, a log that replays). Each refusal names the field at fault.
"""

from __future__ import annotations

from typing import Annotated, Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, TypeAdapter, ValidationError

from voicehost.understanding.text import MAX_TEXT_CHARS

MAX_EVENTS: Final = 20_000
"""Far more than a game has (about 60 events); a bigger log is not a game voicehost wrote."""
MAX_WORD: Final = 80
MAX_CARDS: Final = 100
MAX_CLUE_WORD: Final = MAX_TEXT_CHARS
"""A clue word is what a player said or typed: as long as the longest utterance the host reads, so that
every clue the host logs (taken or refused) is one its save can be resumed with."""

Word = Annotated[str, StringConstraints(min_length=1, max_length=MAX_WORD)]
ClueWord = Annotated[str, StringConstraints(min_length=1, max_length=MAX_CLUE_WORD)]
Text = Annotated[str, StringConstraints(max_length=200)]
Team = Literal["red", "blue"]
SideName = Literal["a", "b"]
Player = Literal["red", "blue", "a", "b"]
Identity = Literal["red", "blue", "bystander", "assassin", "green"]
Count = Annotated[int, Field(ge=0, le=100)]
Tokens = Annotated[int, Field(ge=0, le=11)]


class Document(BaseModel):
    """Strict types; fields the host does not know are ignored (a newer version may add some)."""

    model_config = ConfigDict(strict=True, extra="ignore", frozen=True)


class BoardDocument(Document):
    """A board file (README: the board file), as far as types and sizes go; the engine checks the rules."""

    edition: Literal["classic", "pictures", "duet"] = "classic"
    lang: Annotated[str, StringConstraints(max_length=10)] = "pt-BR"
    columns: Annotated[int, Field(ge=1, le=10)]
    rows: Annotated[int, Field(ge=1, le=10)]
    cards: Annotated[list[Word], Field(max_length=MAX_CARDS)]
    key: Annotated[list[Identity], Field(max_length=MAX_CARDS)] | None = None
    starting_team: Team | None = None
    key_a: Annotated[list[Identity], Field(max_length=MAX_CARDS)] | None = None
    key_b: Annotated[list[Identity], Field(max_length=MAX_CARDS)] | None = None
    first_clue_giver: SideName | None = None


class HouseDocument(Document):
    multiword_names: bool = False
    abbreviations: bool = False
    compounds: bool = False
    homophones: bool = False


class VariantsDocument(Document):
    assassin_ending: bool = False
    coop: bool = False
    shared_operative: bool = False
    invalid_clue_penalty: bool = True
    timer_ends_turn: bool = False
    duet_tokens: Literal[9, 10, 11] = 9
    duet_relaxed_order: bool = False
    mission: Annotated[str, StringConstraints(max_length=40)] | None = None
    house: HouseDocument = HouseDocument()


class EditionArgs(Document):
    """How the next game of the session is dealt ("new game" at the table)."""

    edition: Literal["classic", "pictures", "duet"] | None = None
    grid: Literal["5x5", "5x4"] | None = None
    deck: Literal["words", "pictures", "mixed"] | None = None
    starting: Team | None = None
    first: SideName | None = None


class SettingsDocument(Document):
    timer: Annotated[int, Field(ge=1, le=3600)] | None = None
    simulated: Literal["random", "choose"] = "random"
    seed: Annotated[int, Field(ge=-(2**63), le=2**63 - 1)] = 0
    edition_args: EditionArgs = EditionArgs()
    team: Annotated[str, StringConstraints(min_length=1, max_length=64)] | None = None


class EventBase(Document):
    seq: Annotated[int, Field(ge=1, le=MAX_EVENTS)]
    tokens_left: Tokens | None = None  # Duet events carry the bank
    mistakes_left: Tokens | None = None


class GameStarted(EventBase):
    type: Literal["game_started"]
    edition: Literal["classic", "pictures", "duet"]
    lang: Annotated[str, StringConstraints(max_length=10)]
    cards: Annotated[list[Word], Field(max_length=MAX_CARDS)]
    variants: VariantsDocument = VariantsDocument()
    starting_team: Team | None = None
    first_clue_giver: SideName | None = None


class ClueEvent(EventBase):
    type: Literal["clue"]
    by: Player
    word: ClueWord
    number: Annotated[int, Field(ge=0, le=25)] | Literal["unlimited"]


class ClueRejected(EventBase):
    type: Literal["clue_rejected"]
    by: Player
    word: Annotated[str, StringConstraints(max_length=MAX_CLUE_WORD)]
    reason: Text


class GuessEvent(EventBase):
    type: Literal["guess"]
    by: Player
    card: Word
    identity: Identity


class CoverEvent(EventBase):
    type: Literal["cover"]
    by: Team
    card: Word
    identity: Identity
    reason: Literal["penalty", "simulated"]


class BystanderMarked(EventBase):
    type: Literal["bystander_marked"]
    side: SideName
    card: Word


class TurnEnded(EventBase):
    type: Literal["turn_ended"]
    by: Player
    reason: Literal["wrong_guess", "passed", "limit", "penalty", "timer"]
    token_taken: bool = False


class SideDone(EventBase):
    type: Literal["side_done"]
    side: SideName


class SuddenDeath(EventBase):
    type: Literal["sudden_death"]
    by: Team | None = None


class UndoEvent(EventBase):
    type: Literal["undo"]
    undoes: Annotated[int, Field(ge=1, le=MAX_EVENTS)]


class TimerEvent(EventBase):
    type: Literal["timer"]
    event: Literal["started", "warning", "expired", "paused"]
    seconds_left: Annotated[int, Field(ge=0, le=3600)]


class GameOver(EventBase):
    type: Literal["game_over"]
    winner: Literal["red", "blue", "players", "none"]
    reason: Literal["all_found", "assassin", "sudden_death", "out_of_time"]
    score: Annotated[int, Field(ge=-1, le=60)] | None = None
    mission: Annotated[str, StringConstraints(max_length=40)] | None = None


EventDocument = Annotated[
    GameStarted
    | ClueEvent
    | ClueRejected
    | GuessEvent
    | CoverEvent
    | BystanderMarked
    | TurnEnded
    | SideDone
    | SuddenDeath
    | UndoEvent
    | TimerEvent
    | GameOver,
    Field(discriminator="type"),
]
EVENT: Final[TypeAdapter[Any]] = TypeAdapter(EventDocument)


class SaveDocument(Document):
    format: Literal["voicehost-save"]
    version: Literal[1]
    board: BoardDocument
    settings: SettingsDocument = SettingsDocument()
    events: Annotated[list[EventDocument], Field(min_length=1, max_length=MAX_EVENTS)]


class CampaignDocument(Document):
    team: Annotated[str, StringConstraints(min_length=1, max_length=64)]
    completed: Annotated[list[Annotated[str, StringConstraints(max_length=40)]], Field(max_length=100)] = []


class CampaignsDocument(Document):
    teams: Annotated[list[CampaignDocument], Field(max_length=10_000)] = []


class DocumentError(ValueError):
    """A document whose shape is wrong: the first problem, as a sentence with the field's place."""


def check(model: type[Document], data: Any) -> Any:
    """`data` checked against `model`: the validated document, or DocumentError naming the first problem."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise DocumentError(first_problem(exc)) from None


def check_event(data: Any) -> Any:
    try:
        return EVENT.validate_python(data)
    except ValidationError as exc:
        raise DocumentError(first_problem(exc)) from None


def first_problem(exc: ValidationError) -> str:
    """pydantic's first error, short: where it is ("events[3].number") and what is wrong with it."""
    error = exc.errors(include_url=False, include_context=False)[0]
    where = ""
    previous: object = None
    for part in error["loc"]:
        if isinstance(part, int):
            where += f"[{part}]"
        elif not _is_branch(part, previous):
            where += f".{part}" if where else str(part)
        previous = part
    value = repr(error.get("input"))
    shown = value if len(value) <= 40 else value[:37] + "..."
    problem = str(error["msg"]).rstrip(".").lower()
    return f"{where or 'the document'}: {problem} (found {shown})"


def _is_branch(part: str, previous: object) -> bool:
    """A part of pydantic's error location that names a branch of a union, not a place in the file: an
    event's type right after its index ("events", 3, "clue"), or a type ("int", "literal['unlimited']")."""
    if isinstance(previous, int) and part in EVENT_TYPES:
        return True
    return part in ("int", "str", "bool", "float", "none") or "[" in part or part.startswith("constrained-")


EVENT_TYPES: Final = frozenset(
    [
        "game_started",
        "clue",
        "clue_rejected",
        "guess",
        "cover",
        "bystander_marked",
        "turn_ended",
        "side_done",
        "sudden_death",
        "undo",
        "timer",
        "game_over",
    ]
)
