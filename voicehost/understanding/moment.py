"""What the host waits for when an utterance comes: one type, built by the host in one place
(`Host.moment`), read by the ears (what to listen for), the decision (what it may mean) and the
referee (whether to take it up). `voicehost hear` and the bench build one with `moment_for`.

It is here, below the ears, because the ears read it and must not import the host.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, replace
from functools import cache

from engine.decks import aliases_of, picture_names, words
from engine.lang import Lang
from voicehost.understanding.positions import Grid, lettered_phrases, position_phrases
from voicehost.understanding.results import Command
from voicehost.understanding.vocabulary import guess_phrases, listening_phrases


class Awaited(enum.Enum):
    """What the game waits for from the table."""

    CLUE = "clue"  # a clue giver speaks: any word and a number
    GUESS = "guess"  # operatives name a card (sudden death too)
    COVER = "cover"  # a card is chosen in private (the simulated team's): a card named aloud gets one reply
    OVER = "over"  # the game is over: a new game, or quit


class ListenMode(enum.Enum):
    """The two ways of playing (`voicehost play --listen`, or said to the host during the game)."""

    ADDRESSED = "addressed"  # a move counts only said to the host: "Host, cherry" or "cherry, final answer"
    OPEN = "open"  # a move counts whenever it has the form of one; talk is still left alone


@dataclass(frozen=True)
class Moment:
    """What the host waits for, and what it has asked. Hashable: the ears key their grammars by it."""

    lang: Lang
    awaited: Awaited
    visible: tuple[str, ...] = ()  # the board's cards not covered yet
    grid: Grid | None = None  # the whole board as places ("B3"); None reads no places
    asked: bool = False  # a question waits for its answer (an answer needs no name)
    offers: tuple[str, ...] | None = None  # a yes-or-no question's cards ("CEREJA?"); None: no such question
    before: tuple[tuple[str, float], ...] = ()  # what the first hearing made of the cards asked about
    unclear: str | None = None  # the card the scores came near in the line just answered "Sorry?"
    denied: tuple[str, ...] = ()  # cards asked back and answered "no" by the line just before
    denied_commands: tuple[Command, ...] = ()  # moves asked back and answered "no" ("pass?" - "no") by it
    let_be: tuple[tuple[str, float], ...] = ()  # what the lines just met with silence or "Sorry?" made of each
    # phrase, log-shares summed (`voicehost.decision.cards.belief_of`): the same move said again adds up
    clue_let_be: tuple[tuple[str, tuple[tuple[int | None, float], ...]], ...] = ()  # while a clue is awaited:
    # each line let be as a clue, its word and its numbers' log-shares (`voicehost.decision.clues.number_belief`)
    let_be_text: str = ""  # the words of the line just met with silence or "Sorry?", for a line saying it again
    listening: ListenMode = ListenMode.OPEN
    host_names: tuple[str, ...] = ()  # every name the host answers to, the one it tells players first
    over_host: bool = False  # the host is talking: only a player's "stop" counts, the rest is its echo
    correctable: bool = False  # a clue was just given and nobody has guessed: its spymaster may correct it
    undoable: bool = False  # something was done that "undo" takes back: while a clue is awaited its phrases are scored
    nothing_to_pause: bool = False  # no sand runs and the guessers may pass: "pause" is the pass it sounds like
    sides: bool = False  # Duet: the players are A and B, and say so ("A: touro, dois")
    spoken_phrases: tuple[str, ...] | None = None  # `phrases` for a speech model of another language (tests)
    spoken_fillers: tuple[str, ...] | None = None  # `fillers` for a speech model of another language (tests)

    @property
    def guessing(self) -> bool:
        """Operatives are to guess now (else a clue, a private cover, or nothing is awaited)."""
        return self.awaited is Awaited.GUESS

    @property
    def answering(self) -> bool:
        """A yes-or-no question waits: "yes" and "no" are candidates too."""
        return self.offers is not None

    @property
    def hears_cards(self) -> bool:
        """Whether a card is what makes sense now (guessing, answering "CEREJA?", a card named while one
        is chosen in private): the ears score the cards as candidates; else a clue's word and number."""
        return self.answering or (not self.asked and self.awaited in (Awaited.GUESS, Awaited.COVER))

    @property
    def cards(self) -> tuple[str, ...]:
        """The cards an utterance may name now: those asked about, else every visible one."""
        return self.offers if self.offers is not None else self.visible

    @property
    def board(self) -> tuple[str, ...]:
        """Every card of the board, covered ones too (the grid's; the visible ones where no grid is known):
        what a line may name even when it names no card it may guess."""
        return self.grid.cards if self.grid is not None else self.visible

    @property
    def scored_cards(self) -> tuple[str, ...]:
        """The cards the ears score: those asked about first, then (while a question waits) every other
        visible card too, so that "yes" must beat each of them: a player who names another card instead
        of answering ("CEREJA?" - "hospital") is heard naming it, not saying "yes"."""
        if self.offers is None:
            return self.visible
        return tuple(dict.fromkeys((*self.offers, *self.visible)))

    @property
    def names(self) -> tuple[str, ...]:
        """The host's names the ears listen for before a move: only when a move counts said to it."""
        return self.host_names if self.listening is ListenMode.ADDRESSED else ()

    @property
    def belief(self) -> dict[str, float]:
        """`before` as a mapping: the share each card asked about had at the first hearing."""
        return dict(self.before)

    @property
    def phrases(self) -> tuple[str, ...]:
        """Phrases a closed grammar holds besides the cards, lowercase: commands and yes/no, and while a
        card makes sense the lead-ins, the pictures' other names and the places too."""
        if self.spoken_phrases is not None:
            return self.spoken_phrases
        if not self.hears_cards:
            return listening_phrases(self.lang)
        return (*guess_phrases(self.lang), *other_names(self.lang, self.cards), *place_phrases(self.lang))

    @property
    def fillers(self) -> tuple[str, ...]:
        """Other words of the language, where speech naming no card goes (`deck_fillers`); none for a clue."""
        if not self.hears_cards:
            return ()
        return self.spoken_fillers if self.spoken_fillers is not None else deck_fillers(self.lang)

    def afresh(self) -> Moment:
        """The same moment with no question: an utterance that was no answer, read against every card."""
        return replace(self, asked=False, offers=None, before=())

    def denies(self, phrase: str, command: Command | None) -> bool:
        """Whether the table just said "no" to the move `phrase` says (a card, or `command`): the scores alone
        do not offer it to the next line (`voicehost.decision.cards`)."""
        return phrase in self.denied or (command is not None and command in self.denied_commands)

    def over_talk(self) -> Moment:
        """The same moment while the host talks: its echo is in the room, only "stop" counts."""
        return replace(self, over_host=True)


def moment_for(lang: Lang, cards: tuple[str, ...], columns: int, awaited: Awaited) -> Moment:
    """A moment with every card of a board visible and nothing asked (`voicehost hear`, the bench)."""
    return Moment(lang, awaited, visible=cards, grid=Grid(cards, columns))


@cache
def deck_fillers(lang: Lang) -> tuple[str, ...]:
    """The fillers of a language: every word and picture name of its decks, as printed.

    A closed grammar (vosk) holds them beside the cards as a filler model, so that speech naming no
    card has somewhere else to go than the card nearest in sound. One tuple per language. The cards of
    the board are among them: the recognizer leaves out every filler that is, or shares a word with, a
    card or phrase it listens for, and keeps the others, such as the cards already turned: said again,
    they are no guess."""
    return tuple(dict.fromkeys((*words(lang), *picture_names(lang))))


def other_names(lang: Lang, cards: tuple[str, ...]) -> tuple[str, ...]:
    """The other names of the pictures among `cards`, lowercase: phrases a closed grammar must hold."""
    return tuple(dict.fromkeys(alias.lower() for card in cards for alias in aliases_of(card, lang)))


@cache
def place_phrases(lang: Lang) -> tuple[str, ...]:
    """Every place of the largest grid (5x5) said the plainest way, and as a column letter and a row
    number, lowercase: phrases a closed grammar must hold for a card to be named by its place."""
    plain = [phrase for phrase, _, _ in position_phrases(lang, 5, 5)]
    return tuple(dict.fromkeys(p.lower() for p in (*plain, *lettered_phrases(lang, 5, 5))))
