"""What every edition's game shares: one action interface, the event log, replay, undo and legality.

As in python-chess's variants, every edition is a subclass with the same actions (`give_clue`,
`reject_clue`, `guess`, `end_turn`, `cover`, `timer_expired`) and the same queries (`clue_givers`,
`guessers`, `public_identity`, `key_for`, `public_counters`); class flags (`TEAMS`, `KEY_HOLDERS`,
`MAX_CLUE_NUMBER`) and hooks carry what differs, so callers never branch on the edition. What the rules share is
written here once: `give_clue`, `end_turn` and `timer_expired` ask the edition only who gives the
clue, what a pass costs and what stopping means in sudden death. A player is a `Team` in the
competitive editions and a key `Side` in Duet; `by=None` means whoever the rules allow, when only
one may act.

A game is a fold over its events. Actions validate, decide which events follow, and apply them
through `_emit`; `replay` applies a saved log through the very same `_apply`, so a resumed game
is the game that was saved. Undo restores the snapshot taken before the last move a player made on
purpose and may have been misheard making: a guess, a clue, or a pass (`UNDOABLE`).
"""

from __future__ import annotations

import copy
from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, ClassVar, Generic, TypeVar

from engine.board import Board
from engine.errors import (
    CardAlreadyCovered,
    ClueExpected,
    EmptyClue,
    GameIsOver,
    LogError,
    MustGuessOnce,
    NothingToCover,
    NothingToUndo,
    NumberOutOfRange,
    UnknownCard,
)
from engine.events import Event, EventType
from engine.legality import ClueRuling, check_clue
from engine.pieces import Clue, EndReason, Identity, Side, Team, TurnEndReason, Winner
from engine.variants import Variants


class Phase(StrEnum):
    """What the game waits for."""

    CLUE = "clue"  # a spymaster (Duet: a clue giver) must give a clue
    GUESS = "guess"  # operatives guess
    SIMULATED_TURN = "simulated_turn"  # co-op: the spymaster covers one enemy card for the simulated team
    SUDDEN_DEATH = "sudden_death"  # guesses only, any mistake loses
    OVER = "over"


@dataclass
class BaseState:
    """Fields every edition has; editions subclass it."""

    phase: Phase = Phase.CLUE
    clue: Clue | None = None
    guesses_this_turn: int = 0
    clues: list[tuple[str, Clue]] = field(default_factory=list)
    winner: Winner | None = None
    end_reason: EndReason | None = None
    score: int | None = None


S = TypeVar("S", bound=BaseState)
Player = Team | Side
"""Who acts: a team of the competitive editions, or a Duet player named by the side of the key they see."""


class Game(Generic[S]):
    """Base of the edition games. Subclasses set the flags, `state_class` and implement the hooks."""

    state_class: ClassVar[type[BaseState]] = BaseState
    TEAMS: ClassVar[bool] = True
    """Two teams play against each other (Classic, Pictures); False: two partners (Duet)."""
    KEY_HOLDERS: ClassVar[tuple[str, ...]] = ("spymasters",)
    """Who sees a private key: both spymasters share one key card; each Duet player sees one side."""
    MAX_CLUE_NUMBER: ClassVar[int] = 9
    """Clue numbers run from 0 to this, or unlimited (None): 9 in the competitive editions."""

    def __init__(self, board: Board, variants: Variants | None = None) -> None:
        self.board = board
        self.variants = variants or Variants()
        self.variants.check_edition(board.edition)
        self.events: list[Event] = []
        self.state: S = self._initial_state()
        self._snapshots: list[tuple[int, S]] = []

    # ---- the log -------------------------------------------------------------------------

    def start(self) -> Event:
        """Write `game_started`; a fresh game calls this once, a replayed one reads it from the log."""
        return self._emit(EventType.GAME_STARTED, **self._start_fields())

    @classmethod
    def replay(cls, board: Board, events: Iterable[Event]) -> Game[S]:
        """Rebuild a game from its log; any event the rules would not have produced is refused."""
        log = list(events)
        if not log or log[0].type is not EventType.GAME_STARTED:
            raise LogError(detail="it does not begin with game_started")
        game = cls(board, Variants.from_dict(log[0].get("variants")))
        expected = game._start_fields()
        for name in ("edition", "cards"):
            if log[0].get(name) != expected[name]:
                raise LogError(detail=f"its {name} do not match the board")
        for position, event in enumerate(log, start=1):
            if event.seq != position:
                raise LogError(detail=f"event {position} is numbered {event.seq}")
            if game.over and event.type not in (EventType.TIMER,):
                raise LogError(detail=f"event {event.seq} comes after the end of the game")
            try:
                game._record(event)
            except (KeyError, ValueError, TypeError) as exc:
                raise LogError(detail=f"event {event.seq} ({event.type.value}) is malformed: {exc}") from None
        return game

    def _emit(self, kind: EventType, **fields: Any) -> Event:
        event = Event(len(self.events) + 1, kind, {**self._extra_fields(kind), **fields})
        self._record(event)
        return event

    def _record(self, event: Event) -> None:
        if self._starts_undoable_move(event):
            self._snapshots.append((event.seq, copy.deepcopy(self.state)))
        if event.type is EventType.UNDO:
            if not self._snapshots or self._snapshots[-1][0] != event["undoes"]:
                raise LogError(detail=f"undo of event {event['undoes']} which is not the last move")
            self.state = self._snapshots.pop()[1]
        elif event.type is not EventType.TIMER:
            self._apply_event(event)
        self.events.append(event)

    def _starts_undoable_move(self, event: Event) -> bool:
        """Whether `event` is the first of a move an undo takes back whole: a guess, a clue, or a pass
        said by the guessers (not the turn ending as a consequence: of a simulated team's cover, or in
        Duet of the clue giver's last green found, right after its `side_done`)."""
        if event.type in (EventType.GUESS, EventType.CLUE):
            return True
        if event.type is not EventType.TURN_ENDED or event.get("reason") != TurnEndReason.PASSED.value:
            return False
        before = next((e for e in reversed(self.events) if e.type is not EventType.TIMER), None)
        return before is None or before.type not in (EventType.COVER, EventType.SIDE_DONE)

    def record_timer(self, what: str, seconds_left: int) -> Event:
        """The host's sand timer writes into the same log; the rules ignore these lines."""
        return self._emit(EventType.TIMER, event=what, seconds_left=seconds_left)

    # ---- shared actions ------------------------------------------------------------------

    def undo(self) -> Event:
        """Take back the last guess, clue or pass and all that followed from it (to fix a mishearing)."""
        self._require_running()
        if not self._snapshots:
            raise NothingToUndo()
        return self._emit(EventType.UNDO, undoes=self._snapshots[-1][0])

    def check_clue(self, word: str, *, spelled: bool = False) -> ClueRuling:
        """Is this clue legal against the cards still visible? Valid, invalid or doubtful."""
        return check_clue(word, self.visible_cards(), self.board.lang, self.variants.house, spelled=spelled)

    # ---- actions every edition answers (shared, or hooks) ---------------------------------

    def give_clue(self, word: str, number: int | None, *, by: Player | None = None) -> list[Event]:
        """A clue giver says one word and one number (None: unlimited); `_clue_giver` says who may."""
        giver = self._clue_giver(by)
        word = word.strip()
        if not word:
            raise EmptyClue()
        if number is not None and not 0 <= number <= self.MAX_CLUE_NUMBER:
            raise NumberOutOfRange(number=number, low=0, high=self.MAX_CLUE_NUMBER)
        return [self._emit(EventType.CLUE, by=giver.value, word=word, number=Clue(word, number).number_value)]

    def reject_clue(
        self, word: str, reason: str, *, number: int | None = None, by: Player | None = None
    ) -> list[Event]:
        """An invalid clue, with the edition's penalty (`number`: Duet guesses on it anyway)."""
        raise NotImplementedError

    def guess(self, card: str, *, by: Player | None = None) -> list[Event]:
        """A guesser touches a card."""
        raise NotImplementedError

    def end_turn(self) -> list[Event]:
        """The guessers stop, after one guess at least; in sudden death the edition says what follows."""
        self._require_running()
        if self.state.phase is Phase.CLUE:
            raise ClueExpected(by=self._awaited_givers())
        if self._in_sudden_death():
            return self._stop_in_sudden_death()
        if not self.passes_now:
            raise MustGuessOnce()
        return self._pass_turn(TurnEndReason.PASSED)

    def timer_expired(self) -> list[Event]:
        """The sand timer ran out; with the house rule, the guessing ends like a pass (after one guess)."""
        self._require_running()
        if (
            not self.variants.timer_ends_turn
            or self.state.phase is not Phase.GUESS
            or self.state.guesses_this_turn == 0
            or self._in_sudden_death()
        ):
            return []
        return self._pass_turn(TurnEndReason.TIMER)

    def cover(self, card: str) -> list[Event]:
        """A card covered without a guess (a penalty, the simulated team's turn); see `cover_choices`."""
        raise NothingToCover()

    def cover_choices(self) -> list[str]:
        """The cards `cover` takes now; empty when nothing is to be covered."""
        return []

    # ---- queries -------------------------------------------------------------------------

    def clue_givers(self) -> list[Player]:
        """Who may give the next clue now (empty while nobody may)."""
        raise NotImplementedError

    def guessers(self) -> list[Player]:
        """Who may guess now (two Duet players in sudden death; empty while nobody may)."""
        raise NotImplementedError

    @property
    def current_player(self) -> Player | None:
        """Whose turn it is: the team to play, or the Duet player who gave the clue."""
        raise NotImplementedError

    def guesses_left(self) -> int | None:
        """Guesses left on this clue; None when the clue does not limit them."""
        return None

    def public_identity(self, index: int) -> Identity | None:
        """The identity a covered card shows the whole table; None while it is uncovered."""
        raise NotImplementedError

    def marks(self, index: int) -> tuple[Side, ...]:
        """The sides from which a card is known to be a bystander without being covered (Duet)."""
        return ()

    def key_for(self, holder: str) -> tuple[Identity, ...]:
        """The key one of `KEY_HOLDERS` sees, card by card."""
        raise NotImplementedError

    def clue_owner(self, giver: Player | None) -> str | None:
        """Whose agents the clue now awaited is for: a team, or the Duet side of the clue giver (`giver`;
        None while either player may give it)."""
        raise NotImplementedError

    def public_counters(self) -> dict[str, Any]:
        """The counters the whole table may know (agents or greens left, tokens, whose turn)."""
        raise NotImplementedError

    def covered_cards(self) -> list[tuple[int, Identity]]:
        """Every covered card with the identity the table sees, in board order."""
        found = [(index, self.public_identity(index)) for index in range(len(self.board.cards))]
        return [(index, identity) for index, identity in found if identity is not None]

    @property
    def over(self) -> bool:
        return self.state.phase is Phase.OVER

    @property
    def passes_now(self) -> bool:
        """Whether a pass would simply end the guessers' turn now: they have guessed once, outside sudden
        death (where stopping decides the game). The referee asks it before offering a pass."""
        return (
            not self.over
            and self.state.phase is not Phase.CLUE
            and not self._in_sudden_death()
            and self.state.guesses_this_turn > 0
        )

    @property
    def last_undoable(self) -> Event | None:
        """The move an undo would take back (its first event: a guess, a clue or a turn ended by a pass), if any."""
        if not self._snapshots or self.over:
            return None
        seq = self._snapshots[-1][0]
        return self.events[seq - 1]

    def visible_cards(self) -> list[str]:
        return [card for index, card in enumerate(self.board.cards) if not self.is_covered(index)]

    def card_index(self, card: str) -> int:
        """The index of a card named by a player; raises if it is not on the board or is covered."""
        index = self.board.index_of(card)
        if index is None:
            raise UnknownCard(card=card.strip().upper())
        if self.is_covered(index):
            raise CardAlreadyCovered(card=self.board.cards[index])
        return index

    def _require_running(self) -> None:
        if self.over:
            raise GameIsOver()

    # ---- for subclasses ------------------------------------------------------------------

    def _initial_state(self) -> S:
        return self.state_class()  # type: ignore[return-value]

    def _start_fields(self) -> dict[str, Any]:
        return {
            "edition": self.board.edition.value,
            "lang": self.board.lang.value,
            "cards": list(self.board.cards),
            "variants": self.variants.to_dict(),
        }

    def _extra_fields(self, kind: EventType) -> dict[str, Any]:
        return {}

    def is_covered(self, index: int) -> bool:
        return self.public_identity(index) is not None

    def _apply_event(self, event: Event) -> None:
        raise NotImplementedError

    # ---- hooks of the shared actions -------------------------------------------------------

    def _clue_giver(self, by: Player | None) -> Player:
        """Who gives the clue `by` names (or the only one who may); raises when it is not their clue."""
        raise NotImplementedError

    def _awaited_givers(self) -> str:
        """Whom `ClueExpected` names while a clue is awaited."""
        raise NotImplementedError

    def _in_sudden_death(self) -> bool:
        """Whether the guessers play sudden death, where no turn ends by a pass or the timer."""
        return self.state.phase is Phase.SUDDEN_DEATH

    def _stop_in_sudden_death(self) -> list[Event]:
        """What `end_turn` does in sudden death."""
        raise NotImplementedError

    def _pass_turn(self, reason: TurnEndReason) -> list[Event]:
        """The events that end the guessing when the guessers stop or the timer runs out."""
        raise NotImplementedError

    def _game_over(self, winner: Winner, reason: EndReason) -> Event:
        """Write `game_over`; what else the result says (score, mission) is the edition's."""
        return self._emit(EventType.GAME_OVER, winner=winner.value, reason=reason.value, **self._result_fields(winner))

    def _result_fields(self, winner: Winner) -> dict[str, Any]:
        return {}

    @staticmethod
    def _clue_of(event: Event) -> Clue:
        """The clue a `clue` event gave."""
        number = event["number"]
        return Clue(event["word"], None if number == "unlimited" else int(number))

    def _apply_game_over(self, event: Event) -> None:
        state = self.state
        state.phase, state.winner = Phase.OVER, Winner(event["winner"])
        state.end_reason, state.score = EndReason(event["reason"]), event.get("score")
