"""A clue given or refused, once the rules (or the opposing spymaster) have ruled on it: the effects
shared by the clue step (`clue_giving`) and the questions that settle a clue (`questions`)."""

from __future__ import annotations

from dataclasses import dataclass

from engine.legality import ClueRuling
from voicehost.referee.effects import Effect, Play, Say
from voicehost.referee.view import View


@dataclass(frozen=True)
class PendingClue:
    """A clue heard but not given yet: waiting for a ruling, a confirmation or its giver's name."""

    word: str
    number: int | None
    spelled: bool
    ruling: ClueRuling | None = None
    sure: bool = True  # heard for sure (typed, or confirmed): only then may refusing it cost a penalty


def give(view: View, clue: PendingClue) -> list[Effect]:
    giver = view.clue_giver()
    return [Play(lambda game: game.give_clue(clue.word, clue.number, by=giver))]


def reject(view: View, clue: PendingClue, ruling: ClueRuling | None) -> list[Effect]:
    """Refuse the clue: with the penalty variant the turn ends; without it, or when the host may have
    misheard it, the spymaster gives another."""
    game, giver = view.game, view.clue_giver()
    why = ruling.reason.value if ruling else "rejected"
    intro = view.t("clue.invalid", why=view.reason(ruling)) if ruling else ""
    if not clue.sure:  # no penalty ever follows from a clue the host may have half heard
        return [Say(f"{intro} {view.t('clue.refused_give_again')}")]
    play = Play(lambda g: g.reject_clue(clue.word, why, number=clue.number, by=giver), intro=intro)
    if not game.variants.invalid_clue_penalty:
        return [
            Play(play.action, announce=False, clears_side=False),
            Say(f"{intro} {view.t('clue.refused_give_again')}"),
        ]
    return [play]
