"""An "undo" garbled past its words while the next clue is awaited: a card revealed wrongly often ends the
turn, and the table's "undo" then comes while a clue is awaited, when only a clue's number is scored.
MBROLA pt1's "apresentador, desfaz" came out "apresentador deste faço." three times and the wrong reveal
stood. Every way of saying "undo" is scored as a transcript of the line (`Heard.undo`, per token); a short line
one of them explains nearly as well as the free transcript does is taken for it. An undo is always asked
first ("Desfazer PESCADOR?"), so a line taken wrongly costs the table a question; the point keeps those few in
every room, for in a din the "no" may go unheard and a stray "yes" be heard instead."""

from __future__ import annotations

from typing import Final

from engine.lang import Lang
from voicehost.decision.calibration import Calibration
from voicehost.ears.heard import Heard
from voicehost.understanding import Action, Command, HeardCommand
from voicehost.understanding.reading import Reading
from voicehost.understanding.talk import content_words

MAX_UNDO_WORDS: Final = 5
"""A longer line is talk about the game, not a garbled undo (as for the endings: `endings.MAX_ENDING_WORDS`)."""


def may_be_undo(text: str, lang: Lang) -> bool:
    """Whether a line is worth weighing as a garbled undo: a word or a few (a longer line is talk), one of which
    could name something ("the", "I", "My": a stray piece of the others' talk that every undo phrase explains
    as well as its own transcript does, a token long, and a stray "the" asked "Undo the pass?" in babble)."""
    return 0 < len(text.split()) <= MAX_UNDO_WORDS and bool(content_words(text, lang))


def undo_near(heard: Heard, reading: Reading, model: Calibration) -> HeardCommand | None:
    """The undo a short line is likely to be: within `Calibration.undo_gap` nats a token of the free transcript
    (chosen on the tuning voices by `python -m bench.calibrate --undo-only` so that, in every room, few of the
    lines said while a clue is awaited are asked "undo?"); None otherwise, or when no point was chosen."""
    point = model.undo_gap
    if heard.undo is None or point is None or not may_be_undo(reading.text, reading.moment.lang):
        return None
    phrase, gap = heard.undo
    return HeardCommand(phrase, Action.ACCEPT, 1.0, Command.UNDO) if gap <= point else None
