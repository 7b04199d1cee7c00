"""Commands said alone (politeness and hesitations aside), and the words that merely sound like one."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from functools import cache
from typing import Final

from rapidfuzz import process
from rapidfuzz.distance import Levenshtein

from engine.lang import Lang
from voicehost.understanding.results import Command, Phase
from voicehost.understanding.text import Token, keys_of, strip_start, tokenize
from voicehost.understanding.vocabulary import Vocabulary, vocabulary

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


LETTERS_PER_SLIP: Final = 6
"""A longer command phrase may be further garbled and still be the only command it can be: one letter edit
for every this many letters ("quale il conteggio" for "qual è il punteggio": 2 in 16), never fewer than
COMMAND_SHADOW_EDITS, and under half the way to another command's phrase (`command_radii`). Checked on
data: no line of table talk (tests/data/table_talk) and no card of the decks comes this near a command's
phrase (tests/understanding/test_commands_near.py)."""


def slip_budget(letters: int) -> int:
    """How many letter edits a command phrase of `letters` letters may be garbled by, its length alone said."""
    return max(COMMAND_SHADOW_EDITS, letters // LETTERS_PER_SLIP)


@cache
def command_meanings(lang: Lang) -> dict[str, frozenset[Command]]:
    """What each command phrase means, in any phase: a phrase said in one phase only ("chega por hoje")
    means its command too, so two phrases of one command are never kept apart as if they were two."""
    vocab = vocabulary(lang)
    tables = (vocab.commands, *vocab.phase_commands.values())
    return {
        phrase: frozenset(command for table in tables if (command := table.get(tuple(phrase.split()))) is not None)
        for phrase in vocab.command_texts
    }


@cache
def command_radii(lang: Lang) -> dict[str, int]:
    """Each command phrase's slip budget (`slip_budget`), cut to under half its letters' distance to the
    nearest phrase of another command ("para a ampulheta" is 2 edits from "vira a ampulheta"), so a garble
    is read as a command only where no other one is as near; COMMAND_SHADOW_EDITS at least, as ever."""
    vocab = vocabulary(lang)
    letters = {phrase: "".join(phrase.split()) for phrase in vocab.command_texts}
    meaning = command_meanings(lang)
    radii = {}
    for phrase, said in letters.items():
        others = [Levenshtein.distance(said, other) for p, other in letters.items() if meaning[p] != meaning[phrase]]
        apart = min(others, default=len(said))
        radii[phrase] = max(COMMAND_SHADOW_EDITS, min(slip_budget(len(said)), (apart - 1) // 2))
    return radii


def slip_of(keys: Sequence[str], phrases: Iterable[str], radii: Mapping[str, int] | None = None) -> str | None:
    """The phrase of MIN_NEAR_LETTERS letters or more that the words are a slip away from (COMMAND_SHADOW_EDITS
    letter edits, or the phrase's own radius in `radii`), their letters compared without the spaces ("apistar"
    for "a pista é", "saier do jogo" for "sair do jogo"); the nearest, None when none is that near. The way
    Whisper garbles a fixed phrase said plainly."""
    said = "".join(keys)
    best: tuple[int, str] | None = None
    for phrase in phrases:
        letters = "".join(phrase.split())
        if len(letters) < MIN_NEAR_LETTERS:
            continue
        radius = COMMAND_SHADOW_EDITS if radii is None else radii.get(phrase, COMMAND_SHADOW_EDITS)
        edits = Levenshtein.distance(said, letters, score_cutoff=radius)
        if edits <= radius and (best is None or edits < best[0]):
            best = (edits, phrase)
    return best[1] if best else None


def command_near(tokens: Sequence[Token], vocab: Vocabulary, phase: Phase) -> Command | None:
    """The command whose phrase the words are a slip away from (`slip_of`); None when none is that near."""
    by_phase = vocab.phase_commands.get(phase, {})
    for keys in (keys_of(trim(tokens, vocab)), keys_of(tokens)):
        phrase = slip_of(keys, vocab.command_texts, command_radii(vocab.lang))
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


OPENING_WORD: Final = re.compile(r"^\s*([^\W\d_]+)[\s,.!;:]+(\S.*)$", re.DOTALL)
"""A first word, with more after it."""


def answer_leading(text: str, vocab: Vocabulary) -> tuple[Command, str] | None:
    """The answer a longer line opens with, and the words after it ("No, I'm not.", "Não vai dar nada,", "Sim,
    vamos nessa"): over the others' talk Whisper writes the room's words after a player's "no". Only a
    one-word "yes" or "no" of the language, exactly as written; None otherwise (a lone "No." is read as a
    command already). Whether the rest is talk about a card ("não é o touro") is the caller's to weigh."""
    opening = OPENING_WORD.match(text)
    if opening is None:
        return None
    meant = vocab.commands.get(keys_of(tokenize(opening.group(1), vocab.join_apostrophes)))
    return (meant, opening.group(2)) if meant in (Command.YES, Command.NO) else None


def _a_slip_from(readings: Iterable[tuple[str, ...]], phrases: Sequence[str]) -> bool:
    """Whether any reading of the words is one of `phrases` or COMMAND_SHADOW_EDITS letter edits from one."""
    return any(
        keys
        and process.extractOne(" ".join(keys), phrases, scorer=Levenshtein.distance, score_cutoff=COMMAND_SHADOW_EDITS)
        for keys in set(readings)
    )
