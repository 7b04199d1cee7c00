"""The referee: hears an utterance, decides, acts on the rules engine, and says what happened.

Most of the time the host waits for a clue, a guess or a command, as the game's phase says; when it
has asked something (`question`, see `questions.py`) the next utterance goes to that question first.
The same Host serves the text mode and the voice mode: only the ears and the mouth differ. Every
edition is played through the one interface of `engine.game.Game`, and said by its announcer.

The host holds the table's state (the game, the question, the lock, the sand timer) and says what
happened; each step has its own module: `take_up.py` (what an utterance means, and whether the host
takes it up), `acting.py` (what it then does), `clue_giving.py`, `guessing.py` and `commands.py`.
Those steps, and the questions, see the host through the protocols of `table.py`: this module imports
them, never the other way round.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from engine.editions import AnyGame
from engine.errors import GameError
from engine.events import Event
from engine.game import Phase, Player
from engine.legality import ClueRuling
from engine.pieces import Side
from voicehost.ears.context import Context, make_context
from voicehost.ears.heard import Heard
from voicehost.prompts import Prompts
from voicehost.referee import acting, clue_giving, commands, guessing, unheard
from voicehost.referee import earpiece as by_ear
from voicehost.referee.announcer import Announcer, announcer_for
from voicehost.referee.attention import Attention, Listening
from voicehost.referee.questions import ConfirmGuess
from voicehost.referee.table import PendingClue, Question
from voicehost.referee.take_up import Moment, heard_afresh, take_up
from voicehost.referee.timer import SandTimer
from voicehost.understanding import Command, Grid, side_named
from voicehost.understanding.talk import spoken_host_name

__all__ = ["Host", "HostSettings", "Mouth", "PendingClue"]


class Mouth(Protocol):
    """Where announcements go: printed lines, or speech."""

    def say(self, text: str) -> None: ...


GUESSING_PHASES = (Phase.GUESS, Phase.SUDDEN_DEATH, Phase.SIMULATED_TURN)
ALTERNATIVE_SHARE = 0.1
"""A recognizer's runner-up card below this share of its belief is not worth offering."""


@dataclass(frozen=True)
class HostSettings:
    timer_seconds: int | None = None
    simulated: str = "random"  # co-op: "random", or "choose" (the spymaster picks the card in private)
    seed: int = 0
    key_pages: bool = False  # the key holders have private pages (the web display) to choose cards on
    listening: Listening = Listening.OPEN  # addressed: a move counts only said to the host (see attention.py)
    host_name: str = ""  # a name the players gave the host, besides the vocabulary's
    unheard: Callable[[Sequence[str]], Sequence[str]] | None = None  # the cards the recognizer cannot hear


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
        unsaved: Callable[[], tuple[Path, str] | None] | None = None,
        earpiece: Mouth | None = None,
    ) -> None:
        self.game = game
        self.p = prompts
        self.mouth = mouth
        self.earpiece = earpiece  # --key-audio: a spymaster's private mouth (see earpiece.py); never the table's
        self.settings = settings or HostSettings()
        self.announce: Announcer = announcer_for(game, prompts, key_pages=self.settings.key_pages)
        self.question: Question | None = None
        self.finished = False
        self.chosen_side: Side | None = None  # Duet: the player who said "I give the clue" / "I guess"
        self.last_said = ""
        self._on_events = on_events or (lambda game, events: None)
        self._on_timer_shown = on_timer or (lambda seconds, running: None)
        self._new_game = new_game
        self._save_hint = save_hint
        self._unsaved = unsaved or (lambda: None)  # (file, os_reason key) while the game is not on disk
        self._lock = threading.RLock()
        self._alternatives: list[str] = []
        self._timer_held = False
        self.timer = SandTimer(self._on_timer)
        self._turn: tuple[object, ...] = ()
        self.listening = self.settings.listening
        self.attention: Attention | None = None  # what the host made of the last utterance (shown with --show-heard)
        self._hinted = False  # the addressed way is explained once a game, then moves not said to the host are let be

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

    def ask(self, question: Question) -> None:
        """Ask the table something; the next utterance goes to it first."""
        self.question = question
        question.ask(self)

    def repeat_question(self, question: Question) -> None:
        """Not an answer: the same question once more, as it was said."""
        self.question = question
        self.say(self.last_said, remember=False)

    # ---- life cycle -------------------------------------------------------------------------

    def start(self, *, resumed: bool = False) -> None:
        with self._lock:
            lines = [self.t("game.resumed")] if resumed else self.announce.welcome()
            if self._save_hint and not resumed:
                lines.append(self.t(self.announce.KEY_HINT, save=self._save_hint))
            if not self.game.over:
                lines.append(self.unheard_text())
            if self.game.over:
                lines.append(self.t("input.game_over_already"))
            else:
                lines.append(self.announce.next_prompt())
            self.say(" ".join(lines))
            self.after_change()

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
        question = self.question
        return list(question.candidates) if isinstance(question, ConfirmGuess) else []

    @property
    def pending_clue(self) -> PendingClue | None:
        """The clue (word and number) the host is asking about, if it is asking."""
        clue = getattr(self.question, "clue", None)
        return clue if isinstance(clue, PendingClue) else None

    # ---- hearing ----------------------------------------------------------------------------

    def hear(
        self, said: str | Heard, confidence: float | None = None, alternatives: Sequence[tuple[str, float]] = ()
    ) -> None:
        """Handle one utterance: a typed line (with a recognizer's `confidence` and runner-up cards, when
        it comes from one), or what the ears heard, evidence and all (`Heard`).

        When the ears are unsure the host offers their runners-up ("CEREJA or CEBOLA?") instead of
        guessing which one was meant."""
        heard = said if isinstance(said, Heard) else Heard(said, confidence, alternatives=tuple(alternatives))
        with self._lock:
            if self.finished:
                return
            self._alternatives = [card for card, share in heard.alternatives if share >= ALTERNATIVE_SHARE]
            try:
                self._hear(heard)
            except GameError as error:
                self.say(self.announce.error(error))

    def listening_context(self) -> Context:
        """What makes sense to hear now, for the recognizer: cards while guessing, free speech for a clue."""
        with self._lock:
            game = self.game
            phase = game.state.phase
            cards: Sequence[str] = game.visible_cards()  # never only the cards to cover: that would tell them
            question = self.question
            answering = question is not None and question.yes_no
            if answering:
                assert question is not None
                cards = question.offers
            guessing = answering or (question is None and not game.over and phase in GUESSING_PHASES)
            names = self._names() if self.listening is Listening.ADDRESSED else ()
            return make_context(game.board.lang, guessing, tuple(cards), answering, names)

    @property
    def grid(self) -> Grid:
        """The board as places, for a card named by its place ("B3", "row two column three")."""
        board = self.game.board
        return Grid(tuple(board.cards), board.grid.columns)

    def _moment(self) -> Moment:
        """What the host waits for now, and what it has asked: how the next utterance is taken up."""
        game, question = self.game, self.question
        return Moment(
            game.board.lang,
            tuple(game.visible_cards()),
            self.grid,
            guessing=game.state.phase in (Phase.GUESS, Phase.SUDDEN_DEATH),
            asked=question is not None,
            offers=question.offers if question is not None and question.yes_no else None,
            before=question.belief if isinstance(question, ConfirmGuess) else None,
            listening=self.listening,
            host_names=(self.settings.host_name,) if self.settings.host_name else (),
        )

    def _hear(self, heard: Heard) -> None:
        """Take the utterance up (`take_up`), then do what the verdict says."""
        moment = self._moment()
        taken = take_up(heard, moment)
        self.attention = taken.verdict
        if taken.verdict is Attention.IGNORE:
            return
        if taken.verdict is Attention.HINT:
            if not self._hinted:
                self._hinted = True
                self.say(self.t("listen.hint", name=self.name()), remember=False)
            return
        understood = taken.understood
        side = side_named(taken.heard.text, self.game.board.lang)
        question = self.question
        if question is not None:
            self.question = None
            if question.take(self, understood, side):
                return
            if question.hear_afresh_on_all_cards():  # not one of the offered cards: the whole table
                understood = heard_afresh(taken, moment)
        acting.act(self, understood, side, self._alternatives)

    def unheard_text(self) -> str:
        """Which cards the recognizer cannot hear, to be named by their place; "" when it hears them all."""
        return unheard.unheard_text(self.game, self.p, self.settings.unheard, self.grid)

    def name(self) -> str:
        """The name the host tells players to call it by."""
        return self.settings.host_name or spoken_host_name(self.game.board.lang)

    def _names(self) -> tuple[str, ...]:
        """The names the ears listen for before a move: the one the host tells players, and the players' own."""
        return tuple(dict.fromkeys((self.name(), spoken_host_name(self.game.board.lang))))

    # ---- the moves, each in its own module (questions.py and earpiece.py call these) ---------

    def clue(self, clue: PendingClue) -> None:
        """A clue heard: settle who gives it and whether it is legal, then give or reject it."""
        clue_giving.take_clue(self, clue)

    def clue_giver(self) -> Player | None:
        """Who gives the clue now: the only one who may, or the Duet player who said it was them."""
        return clue_giving.clue_giver(self.game, self.chosen_side)

    def reason(self, ruling: ClueRuling | None) -> str:
        return clue_giving.reason(self.p, ruling)

    def give_clue(self, clue: PendingClue) -> None:
        clue_giving.give_clue(self, clue)

    def reject_clue(self, clue: PendingClue, ruling: ClueRuling | None) -> None:
        clue_giving.reject_clue(self, clue, ruling)

    def reveal(self, card: str) -> None:
        """Turn the card over for whoever guesses now; in Duet sudden death, ask who when both may."""
        guessing.reveal(self, card)

    def command(self, command: Command) -> None:
        commands.command(self, command)

    def key_request(self, command: Command, word: str = "") -> None:
        """A spymaster's request for the key or a clue's ruling: answered in the earpiece only; aloud,
        words that are the same whatever the key (see earpiece.py)."""
        by_ear.answer(self, command, word)

    def cover(self, card: str) -> bool:
        """A card to cover chosen in private (a key page): covered when it is one of the choices; False
        (and nothing said) when it is not, so the answer is private too."""
        with self._lock:
            if card not in self.game.cover_choices():
                return False
            self.done(self.game.cover(card))
            return True

    def start_new_game(self) -> None:
        """Deal a new game (confirmed first while one is being played) and start it."""
        if self._new_game is None:
            self.say(self.t("end.play_again"))
            return
        self.timer.cancel()
        self.game = self._new_game()
        self.announce = announcer_for(self.game, self.p, key_pages=self.settings.key_pages)
        self.question = None
        self.record(self.game.events)
        self.start()

    def quit(self) -> None:
        self.timer.cancel()
        self.finished = True
        unsaved = self.unsaved_detail()
        self.say(self.t("game.bye") if unsaved is None else self.t("game.bye_unsaved", detail=unsaved))

    def unsaved_detail(self) -> str | None:
        """Where and why the game is not on disk, in the game's language; None when it is saved."""
        failed = self._unsaved()
        if failed is None:
            return None
        place, reason = failed
        return f"{place}: {self.t(f'os_reason.{reason}')}"

    # ---- the timer --------------------------------------------------------------------------

    def _on_timer(self, event: str, seconds: int) -> None:
        with self._lock:
            if self.finished or self.game.over:
                return
            self._on_timer_shown(seconds, event in ("started", "warning", "countdown", "resumed"))
            if event in ("started", "warning", "expired", "paused"):
                self.record([self.game.record_timer(event, seconds)])
            text = self.t(f"timer.{event}", seconds=seconds)
            if event == "expired":
                ended = self.game.timer_expired()
                if ended:
                    self.done(ended, intro=text)
                    return
            self.say(text, remember=False)

    def after_change(self) -> None:
        """Flip the per-turn sand timer when a new clue or guessing phase begins; stop it at the end."""
        game = self.game
        if game.over:
            self.timer.cancel()
            return
        turn = (game.state.phase, len(game.state.clues), game.current_player)
        if self.settings.timer_seconds and turn != self._turn:
            self.timer.flip(self.settings.timer_seconds)
        self._turn = turn

    # ---- after every action -----------------------------------------------------------------

    def record(self, events: Sequence[Event]) -> None:
        """Persist events (the log, the save, the display) without saying anything."""
        self._on_events(self.game, events)

    def done(self, events: Sequence[Event], intro: str = "") -> None:
        """Persist the events, say what they mean, and do what the host does on its own."""
        game = self.game
        events = list(events)
        if game.state.phase is Phase.SIMULATED_TURN and self.settings.simulated == "random":
            events += game.cover(commands.chooser(game, self.settings.seed).choice(game.cover_choices()))
        self._on_events(game, events)
        self.say(f"{intro} {self.announce.describe(events)}")
        self.after_change()
