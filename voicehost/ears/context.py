"""What makes sense to hear now: the host builds it before every utterance, the recognizers read it."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from engine.decks import aliases_of, picture_names, words
from engine.lang import Lang


@dataclass(frozen=True)
class Context:
    """What makes sense to hear now: the phase decides between a free clue and a closed set."""

    lang: Lang
    guessing: bool  # True: a visible card, a command, yes/no; False: any word and a number
    cards: tuple[str, ...] = ()  # the visible cards, as printed
    phrases: tuple[str, ...] = ()  # command and yes/no phrases, and while guessing the lead-ins, lowercase
    answering: bool = False  # the host asked a yes/no question: "yes" and "no" are candidates too
    over_host: bool = False  # the host is talking: only a player's "stop" counts, the rest is its echo
    fillers: tuple[str, ...] = ()  # other words of the language (`deck_fillers`): where speech naming no card goes
    names: tuple[str, ...] = ()  # the host's names, as said to it ("host"): a short word said first is easily lost


@cache
def deck_fillers(lang: Lang) -> tuple[str, ...]:
    """The fillers of a language (`Context.fillers`): every word and picture name of its decks, as printed.

    A closed grammar (vosk) holds them beside the cards as a filler model, so that speech naming no
    card has somewhere else to go than the card nearest in sound. One tuple per language, so a context
    compares and hashes fast. The cards of the board are among them: the recognizer leaves out every
    filler that is, or shares a word with, a card or phrase it listens for, and keeps the others, such
    as the cards already turned: said again, they are no guess."""
    return tuple(dict.fromkeys((*words(lang), *picture_names(lang))))


def make_context(
    lang: Lang, guessing: bool, cards: tuple[str, ...], answering: bool = False, names: tuple[str, ...] = ()
) -> Context:
    """The context of a phase, the one way the host and `voicehost hear` build it: while guessing,
    the phrases said around a card and the deck fillers too; for a clue, free words. `names`: the
    host's names, when what is said to it counts (the addressed way of playing)."""
    from voicehost.understanding import guess_phrases, listening_phrases

    phrases = guess_phrases(lang) if guessing else listening_phrases(lang)
    if guessing:  # a picture by its other names, and any card by its place ("row two column three")
        phrases = (*phrases, *other_names(lang, cards), *place_phrases(lang))
    fillers = deck_fillers(lang) if guessing else ()
    return Context(lang, guessing, cards, phrases, answering, fillers=fillers, names=names)


def other_names(lang: Lang, cards: tuple[str, ...]) -> tuple[str, ...]:
    """The other names of the pictures among `cards`, lowercase: phrases a closed grammar must hold."""
    return tuple(dict.fromkeys(alias.lower() for card in cards for alias in aliases_of(card, lang)))


@cache
def place_phrases(lang: Lang) -> tuple[str, ...]:
    """Every place of the largest grid (5x5) said the plainest way, and as a column letter and a row
    number, lowercase: phrases a closed grammar must hold for a card to be named by its place."""
    from voicehost.understanding.positions import lettered_phrases, position_phrases

    plain = [phrase for phrase, _, _ in position_phrases(lang, 5, 5)]
    return tuple(dict.fromkeys(p.lower() for p in (*plain, *lettered_phrases(lang, 5, 5))))
