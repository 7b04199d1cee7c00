"""A clue heard: settle who gives it and whether the rules allow it, then give it, reject it, or put a
doubtful spelling to the opponent (`PutClueToOpponent`). The host's `clue`, `give_clue`, `reject_clue`,
`clue_giver` and `reason` are these functions."""

from __future__ import annotations

from engine.editions import AnyGame
from engine.game import Phase, Player
from engine.legality import ClueRuling, Reason, Verdict
from engine.pieces import Side
from voicehost.prompts import Prompts
from voicehost.referee.questions import AskClueGiver, PutClueToOpponent
from voicehost.referee.table import PendingClue, Table


def take_clue(host: Table, clue: PendingClue) -> None:
    """A clue heard: settle who gives it and whether it is legal, then give or reject it."""
    game = host.game
    phase = game.state.phase
    if phase in (Phase.GUESS, Phase.SUDDEN_DEATH):
        host.say(host.t("clue.need_guess_now"), remember=False)
        return
    if phase is Phase.SIMULATED_TURN:
        host.say(host.announce.next_prompt(), remember=False)
        return
    if clue_giver(game, host.chosen_side) is None:
        host.ask(AskClueGiver(clue=clue))
        return
    ruling = game.check_clue(clue.word, spelled=clue.spelled)
    if ruling.reason is Reason.NOT_ONE_WORD:
        # Every word said was checked against the table first ("oyster bay" hides OYSTER); none is a
        # card, so what came before the last one was a filler ("well, ocean two"): the clue is that word.
        clue.word = clue.word.split()[-1]
        ruling = game.check_clue(clue.word, spelled=clue.spelled)
    clue.ruling = ruling
    if ruling.verdict is Verdict.VALID:
        give_clue(host, clue)
    elif ruling.verdict is Verdict.INVALID:
        reject_clue(host, clue, ruling)
    else:
        host.ask(PutClueToOpponent(clue=clue))


def clue_giver(game: AnyGame, chosen: Side | None) -> Player | None:
    """Who gives the clue now: the only one who may, or the Duet player who said it was them (`chosen`)."""
    givers = game.clue_givers()
    if len(givers) == 1:
        return givers[0]
    return chosen if chosen in givers else None


def reason(p: Prompts, ruling: ClueRuling | None) -> str:
    """Why a clue is refused or doubtful, in words; "" without a ruling."""
    if ruling is None:
        return ""
    return p.text(f"clue_reason.{ruling.reason.value}", card=ruling.card or "")


def give_clue(host: Table, clue: PendingClue) -> None:
    events = host.game.give_clue(clue.word, clue.number, by=clue_giver(host.game, host.chosen_side))
    host.chosen_side = None
    host.done(events)


def reject_clue(host: Table, clue: PendingClue, ruling: ClueRuling | None) -> None:
    """Refuse the clue: with the penalty variant the turn ends; without it the spymaster gives another."""
    game = host.game
    why = ruling.reason.value if ruling else "rejected"
    intro = host.t("clue.invalid", why=reason(host.p, ruling)) if ruling else ""
    events = game.reject_clue(clue.word, why, number=clue.number, by=clue_giver(game, host.chosen_side))
    if not game.variants.invalid_clue_penalty:
        host.record(events)
        host.say(f"{intro} {host.t('clue.refused_give_again')}")
        return
    host.chosen_side = None
    host.done(events, intro=intro)
