"""A clue heard: settle who gives it and whether the rules allow it, then give it, refuse it, or put a
doubtful spelling to the opponent (`PutClueToOpponent`). A clue's word heard alone waits for its number
(`AskClueNumber`); a clue given but not yet guessed on is corrected by its spymaster without penalty."""

from __future__ import annotations

from dataclasses import replace

from engine.events import EventType
from engine.game import Phase
from engine.lang import Lang
from engine.legality import Reason, Verdict
from voicehost.referee import rulings
from voicehost.referee.effects import Ask, Effect, Follow, Play, Say
from voicehost.referee.questions import AskClueGiver, AskClueNumber, ConfirmHeardClue, PutClueToOpponent
from voicehost.referee.rulings import PendingClue
from voicehost.referee.view import View
from voicehost.understanding import Action, HeardClue, SpokenClue
from voicehost.understanding.results import HeardCorrection
from voicehost.understanding.talk import names_a_clue


def take_clue(view: View, clue: PendingClue) -> list[Effect]:
    """A clue heard: settle who gives it and whether it is legal, then give or refuse it."""
    game = view.game
    phase = game.state.phase
    if phase in (Phase.GUESS, Phase.SUDDEN_DEATH):
        return [Say(view.t("clue.need_guess_now"), remember=False)]
    if phase is Phase.SIMULATED_TURN:
        return [Say(view.announce.next_prompt(), remember=False)]
    if view.clue_giver() is None:
        return [Ask(AskClueGiver(clue=clue))]
    ruling = game.check_clue(clue.word, spelled=clue.spelled)
    if ruling.reason is Reason.NOT_ONE_WORD:
        # Every word said was checked against the table first ("oyster bay" hides OYSTER); none is a
        # card, so what came before the last one was a filler ("well, ocean two"): the clue is that word.
        clue = replace(clue, word=last_clue_word(clue.word, game.board.lang))
        ruling = game.check_clue(clue.word, spelled=clue.spelled)
    clue = replace(clue, ruling=ruling)
    if ruling.verdict is Verdict.VALID:
        return rulings.give(view, clue)
    if not clue.sure:  # heard by ear, and it seems to break a rule: the spymaster says first whether it is theirs
        return [Ask(ConfirmHeardClue(clue=clue))]
    if ruling.verdict is Verdict.INVALID:
        return rulings.reject(view, clue, ruling)
    return [Ask(PutClueToOpponent(clue=clue))]


def last_clue_word(words: str, lang: Lang) -> str:
    """The last of the words said that could be a clue's word (`names_a_clue`): "well, ocean" is OCEAN, and
    "brilho de" (a word half heard after it, or typed so) is BRILHO, never the preposition "de"."""
    said = words.split()
    return next((word for word in reversed(said) if names_a_clue(word, lang)), said[-1])


def word_alone(view: View, word: str, spelled: bool) -> list[Effect]:
    """A clue's word heard without its number ("fruta"): asked how many; a number alone answers."""
    if view.game.state.phase is not Phase.CLUE:
        return [Say(view.t("input.sorry"), remember=False)]
    return [Ask(AskClueNumber(word=word, spelled=spelled))]


def correctable(view: View) -> bool:
    """Whether the clue just given may still be corrected: nobody has guessed on it yet (the move an undo
    would take back is that clue)."""
    last = view.game.last_undoable
    return last is not None and last.type is EventType.CLUE


def correct(view: View, correction: HeardCorrection) -> list[Effect]:
    """The spymaster corrects the clue before any guess ("no, the clue is fruit"): the clue given is taken
    back and the new one given in its place, without penalty (the number stays when only the word is said)."""
    game = view.game
    given = game.state.clue
    if not correctable(view) or given is None:
        return [Say(view.t("clue.need_guess_now"), remember=False)]
    number = correction.number if correction.has_number else given.number
    if correction.word == given.word.lower() and number == given.number:
        return [Say(view.announce.next_prompt(), remember=False)]  # the same clue, said again
    if game.check_clue(correction.word, spelled=correction.spelled).verdict is not Verdict.VALID:
        return []  # "no, cherry" with CHERRY on the table: operatives talking about a card, not a new clue
    spoken = SpokenClue(correction.word, number, correction.spelled)
    undo = Play(lambda g: [g.undo()], announce=False, clears_side=False)
    return [undo, Follow(HeardClue(correction.heard, Action.ACCEPT, correction.confidence, spoken))]
