"""Turns engine events into what the host says: one announcement per action, in one breath.

Only public facts are spoken: the identity of the card just covered, whose turn it is, the tokens
in the bank. Nothing about hidden cards, nothing about the other side of a Duet key. Each edition
has its announcer (`announcer_for` picks it once), so the wording of teams and partners, agents and
greens, never branches on the game's type.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from engine.competitive import CompetitiveGame
from engine.duet import DuetGame
from engine.editions import AnyGame
from engine.errors import GameError
from engine.events import Event, EventType
from engine.game import Phase, Player
from engine.missions import mission
from engine.pieces import Edition, Side, Team
from voicehost.prompts import Prompts
from voicehost.understanding.positions import label


class Announcer:
    """Knows how to say things about one game in one language; editions subclass it."""

    KEY_HINT: ClassVar[str] = "console.key_hint"
    """How the key holders see their key in private without the web display: printed on the console."""
    KEY_ON_PHONE: ClassVar[str] = "game.key_on_phone"
    """Said at the start when the key holders have their key pages (the web display)."""

    def __init__(self, game: AnyGame, prompts: Prompts, *, key_pages: bool = False) -> None:
        self.game = game
        self.p = prompts
        self.key_pages = key_pages  # the key holders have private pages (the web display): choices go there

    # ---- names -----------------------------------------------------------------------------

    def player(self, player: Player | str, capital: bool = False) -> str:
        """A team's name in the game's language ("Red team"), or a Duet player's letter."""
        raise NotImplementedError

    def number(self, number: int | str) -> str:
        return str(number) if number != "unlimited" else self.p.text("info.unlimited")

    def clue_line(self, word: str, number: int | str) -> str:
        if number == "unlimited":
            return self.p.text("clue.accepted_unlimited", word=word)
        return self.p.text("clue.accepted", word=word, number=number)

    def identity(self, identity: str) -> str:
        return self.p.text(f"identity.{identity}")

    # ---- what comes next -------------------------------------------------------------------

    def welcome(self) -> list[str]:
        raise NotImplementedError

    def next_prompt(self) -> str:
        """What the host asks for now: a clue, a guess, a cover, or nothing when the game is over."""
        raise NotImplementedError

    def need_clue_first(self) -> str:
        """A guess heard while a clue is awaited."""
        return self.next_prompt()

    def how_to_cover(self) -> str:
        """How a spymaster chooses a card to cover without naming it aloud."""
        return self.p.text("cover.how_key_page" if self.key_pages else "cover.how_aloud")

    def cover_not_aloud(self) -> str:
        """The one reply to any card named aloud while a card is to be covered: it reveals nothing."""
        return self.p.text("cover.not_aloud", how=self.how_to_cover().capitalize())

    def doubtful_clue(self, word: str, why: str, giver: Player) -> str:
        """A clue spelling cannot decide, put to whoever the rules let decide."""
        raise NotImplementedError

    def error(self, error: GameError) -> str:
        """A rule the players broke, in the game's language (never the engine's English)."""
        if error.key == "clue_expected":
            return self.need_clue_first()
        if error.key in ERROR_PROMPTS:
            return self.p.text(ERROR_PROMPTS[error.key], **error.params)
        return self.p.text(f"engine_error.{error.key}", **error.params)

    # ---- information on request ------------------------------------------------------------

    def board_text(self) -> str:
        game = self.game
        parts = [
            self.p.text("info.board_header"),
            self.p.text("info.board_visible", cards=", ".join(game.visible_cards())),
        ]
        covered = [
            self.p.text("info.covered_as", card=game.board.cards[index], identity=self.identity(identity.value))
            for index, identity in game.covered_cards()
        ]
        if covered:
            parts.append(self.p.text("info.board_covered", cards="; ".join(covered)))
        return " ".join(parts)

    def board_places_text(self) -> str:
        """The hidden cards, each with its place ("B3: CEREJA"), row by row: to find a card by its place."""
        game = self.game
        columns = game.board.grid.columns
        hidden = [
            self.p.text("info.card_at", card=card, place=label(index // columns + 1, index % columns + 1))
            for index, card in enumerate(game.board.cards)
            if not game.is_covered(index)
        ]
        return self.p.text("info.board_places", cards=", ".join(hidden))

    def score_text(self) -> str:
        raise NotImplementedError

    def clues_text(self) -> str:
        clues = self.game.state.clues
        if not clues:
            return self.p.text("info.clues_none")
        items = [
            self.p.text(
                "info.clue_item", by=self.player(by, True), word=clue.word, number=self.number(clue.number_value)
            )
            for by, clue in clues
        ]
        return self.p.text("info.clues_list", list="; ".join(items))

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
        kind = event.type
        if kind is EventType.CLUE:
            return [self.clue_line(event["word"], event["number"])]
        if kind is EventType.GUESS:
            return [self._guess_line(event, batch)]
        if kind is EventType.COVER:
            if event["reason"] == "simulated":
                return [self.p.text("turn.simulated_cover", card=event["card"])]
            return [self.p.text("guess.result_own_last", card=event["card"], identity=self.identity(event["identity"]))]
        if kind is EventType.BYSTANDER_MARKED:
            return [self.p.text("guess.result_bystander_duet", card=event["card"], tokens=event["tokens_left"])]
        if kind is EventType.SIDE_DONE:
            side = Side(event["side"])
            if self.game.state.phase is Phase.SUDDEN_DEATH or self.game.over:
                return [self.p.text("turn.side_done_sudden", side=side.value.upper())]
            return [self.p.text("turn.side_done", side=side.value.upper(), other=side.other.value.upper())]
        if kind is EventType.SUDDEN_DEATH:
            return self._sudden_death()
        if kind is EventType.TURN_ENDED:
            return self._turn_ended(event)
        if kind is EventType.GAME_OVER:
            return self._game_over(event, batch)
        if kind is EventType.CLUE_REJECTED:
            return self._clue_rejected(event)
        return []

    def _guess_line(self, event: Event, batch: Sequence[Event]) -> str:
        raise NotImplementedError

    def _sudden_death(self) -> list[str]:
        return []

    def _turn_ended(self, event: Event) -> list[str]:
        raise NotImplementedError

    def _game_over(self, event: Event, batch: Sequence[Event]) -> list[str]:
        raise NotImplementedError

    def _clue_rejected(self, event: Event) -> list[str]:
        return []

    def _ends_turn(self, event: Event, batch: Sequence[Event]) -> bool:
        later = (e for e in batch if e.seq > event.seq)
        return any(e.type in (EventType.TURN_ENDED, EventType.GAME_OVER, EventType.BYSTANDER_MARKED) for e in later)


ERROR_PROMPTS: dict[str, str] = {
    "card_already_covered": "guess.covered_already",
    "card_already_marked": "guess.marked_already",
    "unknown_card": "guess.not_on_board",
    "must_guess_once": "turn.must_guess_once",
    "number_out_of_range": "input.number_out_of_range",
    "guess_expected": "clue.need_guess_now",
    "game_over": "input.game_over_already",
    "nothing_to_undo": "undo.nothing",
}
"""Engine errors that have their own line in the prompts; the others are under [engine_error]."""


class CompetitiveAnnouncer(Announcer):
    """Classic and Pictures: two teams, their agents, the assassin, co-op and its score."""

    game: CompetitiveGame

    def player(self, player: Player | str, capital: bool = False) -> str:
        value = Team(player).value
        return self.p.text(f"team.{value.capitalize() if capital else value}")

    def welcome(self) -> list[str]:
        game = self.game
        starter = game.players_team
        key = "game.welcome_pictures" if game.board.edition is Edition.PICTURES else "game.welcome_classic"
        return [
            self.p.text(
                key,
                starting=self.player(starter, True),
                agents=game.agents_total(starter),
                other_agents=game.agents_total(starter.other),
            )
        ]

    def next_prompt(self) -> str:
        game = self.game
        phase = game.state.phase
        if phase is Phase.CLUE:
            if game.penalty_choices():
                return self.p.text("clue.penalty_cover", Team=self.player(game.team, True), how=self.how_to_cover())
            return self.p.text("game.clue_prompt", Team=self.player(game.team, True))
        if phase is Phase.GUESS:
            return self.p.text("game.guess_prompt", Team=self.player(game.team, True), left=self.guesses_left())
        if phase is Phase.SIMULATED_TURN:
            return self.p.text("turn.simulated_choose", how=self.how_to_cover())
        if phase is Phase.SUDDEN_DEATH:
            return self.p.text("game.guess_prompt", Team=self.player(game.team, True), left="")
        return ""

    def need_clue_first(self) -> str:
        return self.p.text("clue.need_clue_first", Team=self.player(self.game.team, True))

    def doubtful_clue(self, word: str, why: str, giver: Player) -> str:
        return self.p.text("clue.doubtful", Other=self.player(self.game.team.other, True), word=word, why=why)

    def guesses_left(self) -> str:
        left = self.game.guesses_left()
        if left is None:
            return self.p.text("game.guesses_unlimited")
        return self.p.text("game.guesses_left", count=left)

    def score_text(self) -> str:
        game = self.game
        if game.variants.coop:
            own = game.players_team
            return self.p.text("info.score_coop", own=game.agents_left(own), enemy=game.agents_left(own.other))
        return self.p.text("info.score", red=game.agents_left(Team.RED), blue=game.agents_left(Team.BLUE))

    def _guess_line(self, event: Event, batch: Sequence[Event]) -> str:
        card, identity = event["card"], event["identity"]
        if identity == "assassin":
            if any(e.type is EventType.SUDDEN_DEATH for e in batch):
                return self.p.text("guess.result_sudden_death_start", card=card)
            return self.p.text("guess.result_assassin", card=card)
        own = identity == Team(event["by"]).value
        if own and not self._ends_turn(event, batch) and self.game.state.phase is Phase.GUESS:
            return self.p.text(
                "guess.result_own", card=card, identity=self.identity(identity), left=self.guesses_left()
            )
        return self.p.text("guess.result_own_last", card=card, identity=self.identity(identity))

    def _turn_ended(self, event: Event) -> list[str]:
        reason = event["reason"]
        team = self.player(event["by"], True)
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
        if game.variants.coop:
            if winner == "players":
                edition = "pictures" if game.agents_total(game.players_team.other) == 7 else "classic"
                score = int(event["score"])
                rating = self.p.text(f"coop_rating.{edition}_{score}")
                return [self.p.text("end.coop_won", score=score, rating=rating)]
            if reason == "all_found":
                return [self.p.text("end.coop_lost_enemy")]
            return [self.p.text("end.coop_lost")]
        win_team = self.player(winner, True)
        lose_team = self.player(Team(winner).other, True)
        winner_guessed = any(e.type is EventType.GUESS and e["by"] == winner for e in batch)
        if reason == "assassin" and game.variants.assassin_ending and winner_guessed:
            return [self.p.text("end.team_wins", Team=win_team)]
        if reason == "assassin":
            return [self.p.text("end.assassin_lost", Team=lose_team), self.p.text("end.team_wins", Team=win_team)]
        if reason == "sudden_death":
            if winner_guessed:
                return [self.p.text("end.team_wins", Team=win_team)]
            return [self.p.text("end.sudden_death_lost", Team=lose_team), self.p.text("end.team_wins", Team=win_team)]
        return [self.p.text("end.all_found", Team=win_team), self.p.text("end.team_wins", Team=win_team)]


class DuetAnnouncer(Announcer):
    """Duet: two partners named by their key's side, greens, the bank of tokens, missions."""

    game: DuetGame
    KEY_HINT = "console.key_hint_duet"
    KEY_ON_PHONE = "game.key_on_phone_duet"

    def player(self, player: Player | str, capital: bool = False) -> str:
        return str(Side(player).value).upper()

    def welcome(self) -> list[str]:
        game = self.game
        if game.variants.mission:
            city = mission(game.variants.mission)
            return [
                self.p.text(
                    "game.welcome_mission", city=city.name(game.board.lang), tokens=city.tokens, mistakes=city.mistakes
                )
            ]
        return [self.p.text("game.welcome_duet", tokens=game.state.tokens_left)]

    def next_prompt(self) -> str:
        game = self.game
        phase = game.state.phase
        if phase is Phase.CLUE:
            givers = game.next_givers()
            if len(givers) == 1:
                return self.p.text("game.clue_prompt_duet", side=givers[0].value.upper())
            return self.p.text("game.clue_prompt_duet_either")
        if phase is Phase.GUESS and game.guesser is not None:
            return self.p.text("game.guess_prompt_duet", side=game.guesser.value.upper())
        if phase is Phase.SUDDEN_DEATH:
            able = game.guessers()
            if len(able) == 1:
                return self.p.text("game.guess_prompt_duet", side=self.player(able[0]))
            return self.p.text("turn.sudden_death_who")
        return ""

    def doubtful_clue(self, word: str, why: str, giver: Player) -> str:
        return self.p.text("clue.doubtful_duet", side=Side(giver).other.value.upper(), word=word, why=why)

    def score_text(self) -> str:
        game = self.game
        if game.variants.mission:
            return self.p.text(
                "info.score_mission",
                found=game.greens_found(),
                tokens=game.state.tokens_left,
                mistakes=game.state.mistakes_left,
            )
        return self.p.text("info.score_duet", found=game.greens_found(), tokens=game.state.tokens_left)

    def _guess_line(self, event: Event, batch: Sequence[Event]) -> str:
        card, identity = event["card"], event["identity"]
        if identity == "assassin":
            return self.p.text("guess.result_assassin", card=card)
        if identity == "green" and not self._ends_turn(event, batch):
            return self.p.text("guess.result_green", card=card)
        if identity != "green" and any(e.type is EventType.BYSTANDER_MARKED for e in batch):
            return ""  # the bystander line comes with its token
        return self.p.text("guess.result_own_last", card=card, identity=self.identity(identity))

    def _sudden_death(self) -> list[str]:
        return [self.p.text("turn.sudden_death_duet")]

    def _turn_ended(self, event: Event) -> list[str]:
        reason = event["reason"]
        if reason in ("passed", "timer") and event.get("token_taken"):
            line = self.p.text("turn.timer") if reason == "timer" else ""
            return [line, self.p.text("turn.passed_duet", tokens=event["tokens_left"])]
        return []

    def _game_over(self, event: Event, batch: Sequence[Event]) -> list[str]:
        game = self.game
        if event["winner"] == "players":
            if game.variants.mission:
                return [self.p.text("end.duet_won_mission", city=mission(game.variants.mission).name(game.board.lang))]
            return [self.p.text("end.duet_won", score=event["score"])]
        key = {
            "assassin": "end.duet_lost_assassin",
            "sudden_death": "end.duet_lost_sudden",
            "out_of_time": "end.duet_lost_time",
        }[event["reason"]]
        return [self.p.text(key)]

    def _clue_rejected(self, event: Event) -> list[str]:
        if "tokens_left" in event.fields:
            return [self.p.text("clue.penalty_token", tokens=event["tokens_left"])]
        return []


ANNOUNCERS: dict[bool, type[Announcer]] = {True: CompetitiveAnnouncer, False: DuetAnnouncer}
"""By `Game.TEAMS`: teams against each other, or partners."""


def announcer_for(game: AnyGame, prompts: Prompts, *, key_pages: bool = False) -> Announcer:
    """The announcer of the game's edition, chosen once."""
    return ANNOUNCERS[game.TEAMS](game, prompts, key_pages=key_pages)
