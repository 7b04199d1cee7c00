"""Whether the host takes an utterance up: table talk is left alone, and in the addressed way of playing
only what is said to the host moves the game.

The host cannot tell voices apart: it judges by what was said (its form, `understanding.talk`) and when
(the phase, and whether it has just asked something). Nothing here speaks; the host does what the
verdict says.
"""

from __future__ import annotations

import enum
from dataclasses import replace
from typing import Final

from voicehost.understanding import (
    HeardClue,
    HeardCommand,
    HeardGuess,
    HeardNumber,
    HeardWord,
    NotUnderstood,
    Understanding,
)
from voicehost.understanding.moment import ListenMode
from voicehost.understanding.results import ANSWERS, READ_ONLY, Action, Command, HeardCorrection, HeardSide
from voicehost.understanding.talk import Form


class Attention(enum.Enum):
    """What the host does with an utterance."""

    TAKE = "take"  # act on it as understood
    ASK_BACK = "ask_back"  # said to the host, but hedged ("Host, maybe the piano"): asked back, never acted on at once
    HINT = "hint"  # a sure move not said to the host, in the addressed way: say once how to say it, else nothing
    SORRY = "sorry"  # the form of a move, but nothing to act on: a short "Sorry?", so the table knows it was heard
    IGNORE = "ignore"  # talk, or a move out of turn not said to the host: silence


SAFE_UNADDRESSED: Final = READ_ONLY | {Command.STOP_TALKING, Command.LISTEN_ADDRESSED, Command.WHOSE_TURN}
"""Commands taken without the host's name even in the addressed way: they change nothing in the game."""


def attend(
    form: Form,
    understood: Understanding,
    *,
    listening: ListenMode,
    guessing: bool,
    answering: bool,
    lone_card: bool = False,
    worded: bool = True,
    sure_unworded: bool = False,
    move_shaped: bool = False,
) -> Attention:
    """What the host does with one utterance: `form` how it was said, `understood` what it means,
    `guessing` whether operatives are to guess now (else a clue is awaited), `answering` whether the host
    has just asked something (an answer needs no name: the host and the table are in a dialogue),
    `lone_card` whether it is a visible card's name and nothing else, `worded` whether the words heard
    name the card understood (False when only the ears' scores found it in garbled speech), `sure_unworded`
    whether such a card is still one to act on at once in the open way (`take_up.sure_unworded`), `move_shaped`
    whether, not understood, it still had the form of a move (a card half heard, a clue with a garbled
    number): the table must know the host heard it."""
    if form.talk:
        return Attention.ASK_BACK if form.addressed else Attention.IGNORE
    if answering and not form.addressed and isinstance(understood, HeardGuess) and not worded:
        return Attention.ASK_BACK  # "PLANETA?" answered by talk that only scores as PLANETA: no confirmation
    if form.addressed or answering:
        return Attention.TAKE
    if isinstance(understood, HeardCommand):
        if understood.command in ANSWERS:
            return Attention.IGNORE  # "yes!" after a good reveal, with nothing asked: cheering, not a move
        if understood.command in SAFE_UNADDRESSED or listening is ListenMode.OPEN:
            return Attention.TAKE
        return _hint_if_sure(understood)
    out_of_turn = (isinstance(understood, HeardClue) and guessing) or (
        (isinstance(understood, HeardGuess) or lone_card) and not guessing
    )
    if out_of_turn:
        return Attention.IGNORE  # "oceano, dois" while the operatives talk; a lone card while the spymaster thinks
    if isinstance(understood, HeardCorrection | HeardWord | HeardNumber | HeardSide) and listening is ListenMode.OPEN:
        return Attention.TAKE  # "no, fruit" before the first guess; "fruit" waiting for its number; "three" alone
    if not isinstance(understood, HeardClue | HeardGuess):
        if move_shaped and listening is ListenMode.OPEN:
            return Attention.SORRY
        return Attention.IGNORE  # not understood, and nothing like a move: nobody is waiting for an answer
    unworded_unsure = isinstance(understood, HeardGuess) and not worded and not sure_unworded
    if listening is ListenMode.ADDRESSED:
        # the hint is for a move the open way would act on: a card only the scores found in garbled words
        # ("e a desemproposidade nas", talk over babble, scored COMETA) is far more often talk
        return Attention.IGNORE if unworded_unsure else _hint_if_sure(understood)
    if unworded_unsure:
        return Attention.ASK_BACK  # open: a card only the scores found may be talk heard badly; ask back
    return Attention.TAKE


def _hint_if_sure(understood: Understanding) -> Attention:
    """The hint is for a player who clearly made a move without the name; a line only half heard as one
    is far more often talk about a card, and a hint there would be the host butting in."""
    return Attention.HINT if understood.action is Action.ACCEPT else Attention.IGNORE


def hedged(understood: Understanding) -> Understanding:
    """A move said to the host but hedged ("Host, maybe the piano"): asked back, never acted on at once."""
    if understood.action is not Action.ACCEPT:
        return understood
    if isinstance(understood, HeardCommand) and understood.command in READ_ONLY:
        return understood
    if isinstance(understood, HeardGuess | HeardClue | HeardCommand):
        return replace(understood, action=Action.CONFIRM)
    return NotUnderstood(understood.heard, Action.REPROMPT, understood.confidence)
