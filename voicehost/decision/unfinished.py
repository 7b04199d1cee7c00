"""Whether what was said so far is unfinished, so the ears wait a moment before closing the utterance
(`voicehost.ears.vad.HOLD_MS`): a clue's word said without its number ("frutta ... tre", a comma's pause
longer than the closing silence) is one clue, not a word and then the clue "3"; and where a move counts
only said to the host, its name said first ("Host ... sardine") is one move with what follows, not a
name alone and then a card nobody addressed."""

from __future__ import annotations

from dataclasses import replace

from voicehost.decision.decide import decide
from voicehost.ears.heard import Heard
from voicehost.understanding import HeardWord
from voicehost.understanding.moment import Awaited, ListenMode, Moment
from voicehost.understanding.reading import Reading
from voicehost.understanding.talk import form_of


def unfinished(heard: Heard, moment: Moment) -> bool:
    """A clue's word heard alone while a clue is awaited (nothing asked, the host silent), in Duet a
    player's side said before their clue, or (the addressed way) the host's name alone."""
    if moment.asked or moment.over_host or not heard.text.strip():
        return False
    form = form_of(heard.text, moment.lang, moment.host_names)
    if moment.listening is ListenMode.ADDRESSED and _name_alone(heard, form.addressed, form.text):
        return True
    if moment.awaited is not Awaited.CLUE:
        return False
    text = form.text if form.addressed else heard.text  # "Conduttore, città ...": the move is "città"
    reading = Reading(text, moment, heard.confidence)
    if reading.side is not None:
        return True  # "A ..." in Duet: the clue comes next
    return isinstance(decide(replace(heard, text=text), reading), HeardWord)


def _name_alone(heard: Heard, addressed: bool, rest: str) -> bool:
    """The host's name and nothing after it ("Host ..."), or one word that is no move heard where only
    moves said to the host count: Whisper writes a lone "host" as "Oost" or "pause" far more often than
    as the name."""
    if addressed:
        return not rest.strip(" ,.!?")
    return len(heard.text.split()) == 1
