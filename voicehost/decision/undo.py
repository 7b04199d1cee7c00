"""An "undo" garbled past its words while the next clue is awaited: a card revealed wrongly often ends the
turn, and the table's "undo" then comes while a clue is awaited, when only a clue's number is scored.
MBROLA pt1's "apresentador, desfaz" came out "apresentador deste faço." three times and the wrong reveal
stood. Every way of saying "undo" is scored as a transcript of the line (`Heard.undo`, per token); a short line
one of them explains nearly as well as the free transcript does is taken for it. Taking it is safe: an undo
is always asked first ("Desfazer PESCADOR?"), so a line taken wrongly costs the table one "no"."""

from __future__ import annotations

from voicehost.decision.calibration import Calibration
from voicehost.decision.endings import MAX_ENDING_WORDS
from voicehost.ears.heard import Heard
from voicehost.understanding import Action, Command, HeardCommand
from voicehost.understanding.reading import Reading


def undo_near(heard: Heard, reading: Reading, model: Calibration) -> HeardCommand | None:
    """The undo a short line is likely to be: within the gap a garbled "new game" or "quit" is answered
    "Sorry?" from once a game is over (`Calibration.ending_sorry`, per token, chosen on the tuning voices: 62
    of 184 such commands garbled past their words, 17 of 945 other lines), the nearest point calibrated for a
    command phrase against the free transcript; None otherwise, or when no point was chosen."""
    point = model.ending_sorry
    if heard.undo is None or point is None or not 0 < len(reading.text.split()) <= MAX_ENDING_WORDS:
        return None
    phrase, gap = heard.undo
    return HeardCommand(phrase, Action.ACCEPT, 1.0, Command.UNDO) if gap <= point else None
