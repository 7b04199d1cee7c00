"""Acting on what an utterance was understood to mean, once the host has taken it up (`take_up`) and no
question took it as its answer: a request, a command, a clue, a guess, a Duet player naming their side,
or a line to say again."""

from __future__ import annotations

from collections.abc import Sequence

from engine.game import Phase
from engine.pieces import Side
from voicehost.referee import clue_giving, commands, guessing
from voicehost.referee.questions import ConfirmCommand, ConfirmHeardClue
from voicehost.referee.table import Commanding, PendingClue, Table
from voicehost.understanding import Action, HeardClue, HeardCommand, HeardGuess, OffGrid, Understanding
from voicehost.understanding.results import KEY_REQUESTS, HeardClueCheck


def act(host: Commanding, heard: Understanding, side: Side | None, alternatives: Sequence[str]) -> None:
    """Do what `heard` asks; `side` the Duet side named in it, `alternatives` the recognizer's
    runners-up worth offering for a card."""
    game = host.game
    if isinstance(heard, HeardCommand) and heard.command in KEY_REQUESTS:  # changes nothing: never asked back
        host.key_request(heard.command, heard.word if isinstance(heard, HeardClueCheck) else "")
        return
    if isinstance(heard, HeardCommand):
        if heard.action is Action.CONFIRM:
            host.ask(ConfirmCommand(command=heard.command, heard_text=heard.heard))
        else:
            commands.command(host, heard.command)
        return
    if game.over:
        host.say(host.t("input.game_over_already"))
        return
    if side is not None and not game.TEAMS:
        choose_side(host, side)
        return
    if isinstance(heard, HeardClue):
        pending = PendingClue(heard.clue.word, heard.clue.number, heard.clue.spelled)
        if heard.action is Action.CONFIRM and game.state.phase is Phase.CLUE:
            host.ask(ConfirmHeardClue(clue=pending))
            return
        clue_giving.take_clue(host, pending)
    elif isinstance(heard, HeardGuess):
        guessing.take_guess(host, heard, alternatives)
    elif isinstance(heard, OffGrid):
        board = game.board
        host.say(host.t("guess.off_grid", columns=board.grid.columns, rows=board.grid.rows), remember=False)
    else:
        reprompt(host)


def reprompt(host: Table) -> None:
    """Not understood: ask again for what the phase waits for."""
    phase = host.game.state.phase
    if phase is Phase.SIMULATED_TURN:
        host.say(host.t("input.reprompt") + " " + host.announce.next_prompt(), remember=False)
    elif phase in (Phase.GUESS, Phase.SUDDEN_DEATH):
        host.say(host.t("input.reprompt_guess"), remember=False)
    else:
        host.say(host.t("input.reprompt_clue"), remember=False)


def choose_side(host: Table, side: Side) -> None:
    """A Duet player says who they are: the next clue or sudden-death guess is theirs."""
    game = host.game
    if side in game.clue_givers():
        host.chosen_side = side
        host.say(host.t("game.clue_prompt_duet", side=side.value.upper()))
    elif game.state.phase is Phase.SUDDEN_DEATH and side in game.guessers():
        host.chosen_side = side
        host.say(host.t("game.guess_prompt_duet", side=side.value.upper()))
    else:
        host.say(host.announce.next_prompt(), remember=False)
