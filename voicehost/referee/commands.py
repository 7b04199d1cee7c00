"""The table's commands ("repeat", "score", "undo", "pass", "flip the timer", "new game", ...): each
answered, done, or asked about first when it is hard to take back (`ConfirmBeforeActing`)."""

from __future__ import annotations

import random

from engine.editions import AnyGame
from engine.errors import NothingToCover
from engine.events import EventType
from engine.game import Phase
from voicehost.referee.attention import Listening
from voicehost.referee.questions import ConfirmBeforeActing
from voicehost.referee.table import Commanding
from voicehost.understanding import Command
from voicehost.understanding.results import KEY_REQUESTS

TIMER_COMMANDS = (Command.TIMER_FLIP, Command.TIMER_PAUSE, Command.TIMER_RESUME)


def command(host: Commanding, command: Command) -> None:
    """Do one command heard for sure (or confirmed)."""
    game = host.game
    if command in (Command.YES, Command.NO):
        host.say(host.t("input.nothing_to_confirm"), remember=False)
    elif command is Command.REPEAT:
        host.say(host.last_said or host.t("info.nothing_to_repeat"), remember=False)
    elif command is Command.HELP:
        key = "info.help_guess" if game.state.phase in (Phase.GUESS, Phase.SUDDEN_DEATH) else "info.help_clue"
        host.say(" ".join((host.t(key), host.t("info.help_places"), host.unheard_text())), remember=False)
    elif command is Command.READ_BOARD:
        host.say(host.announce.board_text(), remember=False)
    elif command is Command.READ_BOARD_PLACES:
        host.say(host.announce.board_places_text(), remember=False)
    elif command is Command.SCORE:
        host.say(host.announce.score_text(), remember=False)
    elif command is Command.CLUES_SO_FAR:
        host.say(host.announce.clues_text(), remember=False)
    elif command in TIMER_COMMANDS:
        timer_command(host, command)
    elif command is Command.NEW_GAME:
        if game.over:
            host.start_new_game()
        else:
            host.ask(ConfirmBeforeActing(prompt=host.t("game.new_game_confirm"), act=host.start_new_game))
    elif command is Command.QUIT:
        unsaved = host.unsaved_detail()
        prompt = host.t("game.quit_confirm") if unsaved is None else host.t("game.quit_confirm_unsaved", detail=unsaved)
        host.ask(ConfirmBeforeActing(prompt=prompt, act=host.quit))
    elif command is Command.UNDO:
        last = game.last_undoable
        if last is None:
            host.say(host.t("undo.nothing"), remember=False)
        else:
            host.ask(ConfirmBeforeActing(prompt=host.t("undo.confirm", card=last["card"]), act=lambda: undo(host)))
    elif command is Command.PASS:
        if game.over:
            host.say(host.t("input.game_over_already"), remember=False)
        else:
            host.done(game.end_turn())
    elif command is Command.STOP_TALKING:
        pass  # the voice mouth cuts speech short; in text there is nothing to stop
    elif command is Command.ALL_MY_GREENS_FOUND:
        host.say(host.announce.next_prompt(), remember=False)  # the host already knows and said it
    elif command is Command.COVER_FOR_ME:
        cover_for_me(host)
    elif command is Command.LISTEN_ADDRESSED:
        set_listening(host, Listening.ADDRESSED)
    elif command is Command.LISTEN_OPEN:
        set_listening(host, Listening.OPEN)
    elif command in KEY_REQUESTS:
        host.key_request(command)


def undo(host: Commanding) -> None:
    """Take the last guess back (confirmed first: it is hard to take back)."""
    game = host.game
    last = game.last_undoable
    if last is None:
        host.say(host.t("undo.nothing"))
        return
    host.record([game.undo()])
    host.say(f"{host.t('undo.done', card=last['card'])} {host.announce.next_prompt()}")
    host.after_change()


def timer_command(host: Commanding, command: Command) -> None:
    """Flip, pause or resume the sand timer."""
    if command is Command.TIMER_FLIP:
        host.timer.flip(host.settings.timer_seconds or 60)
    elif command is Command.TIMER_PAUSE:
        if not host.timer.pause():
            host.say(host.t("timer.not_running"), remember=False)
    elif not host.timer.resume():
        host.say(host.t("timer.not_running"), remember=False)


def set_listening(host: Commanding, listening: Listening) -> None:
    """Switch the way of playing (see attention.py), and say how to play it."""
    if listening is host.listening:
        host.say(host.t(f"listen.already_{listening.value}"), remember=False)
        return
    host.listening = listening
    host.say(host.t(f"listen.{listening.value}", name=host.name()), remember=False)


def cover_for_me(host: Commanding) -> None:
    """The host covers one of the cards the rules allow, at random (seeded by the game, so a resumed
    game picks what the uninterrupted one would have)."""
    choices = host.game.cover_choices()
    if not choices:
        host.say(host.announce.error(NothingToCover()), remember=False)
        return
    host.done(host.game.cover(chooser(host.game, host.settings.seed).choice(choices)))


def chooser(game: AnyGame, seed: int) -> random.Random:
    """The host's own random picks, seeded by the game's moves so far (not its timer lines): a resumed
    game, or one played with a sand timer, picks what the uninterrupted one would have."""
    moves = sum(1 for event in game.events if event.type is not EventType.TIMER)
    return random.Random(f"{seed}:{moves}")
