"""An utterance's words read once, in the moment they were said, and carried from the decision to the
referee: each way of reading them is computed the first time it is asked for, and never again.

`said` is what the words mean now (the phase's reading, the cards that may be meant, the recognizer's
confidence); `typed` is the same words read as a guess among the visible cards, as if typed (did the
words themselves name the card the scores found?); `everything` reads them against every card of the
board, covered ones too (a covered card named by its name gets an answer, not another card).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from engine.pieces import Side
from voicehost.understanding.moment import Moment
from voicehost.understanding.recognize import understand
from voicehost.understanding.results import Action, HeardClue, NotUnderstood, Phase, Understanding
from voicehost.understanding.sides import side_named
from voicehost.understanding.talk import names_a_clue


@dataclass(frozen=True, eq=False)
class Reading:
    """The words of one move (the host's name and a commit phrase already taken off), read in `moment`."""

    text: str
    moment: Moment
    confidence: float | None = None  # the recognizer's; None: typed
    claimed: Side | None = None  # Duet: the side said before the move ("A: touro, dois"), taken off `text`

    @property
    def phase(self) -> Phase:
        """How the phase-dependent words are read ("basta": pass while guessing, stop talking otherwise,
        and always "stop" over the host's voice)."""
        return Phase.GUESS if self.moment.guessing and not self.moment.over_host else Phase.CLUE

    @cached_property
    def said(self) -> Understanding:
        """What the words mean now: among the cards that may be meant, in the phase, as sure as heard."""
        moment = self.moment
        return understand(
            self.text,
            phase=self.phase,
            cards=moment.cards,
            lang=moment.lang,
            asr_confidence=self.confidence,
            grid=moment.grid,
        )

    @cached_property
    def voiced(self) -> Understanding:
        """`said`, save a clue heard by voice whose word no spymaster gives (`names_a_clue`: "bem, 1", "até,
        1" are the others' talk in a din): that is no clue, and the line is weighed as any line the
        transcript makes nothing of. Typed, every clue stands for the rules to judge."""
        said = self.said
        if (
            self.confidence is not None
            and isinstance(said, HeardClue)
            and not said.clue.spelled
            and not names_a_clue(said.clue.word, self.moment.lang)
        ):
            return NotUnderstood(self.text, Action.REPROMPT, 0.0)
        return said

    @cached_property
    def named(self) -> Understanding:
        """The words as typed, as a guess among the cards that may be meant, without places: whether the
        transcript itself names the card the scores put first (a feature of the calibrated decision)."""
        return understand(self.text, phase=Phase.GUESS, cards=self.moment.cards, lang=self.moment.lang)

    @cached_property
    def typed(self) -> Understanding:
        """The words as typed, as a guess among the visible cards (places too)."""
        moment = self.moment
        return understand(self.text, phase=Phase.GUESS, cards=moment.visible, lang=moment.lang, grid=moment.grid)

    @property
    def plainly(self) -> Understanding | None:
        """`typed` when the words name its move exactly (a card or a command as written, not a slip away:
        "Siena" is a slip from HIENA, "Lhena." from ORELHA's garble); None otherwise. What words alone may
        do where the scores are not to be trusted (a move just denied, a line that came as an answer)."""
        typed = self.typed
        return typed if typed.action is Action.ACCEPT and typed.confidence >= 1.0 else None

    @cached_property
    def everything(self) -> Understanding:
        """The words as typed, as a guess among every card of the board, covered ones too."""
        moment = self.moment
        return understand(self.text, phase=Phase.GUESS, cards=moment.board, lang=moment.lang, grid=moment.grid)

    @cached_property
    def side(self) -> Side | None:
        """The Duet side named: said before the move, or the words are only that ("A", "player B")."""
        if self.claimed is not None:
            return self.claimed
        return side_named(self.text, self.moment.lang) if self.moment.sides else None

    def again(self, moment: Moment) -> Reading:
        """The same words read in another moment (an utterance that was no answer, read against every card)."""
        return Reading(self.text, moment, self.confidence, self.claimed)
