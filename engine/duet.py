"""Duet: two players, a two-sided key, a bank of timer tokens, sudden death and the mission map."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final

from engine.errors import (
    CardAlreadyMarked,
    ClueExpected,
    GuessExpected,
    NobodyGuesses,
    NoCluesInSuddenDeath,
    NothingLeftToFind,
    NoTurnsInSuddenDeath,
    NotYourTurn,
    SayWhoGivesTheClue,
    SayWhoGuesses,
    SideIsDone,
)
from engine.events import Event, EventType
from engine.game import BaseState, Game, Phase, Player
from engine.missions import mission
from engine.pieces import EndReason, Identity, Side, Team, TurnEndReason, Winner

GREENS_TO_FIND: Final = 15


@dataclass
class DuetState(BaseState):
    giver: Side | None = None  # who gives (or gave) the current clue; None before the first
    greens: set[int] = field(default_factory=set)  # covered by a green agent card
    marks: dict[int, set[Side]] = field(default_factory=dict)  # bystander marks, by the side that judged
    tokens_left: int = 9
    mistakes_left: int = 9  # tokens lying bystander side up (a mission may have fewer)
    taken_after_correct: int = 0  # tokens a guesser took to end a turn after a correct guess
    givers: list[Side] = field(default_factory=list)
    done: set[Side] = field(default_factory=set)  # sides whose greens are all found
    sudden_death: bool = False


class DuetGame(Game[DuetState]):
    """Cooperative: everyone wins when the 15 greens are found before time runs out."""

    state_class = DuetState
    TEAMS = False
    KEY_HOLDERS = (Side.A.value, Side.B.value)
    MAX_CLUE_NUMBER = 25
    """Any number goes in Duet (guesses are unlimited anyway); more than the board holds means nothing."""

    def _initial_state(self) -> DuetState:
        tokens, mistakes = self.variants.duet_tokens, self.variants.duet_tokens
        if self.variants.mission:
            city = mission(self.variants.mission)
            tokens, mistakes = city.tokens, city.mistakes
        return DuetState(giver=self.board.first_clue_giver, tokens_left=tokens, mistakes_left=mistakes)

    def _start_fields(self) -> dict[str, Any]:
        giver = self.board.first_clue_giver
        return {**super()._start_fields(), "first_clue_giver": giver.value if giver else None}

    def _extra_fields(self, kind: EventType) -> dict[str, Any]:
        fields: dict[str, Any] = {"tokens_left": self.state.tokens_left}
        if self.variants.mission:
            fields["mistakes_left"] = self.state.mistakes_left
        return fields

    # ---- queries -------------------------------------------------------------------------

    @property
    def on_mission(self) -> bool:
        return self.variants.mission is not None

    def public_identity(self, index: int) -> Identity | None:
        """Covered: found green, or marked as a bystander from both sides; and the guess that lost the
        game (the assassin, or a mistake in sudden death), which was said aloud."""
        if index in self.state.greens:
            return Identity.GREEN
        if len(self.state.marks.get(index, ())) == 2:
            return Identity.BYSTANDER
        lost = self._losing_guess()
        return lost[1] if lost is not None and lost[0] == index else None

    def is_covered(self, index: int) -> bool:
        """Covered for the rules: a found green, or a bystander from both sides."""
        return index in self.state.greens or len(self.state.marks.get(index, ())) == 2

    def marks(self, index: int) -> tuple[Side, ...]:
        return tuple(sorted(self.state.marks.get(index, ())))

    def key_for(self, holder: str) -> tuple[Identity, ...]:
        return self.board.side_key(Side(holder))

    def clue_owner(self, giver: Player | None) -> str | None:
        return None if giver is None else giver.value

    @property
    def current_player(self) -> Side | None:
        return self.state.giver

    def clue_givers(self) -> list[Player]:
        return list(self.next_givers())

    def guessers(self) -> list[Player]:
        if self.state.phase is Phase.SUDDEN_DEATH:
            return [side for side in Side if self.has_words_to_find(side)]
        return [self.guesser] if self.guesser is not None else []

    def public_counters(self) -> dict[str, Any]:
        state = self.state
        city = mission(self.variants.mission) if self.variants.mission else None
        return {
            "giver": state.giver.value if state.giver else None,
            "guesser": self.guesser.value if self.guesser else None,
            "next_givers": [side.value for side in self.next_givers()],
            "sudden_death_guessers": [side.value for side in Side if side.other not in state.done]
            if state.sudden_death
            else [],
            "tokens_left": state.tokens_left,
            "tokens_total": city.tokens if city else self.variants.duet_tokens,
            "mistakes_left": state.mistakes_left if city else None,
            "greens_found": len(state.greens),
            "greens_total": GREENS_TO_FIND,
            "done": sorted(side.value for side in state.done),
            "sudden_death": state.sudden_death,
            "mission": city.name(self.board.lang) if city else None,
        }

    def _losing_guess(self) -> tuple[int, Identity] | None:
        if self.state.end_reason not in (EndReason.ASSASSIN, EndReason.SUDDEN_DEATH):
            return None
        guesses = [event for event in self.events if event.type is EventType.GUESS]
        if not guesses or guesses[-1]["identity"] == Identity.GREEN.value:
            return None
        index = self.board.index_of(guesses[-1]["card"])
        return None if index is None else (index, Identity(guesses[-1]["identity"]))

    def greens_of(self, side: Side) -> set[int]:
        return {i for i, identity in enumerate(self.board.side_key(side)) if identity is Identity.GREEN}

    def has_words_to_find(self, guesser: Side) -> bool:
        """A player still has words to find while the partner's side has uncovered greens."""
        return bool(self.greens_of(guesser.other) - self.state.greens)

    def greens_found(self) -> int:
        return len(self.state.greens)

    def next_givers(self) -> list[Side]:
        """Who may give the next clue, by the turn order in force."""
        if self.state.phase is not Phase.CLUE:
            return []
        able = [side for side in Side if side not in self.state.done]
        history = self.state.givers
        if not history:
            first = self.board.first_clue_giver
            return [first] if first is not None and first in able else able
        if len(able) < 2:
            return able  # one side's greens are all found: only the other gives clues now
        if self.variants.duet_relaxed_order and _run_length(history) < 2:
            return able
        return [history[-1].other]

    @property
    def guesser(self) -> Side | None:
        giver = self.state.giver
        return giver.other if giver is not None and self.state.phase is Phase.GUESS else None

    def score(self) -> int:
        """+3 per token left, +1 per token taken to end a turn after a correct guess, -1 for sudden death."""
        state = self.state
        # "don't forget the winning turn used a token": it is still in the bank when the game ends
        banked = state.tokens_left if state.sudden_death else max(state.tokens_left - 1, 0)
        return 3 * banked + state.taken_after_correct - (1 if state.sudden_death else 0)

    # ---- actions -------------------------------------------------------------------------

    def reject_clue(
        self, word: str, reason: str, *, number: int | None = None, by: Player | None = None
    ) -> list[Event]:
        """Invalid clue: with the penalty, one token leaves the bank and the partner guesses as if valid."""
        by = self._giver_for(by)
        self._require_clue_phase(by)
        if not self.variants.invalid_clue_penalty:
            return [self._emit(EventType.CLUE_REJECTED, by=by.value, word=word.strip(), reason=reason)]
        tokens, mistakes = self._spend_plain_first()
        events = [
            self._emit(
                EventType.CLUE_REJECTED, by=by.value, word=word.strip(), reason=reason, **self._bank(tokens, mistakes)
            )
        ]
        return events + self.give_clue(word, number, by=by)

    def guess(self, card: str, *, by: Player | None = None) -> list[Event]:
        """A guess, judged on the partner's side of the key. In sudden death `by` says who guesses."""
        self._require_running()
        if isinstance(by, Team):
            raise NotYourTurn(by=by.value)
        if self.state.phase is Phase.CLUE:
            raise ClueExpected(by=self._awaited_givers())
        guesser = self._guesser_for(by if isinstance(by, Side) else None)
        judge = guesser.other
        index = self.card_index(card)
        if judge in self.state.marks.get(index, set()):
            raise CardAlreadyMarked(card=self.board.cards[index])
        identity = self.board.side_key(judge)[index]
        name = self.board.cards[index]
        events = [self._emit(EventType.GUESS, by=guesser.value, card=name, identity=identity.value)]
        if identity is Identity.ASSASSIN:
            return [*events, self._game_over(Winner.NONE, EndReason.ASSASSIN)]
        if identity is Identity.GREEN:
            if len(self.state.greens) == GREENS_TO_FIND:
                reason = EndReason.SUDDEN_DEATH if self.state.sudden_death else EndReason.ALL_FOUND
                return [*events, self._game_over(Winner.PLAYERS, reason)]
            for side in Side:
                if side not in self.state.done and not self.greens_of(side) - self.state.greens:
                    events.append(self._emit(EventType.SIDE_DONE, side=side.value))
            if judge in self.state.done and self.state.phase is Phase.GUESS:
                events += self._pass_turn(TurnEndReason.PASSED)  # nothing is left to find on this clue
            return events
        if self.state.sudden_death:
            return [*events, self._game_over(Winner.NONE, EndReason.SUDDEN_DEATH)]
        return events + self._mark_bystander(index, judge)

    # ---- the hooks of the shared actions (engine.game) --------------------------------------

    def _clue_giver(self, by: Player | None) -> Side:
        """`by` gives a clue for the greens on their own side; the partner will guess."""
        giver = self._giver_for(by)
        self._require_clue_phase(giver)
        return giver

    def _awaited_givers(self) -> str:
        return "/".join(side.value.upper() for side in self.next_givers())

    def _stop_in_sudden_death(self) -> list[Event]:
        raise NoTurnsInSuddenDeath()

    def _pass_turn(self, reason: TurnEndReason) -> list[Event]:
        """The guesser takes a token to stop after at least one correct guess (or the timer does)."""
        tokens, mistakes = self._spend_plain_first()
        assert self.state.giver is not None
        ended = self._emit(
            EventType.TURN_ENDED,
            by=self.state.giver.value,
            reason=reason.value,
            token_taken=True,
            **self._bank(tokens, mistakes),
        )
        return [ended, *self._sudden_death_if_out_of_time()]

    def _result_fields(self, winner: Winner) -> dict[str, Any]:
        """A won game scores its tokens, unless on a mission; a mission's result names it."""
        fields: dict[str, Any] = {}
        if winner is Winner.PLAYERS and not self.on_mission:
            fields["score"] = self.score()
        if self.on_mission:
            fields["mission"] = self.variants.mission
        return fields

    # ---- consequences --------------------------------------------------------------------

    def _giver_for(self, by: Player | None) -> Side:
        """The side giving a clue: the one named, or the only one who may."""
        if isinstance(by, Side):
            return by
        if isinstance(by, Team):
            raise NotYourTurn(by=by.value)
        givers = self.next_givers()
        if not givers:
            self._require_clue_phase(Side.A)  # not the time for a clue: that phase's own error
        if len(givers) != 1:
            raise SayWhoGivesTheClue()
        return givers[0]

    def _require_clue_phase(self, by: Side) -> None:
        self._require_running()
        if self.state.phase is Phase.SUDDEN_DEATH:
            raise NoCluesInSuddenDeath()
        if self.state.phase is Phase.GUESS:
            raise GuessExpected()
        allowed = self.next_givers()
        if by not in allowed:
            if by in self.state.done:
                raise SideIsDone(side=by.value.upper(), other=by.other.value.upper())
            raise NotYourTurn(by=by.value.upper())

    def _guesser_for(self, by: Side | None) -> Side:
        if self.state.phase is Phase.SUDDEN_DEATH:
            able = [side for side in Side if self.has_words_to_find(side)]
            if by is None:
                if len(able) == 1:
                    return able[0]
                raise SayWhoGuesses()
            if by not in able:
                raise NothingLeftToFind(side=by.value.upper())
            return by
        if self.state.phase is not Phase.GUESS or self.state.giver is None:
            raise NobodyGuesses()
        guesser = self.state.giver.other
        if by is not None and by is not guesser:
            raise NotYourTurn(by=by.value.upper())
        return guesser

    def _mark_bystander(self, index: int, judge: Side) -> list[Event]:
        tokens, mistakes = self.state.tokens_left, self.state.mistakes_left
        if mistakes > 0:
            tokens, mistakes = tokens - 1, mistakes - 1
        elif tokens >= 2:
            tokens -= 2  # no bystander-side token left: the mistake costs two turns
        elif tokens == 1:
            return [self._game_over(Winner.NONE, EndReason.OUT_OF_TIME)]
        marked = self._emit(
            EventType.BYSTANDER_MARKED, side=judge.value, card=self.board.cards[index], **self._bank(tokens, mistakes)
        )
        return [marked, *self._after_turn(TurnEndReason.WRONG_GUESS)]

    def _after_turn(self, reason: TurnEndReason) -> list[Event]:
        assert self.state.giver is not None
        ended = self._emit(EventType.TURN_ENDED, by=self.state.giver.value, reason=reason.value)
        return [ended, *self._sudden_death_if_out_of_time()]

    def _sudden_death_if_out_of_time(self) -> list[Event]:
        if self.state.tokens_left > 0:
            return []
        return [self._emit(EventType.SUDDEN_DEATH)]

    def _spend_plain_first(self) -> tuple[int, int]:
        """Take a check-side token if there is one, keeping the allowed mistakes; else a bystander one."""
        tokens, mistakes = self.state.tokens_left, self.state.mistakes_left
        if tokens == 0:
            return 0, 0
        if tokens > mistakes:
            return tokens - 1, mistakes
        return tokens - 1, mistakes - 1

    def _bank(self, tokens: int, mistakes: int) -> dict[str, int]:
        bank = {"tokens_left": tokens}
        if self.on_mission:
            bank["mistakes_left"] = mistakes
        return bank

    # ---- the fold ------------------------------------------------------------------------

    def _apply_event(self, event: Event) -> None:
        state = self.state
        kind = event.type
        if kind is EventType.GAME_STARTED:
            return
        if kind is EventType.CLUE:
            by = Side(event["by"])
            clue = self._clue_of(event)
            state.giver, state.clue, state.guesses_this_turn, state.phase = by, clue, 0, Phase.GUESS
            state.clues.append((by.value, clue))
            state.givers.append(by)
        elif kind is EventType.CLUE_REJECTED:
            self._set_bank(event)
        elif kind is EventType.GUESS:
            index = self._index(event)
            if self.is_covered(index):
                raise ValueError(f"{event['card']} is already covered")
            judge = Side(event["by"]).other
            if self.board.side_key(judge)[index].value != event["identity"]:
                raise ValueError(f"{event['card']} is not {event['identity']} on side {judge.value}")
            if event["identity"] == Identity.GREEN.value:
                state.greens.add(index)
            state.guesses_this_turn += 1
        elif kind is EventType.BYSTANDER_MARKED:
            state.marks.setdefault(self._index(event), set()).add(Side(event["side"]))
            self._set_bank(event)
        elif kind is EventType.SIDE_DONE:
            state.done.add(Side(event["side"]))
        elif kind is EventType.TURN_ENDED:
            if event.get("token_taken"):
                self._set_bank(event)
                if state.guesses_this_turn > 0:
                    state.taken_after_correct += 1
            state.clue, state.guesses_this_turn, state.phase = None, 0, Phase.CLUE
        elif kind is EventType.SUDDEN_DEATH:
            state.sudden_death, state.phase, state.clue = True, Phase.SUDDEN_DEATH, None
        elif kind is EventType.GAME_OVER:
            self._apply_game_over(event)
        else:
            raise ValueError(f"{kind.value} is not an event of Duet")

    def _index(self, event: Event) -> int:
        index = self.board.index_of(event["card"])
        if index is None:
            raise ValueError(f"{event['card']} is not on the board")
        return index

    def _set_bank(self, event: Event) -> None:
        tokens = int(event["tokens_left"])
        mistakes = int(event.get("mistakes_left", tokens))
        if tokens > self.state.tokens_left or mistakes > tokens:
            raise ValueError("timer tokens cannot come back to the bank")
        self.state.tokens_left, self.state.mistakes_left = tokens, mistakes


def _run_length(history: list[Side]) -> int:
    """How many clues in a row the last clue giver has given."""
    run = 0
    for side in reversed(history):
        if side is not history[-1]:
            break
        run += 1
    return run
