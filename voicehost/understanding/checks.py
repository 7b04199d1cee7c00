"""A spymaster asking whether a clue word is allowed ("Is OCEAN allowed?", "OCEANO é permitida?"): never a clue.

The phrases are the vocabulary files' `[key_requests] clue_checks`, each with a `*` where the word goes
(one to three words). The word is what was said there, lowercased with accents kept (as a clue's word);
a number said after it ("is ocean two allowed") is dropped, articles and lead-ins before it too. An
utterance that is a command phrase ("is it allowed", "posso dizer isso") is the command, not a check.
Pure, like the rest of `understanding`: the host rules on the word and answers in private.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Final

from engine.lang import Lang
from voicehost.understanding.commands import command_in, trim
from voicehost.understanding.results import Action, Command, HeardClueCheck, Phase
from voicehost.understanding.text import MAX_TEXT_CHARS, Token, keys_of, strip_start, text_of, tokenize
from voicehost.understanding.vocabulary import resolved_table, strings, subtable, vocabulary

SLOT: Final = "*"
MAX_WORDS: Final = 3
"""A clue is one word; names and compounds (house rules) may take two or three. More is talk."""

Pattern = tuple[tuple[str, ...], tuple[str, ...]]
"""The words before the slot and the words after it, normalized."""


@cache
def check_patterns(lang: Lang) -> tuple[Pattern, ...]:
    """The language's clue-check phrases as (before, after) word keys, the longest first."""
    vocab = vocabulary(lang)
    where = f"vocabulary {lang.value} [key_requests]"
    phrases = strings(subtable(resolved_table(lang.value), "key_requests", where), "clue_checks", where)
    patterns: list[Pattern] = []
    for phrase in phrases:
        before, slot, after = phrase.partition(SLOT)
        if not slot or SLOT in after:
            raise ValueError(f"{where}: {phrase!r} must hold one {SLOT} where the word goes")
        patterns.append(
            (keys_of(tokenize(before, vocab.join_apostrophes)), keys_of(tokenize(after, vocab.join_apostrophes)))
        )
    return tuple(sorted(set(patterns), key=lambda p: -(len(p[0]) + len(p[1]))))


def clue_check(text: str, lang: Lang, phase: Phase = Phase.CLUE) -> HeardClueCheck | None:
    """ "Is OCEAN allowed?" as a `HeardClueCheck` (word "ocean"); None when the utterance is no such
    question, or is a command. Never raises."""
    if len(text) > MAX_TEXT_CHARS:
        return None
    vocab = vocabulary(lang)
    tokens = tokenize(text, vocab.join_apostrophes)
    if not tokens or command_in(tokens, vocab, phase) is not None:
        return None
    polite = tokens[strip_start(tokens, vocab.fillers, keep_one=True)[-1] :]  # "please, is ocean ok"
    for said in (tokens, polite, trim(tokens, vocab)):
        word = _word_in(said, lang)
        if word:
            return HeardClueCheck(text, Action.ACCEPT, 1.0, Command.CHECK_CLUE, word)
    return None


def _word_in(tokens: Sequence[Token], lang: Lang) -> str:
    keys = keys_of(tokens)
    for before, after in check_patterns(lang):
        end = len(keys) - len(after)
        if end <= len(before) or keys[: len(before)] != before or keys[end:] != after:
            continue
        word = _slot_word(tokens[len(before) : end], lang)
        if word:
            return word
    return ""


def _slot_word(slot: Sequence[Token], lang: Lang) -> str:
    """The clue word said in the slot: lead-ins and articles before it and a number after it dropped;
    "" when nothing else is left, or more words than a clue has."""
    vocab = vocabulary(lang)
    slot = slot[strip_start(slot, vocab.starters, keep_one=False)[-1] :]
    keys = keys_of(slot)
    number = vocab.number_words.suffix(keys, len(keys))
    if number and number < len(keys):
        slot = slot[: len(keys) - number]
    if not slot or len(slot) > MAX_WORDS or keys_of(slot) in vocab.number_words:
        return ""
    return text_of(slot)
