"""Turns engine events into what the host says: one announcement per reveal, in one breath.

Only public facts are spoken: the identity of the card just guessed, whose turn it is, the
tokens in the bank. Nothing about hidden cards, nothing about the other side of a Duet key.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.competitive import CompetitiveGame
from engine.duet import DuetGame
from engine.editions import AnyGame
from engine.events import Event, EventType
from engine.game import Phase
from engine.missions import mission
from engine.pieces import Edition, Side, Team
from voicehost.prompts import Prompts


class Announcer:
    """Knows how to say things about one game in one language."""

    def __init__(self, game: AnyGame, prompts: Prompts) -> None:
        self.game = game
        self.p = prompts

    # ---- names -----------------------------------------------------------------------------

    def team(self, team: Team | str, capital: bool = False) -> str:
        value = Team(team).value
        return self.p.text(f"team.{value.capitalize() if capital else value}")

    def number(self, number: int | str) -> str:
        return str(number) if number != "unlimited" else self.p.text("info.unlimited")

    def clue_line(self, word: str, number: int | str) -> str:
        if number == "unlimited":
            return self.p.text("clue.accepted_unlimited", word=word)
        return self.p.text("clue.accepted", word=word, number=number)

    # ---- prompts for what comes next -------------------------------------------------------

    def next_prompt(self) -> str:
        """What the host asks for now: a clue, a guess, a cover, or nothing when the game is over."""
        game = self.game
        phase = game.state.phase
        if isinstance(game, CompetitiveGame):
            if phase is Phase.CLUE:
                parts = []
                if game.penalty_choices():
                    parts.append(self.p.text("clue.penalty_cover", Team=self.team(game.team, True)))
                else:
                    parts.append(self.p.text("game.clue_prompt", Team=self.team(game.team, True)))
                return " ".join(parts)
            if phase is Phase.GUESS:
                return self.p.text("game.guess_prompt", Team=self.team(game.team, True), left=self.guesses_left())
            if phase is Phase.SIMULATED_TURN:
                return self.p.text("turn.simulated_choose")
            if phase is Phase.SUDDEN_DEATH:
                return self.p.text("game.guess_prompt", Team=self.team(game.team, True), left="")
            return ""
        if phase is Phase.CLUE:
            givers = game.next_givers()
            if len(givers) == 1:
                return self.p.text("game.clue_prompt_duet", side=givers[0].value.upper())
            return self.p.text("game.clue_prompt_duet_either")
        if phase is Phase.GUESS and game.guesser is not None:
            return self.p.text("game.guess_prompt_duet", side=game.guesser.value.upper())
        if phase is Phase.SUDDEN_DEATH:
            able = [side for side in Side if game.has_words_to_find(side)]
            if len(able) == 1:
                return self.p.text("game.guess_prompt_duet", side=able[0].value.upper())
            return self.p.text("turn.sudden_death_who")
        return ""

    def guesses_left(self) -> str:
        game = self.game
        assert isinstance(game, CompetitiveGame)
        left = game.guesses_left()
        if left is None:
            return self.p.text("game.guesses_unlimited")
        return self.p.text("game.guesses_left", count=left)

    # ---- the welcome -----------------------------------------------------------------------

    def welcome(self) -> list[str]:
        game = self.game
        lines = []
        if isinstance(game, CompetitiveGame):
            starter = game.board.starting_team
            assert starter is not None
            key = "game.welcome_pictures" if game.board.edition is Edition.PICTURES else "game.welcome_classic"
            lines.append(
                self.p.text(
                    key,
                    starting=self.team(starter, True),
                    agents=game.agents_total(starter),
                    other_agents=game.agents_total(starter.other),
                )
            )
        else:
            if game.variants.mission:
                city = mission(game.variants.mission)
                lines.append(
                    self.p.text(
                        "game.welcome_mission",
                        city=city.name(game.board.lang),
                        tokens=city.tokens,
                        mistakes=city.mistakes,
                    )
                )
            else:
                lines.append(self.p.text("game.welcome_duet", tokens=game.state.tokens_left))
        return lines

    # ---- events to speech ------------------------------------------------------------------

    def describe(self, events: Sequence[Event]) -> str:
        """One announcement for what one action caused, ending with what the host expects next."""
        parts: list[str] = []
        for event in events:
            parts += self._describe(event, events)
        if self.game.over:
            parts.append(self.p.text("end.play_again"))
        elif not self._keeps_guessing(events):
            prompt = self.next_prompt()
            if prompt and prompt not in parts:
                parts.append(prompt)
        return " ".join(part for part in parts if part)

    def _keeps_guessing(self, events: Sequence[Event]) -> bool:
        """After a right guess the line already says "keep going": no second prompt in the same breath."""
        last = events[-1] if events else None
        return (
            last is not None
            and last.type is EventType.GUESS
            and self.game.state.phase is Phase.GUESS
            and last["identity"] in (last["by"], "green")
        )

    def _describe(self, event: Event, batch: Sequence[Event]) -> list[str]:
        game = self.game
        kind = event.type
        if kind is EventType.CLUE:
            return [self.clue_line(event["word"], event["number"])]
        if kind is EventType.GUESS:
            return [self._guess_line(event, batch)]
        if kind is EventType.COVER:
            if event["reason"] == "simulated":
                return [self.p.text("turn.simulated_cover", card=event["card"])]
            return [
                self.p.text("guess.result_own_last", card=event["card"], identity=self._identity(event["identity"]))
            ]
        if kind is EventType.BYSTANDER_MARKED:
            return [self.p.text("guess.result_bystander_duet", card=event["card"], tokens=event["tokens_left"])]
        if kind is EventType.SIDE_DONE:
            side = Side(event["side"])
            if game.state.phase is Phase.SUDDEN_DEATH or game.over:
                return [self.p.text("turn.side_done_sudden", side=side.value.upper())]
            return [self.p.text("turn.side_done", side=side.value.upper(), other=side.other.value.upper())]
        if kind is EventType.SUDDEN_DEATH:
            if isinstance(game, DuetGame):
                return [self.p.text("turn.sudden_death_duet")]
            return []  # competitive sudden death is said with the assassin's guess
        if kind is EventType.TURN_ENDED:
            return self._turn_ended(event, batch)
        if kind is EventType.GAME_OVER:
            return self._game_over(event, batch)
        if kind is EventType.CLUE_REJECTED and "tokens_left" in event.fields and isinstance(game, DuetGame):
            return [self.p.text("clue.penalty_token", tokens=event["tokens_left"])]
        return []

    def _identity(self, identity: str) -> str:
        return self.p.text(f"identity.{identity}")

    def _guess_line(self, event: Event, batch: Sequence[Event]) -> str:
        card, identity = event["card"], event["identity"]
        ends_turn = any(
            e.type in (EventType.TURN_ENDED, EventType.GAME_OVER, EventType.BYSTANDER_MARKED)
            for e in batch
            if e.seq > event.seq
        )
        game = self.game
        if identity == "assassin":
            if any(e.type is EventType.SUDDEN_DEATH for e in batch) and isinstance(game, CompetitiveGame):
                return self.p.text("guess.result_sudden_death_start", card=card)
            return self.p.text("guess.result_assassin", card=card)
        if isinstance(game, DuetGame):
            if identity == "green":
                return (
                    self.p.text("guess.result_green", card=card)
                    if not ends_turn
                    else self.p.text("guess.result_own_last", card=card, identity=self._identity(identity))
                )
            if any(e.type is EventType.BYSTANDER_MARKED for e in batch):
                return ""  # the bystander line comes with its token
            return self.p.text("guess.result_own_last", card=card, identity=self._identity(identity))
        by = Team(event["by"])
        if identity == by.value and not ends_turn and game.state.phase is Phase.GUESS:
            return self.p.text(
                "guess.result_own", card=card, identity=self._identity(identity), left=self.guesses_left()
            )
        if identity == by.value or game.state.phase is Phase.SUDDEN_DEATH:
            return self.p.text("guess.result_own_last", card=card, identity=self._identity(identity))
        return self.p.text("guess.result_own_last", card=card, identity=self._identity(identity))

    def _turn_ended(self, event: Event, batch: Sequence[Event]) -> list[str]:
        game = self.game
        reason = event["reason"]
        if isinstance(game, DuetGame):
            if reason in ("passed", "timer") and event.get("token_taken"):
                line = self.p.text("turn.timer") if reason == "timer" else ""
                return [line, self.p.text("turn.passed_duet", tokens=event["tokens_left"])]
            return []
        team = self.team(event["by"], True)
        if reason == "passed":
            return [self.p.text("turn.passed", Team=team)]
        if reason == "limit":
            return [self.p.text("guess.limit_reached")]
        if reason == "timer":
            return [self.p.text("turn.timer")]
        if reason == "penalty":
            return [self.p.text("clue.penalty_turn_ends", Team=team)]
        return [self.p.text("turn.over", Team=team)]

    def _game_over(self, event: Event, batch: Sequence[Event]) -> list[str]:
        game = self.game
        winner, reason = event["winner"], event["reason"]
        if isinstance(game, DuetGame):
            if winner == "players":
                if game.variants.mission:
                    return [
                        self.p.text("end.duet_won_mission", city=mission(game.variants.mission).name(game.board.lang))
                    ]
                return [self.p.text("end.duet_won", score=event["score"])]
            key = {
                "assassin": "end.duet_lost_assassin",
                "sudden_death": "end.duet_lost_sudden",
                "out_of_time": "end.duet_lost_time",
            }[reason]
            return [self.p.text(key)]
        assert isinstance(game, CompetitiveGame)
        if game.variants.coop:
            if winner == "players":
                edition = "pictures" if game.agents_total(game.players_team.other) == 7 else "classic"
                score = int(event["score"])
                rating = self.p.text(f"coop_rating.{edition}_{score}")
                return [self.p.text("end.coop_won", score=score, rating=rating)]
            if reason == "all_found":
                return [self.p.text("end.coop_lost_enemy")]
            return [self.p.text("end.coop_lost")]
        win_team = self.team(winner, True)
        lose_team = self.team(Team(winner).other, True)
        if (
            reason == "assassin"
            and game.variants.assassin_ending
            and any(e.type is EventType.GUESS and e["by"] == winner for e in batch)
        ):
            return [self.p.text("end.team_wins", Team=win_team)]
        if reason == "assassin":
            return [self.p.text("end.assassin_lost", Team=lose_team), self.p.text("end.team_wins", Team=win_team)]
        if reason == "sudden_death":
            if any(e.type is EventType.GUESS and e["by"] == winner for e in batch):
                return [self.p.text("end.team_wins", Team=win_team)]
            return [self.p.text("end.sudden_death_lost", Team=lose_team), self.p.text("end.team_wins", Team=win_team)]
        return [self.p.text("end.all_found", Team=win_team), self.p.text("end.team_wins", Team=win_team)]
