"""A clue as said: a word (or a word spelled letter by letter) and a number, in any phrasing the vocabulary knows."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import Final

from engine.lang import Lang
from voicehost.understanding.commands import slip_of, trim
from voicehost.understanding.results import Action, Command, HeardCorrection
from voicehost.understanding.text import MAX_TEXT_CHARS, Phrases, Token, keys_of, strip_start, text_of, tokenize
from voicehost.understanding.vocabulary import Vocabulary, vocabulary

DIGITS: Final = re.compile(r"[0-9]+")
MAX_DIGITS: Final = 12
"""A longer run of digits is read as an absurd number (refused by the rules), not turned into a huge int."""
ABSURD: Final = 10**MAX_DIGITS


def _spellings(keys: tuple[str, ...], vocab: Vocabulary) -> list[str | None]:
    """For each start position, the word spelled from there to the end, if it is all letters.

    A letter is a single character ("c") or a letter's name ("cê", "double u").
    """
    n = len(keys)
    spelled: list[str | None] = [None] * n + [""]
    lengths = sorted({*vocab.letter_names.lengths, 1}, reverse=True)
    for i in range(n - 1, -1, -1):
        for length in lengths:
            rest = spelled[i + length] if i + length <= n else None
            if rest is None:
                continue
            phrase = keys[i : i + length]
            letter = vocab.letters.get(phrase)
            if letter is None and length == 1 and len(phrase[0]) == 1 and phrase[0].isalpha():
                letter = phrase[0]
            if letter is not None:
                spelled[i] = letter + rest
                break
    return spelled


def _explains(prefix: Sequence[Token], word: str, vocab: Vocabulary) -> bool:
    """Whether what precedes a spelling is only lead-ins, or the same word said whole."""
    rest = prefix[strip_start(prefix, vocab.clue_starters, keep_one=False)[-1] :]
    return not rest or "".join(keys_of(rest)) == word


def spelled_word(tokens: Sequence[Token], vocab: Vocabulary) -> str | None:
    """A word spelled letter by letter at the end: "c-e-r-e-j-a", "ci e erre e gi a".

    Tried in order: the last hyphenated chunk; everything after lead-ins made of real
    words; the longest run of letters that repeats the word said before it ("cereja,
    c e r e j a").  At least two letters: a lone "a" is an article, not a spelling.
    """
    keys = keys_of(tokens)
    spellings = _spellings(keys, vocab)

    def word_from(start: int) -> str | None:
        word = spellings[start] if start < len(keys) else None
        return word if word is not None and len(word) >= 2 else None

    start = len(tokens)
    while start > 0 and tokens[start - 1].chunk == tokens[-1].chunk:
        start -= 1
    word = word_from(start)
    if word is not None and all(t.sep == "-" for t in tokens[start + 1 :]) and _explains(tokens[:start], word, vocab):
        return word
    word = word_from(strip_start(tokens, vocab.wordy_starters, keep_one=True)[-1])
    if word is not None:
        return word
    for i in range(1, len(tokens) - 1):
        word = word_from(i)
        if word is not None and _explains(tokens[:i], word, vocab):
            return word
    return None


@dataclass(frozen=True)
class CluePieces:
    """What of a clue was heard; either part may be missing."""

    word: str | None
    spelled: bool
    has_number: bool
    number: int | None  # None with has_number means unlimited


def _number_at(keys: tuple[str, ...], end: int, vocab: Vocabulary) -> tuple[int | None, int] | None:
    """(number or None for unlimited, how many words it took) ending at ``end``."""
    if end == 0:
        return None
    if DIGITS.fullmatch(keys[end - 1]):
        digits = keys[end - 1]
        return (int(digits) if len(digits) <= MAX_DIGITS else ABSURD), 1
    unlimited = vocab.unlimited.suffix(keys, end)
    word = vocab.number_words.suffix(keys, end)
    if unlimited == word == 0:
        return None
    if unlimited >= word:
        return None, unlimited
    return vocab.numbers[keys[end - word : end]], word


def _clue_word(tokens: Sequence[Token], vocab: Vocabulary) -> tuple[str | None, bool]:
    """(clue word, spelled?) from the words before the number; None if only fillers.

    A self-correction keeps what follows it ("céu, não, espaço, dois" is espaço); every other word
    said stays in the clue, for the rules to judge ("oyster bay" hides OYSTER)."""
    tokens = _after_last_correction(tokens, vocab)
    if not tokens:
        return None, False
    spelled = spelled_word(tokens, vocab)
    if spelled is not None:
        return spelled, True
    rest = tokens[strip_start(tokens, vocab.clue_starters, keep_one=False)[-1] :]
    return (text_of(rest) if rest else None), False


def _after_last_correction(tokens: Sequence[Token], vocab: Vocabulary) -> Sequence[Token]:
    """The words after the last "no" or "I mean" that follows a word of the clue ("céu, não, espaço")."""
    keys = keys_of(tokens)
    cut = 0
    for end in range(1, len(keys)):  # a correction needs a word before it: a leading "não" is a starter
        size = vocab.corrections.suffix(keys, end)
        if size and end - size > 0:
            cut = end
    return tokens[cut:]


def parse_clue(tokens: Sequence[Token], vocab: Vocabulary) -> CluePieces:
    """Read "word number" in any phrasing the vocabulary knows."""
    keys = keys_of(tokens)
    ends = [len(keys)]
    trailer = vocab.trailers.suffix(keys, len(keys))
    if 0 < trailer < len(keys):  # "tomate, três cartas"
        ends.insert(0, len(keys) - trailer)
    for end in ends:
        found = _number_at(keys, end, vocab)
        if found is None:
            continue
        number, size = found
        before = tokens[: end - size]
        connector = vocab.connectors.suffix(keys_of(before), len(before))
        if 0 < connector < len(before):  # "fruit for two"
            before = before[:-connector]
        word, spelled = _clue_word(before, vocab)
        if number is not None and tokens[end - 1].minus:  # "tomato -1": said with a minus, refused by the rules
            number = -number
        return CluePieces(word, spelled, True, number)
    word, spelled = _clue_word(tokens, vocab)
    return CluePieces(word, spelled, False, None)


def clue_word_in(text: str, lang: Lang) -> tuple[str | None, bool]:
    """(clue word, spelled?) of the words said before a clue's number ("my clue is fruit for" is fruit):
    the number was heard apart, by the ears' scores of every way of saying one."""
    vocab = vocabulary(lang)
    tokens = trim(tokenize(text[:MAX_TEXT_CHARS], vocab.join_apostrophes), vocab)
    connector = vocab.connectors.suffix(keys_of(tokens), len(tokens))
    if 0 < connector < len(tokens):  # "fruit for"
        tokens = tokens[:-connector]
    return _clue_word(tokens, vocab)


@cache
def _correction_leads(lang: Lang) -> Phrases:
    """What a spymaster says before correcting the clue just given: "no", "I mean" (the vocabulary's no-words
    and corrections)."""
    vocab = vocabulary(lang)
    no_words = [keys for keys, command in vocab.commands.items() if command is Command.NO]
    return Phrases([*no_words, *vocab.corrections.phrases()])


def correction_in(text: str, lang: Lang) -> HeardCorrection | None:
    """A spymaster correcting the clue just given ("no, fruit", "não, a pista é fruta, dois", "I mean
    frutta"): a no-word or a correction first, then one word and perhaps its number; None otherwise."""
    vocab = vocabulary(lang)
    tokens = tokenize(text[:MAX_TEXT_CHARS], vocab.join_apostrophes)
    lead = _correction_leads(lang).prefix(keys_of(tokens), 0)
    if not lead or lead >= len(tokens):
        return None
    rest = trim(tokens[lead:], vocab)
    pieces = parse_clue(rest, vocab)
    if pieces.word is not None and len(pieces.word.split()) > 1:
        pieces = _after_a_garbled_starter(rest, vocab) or pieces  # "não, apistar música 3": "a pista é"
    if pieces.word is None or len(pieces.word.split()) != 1:
        return None
    number = pieces.number if pieces.has_number else None
    return HeardCorrection(text, Action.ACCEPT, 1.0, pieces.word, pieces.spelled, number, pieces.has_number)


def _after_a_garbled_starter(tokens: Sequence[Token], vocab: Vocabulary) -> CluePieces | None:
    """The clue after its first words, when they are a slip away from a starter ("apistar" for "a pista
    é"): a correction's lead-in garbled as a command's can be (`slip_of`)."""
    keys = keys_of(tokens)
    starters = [" ".join(phrase) for phrase in vocab.clue_starters.phrases()]
    for end in range(1, len(keys)):
        if slip_of(keys[:end], starters) is not None:
            return parse_clue(tokens[end:], vocab)
    return None
