"""`understand`: one utterance, read in the game's phase, becomes one result (see `results`).

Order matters: exact commands first (so a yes/no is never a card), then a word + number clue,
then the visible cards, fuzzily. A low recognizer confidence turns acting at once into asking back.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Final

from engine.lang import Lang
from voicehost.understanding.cards import candidates_of, guess_action, rank
from voicehost.understanding.clues import CluePieces, parse_clue
from voicehost.understanding.commands import command_in, command_near, sounds_like_command, trim
from voicehost.understanding.positions import Grid, place_in
from voicehost.understanding.positions import label as label_of
from voicehost.understanding.results import (
    ANSWERS,
    ASKS_FIRST,
    READ_ONLY,
    Action,
    Candidate,
    Command,
    HeardClue,
    HeardCommand,
    HeardGuess,
    HeardNumber,
    HeardWord,
    NotUnderstood,
    OffGrid,
    Phase,
    SpokenClue,
    Understanding,
)
from voicehost.understanding.text import MAX_TEXT_CHARS, Token, keys_of, tokenize
from voicehost.understanding.vocabulary import Vocabulary, vocabulary

LOW_ASR_CONFIDENCE: Final = 0.6
"""Recognizer confidence below this makes the host ask back before acting."""


def _asr(value: float | None) -> float | None:
    """Recognizer confidence clamped to 0..1 (minus infinity is no confidence at all); NaN counts as not given."""
    if value is None or math.isnan(value):
        return None
    return min(1.0, max(0.0, float(value)))


def _unsure(asr: float | None) -> bool:
    return asr is not None and asr < LOW_ASR_CONFIDENCE


def _unknown(text: str) -> Understanding:
    return NotUnderstood(text, Action.REPROMPT, 0.0)


def _command_result(text: str, command: Command, asr: float | None) -> Understanding:
    """A command, acted on unless the recognizer is unsure and acting would change the game."""
    confidence = 1.0 if asr is None else asr
    if _unsure(asr) and command in ANSWERS:
        return _unknown(text)  # asking "did you say yes?" would loop: ask the question again
    action = Action.CONFIRM if _unsure(asr) and command not in READ_ONLY | ASKS_FIRST else Action.ACCEPT
    return HeardCommand(text, action, confidence, command)


def normalize(text: str, lang: Lang) -> str:
    """The comparison form used here (lowercase, no accents or punctuation, one space).

    Useful to the rules layer, e.g. to check that a clue is not a visible card's name.
    """
    return " ".join(keys_of(tokenize(text[:MAX_TEXT_CHARS], vocabulary(lang).join_apostrophes)))


def match_card(text: str, cards: Sequence[str], lang: Lang) -> tuple[Candidate, ...]:
    """The visible cards that ``text`` could name, best first; empty when none is plausible.

    Command and yes/no phrases never name a card here either, whatever the board.
    """
    vocab = vocabulary(lang)
    if len(text) > MAX_TEXT_CHARS:
        return ()
    tokens = tokenize(text, vocab.join_apostrophes)
    if not tokens or any(command_in(tokens, vocab, phase) for phase in Phase):
        return ()
    return candidates_of(rank(trim(tokens, vocab), cards, vocab))


def understand(
    text: str,
    *,
    phase: Phase,
    cards: Sequence[str],
    lang: Lang,
    asr_confidence: float | None = None,
    grid: Grid | None = None,
) -> Understanding:
    """Read one utterance in the current phase; never raises on any input string.

    With `grid` (every card of the board, row-major, covered ones too) a card may be named by its place
    ("row two column three", "B3" while guessing): the card there, whether or not it is among `cards`
    (a covered card is the host's to refuse), or `OffGrid` when the grid has no such place.

    Order matters: exact commands first (so a yes/no is never a card), then a
    word + number clue, then the visible cards, fuzzily.
    """
    vocab = vocabulary(lang)
    asr = _asr(asr_confidence)
    if len(text) > MAX_TEXT_CHARS:
        return _unknown(text)
    tokens = tokenize(text, vocab.join_apostrophes)
    if not tokens:
        return _unknown(text)

    command = command_in(tokens, vocab, phase)
    if command is not None:
        return _command_result(text, command, asr)

    if grid is not None:
        placed = _placed(text, tokens, phase, grid, vocab.lang, asr)
        if placed is not None:
            return placed

    core = trim(tokens, vocab)
    clue = parse_clue(core, vocab)
    if clue.word is not None and clue.has_number:
        action = Action.CONFIRM if _unsure(asr) else Action.ACCEPT
        heard = SpokenClue(clue.word, clue.number, clue.spelled)
        confidence = 1.0 if asr is None else asr
        return HeardClue(text, action, confidence, heard, by_ear=asr is not None)
    if clue.word is None and clue.has_number and phase is Phase.CLUE:
        confidence = 1.0 if asr is None else asr
        return HeardNumber(text, Action.CONFIRM if _unsure(asr) else Action.ACCEPT, confidence, clue.number)

    ranked = rank(core, cards, vocab)
    action = guess_action(ranked, core, vocab)
    if phase is Phase.CLUE and action is not Action.ACCEPT:
        # In the clue phase a vague word is a clue without its number, not a guess.
        return _word_alone(text, core, clue, vocab, asr)
    if action is Action.REPROMPT:
        return _near_command(text, tokens, vocab, phase, asr)
    if action is Action.ACCEPT and _unsure(asr):
        action = Action.CONFIRM
    best = ranked[0]
    confidence = min(1.0, best.score / 100.0) * (1.0 if asr is None else asr)
    return HeardGuess(text, action, confidence, best.card, candidates_of(ranked))


def _near_command(
    text: str, tokens: Sequence[Token], vocab: Vocabulary, phase: Phase, asr: float | None
) -> Understanding:
    """Heard by ear, a command phrase a slip away ("Saier do jogo.") is that command, taken as one heard
    unsure: asked back unless it changes nothing or asks first anyway; typed, a slip stays unknown."""
    command = command_near(tokens, vocab, phase) if asr is not None else None
    return _unknown(text) if command is None else _command_result(text, command, 0.0)


def _word_alone(
    text: str, core: Sequence[Token], clue: CluePieces, vocab: Vocabulary, asr: float | None
) -> Understanding:
    """One word said while a clue is awaited, and no number: a clue's word waiting for its number (not a
    hesitation or a filler: "uh", "okay")."""
    keys = keys_of(core)
    noise = any(phrases.prefix(keys, 0) == len(keys) for phrases in (vocab.hesitations, vocab.fillers))
    if noise or clue.word is None or clue.has_number:
        return _unknown(text)
    if len(clue.word.split()) != 1:  # no clue's word: by ear, maybe a command garbled ("Saier do jogo.")
        return _near_command(text, core, vocab, Phase.CLUE, asr)
    if asr is not None and sounds_like_command(core, vocab):
        return _near_command(text, core, vocab, Phase.CLUE, asr)  # "nau" for "não": no clue's word
    confidence = 1.0 if asr is None else asr
    return HeardWord(text, Action.CONFIRM if _unsure(asr) else Action.ACCEPT, confidence, clue.word, clue.spelled)


def _placed(
    text: str, tokens: Sequence[Token], phase: Phase, grid: Grid, lang: Lang, asr: float | None
) -> Understanding | None:
    """A card named by its place, or None when the words are not a place (a letter and a number, "B3",
    only while guessing: while a clue is awaited it is a clue)."""
    place = place_in(tokens, lang, letters=phase is Phase.GUESS)
    if place is None:
        return None
    row, column = place.on(grid)
    card = grid.card_at(row, column)
    if card is None:
        return OffGrid(text, Action.REPROMPT, 0.0, row, column)
    confidence = 1.0 if asr is None else asr
    action = Action.CONFIRM if _unsure(asr) else Action.ACCEPT
    return HeardGuess(text, action, confidence, card, (Candidate(card, 100.0),), label_of(row, column))
