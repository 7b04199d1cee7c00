"""What the host does about an utterance it took up and no question took as its answer: a request, a
command, a clue (or its word alone, or a correction), a guess, a Duet player naming their side, or a
short "Sorry?" for a line that has the form of a move but could not be acted on: the table always knows
whether the host heard them."""

from __future__ import annotations

from collections.abc import Sequence

from engine.game import Phase
from engine.pieces import Side
from voicehost.referee import clue_giving, commands, guessing
from voicehost.referee import earpiece as by_ear
from voicehost.referee.effects import Ask, Claim, Effect, Say
from voicehost.referee.questions import ConfirmCommand, ConfirmHeardClue
from voicehost.referee.rulings import PendingClue
from voicehost.referee.view import View
from voicehost.understanding import (
    Action,
    HeardClue,
    HeardCommand,
    HeardGuess,
    HeardNumber,
    HeardWord,
    OffGrid,
    Understanding,
)
from voicehost.understanding.results import KEY_REQUESTS, HeardClueCheck, HeardCorrection, HeardSide


def respond(
    view: View, heard: Understanding, side: Side | None, covered: str | None = None, alternatives: Sequence[str] = ()
) -> list[Effect]:
    """What to do about `heard`: `side` the Duet side named in it, `covered` a covered card its words
    name, `alternatives` the recognizer's runners-up worth offering for a card."""
    game = view.game
    if isinstance(heard, HeardCommand) and heard.command in KEY_REQUESTS:  # changes nothing: never asked back
        return by_ear.answer(view, heard.command, heard.word if isinstance(heard, HeardClueCheck) else "")
    if isinstance(heard, HeardCommand):
        if heard.action is Action.CONFIRM:
            return [Ask(ConfirmCommand(command=heard.command, heard_text=heard.heard))]
        return commands.command(view, heard.command)
    if game.over:
        return [Say(view.t("input.game_over_already"))]
    if isinstance(heard, HeardSide):
        return choose_side(view, Side(heard.side))
    if side is not None and not game.TEAMS and not isinstance(heard, HeardClue | HeardGuess):
        return choose_side(view, side)
    if isinstance(heard, HeardCorrection):
        return clue_giving.correct(view, heard)
    if isinstance(heard, HeardClue):
        claimed = [Claim(side)] if side is not None and not game.TEAMS else []
        view = view.claiming(side) if claimed else view
        clue = PendingClue(heard.clue.word, heard.clue.number, heard.clue.spelled, sure=not heard.by_ear)
        if heard.action is Action.CONFIRM and game.state.phase is Phase.CLUE:
            return [*claimed, Ask(ConfirmHeardClue(clue=clue))]
        return [*claimed, *clue_giving.take_clue(view, clue)]
    if isinstance(heard, HeardWord):
        if heard.action is not Action.ACCEPT:  # one word heard unsure: not worth a question of its own
            return reprompt(view)
        return clue_giving.word_alone(view, heard.word, heard.spelled)
    if isinstance(heard, HeardNumber):
        return [Say(view.t("clue.need_word"), remember=False)]
    if isinstance(heard, HeardGuess):
        claimed = [Claim(side)] if side is not None and not game.TEAMS else []
        view = view.claiming(side) if claimed else view
        return [*claimed, *guessing.take_guess(view, heard, covered, alternatives)]
    if covered is not None and game.state.phase in (Phase.GUESS, Phase.SUDDEN_DEATH):
        return [Say(view.t("guess.covered_already", card=covered), remember=False)]
    if isinstance(heard, OffGrid):
        board = game.board
        return [Say(view.t("guess.off_grid", columns=board.grid.columns, rows=board.grid.rows), remember=False)]
    return reprompt(view)


def reprompt(view: View) -> list[Effect]:
    """Not understood: ask again for what the phase waits for."""
    phase = view.game.state.phase
    if phase is Phase.SIMULATED_TURN:
        return [Say(view.t("input.reprompt") + " " + view.announce.next_prompt(), remember=False)]
    if phase in (Phase.GUESS, Phase.SUDDEN_DEATH):
        return [Say(view.t("input.reprompt_guess"), remember=False)]
    return [Say(view.t("input.reprompt_clue"), remember=False)]


def choose_side(view: View, side: Side) -> list[Effect]:
    """A Duet player says who they are: the next clue or sudden-death guess is theirs."""
    game = view.game
    if side in game.clue_givers():
        return [Claim(side), Say(view.t("game.clue_prompt_duet", side=side.value.upper()))]
    if game.state.phase is Phase.SUDDEN_DEATH and side in game.guessers():
        return [Claim(side), Say(view.t("game.guess_prompt_duet", side=side.value.upper()))]
    return [Say(view.announce.next_prompt(), remember=False)]
