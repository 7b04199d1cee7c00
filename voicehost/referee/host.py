"""The referee: hears an utterance, decides, acts on the rules engine, and says what happened.

Most of the time the host waits for a clue, a guess or a command, as the game's phase says; when it
has asked something (`question`, see `questions.py`) the next utterance goes to that question first.
The same Host serves the text mode and the voice mode: only the ears and the mouth differ. Every
edition is played through the one interface of `engine.game.Game`, and said by its announcer.
"""

from __future__ import annotations

import random
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from engine.editions import AnyGame
from engine.errors import GameError, NothingToCover
from engine.events import Event, EventType
from engine.game import Phase, Player
from engine.legality import ClueRuling, Reason, Verdict
from engine.pieces import Side
from voicehost.ears.context import Context, make_context
from voicehost.ears.heard import Heard
from voicehost.prompts import Prompts
from voicehost.referee import earpiece as by_ear
from voicehost.referee.announcer import Announcer, announcer_for
from voicehost.referee.attention import Attention, Listening
from voicehost.referee.questions import (
    AskClueGiver,
    AskGuesser,
    ConfirmBeforeActing,
    ConfirmCommand,
    ConfirmGuess,
    ConfirmHeardClue,
    PendingClue,
    PutClueToOpponent,
    Question,
)
from voicehost.referee.take_up import Moment, heard_afresh, take_up
from voicehost.referee.timer import SandTimer
from voicehost.understanding import (
    Action,
    Command,
    Grid,
    HeardClue,
    HeardCommand,
    HeardGuess,
    OffGrid,
    Understanding,
    side_named,
    understand,
)
from voicehost.understanding import Phase as Hearing
from voicehost.understanding.results import KEY_REQUESTS, HeardClueCheck
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
                self.say(self.t("listen.hint", name=self._name()), remember=False)
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
        self._act(understood, side)

    def unheard_text(self) -> str:
        """Which cards the recognizer cannot hear, to be named by their place; "" when it hears them all."""
        if self.settings.unheard is None:
            return ""
        game = self.game
        unheard = set(self.settings.unheard(game.visible_cards()))
        places = [
            self.t("info.card_at", card=card, place=self.grid.place_of(index))
            for index, card in enumerate(game.board.cards)
            if card in unheard and not game.is_covered(index)
        ]
        return self.t("info.unheard", cards=", ".join(places)) if places else ""

    def _name(self) -> str:
        return self.settings.host_name or spoken_host_name(self.game.board.lang)

    def _names(self) -> tuple[str, ...]:
        """The names the ears listen for before a move: the one the host tells players, and the players' own."""
        return tuple(dict.fromkeys((self._name(), spoken_host_name(self.game.board.lang))))

    def _set_listening(self, listening: Listening) -> None:
        if listening is self.listening:
            self.say(self.t(f"listen.already_{listening.value}"), remember=False)
            return
        self.listening = listening
        self.say(self.t(f"listen.{listening.value}", name=self._name()), remember=False)

    def _act(self, heard: Understanding, side: Side | None) -> None:
        game = self.game
        if isinstance(heard, HeardCommand) and heard.command in KEY_REQUESTS:  # changes nothing: never asked back
            self.key_request(heard.command, heard.word if isinstance(heard, HeardClueCheck) else "")
            return
        if isinstance(heard, HeardCommand):
            if heard.action is Action.CONFIRM:
                self.ask(ConfirmCommand(command=heard.command, heard_text=heard.heard))
            else:
                self.command(heard.command)
            return
        if game.over:
            self.say(self.t("input.game_over_already"))
            return
        if side is not None and not game.TEAMS:
            self._choose_side(side)
            return
        if isinstance(heard, HeardClue):
            pending = PendingClue(heard.clue.word, heard.clue.number, heard.clue.spelled)
            if heard.action is Action.CONFIRM and game.state.phase is Phase.CLUE:
                self.ask(ConfirmHeardClue(clue=pending))
                return
            self.clue(pending)
        elif isinstance(heard, HeardGuess):
            self._guess(heard)
        elif isinstance(heard, OffGrid):
            board = game.board
            self.say(self.t("guess.off_grid", columns=board.grid.columns, rows=board.grid.rows), remember=False)
        else:
            self._reprompt()

    def _reprompt(self) -> None:
        phase = self.game.state.phase
        if phase is Phase.SIMULATED_TURN:
            self.say(self.t("input.reprompt") + " " + self.announce.next_prompt(), remember=False)
        elif phase in (Phase.GUESS, Phase.SUDDEN_DEATH):
            self.say(self.t("input.reprompt_guess"), remember=False)
        else:
            self.say(self.t("input.reprompt_clue"), remember=False)

    def _choose_side(self, side: Side) -> None:
        """A Duet player says who they are: the next clue or sudden-death guess is theirs."""
        game = self.game
        if side in game.clue_givers():
            self.chosen_side = side
            self.say(self.t("game.clue_prompt_duet", side=side.value.upper()))
        elif game.state.phase is Phase.SUDDEN_DEATH and side in game.guessers():
            self.chosen_side = side
            self.say(self.t("game.guess_prompt_duet", side=side.value.upper()))
        else:
            self.say(self.announce.next_prompt(), remember=False)

    # ---- clues ------------------------------------------------------------------------------

    def clue(self, clue: PendingClue) -> None:
        """A clue heard: settle who gives it and whether it is legal, then give or reject it."""
        game = self.game
        phase = game.state.phase
        if phase in (Phase.GUESS, Phase.SUDDEN_DEATH):
            self.say(self.t("clue.need_guess_now"), remember=False)
            return
        if phase is Phase.SIMULATED_TURN:
            self.say(self.announce.next_prompt(), remember=False)
            return
        if self.clue_giver() is None:
            self.ask(AskClueGiver(clue=clue))
            return
        ruling = game.check_clue(clue.word, spelled=clue.spelled)
        if ruling.reason is Reason.NOT_ONE_WORD:
            # Every word said was checked against the table first ("oyster bay" hides OYSTER); none is a
            # card, so what came before the last one was a filler ("well, ocean two"): the clue is that word.
            clue.word = clue.word.split()[-1]
            ruling = game.check_clue(clue.word, spelled=clue.spelled)
        clue.ruling = ruling
        if ruling.verdict is Verdict.VALID:
            self.give_clue(clue)
        elif ruling.verdict is Verdict.INVALID:
            self.reject_clue(clue, ruling)
        else:
            self.ask(PutClueToOpponent(clue=clue))

    def clue_giver(self) -> Player | None:
        """Who gives the clue now: the only one who may, or the Duet player who said it was them."""
        givers = self.game.clue_givers()
        if len(givers) == 1:
            return givers[0]
        return self.chosen_side if self.chosen_side in givers else None

    def reason(self, ruling: ClueRuling | None) -> str:
        if ruling is None:
            return ""
        return self.t(f"clue_reason.{ruling.reason.value}", card=ruling.card or "")

    def give_clue(self, clue: PendingClue) -> None:
        events = self.game.give_clue(clue.word, clue.number, by=self.clue_giver())
        self.chosen_side = None
        self._done(events)

    def reject_clue(self, clue: PendingClue, ruling: ClueRuling | None) -> None:
        game = self.game
        reason = ruling.reason.value if ruling else "rejected"
        intro = self.t("clue.invalid", why=self.reason(ruling)) if ruling else ""
        events = game.reject_clue(clue.word, reason, number=clue.number, by=self.clue_giver())
        if not game.variants.invalid_clue_penalty:
            self._on_events(game, events)
            self.say(f"{intro} {self.t('clue.refused_give_again')}")
            return
        self.chosen_side = None
        self._done(events, intro=intro)

    # ---- guesses ----------------------------------------------------------------------------

    def _guess(self, heard: HeardGuess) -> None:
        game = self.game
        phase = game.state.phase
        accepted = heard.action is Action.ACCEPT
        if phase is Phase.SIMULATED_TURN or (phase is Phase.CLUE and game.cover_choices()):
            # A card to cover is chosen in private: whatever card is named aloud, the same reply, so the
            # table never learns from it whose agent that card is.
            self.say(self.announce.cover_not_aloud(), remember=False)
            return
        if phase is Phase.CLUE:
            self.say(self.announce.need_clue_first(), remember=False)
            return
        covered = self._covered_card_named(heard.heard)
        if heard.place and not covered and heard.card not in game.visible_cards():
            covered = heard.card
        if covered is not None:
            self.say(self.t("guess.covered_already", card=covered), remember=False)
            return
        if accepted:
            self.reveal(heard.card)
        elif heard.action is Action.CONFIRM and heard.candidates:
            candidates = [candidate.card for candidate in heard.candidates]
            offered = [card for card in self._alternatives if card in game.visible_cards()]
            if heard.card in offered and len(offered) > 1:  # the recognizer knows the runners-up better
                candidates = offered[:3]
            belief = {c.card: c.score / 100.0 for c in heard.candidates if c.card in candidates}
            self.ask(ConfirmGuess(candidates=candidates, belief=belief, place=heard.place))
        else:
            self.say(self.t("input.reprompt_guess"), remember=False)

    def _covered_card_named(self, text: str) -> str | None:
        """A covered card, when that is what was said: matching only the visible cards would
        offer another card instead (even the assassin)."""
        game = self.game
        covered = [card for index, card in enumerate(game.board.cards) if game.is_covered(index)]
        if not covered:
            return None
        everything = understand(text, phase=Hearing.GUESS, cards=game.board.cards, lang=game.board.lang, grid=self.grid)
        if isinstance(everything, HeardGuess) and everything.card in covered and everything.action is Action.ACCEPT:
            return everything.card
        return None

    def reveal(self, card: str) -> None:
        """Turn the card over for whoever guesses now; in Duet sudden death, ask who when both may."""
        guessers = self.game.guessers()
        if len(guessers) > 1:
            if self.chosen_side not in guessers:
                self.ask(AskGuesser(card=card))
                return
            guesser: Player | None = self.chosen_side
        else:
            guesser = None
        self.chosen_side = None
        self._done(self.game.guess(card, by=guesser))

    # ---- commands ---------------------------------------------------------------------------

    def command(self, command: Command) -> None:
        game = self.game
        if command in (Command.YES, Command.NO):
            self.say(self.t("input.nothing_to_confirm"), remember=False)
        elif command is Command.REPEAT:
            self.say(self.last_said or self.t("info.nothing_to_repeat"), remember=False)
        elif command is Command.HELP:
            key = "info.help_guess" if game.state.phase in (Phase.GUESS, Phase.SUDDEN_DEATH) else "info.help_clue"
            self.say(" ".join((self.t(key), self.t("info.help_places"), self.unheard_text())), remember=False)
        elif command is Command.READ_BOARD:
            self.say(self.announce.board_text(), remember=False)
        elif command is Command.READ_BOARD_PLACES:
            self.say(self.announce.board_places_text(), remember=False)
        elif command is Command.SCORE:
            self.say(self.announce.score_text(), remember=False)
        elif command is Command.CLUES_SO_FAR:
            self.say(self.announce.clues_text(), remember=False)
        elif command in (Command.TIMER_FLIP, Command.TIMER_PAUSE, Command.TIMER_RESUME):
            self._timer_command(command)
        elif command is Command.NEW_GAME:
            if game.over:
                self._start_new_game()
            else:
                self.ask(ConfirmBeforeActing(prompt=self.t("game.new_game_confirm"), act=self._start_new_game))
        elif command is Command.QUIT:
            unsaved = self._unsaved_detail()
            prompt = (
                self.t("game.quit_confirm") if unsaved is None else self.t("game.quit_confirm_unsaved", detail=unsaved)
            )
            self.ask(ConfirmBeforeActing(prompt=prompt, act=self._quit))
        elif command is Command.UNDO:
            last = game.last_undoable
            if last is None:
                self.say(self.t("undo.nothing"), remember=False)
            else:
                self.ask(ConfirmBeforeActing(prompt=self.t("undo.confirm", card=last["card"]), act=self._undo))
        elif command is Command.PASS:
            if game.over:
                self.say(self.t("input.game_over_already"), remember=False)
            else:
                self._done(game.end_turn())
        elif command is Command.STOP_TALKING:
            pass  # the voice mouth cuts speech short; in text there is nothing to stop
        elif command is Command.ALL_MY_GREENS_FOUND:
            self.say(self.announce.next_prompt(), remember=False)  # the host already knows and said it
        elif command is Command.COVER_FOR_ME:
            self._cover_for_me()
        elif command is Command.LISTEN_ADDRESSED:
            self._set_listening(Listening.ADDRESSED)
        elif command is Command.LISTEN_OPEN:
            self._set_listening(Listening.OPEN)
        elif command in KEY_REQUESTS:
            self.key_request(command)

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
            self._done(self.game.cover(card))
            return True

    def _cover_for_me(self) -> None:
        """The host covers one of the cards the rules allow, at random (seeded by the game, so a resumed
        game picks what the uninterrupted one would have)."""
        choices = self.game.cover_choices()
        if not choices:
            self.say(self.announce.error(NothingToCover()), remember=False)
            return
        self._done(self.game.cover(self._chooser().choice(choices)))

    def _chooser(self) -> random.Random:
        """The host's own random picks, seeded by the game's moves so far (not its timer lines): a resumed
        game, or one played with a sand timer, picks what the uninterrupted one would have."""
        moves = sum(1 for event in self.game.events if event.type is not EventType.TIMER)
        return random.Random(f"{self.settings.seed}:{moves}")

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
        self.announce = announcer_for(self.game, self.p, key_pages=self.settings.key_pages)
        self.question = None
        self._on_events(self.game, self.game.events)
        self.start()

    def _quit(self) -> None:
        self.timer.cancel()
        self.finished = True
        unsaved = self._unsaved_detail()
        self.say(self.t("game.bye") if unsaved is None else self.t("game.bye_unsaved", detail=unsaved))

    def _unsaved_detail(self) -> str | None:
        """Where and why the game is not on disk, in the game's language; None when it is saved."""
        failed = self._unsaved()
        if failed is None:
            return None
        place, reason = failed
        return f"{place}: {self.t(f'os_reason.{reason}')}"

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
            if self.finished or self.game.over:
                return
            self._on_timer_shown(seconds, event in ("started", "warning", "countdown", "resumed"))
            if event in ("started", "warning", "expired", "paused"):
                logged = self.game.record_timer(event, seconds)
                self._on_events(self.game, [logged])
            text = self.t(f"timer.{event}", seconds=seconds)
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
        turn = (game.state.phase, len(game.state.clues), game.current_player)
        if self.settings.timer_seconds and turn != self._turn:
            self.timer.flip(self.settings.timer_seconds)
        self._turn = turn

    # ---- after every action -----------------------------------------------------------------

    def _done(self, events: Sequence[Event], intro: str = "") -> None:
        """Persist the events, say what they mean, and do what the host does on its own."""
        game = self.game
        events = list(events)
        if game.state.phase is Phase.SIMULATED_TURN and self.settings.simulated == "random":
            events += game.cover(self._chooser().choice(game.cover_choices()))
        self._on_events(game, events)
        self.say(f"{intro} {self.announce.describe(events)}")
        self._after_change()
