"""Whether what was said so far is unfinished, so the ears wait a moment before closing the utterance
(`voicehost.ears.vad.HOLD_MS`): a clue's word said without its number ("frutta ... tre", a comma's pause
longer than the closing silence) is one clue, not a word and then the clue "3"."""

from __future__ import annotations

from dataclasses import replace

from voicehost.decision.decide import decide
from voicehost.ears.heard import Heard
from voicehost.understanding import HeardWord
from voicehost.understanding.moment import Awaited, Moment
from voicehost.understanding.reading import Reading
from voicehost.understanding.talk import form_of


def unfinished(heard: Heard, moment: Moment) -> bool:
    """A clue's word heard alone while a clue is awaited (nothing asked, the host silent), or in Duet a
    player's side said before their clue."""
    if moment.awaited is not Awaited.CLUE or moment.asked or moment.over_host or not heard.text.strip():
        return False
    form = form_of(heard.text, moment.lang, moment.host_names)
    text = form.text if form.addressed else heard.text  # "Conduttore, città ...": the move is "città"
    reading = Reading(text, moment, heard.confidence)
    if reading.side is not None:
        return True  # "A ..." in Duet: the clue comes next
    return isinstance(decide(replace(heard, text=text), reading), HeardWord)
