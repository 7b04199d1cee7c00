"""Commands said alone (politeness and hesitations aside), and the words that merely sound like one."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Final

from rapidfuzz import process
from rapidfuzz.distance import Levenshtein

from voicehost.understanding.results import Command, Phase
from voicehost.understanding.text import Token, keys_of, strip_start
from voicehost.understanding.vocabulary import Vocabulary

COMMAND_SHADOW_EDITS: Final = 1
"""An inexact card match this few letter edits from a command is asked back ("sin": SINO or sim?)."""


def trim(tokens: Sequence[Token], vocab: Vocabulary) -> tuple[Token, ...]:
    """Drop hesitations anywhere and politeness at both ends, never everything."""
    keys = keys_of(tokens)
    kept: list[Token] = []
    i = 0
    while i < len(tokens):
        n = vocab.hesitations.prefix(keys, i)
        if n:
            i += n
        else:
            kept.append(tokens[i])
            i += 1
    if not kept:
        return tuple(tokens)
    keys = keys_of(kept)
    start, end = 0, len(kept)
    while True:
        n = vocab.fillers.prefix(keys, start)
        if n and start + n < end:
            start += n
            continue
        n = vocab.fillers.suffix(keys, end)
        if n and end - n > start:
            end -= n
            continue
        return tuple(kept[start:end])


def command_in(tokens: Sequence[Token], vocab: Vocabulary, phase: Phase) -> Command | None:
    """Exact command phrase, said alone (politeness and hesitations aside)."""
    by_phase = vocab.phase_commands.get(phase, {})
    for keys in (keys_of(tokens), keys_of(trim(tokens, vocab))):
        command = by_phase.get(keys) or vocab.commands.get(keys)
        if command is not None:
            return command
    return None


MIN_NEAR_LETTERS: Final = 6
"""A command phrase is recognized a slip away ("Saier do jogo." for "sair do jogo") only when it has this
many letters or more: one edit in a shorter one ("sin", "nau") may as well be another word."""


def slip_of(keys: Sequence[str], phrases: Iterable[str]) -> str | None:
    """The phrase of MIN_NEAR_LETTERS letters or more that the words are one slip away from, their letters
    compared without the spaces ("apistar" for "a pista é", "saier do jogo" for "sair do jogo"); None when
    none is that near. The way Whisper garbles a fixed phrase said plainly."""
    said = "".join(keys)
    letters = {
        "".join(phrase.split()): phrase for phrase in phrases if len(phrase.replace(" ", "")) >= MIN_NEAR_LETTERS
    }
    found = process.extractOne(said, list(letters), scorer=Levenshtein.distance, score_cutoff=COMMAND_SHADOW_EDITS)
    return letters[found[0]] if found else None


def command_near(tokens: Sequence[Token], vocab: Vocabulary, phase: Phase) -> Command | None:
    """The command whose phrase the words are a slip away from (`slip_of`); None when none is that near."""
    by_phase = vocab.phase_commands.get(phase, {})
    for keys in (keys_of(trim(tokens, vocab)), keys_of(tokens)):
        phrase = slip_of(keys, vocab.command_texts)
        if phrase is not None:
            command = by_phase.get(tuple(phrase.split())) or vocab.commands.get(tuple(phrase.split()))
            if command is not None:
                return command
    return None


def sounds_like_command(tokens: Sequence[Token], vocab: Vocabulary) -> bool:
    """Whether the words are a slip away from a command phrase ("sin" vs "sim").

    Counted in letter edits, not as a ratio: short commands ("sim", "não", "no") are the
    dangerous ones, and a ratio would also flag long words that merely share letters.
    """
    core = tokens[strip_start(tokens, vocab.starters, keep_one=True)[-1] :]
    return _a_slip_from((keys_of(tokens), keys_of(core)), vocab.command_texts)


def answer_near(tokens: Sequence[Token], vocab: Vocabulary, command: Command) -> bool:
    """Whether the words are `command`'s phrase or a slip away from it ("sin" for "sim", "XIN"): weak
    alone (one edit in a short word may be another word), but an answer the scores also put first."""
    phrases = [" ".join(keys) for keys, meant in vocab.commands.items() if meant is command]
    return _a_slip_from((keys_of(tokens), keys_of(trim(tokens, vocab))), phrases)


def _a_slip_from(readings: Iterable[tuple[str, ...]], phrases: Sequence[str]) -> bool:
    """Whether any reading of the words is one of `phrases` or COMMAND_SHADOW_EDITS letter edits from one."""
    return any(
        keys
        and process.extractOne(" ".join(keys), phrases, scorer=Levenshtein.distance, score_cutoff=COMMAND_SHADOW_EDITS)
        for keys in set(readings)
    )
