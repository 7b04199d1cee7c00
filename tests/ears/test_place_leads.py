"""A place is scored alone and after the transcript's first words only where they may be a lead-in
(`leads_before_a_place`): "I think it's C2" keeps its lead-in; "Linha 2 coluna 3" has none, for a reading
that cuts the place's own words would score the place said inside itself (and cost four times the rows)."""

from __future__ import annotations

import pytest

from engine.lang import Lang
from voicehost.ears.recognizers.whisper import leads_before_a_place


def _words_as_leads(text: str) -> tuple[list[list[int]], dict[int, str]]:
    """Each word a token; the leads as the recognizer makes them: none, then every first few words."""
    words = text.split()
    leads: list[list[int]] = [[], *([*range(end)] for end in range(1, len(words)))]
    return leads, dict(enumerate(words))


def _kept(text: str, lang: Lang) -> list[str]:
    leads, words = _words_as_leads(text)
    kept = leads_before_a_place(leads, lambda tokens: " " + " ".join(words[t] for t in tokens), lang)
    return [" ".join(words[t] for t in lead) for lead in kept]


@pytest.mark.parametrize(
    ("text", "lang"),
    [("Linha 2 coluna 3.", Lang.PT_BR), ("row two column three", Lang.EN), ("Riga 4 con l'onna 5.", Lang.IT)],
)
def test_the_words_of_a_place_are_no_lead_in(text: str, lang: Lang) -> None:
    assert _kept(text, lang) == [""]


@pytest.mark.parametrize(
    ("text", "lang", "leads"),
    [
        ("I think it's C2", Lang.EN, ["", "I", "I think", "I think it's"]),
        ("Secondo me è la B3", Lang.IT, ["", "Secondo", "Secondo me", "Secondo me è", "Secondo me è la"]),
        ("Eu acho que é linha dois coluna três", Lang.PT_PT, ["", "Eu", "Eu acho", "Eu acho que", "Eu acho que é"]),
    ],
)
def test_a_lead_in_before_a_place_is_kept(text: str, lang: Lang, leads: list[str]) -> None:
    assert _kept(text, lang) == leads
