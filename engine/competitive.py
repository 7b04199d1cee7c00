"""Classic and Pictures: two teams, one key, and the variants the rulebooks offer for them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from engine.errors import (
    ClueExpected,
    CoverFirst,
    GuessExpected,
    NobodyGuesses,
    NotACardToCover,
    NothingToCover,
    NotYourTurn,
)
from engine.events import Event, EventType
from engine.game import BaseState, Game, Phase, Player
from engine.pieces import (
    COMPETITIVE_COUNTS,
    EndReason,
    Identity,
    Team,
    TurnEndReason,
    Winner,
)


@dataclass
class CompetitiveState(BaseState):
    team: Team = Team.RED
    revealed: dict[int, Identity] = field(default_factory=dict)
    sudden_death: bool = False  # Assassin Ending: the assassin was found before all own agents
    penalty_for: Team | None = None  # this team's spymaster may cover one own agent before its clue


class CompetitiveGame(Game[CompetitiveState]):
    """Red against blue (or one team against a simulated opponent)."""

    state_class = CompetitiveState

    def _initial_state(self) -> CompetitiveState:
        assert self.board.starting_team is not None  # the board validated it
        return CompetitiveState(team=self.board.starting_team)

    def _start_fields(self) -> dict[str, Any]:
        return {
            **super()._start_fields(),
            "starting_team": self.board.starting_team.value if self.board.starting_team else None,
        }

    # ---- queries -------------------------------------------------------------------------

    @property
    def team(self) -> Team:
        return self.state.team

    @property
    def players_team(self) -> Team:
        """In co-op, the team the players are on: the starting team."""
        assert self.board.starting_team is not None
        return self.board.starting_team

    @property
    def current_player(self) -> Team:
        return self.state.team

    def clue_givers(self) -> list[Player]:
        return [self.team] if self.state.phase is Phase.CLUE else []

    def guessers(self) -> list[Player]:
        return [self.team] if self.state.phase in (Phase.GUESS, Phase.SUDDEN_DEATH) else []

    def public_identity(self, index: int) -> Identity | None:
        return self.state.revealed.get(index)  # covered cards only: this map holds nothing else

    def key_for(self, holder: str) -> tuple[Identity, ...]:
        return self.board.key

    def clue_owner(self, giver: Player | None) -> str | None:
        return self.players_team.value if self.variants.coop else self.team.value

    def public_counters(self) -> dict[str, Any]:
        state = self.state
        return {
            "team": self.team.value,
            "starting_team": self.players_team.value,
            "guesses_left": self.guesses_left(),
            "agents_left": {team.value: self.agents_left(team) for team in Team},
            "agents_total": {team.value: self.agents_total(team) for team in Team},
            "coop": self.variants.coop,
            "assassin_ending": self.variants.assassin_ending,
            "penalty_for": state.penalty_for.value if state.penalty_for else None,
            "sudden_death": state.sudden_death,
        }

    def agents_total(self, team: Team) -> int:
        counts = COMPETITIVE_COUNTS[self.board.grid]
        return counts.starting_agents if team is self.board.starting_team else counts.other_agents

    def agents_left(self, team: Team) -> int:
        found = sum(1 for identity in self.state.revealed.values() if identity is Identity.of_team(team))
        return self.agents_total(team) - found

    def guesses_left(self) -> int | None:
        """None when the clue lifts the limit (0, unlimited, sudden death)."""
        clue = self.state.clue
        if clue is None or not clue.limits_guesses or self.state.sudden_death:
            return None
        assert clue.number is not None
        return clue.number + 1 - self.state.guesses_this_turn

    # ---- actions -------------------------------------------------------------------------

    def reject_clue(
        self, word: str, reason: str, *, number: int | None = None, by: Player | None = None
    ) -> list[Event]:
        """An invalid clue: with the penalty, the turn ends and the other spymaster may cover one card."""
        self._require_clue_phase()
        self._require_team(by)
        events = [self._emit(EventType.CLUE_REJECTED, by=self.team.value, word=word.strip(), reason=reason)]
        if self.variants.invalid_clue_penalty:
            events.append(self._end_turn(TurnEndReason.PENALTY))
        return events

    def penalty_cover(self, card: str) -> list[Event]:
        """After the other team's invalid clue, this spymaster covers one of their own agents."""
        if self.state.penalty_for is not self.team or self.state.phase is not Phase.CLUE:
            raise NothingToCover()
        index = self.card_index(card)
        if self.board.key[index] is not Identity.of_team(self.team):
            raise NotACardToCover(card=self.board.cards[index])
        events = [
            self._emit(
                EventType.COVER,
                by=self.team.value,
                card=self.board.cards[index],
                identity=self.board.key[index].value,
                reason="penalty",
            )
        ]
        events += self._check_all_found()
        return events

    def simulated_cover(self, card: str) -> list[Event]:
        """Co-op: the spymaster covers one enemy agent for the simulated team's turn."""
        if self.state.phase is not Phase.SIMULATED_TURN:
            raise NothingToCover()
        enemy = self.players_team.other
        index = self.card_index(card)
        if self.board.key[index] is not Identity.of_team(enemy):
            raise NotACardToCover(card=self.board.cards[index])
        events = [
            self._emit(
                EventType.COVER,
                by=enemy.value,
                card=self.board.cards[index],
                identity=self.board.key[index].value,
                reason="simulated",
            )
        ]
        if self.agents_left(enemy) == 0:
            events.append(self._game_over(Winner.NONE, EndReason.ALL_FOUND))
        else:
            events.append(self._emit(EventType.TURN_ENDED, by=enemy.value, reason=TurnEndReason.PASSED.value))
        return events

    def penalty_choices(self) -> list[str]:
        """Cards this spymaster may cover after the other team's invalid clue (empty: no penalty now)."""
        if self.state.penalty_for is not self.team or self.state.phase is not Phase.CLUE:
            return []
        return self._uncovered_agents(self.team)

    def _uncovered_agents(self, team: Team) -> list[str]:
        wanted = Identity.of_team(team)
        return [
            card for i, card in enumerate(self.board.cards) if self.board.key[i] is wanted and not self.is_covered(i)
        ]

    def simulated_choices(self) -> list[str]:
        """Cards the simulated team may cover, in board order (the host may pick at random)."""
        return self._uncovered_agents(self.players_team.other)

    def cover(self, card: str) -> list[Event]:
        """The simulated team's card in its turn; otherwise the penalty card after an invalid clue."""
        return self.simulated_cover(card) if self.state.phase is Phase.SIMULATED_TURN else self.penalty_cover(card)

    def cover_choices(self) -> list[str]:
        return self.simulated_choices() if self.state.phase is Phase.SIMULATED_TURN else self.penalty_choices()

    def guess(self, card: str, *, by: Player | None = None) -> list[Event]:
        """An operative touches a card: reveal it and apply what follows."""
        self._require_running()
        self._require_team(by)
        if self.state.phase is Phase.CLUE:
            raise ClueExpected(by=self._awaited_givers())
        if self.state.phase is not Phase.GUESS:
            raise NobodyGuesses()
        index = self.card_index(card)
        identity = self.board.key[index]
        team = self.team
        events = [self._emit(EventType.GUESS, by=team.value, card=self.board.cards[index], identity=identity.value)]
        own = identity is Identity.of_team(team)
        if self.state.sudden_death:
            if not own:
                events.append(self._game_over(self._loser_result(team), EndReason.SUDDEN_DEATH))
            elif self.agents_left(team) == 0:
                events.append(self._game_over(self._winner_result(team), EndReason.SUDDEN_DEATH))
            return events
        if identity is Identity.ASSASSIN:
            events += self._assassin_found(team)
            return events
        finished = self._check_all_found()
        if finished:
            return events + finished
        if not own:
            events.append(self._end_turn(TurnEndReason.WRONG_GUESS))
        elif self.guesses_left() == 0:
            events.append(self._end_turn(TurnEndReason.LIMIT))
        return events

    # ---- the hooks of the shared actions (engine.game) --------------------------------------

    def _clue_giver(self, by: Player | None) -> Team:
        """The spymaster of the team to play gives the clue.

        Legality is the host's to settle first (`check_clue`, then the opposing spymaster for a
        doubtful one): an accepted clue stands, as the rulebooks say.
        """
        self._require_clue_phase()
        self._require_team(by)
        return self.team

    def _awaited_givers(self) -> str:
        return self.team.value

    def _in_sudden_death(self) -> bool:
        """Assassin Ending's sudden death happens inside the guess phase."""
        return self.state.sudden_death

    def _stop_in_sudden_death(self) -> list[Event]:
        """Stopping in sudden death ends the game: won if all own agents are found, else lost."""
        team = self.team
        result = self._winner_result(team) if self.agents_left(team) == 0 else self._loser_result(team)
        return [self._game_over(result, EndReason.SUDDEN_DEATH)]

    def _pass_turn(self, reason: TurnEndReason) -> list[Event]:
        return [self._end_turn(reason)]

    def _result_fields(self, winner: Winner) -> dict[str, Any]:
        """Co-op: a win scores the simulated team's agents still uncovered."""
        if self.variants.coop and winner is Winner.PLAYERS:
            return {"score": self.agents_left(self.players_team.other)}
        return {}

    # ---- consequences --------------------------------------------------------------------

    def _require_team(self, by: Player | None) -> None:
        if by is not None and by is not self.team:
            raise NotYourTurn(by=by.value)

    def _require_clue_phase(self) -> None:
        self._require_running()
        if self.state.phase is Phase.GUESS or self.state.phase is Phase.SUDDEN_DEATH:
            raise GuessExpected()
        if self.state.phase is Phase.SIMULATED_TURN:
            raise CoverFirst()

    def _assassin_found(self, team: Team) -> list[Event]:
        if not self.variants.assassin_ending:
            return [self._game_over(self._loser_result(team), EndReason.ASSASSIN)]
        if self.agents_left(team) == 0:
            return [self._game_over(self._winner_result(team), EndReason.ASSASSIN)]
        return [self._emit(EventType.SUDDEN_DEATH, by=team.value)]

    def _check_all_found(self) -> list[Event]:
        """A team with all agents covered wins at once, on either team's turn (not with Assassin Ending)."""
        if self.variants.coop and self.agents_left(self.players_team.other) == 0:
            return [self._game_over(Winner.NONE, EndReason.ALL_FOUND)]  # the simulated team got there first
        if self.variants.assassin_ending:
            return []
        for team in (self.team, self.team.other):
            if self.agents_left(team) == 0:
                if self.variants.coop:
                    won = team is self.players_team
                    return [self._game_over(Winner.PLAYERS if won else Winner.NONE, EndReason.ALL_FOUND)]
                return [self._game_over(Winner.of_team(team), EndReason.ALL_FOUND)]
        return []

    def _winner_result(self, team: Team) -> Winner:
        return Winner.PLAYERS if self.variants.coop else Winner.of_team(team)

    def _loser_result(self, team: Team) -> Winner:
        return Winner.NONE if self.variants.coop else Winner.of_team(team.other)

    def _end_turn(self, reason: TurnEndReason) -> Event:
        return self._emit(EventType.TURN_ENDED, by=self.team.value, reason=reason.value)

    # ---- the fold ------------------------------------------------------------------------

    def _apply_event(self, event: Event) -> None:
        state = self.state
        kind = event.type
        if kind is EventType.GAME_STARTED:
            state.phase = Phase.CLUE
        elif kind is EventType.CLUE:
            self._expect_team(event)
            clue = self._clue_of(event)
            state.clue, state.guesses_this_turn, state.phase = clue, 0, Phase.GUESS
            state.clues.append((event["by"], clue))
            state.penalty_for = None
        elif kind is EventType.CLUE_REJECTED:
            self._expect_team(event)
        elif kind is EventType.GUESS or kind is EventType.COVER:
            index = self.board.index_of(event["card"])
            if index is None or index in state.revealed or self.board.key[index].value != event["identity"]:
                raise ValueError(f"{event['card']} cannot be revealed as {event['identity']} here")
            state.revealed[index] = self.board.key[index]
            if kind is EventType.GUESS:
                state.guesses_this_turn += 1
            elif event["reason"] == "penalty":
                state.penalty_for = None
        elif kind is EventType.SUDDEN_DEATH:
            state.sudden_death = True
        elif kind is EventType.TURN_ENDED:
            self._apply_turn_end(event)
        elif kind is EventType.GAME_OVER:
            self._apply_game_over(event)
        else:
            raise ValueError(f"{kind.value} is not an event of a competitive game")

    def _apply_turn_end(self, event: Event) -> None:
        state = self.state
        ended_by = Team(event["by"])
        state.clue, state.guesses_this_turn = None, 0
        if self.variants.coop and ended_by is self.players_team:
            state.phase, state.team = Phase.SIMULATED_TURN, ended_by.other
        elif self.variants.coop:
            state.phase, state.team = Phase.CLUE, self.players_team
        else:
            state.phase, state.team = Phase.CLUE, ended_by.other
        if event["reason"] == TurnEndReason.PENALTY.value and not self.variants.coop:
            state.penalty_for = ended_by.other

    def _expect_team(self, event: Event) -> None:
        if event["by"] != self.state.team.value:
            raise ValueError(f"{event['by']} played out of turn")
