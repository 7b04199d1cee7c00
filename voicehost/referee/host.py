"""The referee: hears an utterance, decides, acts on the rules engine, and says what happened.

A `State` enum drives the loop (as in wyoming-satellite): most of the time the host waits for a
clue or a guess; when unsure it waits for an answer to its own question. The same Host serves the
text mode and the voice mode: only the ears and the mouth differ.
"""

from __future__ import annotations

import random
import threading
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import Enum, auto
from typing import Any, Protocol

from engine.competitive import CompetitiveGame
from engine.duet import DuetGame
from engine.editions import AnyGame
from engine.errors import GameError
from engine.events import Event
from engine.game import Phase
from engine.legality import ClueRuling, Verdict
from engine.pieces import Side
from voicehost.ears.context import Context, make_context
from voicehost.prompts import Prompts
from voicehost.referee.announcer import Announcer
from voicehost.referee.timer import SandTimer
from voicehost.understanding import Action, Command, Intent, Understanding, understand
from voicehost.understanding import Phase as Listening


class Mouth(Protocol):
    """Where announcements go: printed lines, or speech."""

    def say(self, text: str) -> None: ...


class State(Enum):
    PLAYING = auto()  # waiting for a clue, a guess or a command, as the game phase says
    CONFIRM_GUESS = auto()
    CONFIRM_CLUE = auto()  # a doubtful clue put to the opposing spymaster (Duet: the partner)
    CONFIRM_UNDO = auto()
    CONFIRM_NEW_GAME = auto()
    CONFIRM_QUIT = auto()
    CONFIRM_COMMAND = auto()  # a command heard with low confidence
    CONFIRM_HEARD_CLUE = auto()  # a clue heard with low confidence: "Clue: tomato, 3? Yes or no."
    ASK_CLUE_GIVER = auto()  # Duet: a clue was heard while either player could give it
    ASK_GUESSER = auto()  # Duet sudden death: a guess was heard while both players may guess
    FINISHED = auto()


YES_NO_STATES = frozenset(
    {
        State.CONFIRM_GUESS,
        State.CONFIRM_CLUE,
        State.CONFIRM_UNDO,
        State.CONFIRM_NEW_GAME,
        State.CONFIRM_QUIT,
        State.CONFIRM_COMMAND,
        State.CONFIRM_HEARD_CLUE,
    }
)
GUESSING_PHASES = (Phase.GUESS, Phase.SUDDEN_DEATH, Phase.SIMULATED_TURN)
ALTERNATIVE_SHARE = 0.1
"""A recognizer's runner-up card below this share of its belief is not worth offering."""

SIDE_WORDS = {"a": Side.A, "b": Side.B, "be": Side.B, "bi": Side.B, "bê": Side.B, "ei": Side.A}
SIDE_LEADS = {
    "jogador",
    "player",
    "giocatore",
    "lado",
    "side",
    "lato",
    "e",
    "o",
    "a",
    "il",
    "lo",
    "fui",
    "eu",
    "sou",
    "its",
    "it",
    "is",
    "me",
    "i",
    "am",
    "io",
    "sono",
    "ho",
    "dado",
    "dato",
    "gave",
    "da",
    "do",
    "del",
    "quem",
    "deu",
    "foi",
    "ele",
    "ela",
    "lui",
    "lei",
    "the",
    "giocatrice",
    "jogadora",
}


@dataclass
class PendingClue:
    word: str
    number: int | None
    spelled: bool
    ruling: ClueRuling | None = None


@dataclass
class HostSettings:
    timer_seconds: int | None = None
    simulated: str = "random"  # co-op: "random" or "choose" (the spymaster names the card)
    seed: int = 0


class Host:
    """One game at a table. `hear` takes one utterance; everything said goes to `mouth`."""

    def __init__(
        self,
        game: AnyGame,
        prompts: Prompts,
        mouth: Mouth,
        *,
        settings: HostSettings | None = None,
        on_events: Callable[[AnyGame, Sequence[Event]], None] | None = None,
        new_game: Callable[[], AnyGame] | None = None,
        save_hint: str = "",
        on_timer: Callable[[int | None, bool], None] | None = None,
    ) -> None:
        self.game = game
        self.p = prompts
        self.mouth = mouth
        self.settings = settings or HostSettings()
        self.announce = Announcer(game, prompts)
        self.state = State.PLAYING
        self.last_said = ""
        self._on_events = on_events or (lambda game, events: None)
        self._on_timer_shown = on_timer or (lambda seconds, running: None)
        self._new_game = new_game
        self._save_hint = save_hint
        self._lock = threading.RLock()
        self._pending_clue: PendingClue | None = None
        self._pending_card: str | None = None
        self._candidates: list[str] = []
        self._alternatives: list[str] = []
        self._timer_held = False
        self._chosen_side: Side | None = None
        self._pending_command: Command | None = None
        self.timer = SandTimer(self._on_timer)
        self._turn: tuple[object, ...] = ()

    # ---- speaking ---------------------------------------------------------------------------

    def say(self, text: str, *, remember: bool = True) -> None:
        text = " ".join(text.split())
        if not text:
            return
        if remember:
            self.last_said = text
        self.mouth.say(text)

    def t(self, key: str, **params: Any) -> str:
        return self.p.text(key, **params)

    # ---- life cycle -------------------------------------------------------------------------

    def start(self, *, resumed: bool = False) -> None:
        with self._lock:
            lines = [self.t("game.resumed")] if resumed else self.announce.welcome()
            if self._save_hint and not resumed:
                key = "game.key_hint_duet" if isinstance(self.game, DuetGame) else "game.key_hint"
                lines.append(self.t(key, save=self._save_hint))
            if self.game.over:
                lines.append(self.t("input.game_over_already"))
            else:
                lines.append(self.announce.next_prompt())
            self.say(" ".join(lines))
            self._after_change()

    def close(self) -> None:
        self.timer.close()

    def microphone_lost(self) -> None:
        """The game waits for the microphone: say so and hold the sand timer."""
        with self._lock:
            self._timer_held = self.timer.pause()
            self.say(self.t("error.microphone_lost"), remember=False)

    def microphone_back(self) -> None:
        with self._lock:
            if self._timer_held:
                self.timer.resume()
            self._timer_held = False
            self.say(self.t("error.microphone_back"), remember=False)

    @property
    def pending_candidates(self) -> list[str]:
        """The cards the host is asking about ("CEREJA or CEBOLA?"), if it is asking."""
        return list(self._candidates) if self.state is State.CONFIRM_GUESS else []

    @property
    def pending_clue_word(self) -> str | None:
        """The clue word the host is asking about, if it is asking."""
        pending = self.pending_clue
        return pending.word if pending is not None else None

    @property
    def pending_clue(self) -> PendingClue | None:
        """The clue (word and number) the host is asking about, if it is asking."""
        pending = self._pending_clue
        return pending if pending is not None and self.state is not State.PLAYING else None

    @property
    def finished(self) -> bool:
        return self.state is State.FINISHED

    # ---- hearing ----------------------------------------------------------------------------

    def hear(self, text: str, confidence: float | None = None, alternatives: Sequence[tuple[str, float]] = ()) -> None:
        """Handle one utterance (a typed line, or what the recognizer heard).

        `alternatives` are the recognizer's runner-up cards with their shares: when it is unsure,
        the host offers them ("CEREJA or CEBOLA?") instead of guessing which one was meant."""
        with self._lock:
            if self.state is State.FINISHED:
                return
            self._alternatives = [card for card, share in alternatives if share >= ALTERNATIVE_SHARE]
            try:
                self._hear(text, confidence)
            except GameError as error:
                self.say(self._error_text(error))

    def listening_context(self) -> Context:
        """What makes sense to hear now, for the recognizer: cards while guessing, free speech for a clue."""
        with self._lock:
            game = self.game
            phase = game.state.phase
            cards: Sequence[str] = game.visible_cards()
            if isinstance(game, CompetitiveGame) and phase is Phase.SIMULATED_TURN:
                cards = game.simulated_choices()
            answering = self.state in YES_NO_STATES
            if answering:
                cards = self._candidates if self.state is State.CONFIRM_GUESS else ()
            guessing = answering or (self.state is State.PLAYING and not game.over and phase in GUESSING_PHASES)
            return make_context(game.board.lang, guessing, tuple(cards), answering)

    def _hear(self, text: str, confidence: float | None) -> None:
        game = self.game
        listening = Listening.GUESS if game.state.phase in (Phase.GUESS, Phase.SUDDEN_DEATH) else Listening.CLUE
        cards = self._candidates if self.state is State.CONFIRM_GUESS else game.visible_cards()
        heard = understand(text, phase=listening, cards=cards, lang=game.board.lang, asr_confidence=confidence)
        side = self._side_word(text)
        confirming_guess = self.state is State.CONFIRM_GUESS
        if self.state is not State.PLAYING and self._answer(heard, side):
            return
        if confirming_guess:  # not one of the offered cards: hear it afresh against the whole table
            heard = understand(
                text, phase=listening, cards=game.visible_cards(), lang=game.board.lang, asr_confidence=confidence
            )
        if heard.intent is Intent.COMMAND and heard.command is not None:
            if heard.action is Action.CONFIRM:
                self._pending_command = heard.command
                self.state = State.CONFIRM_COMMAND
                self.say(self.t("input.confirm_command", what=heard.heard))
            else:
                self._command(heard.command)
            return
        if game.over:
            self.say(self.t("input.game_over_already"))
            return
        if side is not None and isinstance(game, DuetGame):
            self._choose_side(side)
            return
        if heard.intent is Intent.CLUE and heard.clue is not None:
            house = game.variants.house
            several_allowed = house.multiword_names or house.compounds
            word = heard.clue.word if several_allowed else heard.clue.last_word
            pending = PendingClue(word, heard.clue.number, heard.clue.spelled)
            if heard.action is Action.CONFIRM and game.state.phase is Phase.CLUE:
                self._pending_clue = pending
                self.state = State.CONFIRM_HEARD_CLUE
                number = self.t("info.unlimited") if pending.number is None else pending.number
                self.say(self.t("input.confirm_clue", word=word, number=number))
                return
            self._clue(pending)
        elif heard.intent is Intent.GUESS:
            self._guess(heard)
        else:
            self._reprompt(listening)

    def _reprompt(self, listening: Listening) -> None:
        if self.game.state.phase is Phase.SIMULATED_TURN:
            self.say(self.t("input.reprompt") + " " + self.t("turn.simulated_choose"), remember=False)
        elif listening is Listening.CLUE:
            self.say(self.t("input.reprompt_clue"), remember=False)
        else:
            self.say(self.t("input.reprompt_guess"), remember=False)

    # ---- answers to the host's own questions --------------------------------------------------

    def _answer(self, heard: Understanding, side: Side | None) -> bool:
        """Handle an answer to a pending question; False lets the utterance be handled normally."""
        state = self.state
        yes = heard.intent is Intent.COMMAND and heard.command is Command.YES
        no = heard.intent is Intent.COMMAND and heard.command is Command.NO
        if state is State.CONFIRM_GUESS:
            if heard.intent is Intent.GUESS and heard.card and heard.action is Action.ACCEPT:
                self.state = State.PLAYING
                self._reveal(heard.card)
            elif heard.intent in (Intent.GUESS, Intent.UNKNOWN, Intent.CLUE) and not (yes or no):
                self.state = State.PLAYING
                return False
            elif yes and len(self._candidates) == 1:
                self.state = State.PLAYING
                self._reveal(self._candidates[0])
            elif no:
                self.state = State.PLAYING
                self.say(self.t("guess.retry"))
            elif heard.intent is Intent.COMMAND and heard.command not in (Command.YES, Command.NO):
                self.state = State.PLAYING
                return False
            else:
                self._ask_candidates()
            return True
        if state is State.CONFIRM_CLUE:
            pending = self._pending_clue
            assert pending is not None
            if yes or no:
                self.state = State.PLAYING
                self._pending_clue = None
                if yes:
                    self._give_clue(pending)
                else:
                    self._reject_clue(pending, pending.ruling)
                return True
            if heard.intent is Intent.COMMAND and heard.command is not None:
                return False
            self.say(self.last_said, remember=False)
            return True
        if state is State.CONFIRM_HEARD_CLUE:
            pending, self._pending_clue = self._pending_clue, None
            self.state = State.PLAYING
            if yes and pending is not None:
                self._clue(pending)
                return True
            if no:
                self.say(self.t("clue.refused_give_again"))
                return True
            return False  # another clue, or a command: heard afresh
        if state is State.CONFIRM_COMMAND:
            command, self._pending_command = self._pending_command, None
            self.state = State.PLAYING
            if yes and command is not None:
                self._command(command)
                return True
            if no:
                self.say(self.announce.next_prompt() or self.t("end.play_again"))
                return True
            return False
        if state in (State.CONFIRM_UNDO, State.CONFIRM_NEW_GAME, State.CONFIRM_QUIT):
            if not (yes or no):
                if heard.intent is Intent.COMMAND and heard.command not in (Command.YES, Command.NO):
                    self.state = State.PLAYING
                    return False
                self.say(self.last_said, remember=False)
                return True
            self.state = State.PLAYING
            if no:
                self.say(self.announce.next_prompt() or self.t("end.play_again"))
            elif state is State.CONFIRM_UNDO:
                self._undo()
            elif state is State.CONFIRM_NEW_GAME:
                self._start_new_game()
            else:
                self._quit()
            return True
        if state is State.ASK_CLUE_GIVER:
            if side is None:
                if heard.intent is Intent.COMMAND and heard.command not in (Command.YES, Command.NO):
                    self.state = State.PLAYING
                    return False
                self.say(self.t("game.who_gave_clue"), remember=False)
                return True
            self.state = State.PLAYING
            pending = self._pending_clue
            self._pending_clue = None
            self._chosen_side = side
            if pending is not None:
                self._clue(pending)
            return True
        if state is State.ASK_GUESSER:
            if side is None:
                self.say(self.t("turn.sudden_death_who"), remember=False)
                return True
            self.state = State.PLAYING
            card, self._pending_card = self._pending_card, None
            self._chosen_side = side
            if card is not None:
                self._reveal(card)
            return True
        return False

    def _side_word(self, text: str) -> Side | None:
        """ "A", "o B", "é o B", "fui eu, o A", "player b": a Duet player naming a side."""
        words = [w.strip(".,!?:;'\"") for w in _fold(text).replace("'", " ").split()]
        words = [w for w in words if w]
        if not words or words[-1] not in SIDE_WORDS or len(words) > 5:
            return None
        if all(word in SIDE_LEADS for word in words[:-1]):
            return SIDE_WORDS[words[-1]]
        return None

    def _choose_side(self, side: Side) -> None:
        game = self.game
        assert isinstance(game, DuetGame)
        if game.state.phase is Phase.CLUE:
            if side not in game.next_givers():
                self.say(self.announce.next_prompt(), remember=False)
                return
            self._chosen_side = side
            self.say(self.t("game.clue_prompt_duet", side=side.value.upper()))
        elif game.state.phase is Phase.SUDDEN_DEATH and game.has_words_to_find(side):
            self._chosen_side = side
            self.say(self.t("game.guess_prompt_duet", side=side.value.upper()))
        else:
            self.say(self.announce.next_prompt(), remember=False)

    # ---- clues ------------------------------------------------------------------------------

    def _clue(self, clue: PendingClue) -> None:
        game = self.game
        phase = game.state.phase
        if phase in (Phase.GUESS, Phase.SUDDEN_DEATH):
            self.say(self.t("clue.need_guess_now"), remember=False)
            return
        if phase is Phase.SIMULATED_TURN:
            self.say(self.t("turn.simulated_choose"), remember=False)
            return
        if isinstance(game, DuetGame) and self._clue_giver() is None:
            self._pending_clue = clue
            self.state = State.ASK_CLUE_GIVER
            self.say(self.t("game.who_gave_clue"))
            return
        ruling = game.check_clue(clue.word, spelled=clue.spelled)
        clue.ruling = ruling
        if ruling.verdict is Verdict.VALID:
            self._give_clue(clue)
        elif ruling.verdict is Verdict.INVALID:
            self._reject_clue(clue, ruling)
        else:
            self._pending_clue = clue
            self.state = State.CONFIRM_CLUE
            why = self._reason(ruling)
            if isinstance(game, DuetGame):
                giver = self._clue_giver()
                assert giver is not None
                self.say(self.t("clue.doubtful_duet", side=giver.other.value.upper(), word=clue.word, why=why))
            else:
                self.say(
                    self.t("clue.doubtful", Other=self.announce.team(game.team.other, True), word=clue.word, why=why)
                )

    def _clue_giver(self) -> Side | None:
        game = self.game
        assert isinstance(game, DuetGame)
        givers = game.next_givers()
        if len(givers) == 1:
            return givers[0]
        return self._chosen_side if self._chosen_side in givers else None

    def _reason(self, ruling: ClueRuling | None) -> str:
        if ruling is None:
            return ""
        return self.t(f"clue_reason.{ruling.reason.value}", card=ruling.card or "")

    def _give_clue(self, clue: PendingClue) -> None:
        game = self.game
        if isinstance(game, DuetGame):
            giver = self._clue_giver()
            assert giver is not None
            events = game.give_clue(giver, clue.word, clue.number)
        else:
            events = game.give_clue(clue.word, clue.number)
        self._chosen_side = None
        self._done(events)

    def _reject_clue(self, clue: PendingClue, ruling: ClueRuling | None) -> None:
        game = self.game
        reason = ruling.reason.value if ruling else "rejected"
        intro = self.t("clue.invalid", why=self._reason(ruling)) if ruling else ""
        if isinstance(game, DuetGame):
            giver = self._clue_giver()
            assert giver is not None
            events = game.reject_clue(giver, clue.word, clue.number, reason)
        else:
            events = game.reject_clue(clue.word, reason)
        if not game.variants.invalid_clue_penalty:
            self._on_events(game, events)
            self.say(f"{intro} {self.t('clue.refused_give_again')}")
            return
        self._chosen_side = None
        self._done(events, intro=intro)

    # ---- guesses ----------------------------------------------------------------------------

    def _guess(self, heard: Understanding) -> None:
        game = self.game
        phase = game.state.phase
        if phase is Phase.CLUE:
            accepted = heard.action is Action.ACCEPT and heard.card is not None
            if isinstance(game, CompetitiveGame) and accepted and heard.card in game.penalty_choices():
                self._done(game.penalty_cover(heard.card))
                return
            if isinstance(game, CompetitiveGame):
                self.say(self.t("clue.need_clue_first", Team=self.announce.team(game.team, True)), remember=False)
            else:
                self.say(self.announce.next_prompt(), remember=False)
            return
        if phase is Phase.SIMULATED_TURN:
            assert isinstance(game, CompetitiveGame)
            if heard.card and heard.action is Action.ACCEPT and heard.card in game.simulated_choices():
                self._done(game.simulated_cover(heard.card))
            else:
                self.say(self.t("turn.simulated_choose"), remember=False)
            return
        covered = self._covered_card_named(heard.heard)
        if covered is not None:
            self.say(self.t("guess.covered_already", card=covered), remember=False)
            return
        if heard.action is Action.ACCEPT and heard.card:
            self._reveal(heard.card)
        elif heard.action is Action.CONFIRM and heard.candidates:
            self._candidates = [candidate.card for candidate in heard.candidates]
            offered = [card for card in self._alternatives if card in self.game.visible_cards()]
            if heard.card in offered and len(offered) > 1:  # the recognizer knows the runners-up better
                self._candidates = offered[:3]
            self.state = State.CONFIRM_GUESS
            self._ask_candidates()
        else:
            self.say(self.t("input.reprompt_guess"), remember=False)

    def _covered_card_named(self, text: str) -> str | None:
        """A covered card, when that is what was said: matching only the visible cards would
        offer another card instead (even the assassin)."""
        game = self.game
        covered = [card for index, card in enumerate(game.board.cards) if game.is_covered(index)]
        if not covered:
            return None
        everything = understand(text, phase=Listening.GUESS, cards=game.board.cards, lang=game.board.lang)
        if everything.intent is Intent.GUESS and everything.card in covered and everything.action is Action.ACCEPT:
            return everything.card
        return None

    def _ask_candidates(self) -> None:
        names = self._candidates
        if len(names) == 1:
            self.say(self.t("guess.confirm_one", card=names[0]))
        elif len(names) == 2:
            self.say(self.t("guess.confirm_two", first=names[0], second=names[1]))
        else:
            self.say(self.t("guess.confirm_many", first=names[0], second=names[1], third=names[2]))

    def _reveal(self, card: str) -> None:
        game = self.game
        if isinstance(game, DuetGame) and game.state.phase is Phase.SUDDEN_DEATH:
            able = [side for side in Side if game.has_words_to_find(side)]
            guesser = self._chosen_side if self._chosen_side in able else (able[0] if len(able) == 1 else None)
            if guesser is None:
                self._pending_card = card
                self.state = State.ASK_GUESSER
                self.say(self.t("turn.sudden_death_who"))
                return
            self._chosen_side = None
            self._done(game.guess(card, by=guesser))
            return
        self._done(game.guess(card))

    # ---- commands ---------------------------------------------------------------------------

    def _command(self, command: Command) -> None:
        game = self.game
        if command in (Command.YES, Command.NO):
            self.say(self.t("input.nothing_to_confirm"), remember=False)
        elif command is Command.REPEAT:
            self.say(self.last_said or self.t("info.nothing_to_repeat"), remember=False)
        elif command is Command.HELP:
            key = "info.help_guess" if game.state.phase in (Phase.GUESS, Phase.SUDDEN_DEATH) else "info.help_clue"
            self.say(self.t(key), remember=False)
        elif command is Command.READ_BOARD:
            self.say(self._board_text(), remember=False)
        elif command is Command.SCORE:
            self.say(self._score_text(), remember=False)
        elif command is Command.CLUES_SO_FAR:
            self.say(self._clues_text(), remember=False)
        elif command in (Command.TIMER_FLIP, Command.TIMER_PAUSE, Command.TIMER_RESUME):
            self._timer_command(command)
        elif command is Command.NEW_GAME:
            if game.over:
                self._start_new_game()
            else:
                self.state = State.CONFIRM_NEW_GAME
                self.say(self.t("game.new_game_confirm"))
        elif command is Command.QUIT:
            self.state = State.CONFIRM_QUIT
            self.say(self.t("game.quit_confirm"))
        elif command is Command.UNDO:
            last = game.last_undoable
            if last is None:
                self.say(self.t("undo.nothing"), remember=False)
            else:
                self.state = State.CONFIRM_UNDO
                self.say(self.t("undo.confirm", card=last["card"]))
        elif command is Command.PASS:
            if game.over:
                self.say(self.t("input.game_over_already"), remember=False)
            else:
                self._done(game.end_turn())
        elif command is Command.STOP_TALKING:
            pass  # the voice mouth cuts speech short; in text there is nothing to stop
        elif command is Command.ALL_MY_GREENS_FOUND:
            self.say(self.announce.next_prompt(), remember=False)  # the host already knows and said it

    def _undo(self) -> None:
        game = self.game
        last = game.last_undoable
        if last is None:
            self.say(self.t("undo.nothing"))
            return
        events = [game.undo()]
        self._on_events(game, events)
        self.say(f"{self.t('undo.done', card=last['card'])} {self.announce.next_prompt()}")
        self._after_change()

    def _start_new_game(self) -> None:
        if self._new_game is None:
            self.say(self.t("end.play_again"))
            return
        self.timer.cancel()
        self.game = self._new_game()
        self.announce = Announcer(self.game, self.p)
        self.state = State.PLAYING
        self._on_events(self.game, self.game.events)
        self.start()

    def _quit(self) -> None:
        self.timer.cancel()
        self.state = State.FINISHED
        self.say(self.t("game.bye"))

    # ---- information ------------------------------------------------------------------------

    def _board_text(self) -> str:
        game = self.game
        hidden = game.visible_cards()
        parts = [self.t("info.board_header"), self.t("info.board_visible", cards=", ".join(hidden))]
        covered = []
        if isinstance(game, CompetitiveGame):
            for index, identity in sorted(game.state.revealed.items()):
                covered.append(
                    self.t(
                        "info.covered_as", card=game.board.cards[index], identity=self.t(f"identity.{identity.value}")
                    )
                )
        else:
            for index in sorted(game.state.greens):
                covered.append(
                    self.t("info.covered_as", card=game.board.cards[index], identity=self.t("identity.green"))
                )
            for index, sides in sorted(game.state.marks.items()):
                if len(sides) == 2:
                    covered.append(
                        self.t("info.covered_as", card=game.board.cards[index], identity=self.t("identity.bystander"))
                    )
        if covered:
            parts.append(self.t("info.board_covered", cards="; ".join(covered)))
        return " ".join(parts)

    def _score_text(self) -> str:
        game = self.game
        if isinstance(game, CompetitiveGame):
            if game.variants.coop:
                own = game.players_team
                return self.t("info.score_coop", own=game.agents_left(own), enemy=game.agents_left(own.other))
            from engine.pieces import Team

            return self.t("info.score", red=game.agents_left(Team.RED), blue=game.agents_left(Team.BLUE))
        if game.variants.mission:
            return self.t(
                "info.score_mission",
                found=game.greens_found(),
                tokens=game.state.tokens_left,
                mistakes=game.state.mistakes_left,
            )
        return self.t("info.score_duet", found=game.greens_found(), tokens=game.state.tokens_left)

    def _clues_text(self) -> str:
        clues = self.game.state.clues
        if not clues:
            return self.t("info.clues_none")
        items = []
        for by, clue in clues:
            name = self.announce.team(by, True) if by in ("red", "blue") else by.upper()
            items.append(
                self.t("info.clue_item", by=name, word=clue.word, number=self.announce.number(clue.number_value))
            )
        return self.t("info.clues_list", list="; ".join(items))

    # ---- the timer --------------------------------------------------------------------------

    def _timer_command(self, command: Command) -> None:
        if command is Command.TIMER_FLIP:
            self.timer.flip(self.settings.timer_seconds or 60)
        elif command is Command.TIMER_PAUSE:
            if not self.timer.pause():
                self.say(self.t("timer.not_running"), remember=False)
        elif not self.timer.resume():
            self.say(self.t("timer.not_running"), remember=False)

    def _on_timer(self, event: str, seconds: int) -> None:
        with self._lock:
            if self.state is State.FINISHED or self.game.over:
                return
            key = {
                "started": "timer.started",
                "warning": "timer.warning",
                "countdown": "timer.countdown",
                "expired": "timer.expired",
                "paused": "timer.paused",
                "resumed": "timer.resumed",
            }[event]
            self._on_timer_shown(seconds, event in ("started", "warning", "countdown", "resumed"))
            if event in ("started", "warning", "expired", "paused"):
                logged = self.game.record_timer(event, seconds)
                self._on_events(self.game, [logged])
            text = self.t(key, seconds=seconds)
            if event == "expired":
                ended = self.game.timer_expired()
                if ended:
                    self._done(ended, intro=text)
                    return
            self.say(text, remember=False)

    def _after_change(self) -> None:
        """Flip the per-turn sand timer when a new clue or guessing phase begins; stop it at the end."""
        game = self.game
        if game.over:
            self.timer.cancel()
            return
        turn = (game.state.phase, len(game.state.clues), getattr(game.state, "team", None))
        if self.settings.timer_seconds and turn != self._turn:
            self.timer.flip(self.settings.timer_seconds)
        self._turn = turn

    # ---- after every action -----------------------------------------------------------------

    def _done(self, events: Sequence[Event], intro: str = "") -> None:
        """Persist the events, say what they mean, and do what the host does on its own."""
        game = self.game
        events = list(events)
        if (
            isinstance(game, CompetitiveGame)
            and game.state.phase is Phase.SIMULATED_TURN
            and self.settings.simulated == "random"
        ):
            # seeded by the game's own length, so a resumed game covers what the uninterrupted one would
            chooser = random.Random(f"{self.settings.seed}:{len(game.events)}")
            events += game.simulated_cover(chooser.choice(game.simulated_choices()))
        self._on_events(game, events)
        self.say(f"{intro} {self.announce.describe(events)}")
        self._after_change()

    def _error_text(self, error: GameError) -> str:
        keys = {
            "card_already_covered": "guess.covered_already",
            "card_already_marked": "guess.marked_already",
            "unknown_card": "guess.not_on_board",
            "must_guess_once": "turn.must_guess_once",
            "number_out_of_range": "input.number_out_of_range",
            "guess_expected": "clue.need_guess_now",
            "game_over": "input.game_over_already",
            "nothing_to_undo": "undo.nothing",
        }
        if error.key == "clue_expected" and isinstance(self.game, CompetitiveGame):
            return self.t("clue.need_clue_first", Team=self.announce.team(self.game.team, True))
        if error.key in keys:
            return self.t(keys[error.key], **error.params)
        return self.t("input.not_allowed", detail=str(error))


def _fold(text: str) -> str:
    decomposed = unicodedata.normalize("NFD", text.casefold())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))
