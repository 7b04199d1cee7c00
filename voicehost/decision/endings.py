"""Once a game is over only "new game" and "quit" make sense, and each is a short phrase Whisper often
garbles ("sair do jogo" comes out "Sai no dujogo. Sai"). Every way of saying them was scored as a
transcript of the utterance (`Heard.commands`, per token); one that explains the audio nearly as well as
the free transcript does (within `Calibration.ending_gap` nats a token, chosen on the tuning voices by
`bench.calibrate` so that table talk after a game is not taken for either; None where no gap keeps it
out, and only the words count) is taken. A short line within a wider gap (`Calibration.ending_ask`) is
likely one garbled past taking ("Sai na tua jogo."): the host asks it back ("Sair do jogo?"), so the table
leaves with a "sim" the ears hear well rather than saying a garbled phrase again."""

from __future__ import annotations

from dataclasses import replace
from typing import Final

from voicehost.decision.calibration import Calibration
from voicehost.ears.heard import Heard
from voicehost.understanding import Action, HeardCommand, NotUnderstood, Understanding
from voicehost.understanding.reading import Reading
from voicehost.understanding.results import Command
from voicehost.understanding.text import Phrases, keys_of, tokenize
from voicehost.understanding.vocabulary import ENDINGS, ending_of, ending_phrases, vocabulary

MAX_ENDING_WORDS: Final = 5
"""A transcript longer than this is talk about the game, not a garbled "new game" or "quit"."""
MIN_INSIDE_WORDS: Final = 2
"""An ending found inside a line has at least this many words: "jogar de novo" in "quero jogar de novo" is a new
game, "sair" in "vamos sair para jantar" no quit."""


def at_game_over(reading: Reading) -> HeardCommand | None:
    """What a line means once the game is over before any scores are weighed: "pass" heard unsure is taken,
    so the host says at once that the game is over instead of asking "Did you say pass?" about a move that
    cannot be made; "new game" or "quit" said inside a short line of the table's own words ("quero jogar de
    novo", "I want to play again": the host's prompt says "say new game to play again") is asked back, as it
    may be talk ("não quero jogar de novo" answered "não"). None: neither."""
    said = reading.said
    if isinstance(said, HeardCommand):
        if said.command is Command.PASS and said.action is Action.CONFIRM:
            return replace(said, action=Action.ACCEPT)
        return None
    lang = reading.moment.lang
    joined = vocabulary(lang).join_apostrophes
    words = keys_of(tokenize(reading.text, joined))
    if not 0 < len(words) <= MAX_ENDING_WORDS:
        return None
    written = {keys_of(tokenize(phrase, joined)): phrase for phrase in ending_phrases(lang)}
    inside = Phrases(keys for keys in written if len(keys) >= MIN_INSIDE_WORDS)
    for start in range(len(words)):
        length = inside.prefix(words, start)
        if length:
            phrase = written[words[start : start + length]]
            return HeardCommand(phrase, Action.CONFIRM, 1.0, ending_of(lang, phrase))
    return None


def ending_gap(heard: Heard) -> float | None:
    """How many nats a token the best "new game" or "quit" phrase explains the audio worse than the free
    transcript (0 or less: as well or better); None when nothing was scored."""
    commands, whole = heard.commands, heard.transcript_logprob
    if commands is None or whole is None or not commands.logprobs:
        return None
    return whole - commands.logprobs[0]


def ending_verdict(heard: Heard, reading: Reading, model: Calibration) -> Understanding:
    """The words' own reading when they say a command plainly; else "new game" or "quit" from the scores
    when one is within the calibrated gap of the transcript and the line is short; else, when one is only
    near (`ending_near`), that ending asked back. Asked at the first hearing: answered "Sorry?" instead, a
    table in babble said "sair do jogo" five times ("Saindo de jogas.", "Saiu do Jão Goliás", "Seis.") and
    could not leave, each garble a different distance from the phrase; "sim" is heard at once."""
    said = reading.said
    if isinstance(said, HeardCommand) and said.command in ENDINGS and said.action is Action.ACCEPT:
        return said
    gap, point = ending_gap(heard), model.ending_gap
    if gap is None or heard.commands is None or not 0 < len(reading.text.split()) <= MAX_ENDING_WORDS:
        return said
    phrase = heard.commands.phrases[0]
    command = ending_of(reading.moment.lang, phrase)
    if point is not None and gap <= point:
        return HeardCommand(phrase, Action.ACCEPT, 1.0, command)
    if isinstance(said, NotUnderstood) and ending_near(heard, reading, model):
        return HeardCommand(phrase, Action.CONFIRM, 1.0, command)
    return said


def ending_near(heard: Heard, reading: Reading, model: Calibration) -> bool:
    """Whether a short line once the game is over is likely "new game" or "quit" garbled: within the
    calibrated gap for asking it back (`Calibration.ending_ask`), where few lines of talk fall."""
    gap, point = ending_gap(heard), model.ending_ask
    if gap is None or point is None:
        return False
    return gap <= point and 0 < len(reading.text.split()) <= MAX_ENDING_WORDS
