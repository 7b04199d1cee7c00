"""The lines the host just let be in a row (silence, "Sorry?"), kept for the next line to be heard with.

A player met with silence says the move again, and Whisper rarely writes it the same way twice: what each
line let be made of the cards (`Moment.let_be`), of a clue (`Moment.clue_let_be`) and its words
(`Moment.let_be_text`) add up with the next line. One record, renewed with every line the host hears.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from voicehost.decision import calibration
from voicehost.decision.cards import belief_of
from voicehost.decision.clues import number_belief
from voicehost.referee.attention import Attention
from voicehost.referee.take_up import TakenUp
from voicehost.understanding import NotUnderstood
from voicehost.understanding.moment import Awaited

LET_BE_LINES: Final = 2
"""How many lines let be in a row the next line is heard with (`Moment.let_be`): a player met with silence
says the move again, and the bench's players give up on a move after four tries."""

Belief = tuple[tuple[str, float], ...]  # each phrase's log-share, as one line heard it
ClueBelief = tuple[str, tuple[tuple[int | None, float], ...]]  # a clue's word, and each number's log-share


def let_be(taken: TakenUp) -> bool:
    """Whether the host lets the line be: silence, "Sorry?", or (said to the host, the addressed way) "I did
    not catch that, say a card": each time the player says the move again, so what it made of each card
    is kept for the next line. MBROLA pt1's "apresentador, orelha", met with "Não percebi" four times,
    scored ORELHA first each time, each too low to ask alone."""
    if taken.verdict in (Attention.IGNORE, Attention.SORRY):
        return True
    return taken.verdict is Attention.TAKE and isinstance(taken.understood, NotUnderstood)


@dataclass(frozen=True)
class LetBe:
    """What the lines just let be made of the cards and of a clue, and the words of the last one."""

    beliefs: tuple[Belief, ...] = ()
    clues: tuple[ClueBelief, ...] = ()
    text: str = ""  # the words of the line just let be, for the next line to be heard as its repeat

    def after(self, taken: TakenUp) -> LetBe:
        """The record once `taken` was let be: it joins the lines before it (at most `LET_BE_LINES` in all)."""
        belief, clue = let_be_belief(taken), let_be_clue(taken)
        return LetBe(
            () if belief is None else (*self.beliefs[1 - LET_BE_LINES :], belief),
            () if clue is None else (*self.clues[1 - LET_BE_LINES :], clue),
            taken.reading.text,
        )

    @property
    def summed(self) -> Belief:
        """The log-shares of the lines' beliefs added up, phrase by phrase."""
        total: dict[str, float] = {}
        for belief in self.beliefs:
            for phrase, value in belief:
                total[phrase] = total.get(phrase, 0.0) + value
        return tuple(total.items())


def let_be_belief(taken: TakenUp) -> Belief | None:
    """What a line the host lets be (silence, or "Sorry?") made of each phrase, for the next line to be heard
    with (`Moment.let_be`); None when it holds nothing of a guess (no scores of the cards, a question
    waiting, the host talking)."""
    moment = taken.reading.moment
    if not moment.guessing or moment.asked or moment.over_host:
        return None
    return belief_of(taken.heard, taken.reading, calibration())


def let_be_clue(taken: TakenUp) -> ClueBelief | None:
    """What a line the host lets be while a clue is awaited made of the clue it may be (its word, its
    numbers), for the next line to be heard with (`Moment.clue_let_be`); None when it holds none."""
    moment = taken.reading.moment
    if moment.awaited is not Awaited.CLUE or moment.asked or moment.over_host:
        return None
    return number_belief(taken.heard, taken.reading)
