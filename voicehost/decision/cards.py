"""A card, by its name or its place, and "yes", "no" or "pass", weighed from the ears' scores.

Whisper's scores of the cards that may be meant and of "yes", "no" or "pass" are weighed with the
calibrated confidence: the card scored first is revealed at once from `act`, asked back about from
`ask`, otherwise nothing is taken; a card named by its place is weighed the same way with the place
model (`voicehost.decision.places`). What the table said before (a question's offered cards and the
belief behind them) is combined with what it says now: an answer that repeats a card strengthens it,
rather than starting afresh.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from engine.lang import Lang
from voicehost.decision.calibration import Calibration
from voicehost.decision.features import GuessFeatures, with_examples
from voicehost.decision.places import PlaceEvidence, placed_move
from voicehost.decision.together import heard_together
from voicehost.ears.heard import ClosedSet, Heard
from voicehost.understanding import (
    Action,
    Candidate,
    Command,
    HeardCommand,
    HeardGuess,
    NotUnderstood,
    OffGrid,
    Understanding,
    vocabulary,
)
from voicehost.understanding.cards import named_inside
from voicehost.understanding.commands import answer_leading, answer_near
from voicehost.understanding.moment import Moment
from voicehost.understanding.reading import Reading
from voicehost.understanding.results import READ_ONLY
from voicehost.understanding.talk import MAX_NAME_WORDS
from voicehost.understanding.text import tokenize

MAX_CANDIDATES: Final = 3
ALTERNATIVE_SHARE: Final = 0.1
"""A runner-up below this share of the belief is not worth offering in a question."""
MAX_EXTRA_WORDS: Final = 1
"""A read-only command garbled is about as long as its phrase ("Pua no placar." for "qual é o placar"); a
line longer by more words than this is talk that mentions the clue or the score, whatever the scores."""
UNCLEAR_SHARE: Final = 0.5
"""A card whose probability reaches this fraction of the ask point is near enough to answer "Sorry?" rather
than silence (`referee.take_up`); the same card that near again, said right after, is asked back: two
hearings in a row agree ("sattera" four times for ZATTERA, each under the ask point alone)."""
UNCALIBRATED_PLACE_ASK: Final = 0.5
"""Without a place model, a place the scores give at least this share is asked back, never acted on."""


def card_verdict(heard: Heard, reading: Reading, model: Calibration) -> Understanding:
    """What the scores of the cards (and places) make of an utterance whose words, read as typed
    (`reading.said`), are no command or clue said plainly."""
    moment, said = reading.moment, reading.said
    placed = placed_move(heard, said, moment.grid, moment.lang, moment.visible) if moment.grid is not None else None
    if placed is not None:
        return _by_place(heard, placed, model, again=moment.unclear == placed.card)
    if isinstance(said, OffGrid) or (isinstance(said, HeardGuess) and said.place):
        return said
    found = evidence(heard, reading, model)
    if found is None:
        return said
    verdict = _weighed(heard, reading, found, model)
    if isinstance(verdict, NotUnderstood) and moment.let_be and not moment.answering:
        return _said_again(heard, reading, model) or verdict
    return verdict


def _weighed(heard: Heard, reading: Reading, found: Evidence, model: Calibration) -> Understanding:
    """What the evidence of this line says: a card acted on, asked back or asked again, or a command."""
    moment = reading.moment
    if found.features is None:
        if vocabulary(moment.lang).scored_command(found.top) is None:
            return NotUnderstood(heard.text, Action.REPROMPT, 0.0)  # another card than asked about: no answer
        return _command(heard, reading, found, model)
    if found.worded is not None:
        return _answer_over_card(heard, found, moment.offers)
    guess = model.guess_model(moment.lang)  # the language's own model where one was fitted
    probability = guess.probability(found.features)
    again = moment.unclear == found.top
    act = math.inf if found.after_denial else guess.act  # the table said "no" to what led: ask, never act
    return _verdict(heard, probability, act, guess.ask, found.top, _offered(found, moment.cards), again=again)


def _offered(found: Evidence, cards: Sequence[str]) -> tuple[Candidate, ...]:
    """The card first and the runners-up worth offering in a question, with their shares."""
    return tuple(
        Candidate(card, round(100 * found.shares[card], 1))
        for card in sorted((c for c in found.shares if c in cards), key=lambda c: -found.shares[c])
        if found.shares[card] >= ALTERNATIVE_SHARE or card == found.top
    )[:MAX_CANDIDATES]


def belief_of(heard: Heard, reading: Reading, model: Calibration) -> tuple[tuple[str, float], ...] | None:
    """What one line made of every phrase that may be meant now, as log-shares (its logits as the decision
    weighs them, the moves just denied set aside); None when the ears scored nothing that covers the cards.
    The host keeps it for a line it let be (`Moment.let_be`): the table says a move again when met with
    silence, and the next line is heard with it."""
    moment = reading.moment
    logits = _logits(heard, moment.cards, moment, model)
    if logits is None or moment.answering:
        return None
    logits, _ = _undenied(logits, reading)
    top = max(logits.values())
    total = top + math.log(sum(math.exp(value - top) for value in logits.values()))
    return tuple((phrase, value - total) for phrase, value in logits.items())


def _said_again(heard: Heard, reading: Reading, model: Calibration) -> Understanding | None:
    """A line the scores alone leave short of asking, heard with the lines just let be (`Moment.let_be`):
    a player met with silence says the move again, and each hearing of the same speech is evidence of its
    own, so their log-shares add up (in a din, "reindeer" comes out "20z", then "Mind-drink-dumbo", each
    under the ask point, both scoring REINDEER first). The move the hearings together put first is asked
    back from the same calibrated points a single line is asked back from, never acted on at once: the
    hearings may not all be of one move. None when together they reach no point either."""
    moment = reading.moment
    logits = _logits(heard, moment.cards, moment, model)
    if logits is None:
        return None
    logits, _ = _undenied(logits, reading)
    together = heard_together(logits, dict(moment.let_be))
    found = _weighed_logits(heard, reading, together)
    if found.features is None:
        ask = model.pass_share if model.pass_ask_share is None else model.pass_ask_share
        if vocabulary(moment.lang).scored_command(found.top) is Command.PASS and found.top_share >= ask:
            return HeardCommand(found.top, Action.CONFIRM, found.top_share, Command.PASS)
        return None
    guess = model.guess_model(moment.lang)
    probability = guess.probability(found.features)
    if probability < guess.ask:
        return None
    return HeardGuess(heard.text, Action.CONFIRM, probability, found.top, _offered(found, moment.cards))


def _verdict(
    heard: Heard,
    probability: float,
    act: float,
    ask: float,
    card: str,
    offered: tuple[Candidate, ...],
    place: str = "",
    *,
    again: bool = False,
) -> Understanding:
    """The card acted on at once from `act`, asked back about from `ask` (or from UNCLEAR_SHARE of it when
    the line before, answered "Sorry?", came near the same card: `again`), otherwise asked again: one
    ladder for a card named by its name and by its place."""
    if probability >= act:
        return HeardGuess(heard.text, Action.ACCEPT, probability, card, offered, place)
    if probability >= ask or (again and probability >= UNCLEAR_SHARE * ask):
        return HeardGuess(heard.text, Action.CONFIRM, probability, card, offered, place)
    return NotUnderstood(heard.text, Action.REPROMPT, probability, nearest=card)


def _by_place(heard: Heard, placed: PlaceEvidence, model: Calibration, *, again: bool = False) -> Understanding:
    """A card named by its place, from the scores: acted on, asked back with its place ("C2, CEREJA?"),
    or asked again, by the place model (without one, never acted on from the scores alone)."""
    place_model = model.place
    if place_model is not None:
        probability, act, ask = place_model.probability(placed.features), place_model.act, place_model.ask
    else:
        probability, act, ask = placed.features.share, math.inf, UNCALIBRATED_PLACE_ASK
    candidates = (Candidate(placed.card, round(100 * placed.features.share, 1)),)
    return _verdict(heard, probability, act, ask, placed.card, candidates, placed.label, again=again)


@dataclass(frozen=True)
class Evidence:
    """What the scores say now: the phrase first, every phrase's share, and (for a card) the features."""

    top: str
    top_share: float  # the share of the move `top` says (a command's phrases summed, `move_shares`)
    shares: Mapping[str, float]
    features: GuessFeatures | None  # None when the phrase first is "yes", "no" or "pass"
    worded: Command | None = None  # the answer the words say themselves (`answer_in_words`), at a question
    after_denial: bool = False  # a move the table said "no" to led the scores, and was set aside (`_undenied`)


def evidence(heard: Heard, reading: Reading, model: Calibration) -> Evidence | None:
    """The scores of the phrases that may be meant now, with the second signal weighed in by `model`
    and what was heard before added in; None when the engine scored nothing that covers these cards
    (the transcript alone is read then).

    While a question waits, every visible card was scored too (`Moment.scored_cards`): "yes" or "no" the
    words do not say (`answer_in_words`) must lead them all, and another card leading is no answer (heard
    afresh, as a guess of its own: "pianu" at "WALRUS?"). Words that say the answer ("sin", heard unsure)
    are weighed against the offers alone, as a plain answer is: MBROLA's pt1 "sim" scores TÚNEL as high.
    A card asked about that leads is weighed among the phrases the question offers, as calibrated."""
    moment = reading.moment
    cards = moment.cards
    said = reading.said
    plain_answer = isinstance(said, HeardCommand) and said.command in (Command.YES, Command.NO)
    answers = (Command.YES, Command.NO) if moment.answering else ()
    worded = next((answer for answer in answers if answer_in_words(reading, answer)), None)
    if moment.answering and not (plain_answer or worded):  # an answer in words is weighed against the offers
        wide = _shares(heard, moment.scored_cards, moment, model)
        if wide is not None:
            top, share = _lead(wide, moment.lang)
            if top not in cards:
                return Evidence(top, share, wide, None, worded)
    logits = _logits(heard, cards, moment, model)
    if logits is None:
        return None
    logits, after_denial = _undenied(logits, reading)
    return _weighed_logits(heard, reading, logits, worded, after_denial)


def _weighed_logits(
    heard: Heard, reading: Reading, logits: dict[str, float], worded: Command | None = None, after_denial: bool = False
) -> Evidence:
    """The evidence the logits of the phrases that may be meant give: the move first, every share, and the
    features when a card leads (one line's logits, or several lines' added up: `_said_again`)."""
    moment = reading.moment
    shares = softmax(logits)
    top, share = _lead(shares, moment.lang)
    if top not in moment.cards:
        return Evidence(top, share, shares, None, worded, after_denial)
    assert heard.closed is not None
    logprob = dict(zip(heard.closed.phrases, heard.closed.logprobs, strict=True))[top]
    features = GuessFeatures.of(heard, reading.named, top, logits, shares, logprob, moment.lang)
    return Evidence(top, share, shares, features, worded, after_denial)


def _undenied(logits: dict[str, float], reading: Reading) -> tuple[dict[str, float], bool]:
    """The logits without the moves the table has just said "no" to (`Moment.denies`: "passo?" - "não"),
    unless the words name them plainly (as typed, not a slip away); and whether one of them led. A human
    host does not ask "pass?" again of the same garble ("Eu não posto." for "aeroporto", four times in a
    game): the next phrase is weighed instead, and asked back, never acted on, since what led was wrong."""
    moment = reading.moment
    if moment.answering or not (moment.denied or moment.denied_commands):
        return logits, False
    vocab = vocabulary(moment.lang)
    plainly = reading.plainly  # a slip ("Lhena." for HIENA) is no word of it
    named_card = plainly.card if isinstance(plainly, HeardGuess) else None
    sure = reading.said.action is Action.ACCEPT  # "Fim." heard unsure and denied as a pass names no pass
    named_command = plainly.command if isinstance(plainly, HeardCommand) and sure else None
    commands = {phrase: vocab.scored_command(phrase) for phrase in logits}
    denied = {
        phrase
        for phrase, command in commands.items()
        if moment.denies(phrase, command)
        and phrase != named_card
        and (named_command is None or command is not named_command)
    }
    kept = {phrase: logit for phrase, logit in logits.items() if phrase not in denied}
    if not denied or not kept:
        return logits, False
    led = _lead(softmax(logits), moment.lang)[0] in denied
    return kept, led


def _logits(heard: Heard, cards: Sequence[str], moment: Moment, model: Calibration) -> dict[str, float] | None:
    """The logits of `cards` and the scored words, the second signal and what was heard before weighed in;
    None when the scores do not cover `cards`."""
    closed = _restricted(heard.closed, cards, moment.lang, moment.answering)
    if closed is None:
        return None
    logits = with_examples(dict(zip(closed.phrases, closed.logits, strict=True)), heard.examples, model.example_weight)
    for card, share in moment.before:  # what was heard before counts: a repeated card adds up
        if card in logits:
            logits[card] += math.log(max(share, 1e-6))
    return logits


def _shares(heard: Heard, cards: Sequence[str], moment: Moment, model: Calibration) -> dict[str, float] | None:
    logits = _logits(heard, cards, moment, model)
    return None if logits is None else softmax(logits)


def move_shares(shares: Mapping[str, float], lang: Lang) -> dict[str, float]:
    """Each phrase's share of the move it says: a card's own; a command's, every phrase of it summed
    ("placar" and "qual é o placar" are one move, as a place's ways are one card). One pass over the phrases."""
    vocab = vocabulary(lang)
    commands = {phrase: vocab.scored_command(phrase) for phrase in shares}
    totals: dict[Command, float] = {}
    for phrase, command in commands.items():
        if command is not None:
            totals[command] = totals.get(command, 0.0) + shares[phrase]
    return {phrase: shares[phrase] if command is None else totals[command] for phrase, command in commands.items()}


def _lead(shares: Mapping[str, float], lang: Lang) -> tuple[str, float]:
    """The phrase of the move the scores put first (a command by its phrases summed, `move_shares`), and
    that move's share."""
    moves = move_shares(shares, lang)
    top = max(shares, key=lambda phrase: (moves[phrase], shares[phrase]))
    return top, moves[top]


def _restricted(closed: ClosedSet | None, cards: Sequence[str], lang: Lang, answering: bool) -> ClosedSet | None:
    """The scores of the phrases that may be meant now (the cards asked about, say); None when the
    scores do not cover them, and the transcript alone is read."""
    if closed is None or not (cards or answering) or any(card not in closed.phrases for card in cards):
        return None  # (a yes-or-no question about no card, "pass?", is scored over "yes" and "no" alone)
    extras = vocabulary(lang).scored_phrases
    keep = [i for i, phrase in enumerate(closed.phrases) if phrase in cards or phrase in extras]
    return ClosedSet(
        tuple(closed.phrases[i] for i in keep),
        tuple(closed.logprobs[i] for i in keep),
        tuple(closed.logits[i] for i in keep),
        tuple(closed.shares[i] for i in keep),
    )


def _answer_over_card(heard: Heard, found: Evidence, offers: tuple[str, ...] | None) -> Understanding:
    """The words say "yes" or "no" (`answer_in_words`: "correct", heard unsure) while the scores put a card
    asked about first. Saying the one card asked about back is saying yes, so "yes" and that card agree:
    yes. "Yes" between two cards offered leaves the question open. "No" is taken from its words ("Está
    errado.": the scores weigh the one word "não"): it changes nothing, the table names its card again."""
    if found.worded is Command.NO:
        return HeardCommand(heard.text, Action.ACCEPT, found.shares[found.top], Command.NO)
    if found.worded is Command.YES and offers == (found.top,):
        return HeardCommand(heard.text, Action.ACCEPT, found.shares[found.top], Command.YES)
    return NotUnderstood(heard.text, Action.REPROMPT, 0.0)


def _command(heard: Heard, reading: Reading, found: Evidence, model: Calibration) -> Understanding:
    """ "yes", "no", "pass" or a read-only command scored above every card.

    An answer whose words are that very answer ("Sim" heard unsure, "sin") is taken: the words and the
    scores agree, so no point is needed (the calibration counts these answers as plain, too)."""
    said, answering = reading.said, reading.moment.answering
    word, share = found.top, found.top_share
    command = vocabulary(reading.moment.lang).scored_command(word)
    assert command is not None
    if isinstance(said, HeardCommand) and said.command is command:
        return HeardCommand(heard.text, Action.ACCEPT, max(share, said.confidence), command)
    if found.after_denial:  # what led the scores was answered "no": nothing is taken from the scores alone
        return NotUnderstood(heard.text, Action.REPROMPT, share)
    point = model.read_only_share
    as_long = len(heard.text.split()) <= len(word.split()) + MAX_EXTRA_WORDS
    if command in READ_ONLY and point is not None and share >= point and as_long:
        # "Pua no placar." for "qual é o placar": it changes nothing, so it is taken from its own point
        return HeardCommand(heard.text, Action.ACCEPT, share, command)
    answer = answering and command in (Command.YES, Command.NO)
    if answer and found.worded is command:
        return HeardCommand(heard.text, Action.ACCEPT, share, command)
    if answer and found.worded is Command.NO:  # "no" in words, "yes" in the scores: "no" changes nothing
        return HeardCommand(heard.text, Action.ACCEPT, share, Command.NO)
    if answer and found.worded is not None:  # "isso mesmo" scored as "não": the words and the scores disagree
        return NotUnderstood(heard.text, Action.REPROMPT, share)
    short = len(heard.text.split()) <= MAX_NAME_WORDS  # an answer is a word or two, not a sentence of talk
    if answer and share >= model.answer_point(reading.moment.lang, command) and short:
        return HeardCommand(word, Action.ACCEPT, share, command)
    alone = model.pass_alone_share
    if command is Command.PASS and alone is not None and share >= alone and short:
        # "Tâso" for "passo": acted on from its own point, chosen so that "repete" scored as "passo" stays out
        return HeardCommand(word, Action.ACCEPT, share, command)
    ask = model.pass_share if model.pass_ask_share is None else model.pass_ask_share
    if command is Command.PASS and share >= ask:
        # "pass" on the scores alone would end a turn nobody ended ("repete" scores as "passo"): ask first
        return HeardCommand(word, Action.CONFIRM, share, command)
    return said if said.action is not Action.ACCEPT else NotUnderstood(heard.text, Action.REPROMPT, share)


def answer_in_words(reading: Reading, command: Command) -> bool:
    """Whether the words of an answer say `command` themselves: read as typed, or a slip away from its
    phrase, a word or two long ("sin" for "sim"; MBROLA's pt1 is heard so every time). One rule for the
    host and the calibration (`bench/calibrate_moves.py`), which needs no point for these answers."""
    typed = reading.typed
    if isinstance(typed, HeardCommand):
        return typed.command is command
    if isinstance(typed, HeardGuess):
        return False  # the words name a card too ("sin" with SINO on the table): no answer in words
    vocab = vocabulary(reading.moment.lang)
    tokens = tokenize(reading.text, vocab.join_apostrophes)
    return len(tokens) <= MAX_NAME_WORDS and answer_near(tokens, vocab, command)


def no_first(reading: Reading) -> bool:
    """Whether a line opens with the language's "no" (`answer_leading`) and the words after it name no card of
    the board: "No, I'm not." (a player's "no", the room's words after it) answers "no"; "no, il razzo no,
    troppo facile" is the table talking about a card. Only "no": it changes nothing. A "yes" opening a line
    is left to the scores as any "yes" is: in an Italian babble game "Sì, c'è un cich", the others' talk,
    answered "Annullare il «passo»?" for a spymaster who had said "no"."""
    moment = reading.moment
    leading = answer_leading(reading.text, vocabulary(moment.lang))
    return leading is not None and leading[0] is Command.NO and not named_inside(leading[1], moment.board, moment.lang)


def softmax(logits: Mapping[str, float]) -> dict[str, float]:
    """Each phrase's share of the belief its logit gives, among the phrases given."""
    top = max(logits.values())
    weights = {phrase: math.exp(value - top) for phrase, value in logits.items()}
    total = sum(weights.values())
    return {phrase: weight / total for phrase, weight in weights.items()}
