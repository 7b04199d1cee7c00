"""Speech recognition behind one small interface, so the host does not care which engine hears.

Engines are adapters around heavy libraries (vosk, faster-whisper) that are imported inside the
adapter and installed as extras; `make_recognizer` builds one by name, so tests can swap a fake.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import cache
from typing import Final, Protocol

import numpy as np
import numpy.typing as npt

from engine.decks import picture_names, words
from engine.lang import Lang

SAMPLE_RATE: Final = 16000
"""Every engine here hears 16 kHz mono float32 in [-1, 1]."""

Audio = npt.NDArray[np.float32]


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


@cache
def deck_fillers(lang: Lang) -> tuple[str, ...]:
    """The fillers of a language (`Context.fillers`): every word and picture name of its decks, as printed.

    A closed grammar (vosk) holds them beside the cards as a filler model, so that speech naming no
    card has somewhere else to go than the card nearest in sound. One tuple per language, so a context
    compares and hashes fast. The cards of the board are among them: the recognizer leaves out every
    filler that is, or shares a word with, a card or phrase it listens for, and keeps the others, such
    as the cards already turned: said again, they are no guess."""
    return tuple(dict.fromkeys((*words(lang), *picture_names(lang))))


def make_context(lang: Lang, guessing: bool, cards: tuple[str, ...], answering: bool = False) -> Context:
    """The context of a phase, the one way the host and `voicehost hear` build it: while guessing,
    the phrases said around a card and the deck fillers too; for a clue, free words."""
    from voicehost.understanding import guess_phrases, listening_phrases

    phrases = guess_phrases(lang) if guessing else listening_phrases(lang)
    fillers = deck_fillers(lang) if guessing else ()
    return Context(lang, guessing, cards, phrases, answering, fillers=fillers)


@dataclass(frozen=True)
class Heard:
    """One utterance as the engine understood it, with its confidence (0..1) when the engine has one."""

    text: str
    confidence: float | None = None
    decode_ms: float = 0.0
    alternatives: tuple[tuple[str, float], ...] = field(default=())  # (text, score) runners-up, best first
    start_s: float | None = None  # where the utterance lies in the audio stream, when known
    end_s: float | None = None


class Recognizer(Protocol):
    """Turns one utterance of audio into text, given what makes sense now."""

    def recognize(self, audio: Audio, context: Context) -> Heard: ...


class StreamingRecognizer(Protocol):
    """Listens to a stream of audio chunks and yields each utterance as it ends (vosk does its own
    end-of-speech detection; whisper gets it from a voice activity detector)."""

    def listen(self, chunks: Iterable[Audio], context: ContextSource) -> Iterator[Heard]: ...


class ContextSource(Protocol):
    def __call__(self) -> Context: ...
