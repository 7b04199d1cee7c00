"""`decide`: one utterance as the ears heard it, its words read once in the moment (`Reading`), becomes
one understanding with its action: act at once, ask back, or ask again.

Typed text, and speech the ears have no scores for (vosk's results), is its words' reading with the
engine's confidence (`voicehost.understanding`). Where the ears scored what makes sense now, the scores
decide: a card by its name or place, "yes", "no" or "pass" (`cards`), a clue's number (`clues`); over the
host's voice only "stop" counts (`stops`). A spymaster's private request ("is OCEAN allowed?") is read
before anything else while a clue is awaited: it is never a clue.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import replace

from engine.lang import Lang
from voicehost.decision.calibration import Calibration, calibration
from voicehost.decision.cards import card_verdict, move_shares, no_first, softmax
from voicehost.decision.clues import clue_verdict
from voicehost.decision.endings import at_game_over, ending_verdict
from voicehost.decision.stops import is_stop
from voicehost.decision.undo import undo_near
from voicehost.ears.heard import ClosedSet, Heard
from voicehost.understanding import (
    Action,
    Command,
    HeardClue,
    HeardCommand,
    HeardGuess,
    HeardNumber,
    HeardWord,
    Intent,
    NotUnderstood,
    Understanding,
    understand,
    vocabulary,
)
from voicehost.understanding.checks import clue_check
from voicehost.understanding.moment import Awaited, Moment
from voicehost.understanding.reading import Reading
from voicehost.understanding.results import Phase


def confirmed_by_scores(heard: Heard, said: Understanding, moment: Moment, model: Calibration) -> Understanding:
    """A command said plainly but heard unsure ("Pass." is one short word, its transcript's probability
    low) is acted on at once when the scores put its move first too, with the share from which that word
    alone is asked back ("pass?"): two readings of the audio agree."""
    if not isinstance(said, HeardCommand) or said.action is not Action.CONFIRM or heard.closed is None:
        return said
    word = vocabulary(moment.lang).scored_words.get(said.command)
    if word is None:
        return said
    share = lead_share(heard.closed, word, command_rivals(moment), moment.lang)
    return replace(said, action=Action.ACCEPT) if share > 0 and share >= model.pass_share else said


def command_rivals(moment: Moment) -> frozenset[str]:
    """What a command scored beside the cards must lead while a team guesses: every card that may be meant
    and every phrase scored beside them ("yes", "no", "pass", the read-only commands). One list for the
    decision and the calibration that fits its points (`bench.calibrate_moves`)."""
    return frozenset((*moment.cards, *vocabulary(moment.lang).scored_phrases))


def lead_share(closed: ClosedSet, word: str, rivals: Collection[str], lang: Lang) -> float:
    """The share of the move `word` says among the phrases that may be meant now (`word` and `rivals`), a
    command's phrases summed ("pass" and "we're done" are one move: `move_shares`), when that move leads
    them; 0 when another does."""
    if word not in closed.phrases:
        return 0.0
    logits = {p: logit for p, logit in zip(closed.phrases, closed.logits, strict=True) if p == word or p in rivals}
    moves = move_shares(softmax(logits), lang)
    return moves[word] if moves[word] >= max(moves.values()) else 0.0


def pass_shaped_as_clue(said: HeardClue, moment: Moment) -> HeardCommand | None:
    """ "Passo 2." while the operatives guess: the word that ends a turn, written with a number Whisper
    heard in the silence after it. No clue can be given now, so the word is what counts: a pass, asked
    back unless the scores put it first too (`confirmed_by_scores`); None for any other clue."""
    alone = understand(said.clue.word, phase=Phase.GUESS, cards=(), lang=moment.lang)
    if isinstance(alone, HeardCommand) and alone.command is Command.PASS:
        return HeardCommand(said.heard, Action.CONFIRM, said.confidence, Command.PASS)
    return None


def pause_heard_as_pass(said: HeardCommand, moment: Moment) -> HeardCommand | None:
    """ "Pause." with no sand running while the guessers may pass: Whisper writes a plain "pass" so (an
    English voice of the bench's table, every pass of a game), and there is nothing to pause. A pass, asked
    back unless the scores put it first too (`confirmed_by_scores`: "pass" led them at 0.94-0.98 each
    time); None for any other command, or when "pause" has sand to pause."""
    if not moment.nothing_to_pause or said.command is not Command.TIMER_PAUSE:
        return None
    word = vocabulary(moment.lang).scored_words[Command.PASS]
    return HeardCommand(word, Action.CONFIRM, said.confidence, Command.PASS)


def decide(heard: Heard, reading: Reading, model: Calibration | None = None) -> Understanding:
    """What the utterance means now (`reading`: its words in the moment, the host's name taken off)."""
    moment = reading.moment
    said = reading.said if moment.guessing else reading.voiced
    if moment.over_host:
        if is_stop(heard, reading):
            return HeardCommand(reading.text, Action.ACCEPT, 1.0, Command.STOP_TALKING)
        return NotUnderstood(reading.text, Action.REPROMPT, 0.0)
    if moment.answering and no_first(reading):
        # "No, I'm not." for "no" over the others' talk: "no" changes nothing, so the words alone may say it
        return HeardCommand(reading.text, Action.ACCEPT, 1.0, Command.NO)
    if moment.awaited is Awaited.OVER and not moment.asked:
        over = at_game_over(reading)
        if over is not None:
            return over
    if moment.awaited is Awaited.OVER and heard.commands is not None:
        return ending_verdict(heard, reading, model or calibration())
    if not moment.guessing:
        check = clue_check(reading.text, moment.lang)
        if check is not None:
            return check
    if heard.numbers is not None:
        clue = clue_verdict(heard, reading, model)
        if not isinstance(clue, NotUnderstood):  # a clue, a command, a clue's word waiting for its number
            return clue
        return undo_near(heard, reading, model or calibration()) or clue  # "desfaz" heard "deste faço"
    if moment.guessing and isinstance(said, HeardClue):
        said = pass_shaped_as_clue(said, moment) or said
    if isinstance(said, HeardCommand):
        said = pause_heard_as_pass(said, moment) or said
    if heard.closed is None and heard.places is None:
        return said
    model = model or calibration()
    # no clue can be given while the operatives guess: a clue-shaped line then ("Cata-sete." for "capacete") is
    # weighed as a guess is, by the cards' scores
    clue_now = said.intent is Intent.CLUE and not moment.guessing
    plain = (said.intent is Intent.COMMAND or clue_now) and said.action is not Action.REPROMPT
    answer = isinstance(said, HeardCommand) and said.command in (Command.YES, Command.NO)
    # "Clue: metal, 3?" answered "sim", transcribed "seeing": a lone word is no new clue while a yes or no
    # is awaited, the scores of "yes" and "no" weigh it
    garbled_answer = moment.answering and isinstance(said, HeardWord | HeardNumber | NotUnderstood)
    if plain and not (answer and moment.answering) and not garbled_answer:
        # a command or a clue said plainly: the cards' names are not weighed against it, a place may be
        if heard.places is not None:
            placed = card_verdict(replace(heard, closed=None), reading, model)
            if isinstance(placed, HeardGuess):
                return placed
        confirmed = confirmed_by_scores(heard, said, moment, model)
        if not _denied_words(confirmed, moment):
            return confirmed
    return card_verdict(heard, reading, model)


def _denied_words(said: Understanding, moment: Moment) -> bool:
    """A command the words name but the ears heard unsure, just asked back and answered "no" ("Disseste
    «Fim»?" - "não"): the same words again are no such command, and the scores weigh the line instead, with
    it set aside. MBROLA pt1's "orelha", heard "Fim." four times, was asked "Disseste «Fim»?" four times."""
    return isinstance(said, HeardCommand) and said.action is Action.CONFIRM and said.command in moment.denied_commands
