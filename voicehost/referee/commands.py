"""The table's commands ("repeat", "score", "undo", "pass", "flip the timer", "new game", ...): each
answered, done, or asked about first when it is hard to take back (`ConfirmBeforeActing`)."""

from __future__ import annotations

import random

from engine.editions import AnyGame
from engine.errors import NothingToCover
from engine.events import Event, EventType
from engine.game import Phase
from voicehost.referee.effects import Ask, Effect, Listen, NewGame, Play, Quit, Say, Timer
from voicehost.referee.questions import ConfirmBeforeActing
from voicehost.referee.view import View
from voicehost.understanding import Command
from voicehost.understanding.moment import ListenMode

TIMER_COMMANDS = (Command.TIMER_FLIP, Command.TIMER_PAUSE, Command.TIMER_RESUME, Command.TIME_LEFT)


def command(view: View, command: Command) -> list[Effect]:
    """Do one command heard for sure (or confirmed)."""
    game = view.game
    if command in (Command.YES, Command.NO):
        return [Say(view.t("input.nothing_to_confirm"), remember=False)]
    if command is Command.REPEAT:
        return [Say(view.last_said or view.t("info.nothing_to_repeat"), remember=False)]
    if command is Command.HELP:
        key = "info.help_guess" if game.state.phase in (Phase.GUESS, Phase.SUDDEN_DEATH) else "info.help_clue"
        return [Say(" ".join((view.t(key), view.t("info.help_places"), view.unheard)), remember=False)]
    if command is Command.READ_BOARD:
        return [Say(view.announce.board_text(), remember=False)]
    if command is Command.READ_BOARD_PLACES:
        return [Say(view.announce.board_places_text(), remember=False)]
    if command is Command.SCORE:
        return [Say(view.announce.score_text(), remember=False)]
    if command is Command.CLUES_SO_FAR:
        return [Say(view.announce.clues_text(), remember=False)]
    if command is Command.WHOSE_TURN:
        return [Say(view.announce.next_prompt() or view.t("end.play_again"), remember=False)]
    if command in TIMER_COMMANDS:
        return [Timer(command)]
    if command is Command.NEW_GAME:
        if not view.can_deal:
            return [Say(view.t("end.play_again"))]
        if game.over:
            return [NewGame()]
        return [Ask(ConfirmBeforeActing(prompt=view.t("game.new_game_confirm"), then=(NewGame(),)))]
    if command is Command.QUIT:
        unsaved = view.unsaved
        if game.over and unsaved is None:
            return [Quit()]  # nothing left to lose: the table that says goodbye is not asked to say it twice
        prompt = view.t("game.quit_confirm") if unsaved is None else view.t("game.quit_confirm_unsaved", detail=unsaved)
        return [Ask(ConfirmBeforeActing(prompt=prompt, then=(Quit(),)))]
    if command is Command.UNDO:
        return undo(view)
    if command is Command.PASS:
        if game.over:
            return [Say(view.t("input.game_over_already"), remember=False)]
        return [Play(lambda g: g.end_turn())]
    if command is Command.STOP_TALKING:
        return []  # the voice mouth cuts speech short; in text there is nothing to stop
    if command is Command.ALL_MY_GREENS_FOUND:
        return [Say(view.announce.next_prompt(), remember=False)]  # the host already knows and said it
    if command is Command.COVER_FOR_ME:
        return cover_for_me(view)
    if command is Command.LISTEN_ADDRESSED:
        return set_listening(view, ListenMode.ADDRESSED)
    if command is Command.LISTEN_OPEN:
        return set_listening(view, ListenMode.OPEN)
    return []


def undo(view: View) -> list[Effect]:
    """Take the last move back (a guess, a clue, a pass): confirmed first, it is hard to take back."""
    last = view.game.last_undoable
    if last is None:
        return [Say(view.t("undo.nothing"), remember=False)]
    prompt = view.t(undo_key(last, "confirm"), **undo_fields(view, last))
    done = view.t(undo_key(last, "done"), **undo_fields(view, last))
    return [Ask(ConfirmBeforeActing(prompt=prompt, then=(Play(lambda g: [g.undo()], intro=done),)))]


def undo_key(last: Event, what: str) -> str:
    """The prompt for undoing that move: a guess's (`undo.confirm`), a clue's, or a pass's."""
    if last.type is EventType.CLUE:
        return f"undo.{what}_clue"
    if last.type is EventType.TURN_ENDED:
        return f"undo.{what}_pass"
    return f"undo.{what}"


def undo_fields(view: View, last: Event) -> dict[str, str]:
    if last.type is EventType.CLUE:
        return {"word": str(last["word"]), "number": view.announce.number(last["number"])}
    return {"card": str(last.get("card", ""))}


def set_listening(view: View, mode: ListenMode) -> list[Effect]:
    """Switch the way of playing (see attention.py), and say how to play it."""
    if mode is view.listening:
        return [Say(view.t(f"listen.already_{mode.value}"), remember=False)]
    return [Listen(mode), Say(view.t(f"listen.{mode.value}", name=view.name), remember=False)]


def cover_for_me(view: View) -> list[Effect]:
    """The host covers one of the cards the rules allow, at random (seeded by the game, so a resumed
    game picks what the uninterrupted one would have)."""
    choices = view.game.cover_choices()
    if not choices:
        return [Say(view.announce.error(NothingToCover()), remember=False)]
    card = chooser(view.game, view.settings.seed).choice(choices)
    return [Play(lambda game: game.cover(card))]


def chooser(game: AnyGame, seed: int) -> random.Random:
    """The host's own random picks, seeded by the game's moves so far (not its timer lines): a resumed
    game, or one played with a sand timer, picks what the uninterrupted one would have."""
    moves = sum(1 for event in game.events if event.type is not EventType.TIMER)
    return random.Random(f"{seed}:{moves}")
