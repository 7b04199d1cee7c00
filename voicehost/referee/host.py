"""The referee: hears an utterance, decides, acts on the rules engine, and says what happened.

The host holds the table's state (the game, the question it asked, a Duet player's claim, the sand
timer, the way of listening) and is the one place where the game changes and the table is spoken to.
An utterance is taken up (`take_up.py`: what it means and whether to act on it); a question asked
takes it first (`questions.py`), else the step for its kind of move (`acting.py` and the modules it
calls) says what should happen, as effects (`effects.py`), which the host then applies (`apply`).
The same Host serves the text mode and the voice mode: only the ears and the mouth differ. Every
edition is played through the one interface of `engine.game.Game`, and said by its announcer.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol

from engine.editions import AnyGame
from engine.errors import GameError
from engine.events import Event, EventType
from engine.game import Phase
from engine.pieces import Side
from voicehost.ears.heard import Heard
from voicehost.prompts import Prompts
from voicehost.referee import acting, commands, unheard
from voicehost.referee.announcer import Announcer, announcer_for
from voicehost.referee.attention import Attention
from voicehost.referee.effects import (
    Ask,
    Claim,
    Denied,
    Effect,
    Follow,
    Listen,
    NewGame,
    Play,
    Quit,
    Say,
    Timer,
    Whisper,
)
from voicehost.referee.let_be import LetBe, let_be
from voicehost.referee.questions import ConfirmGuess, Question
from voicehost.referee.rulings import PendingClue
from voicehost.referee.take_up import TakenUp, heard_afresh, take_up, unclear_answer
from voicehost.referee.timer import SandTimer
from voicehost.referee.view import HostSettings, View
from voicehost.understanding import Action, Command, Grid, HeardCommand, HeardGuess, NotUnderstood
from voicehost.understanding.moment import Awaited, Moment
from voicehost.understanding.talk import spoken_host_name

__all__ = ["Host", "HostSettings", "Mouth", "PendingClue"]


class Mouth(Protocol):
    """Where announcements go: printed lines, or speech."""

    def say(self, text: str) -> None: ...


AWAITED = {
    Phase.CLUE: Awaited.CLUE,
    Phase.GUESS: Awaited.GUESS,
    Phase.SUDDEN_DEATH: Awaited.GUESS,
    Phase.SIMULATED_TURN: Awaited.COVER,
    Phase.OVER: Awaited.OVER,
}
ALTERNATIVE_SHARE = 0.1
"""A recognizer's runner-up card below this share of its belief is not worth offering."""


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
        self.chosen_side: Side | None = None  # Duet: the player who said "A" or "B" for the next clue or guess
        self.last_said = ""
        self.listening = self.settings.listening
        self.attention: Attention | None = None  # what the host made of the last utterance (shown with --show-heard)
        self.timer = SandTimer(self._on_timer)
        self._on_events = on_events or (lambda game, events: None)
        self._on_timer_shown = on_timer or (lambda seconds, running: None)
        self._new_game = new_game
        self._unsaved = unsaved or (lambda: None)  # (file, os_reason key) while the game is not on disk
        self._lock = threading.RLock()
        self._timer_held = False
        self._turn: tuple[object, ...] = ()
        self._hinted = False  # the addressed way is explained once a game, then moves not said to the host are let be
        self._reasked = False  # the pending question was asked again after an interjection (once only)
        self._unclear: str | None = None  # the card the line just answered "Sorry?" came near (`Moment.unclear`)
        self._denied = Denied()  # what the table just answered "no" to (`Moment.denied`), for the next line only
        self._let_be = LetBe()  # the lines just let be in a row
        self._heard_since_clue = 0  # utterances taken up since the last clue was given: a correction comes first

    # ---- what the table sees and hears --------------------------------------------------------

    def say(self, text: str, *, remember: bool = True) -> None:
        text = " ".join(text.split())
        if not text:
            return
        if remember:
            self.last_said = text
        self.mouth.say(text)

    def t(self, key: str, **params: Any) -> str:
        return self.p.text(key, **params)

    def name(self) -> str:
        """The name the host tells players to call it by."""
        return self.settings.host_name or spoken_host_name(self.game.board.lang)

    @property
    def grid(self) -> Grid:
        board = self.game.board
        return Grid(tuple(board.cards), board.grid.columns)

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

    def moment(self) -> Moment:
        """What the host waits for now, and what it has asked: what the ears listen for, and how the next
        utterance is taken up. The one place a `Moment` is built for a game."""
        with self._lock:
            game, question = self.game, self.question
            asked = question is not None
            offers = question.offers if question is not None and question.yes_no else None
            names = tuple(dict.fromkeys((self.name(), spoken_host_name(game.board.lang))))
            last = game.last_undoable
            return Moment(
                game.board.lang,
                AWAITED[game.state.phase],
                visible=tuple(game.visible_cards()),
                grid=self.grid,
                asked=asked,
                offers=offers,
                before=question.belief if question is not None else (),
                unclear=self._unclear,
                denied=self._denied.cards,
                denied_commands=self._denied.commands,
                let_be=self._let_be.summed,
                clue_let_be=self._let_be.clues,
                let_be_text=self._let_be.text,
                listening=self.listening,
                host_names=names,
                correctable=last is not None
                and last.type is EventType.CLUE
                and not asked
                and not self._heard_since_clue,
                undoable=last is not None,
                sides=not game.TEAMS,
                nothing_to_pause=not self.timer.has_sand and game.passes_now,
            )

    @property
    def _clue_just_given(self) -> bool:
        """Nothing was taken up since the clue was announced: its spymaster's "no, fruit" corrects it."""
        return self._heard_since_clue == 0

    def view(self) -> View:
        """The table as a step sees it (see view.py)."""
        return View(
            game=self.game,
            p=self.p,
            announce=self.announce,
            settings=self.settings,
            chosen_side=self.chosen_side,
            listening=self.listening,
            last_said=self.last_said,
            name=self.name(),
            unheard=self.unheard_text(),
            can_deal=self._new_game is not None,
            unsaved=self.unsaved_detail(),
            has_earpiece=self.earpiece is not None,
            timer_running=self.timer.has_sand,
        )

    # ---- life cycle ---------------------------------------------------------------------------

    def start(self, *, resumed: bool = False) -> None:
        """The short opening: who starts and how many agents, where the key is, what is awaited. Commands
        and paths are for the console (`console_lines`), never the loudspeaker or the screen."""
        with self._lock:
            lines = [self.t("game.resumed")] if resumed else self.announce.welcome()
            if self.settings.key_pages and not resumed:
                lines.append(self.t(self.announce.KEY_ON_PHONE))
            if not self.game.over:
                lines.append(self.unheard_text())
            if self.game.over:
                lines.append(self.t("input.game_over_already"))
            else:
                lines.append(self.announce.next_prompt())
            self.say(" ".join(lines))
            self.after_change()

    def console_lines(self, save: str) -> list[str]:
        """What the host's console shows at the start, never said: how to see the key in private."""
        return [self.t(self.announce.KEY_HINT, save=save)]

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

    def unheard_text(self) -> str:
        """Which cards the recognizer cannot hear, to be named by their place; "" when it hears them all."""
        return unheard.unheard_text(self.game, self.p, self.settings.unheard, self.grid)

    def unsaved_detail(self) -> str | None:
        """Where and why the game is not on disk, in the game's language; None when it is saved."""
        failed = self._unsaved()
        if failed is None:
            return None
        place, reason = failed
        return f"{place}: {self.t(f'os_reason.{reason}')}"

    # ---- hearing ------------------------------------------------------------------------------

    def hear(
        self, said: str | Heard, confidence: float | None = None, alternatives: Sequence[tuple[str, float]] = ()
    ) -> None:
        """Handle one utterance: a typed line (with a recognizer's `confidence` and runner-up cards, when
        it comes from one), or what the ears heard, evidence and all (`Heard`)."""
        heard = said if isinstance(said, Heard) else Heard(said, confidence, alternatives=tuple(alternatives))
        with self._lock:
            if self.finished:
                return
            try:
                self._hear(heard)
            except GameError as error:
                self.say(self.announce.error(error))

    def _hear(self, heard: Heard) -> None:
        """Take the utterance up, let a question take it first, else respond to it; apply what follows."""
        moment = self.moment()
        taken = take_up(heard, moment)
        self._unclear = None  # only the line right after a "Sorry?" is heard as its repeat
        self._denied = Denied()  # only the line right after a "no" is heard with what was denied set aside
        before, self._let_be = self._let_be, LetBe()  # only lines let be in a row are heard together
        self.attention = taken.verdict
        self._heard_since_clue += 1
        question = self.question
        if let_be(taken) and question is None:
            self._let_be = before.after(taken)
        if taken.verdict is Attention.IGNORE:
            if question is not None and not self._reasked and taken.form.talk:
                self._reasked = True  # an interjection while a question waits: asked again, once
                self.apply([Ask(question, again=True)])
            return
        if taken.verdict is Attention.HINT:
            if not self._hinted:
                self._hinted = True
                self.say(self.t("listen.hint", name=self.name()), remember=False)
            else:
                self.attention = Attention.IGNORE  # told once how to play: a line without the name is the table's
            return
        view = self.view()
        understood = taken.understood
        side = taken.reading.side
        if question is not None:
            answer = question.take(view, understood, side)
            if answer is not None:
                self.question = None
                self._reasked = False
                self.apply(answer)
                return
            if question.kept_by(understood):  # "score" while "CEREJA?" waits: answered, then asked again
                repeat = isinstance(understood, HeardCommand) and understood.command is Command.REPEAT
                answered = [] if repeat else acting.respond(view, understood, side)
                self.apply([*answered, Ask(question, again=True)])
                return
            if question.afresh_on_all_cards:  # not one of the offered cards: the whole table
                understood = heard_afresh(taken, moment)
            if question.yes_no and not self._reasked and unclear_answer(taken, understood):
                # "CEREJA?" answered "XIN" (an answer half heard), or a move over it the host could not read:
                # asked once more, not dropped
                self._reasked = True
                self.apply([Say(self.t("input.sorry"), remember=False), Ask(question, again=True)])
                return
            self.question = None
            self._reasked = False
        covered = self._covered(taken)
        sorry = taken.verdict is Attention.SORRY and covered is None
        if sorry:
            understood = taken.understood
        if (sorry or let_be(taken)) and isinstance(understood, NotUnderstood):
            # the card it came near, for the line right after a "Sorry?" (or the addressed way's "I did not
            # catch that") to be heard as its repeat
            self._unclear = understood.nearest
        if sorry:
            self.apply([Say(self.t("input.sorry"), remember=False)])
            return
        alternatives = [card for card, share in heard.alternatives if share >= ALTERNATIVE_SHARE]
        self.apply(acting.respond(self.view(), understood, side, covered, alternatives))

    def _covered(self, taken: TakenUp) -> str | None:
        """A covered card the words name for sure, while guessing ("lasanha", already revealed): answered
        as such, never matched to another card."""
        if self.game.state.phase not in (Phase.GUESS, Phase.SUDDEN_DEATH):
            return None
        read = taken.reading.everything
        if isinstance(read, HeardGuess) and read.action is Action.ACCEPT and read.card not in self.game.visible_cards():
            return read.card
        return None

    # ---- applying what the steps decided ------------------------------------------------------

    def apply(self, effects: Sequence[Effect]) -> None:
        """Do what a step decided, in order: the one place the game moves and the table is spoken to."""
        for effect in effects:
            try:
                self._apply(effect)
            except GameError as error:
                self.say(self.announce.error(error))
                return

    def _apply(self, effect: Effect) -> None:
        if isinstance(effect, Say):
            self.say(effect.text, remember=effect.remember)
        elif isinstance(effect, Ask):
            self.question = effect.question
            self.say(effect.question.ask(self.view()), remember=not effect.again)
        elif isinstance(effect, Play):
            events = effect.action(self.game)
            if effect.clears_side:
                self.chosen_side = None
            if effect.announce:
                self.done(events, intro=effect.intro)
            else:
                self.record(events)
        elif isinstance(effect, Follow):
            self.apply(acting.respond(self.view(), effect.understood, effect.side))
        elif isinstance(effect, Claim):
            self.chosen_side = effect.side
        elif isinstance(effect, Whisper):
            if self.earpiece is not None:
                self.earpiece.say(effect.text)
        elif isinstance(effect, Timer):
            self._timer_command(effect.command)
        elif isinstance(effect, Listen):
            self.listening = effect.mode
        elif isinstance(effect, Denied):
            self._denied = effect  # the line that said "no" began with none: `_hear` clears it
        elif isinstance(effect, NewGame):
            self.start_new_game()
        elif isinstance(effect, Quit):
            self.quit()

    def cover(self, card: str) -> bool:
        """A card to cover chosen in private (a key page): covered when it is one of the choices; False
        (and nothing said) when it is not, so the answer is private too."""
        with self._lock:
            if card not in self.game.cover_choices():
                return False
            self.done(self.game.cover(card))
            return True

    def start_new_game(self) -> None:
        """Deal a new game and start it."""
        if self._new_game is None:
            self.say(self.t("end.play_again"))
            return
        self.timer.cancel()
        self.game = self._new_game()
        self.announce = announcer_for(self.game, self.p, key_pages=self.settings.key_pages)
        self.question = None
        self._denied = Denied()
        self._let_be = LetBe()
        self.record(self.game.events)
        self.start()

    def quit(self) -> None:
        self.timer.cancel()
        self.finished = True
        unsaved = self.unsaved_detail()
        self.say(self.t("game.bye") if unsaved is None else self.t("game.bye_unsaved", detail=unsaved))

    # ---- the timer ----------------------------------------------------------------------------

    def _timer_command(self, command: Command) -> None:
        """Flip, pause or resume the sand timer, or say how much sand is left."""
        if command is Command.TIME_LEFT:
            self.say(self._time_left(), remember=False)
        elif command is Command.TIMER_FLIP:
            self.timer.flip(self.settings.timer_seconds or 60)
        elif command is Command.TIMER_PAUSE:
            if not self.timer.pause():
                self.say(self.t("timer.not_running"), remember=False)
        elif not self.timer.resume():
            self.say(self.t("timer.not_running"), remember=False)

    def _time_left(self) -> str:
        """ "40 seconds left." ("Timer paused. 40 seconds left." while paused); "not running" without sand."""
        timer = self.timer
        if not timer.has_sand:
            return self.t("timer.not_running")
        seconds = timer.seconds_left()
        left = self.t("timer.left_one") if seconds == 1 else self.t("timer.left", seconds=seconds)
        return f"{self.t('timer.paused')} {left}" if timer.paused else left

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

    # ---- after every action -------------------------------------------------------------------

    def record(self, events: Sequence[Event]) -> None:
        """Persist events (the log, the save, the display) without saying anything."""
        self._on_events(self.game, events)

    def done(self, events: Sequence[Event], intro: str = "") -> None:
        """Persist the events, say what they mean, and do what the host does on its own."""
        game = self.game
        events = list(events)
        if any(event.type is EventType.CLUE for event in events):
            self._heard_since_clue = 0
        if game.state.phase is Phase.SIMULATED_TURN and self.settings.simulated == "random":
            events += game.cover(commands.chooser(game, self.settings.seed).choice(game.cover_choices()))
        self._on_events(game, events)
        self.say(f"{intro} {self.announce.describe(events)}")
        self.after_change()
