"""Which transcripts the ears score the grid's places for (`voicehost.understanding.positions`): the words
of a place, and now a word or two that may be a short place garbled past its words ("alma" for "A1")."""

from __future__ import annotations

import pytest

from engine.lang import Lang
from voicehost.understanding.positions import garbled_place_ways, places_to_score, scored_places


@pytest.mark.parametrize(
    ("lang", "heard"),
    [
        (Lang.PT_BR, "alma"),  # "á uma" (A1), as Whisper heard MBROLA's br4 say it
        (Lang.PT_BR, "Sinois."),  # "cê dois"
        (Lang.PT_BR, "de símpode"),  # "bê cinco"
        (Lang.PT_BR, "eu acho que é alma"),  # after a lead-in: its words are not counted
    ],
)
def test_a_word_or_two_that_names_no_place_still_has_the_short_ways_scored(lang: Lang, heard: str) -> None:
    assert places_to_score(heard, lang) == ()  # the words are like no place's: the old gate lost these
    short = {way.phrase for way in scored_places(lang) if not way.long}
    assert set(garbled_place_ways(heard, lang)) == short


@pytest.mark.parametrize(
    ("lang", "heard"),
    [
        (Lang.EN, "the neighbour's dog barks all day"),
        (Lang.PT_BR, "o vizinho faz barulho demais"),
        (Lang.IT, "ho comprato delle scarpe nuove"),
        (Lang.EN, ""),
    ],
)
def test_talk_of_more_words_is_not_taken_for_a_garbled_place(lang: Lang, heard: str) -> None:
    assert garbled_place_ways(heard, lang) == ()
