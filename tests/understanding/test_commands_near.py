"""A command phrase garbled by the ears (`command_near`): a longer phrase may be further garbled and still be
the one command it can be ("quale il conteggio?" for "qual è il punteggio"), checked here against the data
that must never be read as a command: table talk, the decks' cards, and the other commands' phrases."""

from __future__ import annotations

from pathlib import Path

import pytest
from rapidfuzz.distance import Levenshtein

from engine.decks import words
from engine.lang import Lang
from voicehost.understanding import Command, HeardCommand, NotUnderstood, understand
from voicehost.understanding.commands import (
    COMMAND_SHADOW_EDITS,
    command_meanings,
    command_near,
    command_radii,
    slip_of,
)
from voicehost.understanding.results import Phase
from voicehost.understanding.text import keys_of, tokenize
from voicehost.understanding.vocabulary import vocabulary

TALK = Path(__file__).parents[1] / "data" / "table_talk"


@pytest.mark.parametrize(
    ("lang", "heard"),
    [
        (Lang.PT_BR, "Quao é o placa?"),  # "qual é o placar", MBROLA and RHVoice as Whisper heard them
        (Lang.IT, "quale il conteggio?"),  # "qual è il punteggio"
        (Lang.PT_PT, "Vale a pontuação."),  # "qual é a pontuação"
    ],
)
def test_a_long_command_garbled_by_two_letters_is_still_that_command(lang: Lang, heard: str) -> None:
    vocab = vocabulary(lang)
    assert command_near(tokenize(heard, vocab.join_apostrophes), vocab, Phase.GUESS) is Command.SCORE


def test_by_ear_it_is_taken_and_typed_it_stays_unknown() -> None:
    """Only the ears garble a phrase: typed, "quale il conteggio" is not read as a command."""
    cards = ("GATTO", "CANE")
    heard = understand("quale il conteggio?", phase=Phase.GUESS, cards=cards, lang=Lang.IT, asr_confidence=0.4)
    assert isinstance(heard, HeardCommand) and heard.command is Command.SCORE
    typed = understand("quale il conteggio?", phase=Phase.GUESS, cards=cards, lang=Lang.IT)
    assert isinstance(typed, NotUnderstood)


@pytest.mark.parametrize("lang", list(Lang))
def test_no_table_talk_and_no_card_comes_near_a_command(lang: Lang) -> None:
    vocab = vocabulary(lang)
    radii = command_radii(lang)
    lines = [line for line in (TALK / f"{lang.value}.txt").read_text(encoding="utf-8").splitlines() if line.strip()]
    phases = (Phase.GUESS, Phase.CLUE)
    near_talk = [
        line for line in lines if any(command_near(tokenize(line, vocab.join_apostrophes), vocab, p) for p in phases)
    ]
    assert near_talk == []
    widened = [  # a card a command's own radius reaches, beyond the one edit every command always had
        card
        for card in words(lang)
        if slip_of(keys_of(tokenize(card, vocab.join_apostrophes)), vocab.command_texts, radii)
        and not slip_of(keys_of(tokenize(card, vocab.join_apostrophes)), vocab.command_texts)
    ]
    assert widened == []


@pytest.mark.parametrize("lang", list(Lang))
def test_a_radius_stops_short_of_half_the_way_to_another_command(lang: Lang) -> None:
    """Two radii wider than one edit never overlap between different commands: a garble within one command's
    radius is nearer to it than to any other command ("para a ampulheta" and "vira a ampulheta" keep one)."""
    vocab = vocabulary(lang)
    radii = command_radii(lang)
    meaning = command_meanings(lang)
    for phrase, radius in radii.items():
        assert radius >= COMMAND_SHADOW_EDITS
        if radius == COMMAND_SHADOW_EDITS:
            continue
        for other in vocab.command_texts:
            if meaning[other] != meaning[phrase]:
                apart = Levenshtein.distance("".join(phrase.split()), "".join(other.split()))
                assert 2 * radius < apart, (phrase, other)
