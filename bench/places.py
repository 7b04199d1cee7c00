"""Places beside names: the corpus's held-out voices naming a card by its place on the test board
("B3", "row two column three", "linha dois coluna três", "riga due colonna tre"), kind "place", and after a
lead-in ("I think it's B3"), kind "place-lead-in".

Kept apart from bench/corpus.py (its text is hashed into the calibration cache): the utterances are
`bench.corpus.Utterance`s, built the same way, each with the card at that place as its `card`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from bench.corpus import Utterance, boards
from bench.voices import TestVoice
from engine.lang import Lang
from voicehost.understanding.positions import label, lettered_phrases, position_phrases

PLACES: Final = ((2, 3), (1, 1), (4, 5), (5, 2), (3, 4))
"""The places said (row, column): corners, the middle band, both axes' ends."""
PLACE_KINDS: Final = ("place", "place-lead-in")
"""A place said alone, and after a lead-in ("I think it's C2")."""
PLACE_LEAD_INS: Final[dict[str, tuple[str, ...]]] = {
    "pt": ("eu acho que é {place}", "vamos de {place}", "a resposta é {place}"),
    "it": ("scelgo {place}", "direi {place}", "io dico {place}"),
    "en": ("I think it's {place}", "let's go with {place}", "my guess is {place}"),
}


def place_corpus(
    lang: Lang, voices: Sequence[TestVoice], *, quick: bool = False, every: bool = False
) -> list[Utterance]:
    """Each voice saying each place of PLACES (`every`: every place of the board, as the calibration has
    them) three ways alone: the row-and-column phrase, the column's letter and the row's number said as
    words, and the label as written ("B3"); and the label after a lead-in ("I think it's B3", kind
    "place-lead-in"), on the test board."""
    board = boards(lang)["test"]
    columns = board.grid.columns
    plain = {(row, column): phrase for phrase, row, column in position_phrases(lang, columns, board.grid.rows)}
    lettered = lettered_phrases(lang, columns, board.grid.rows)
    chosen = tuple(plain) if every else PLACES[:2] if quick else PLACES
    said: list[Utterance] = []
    for number, voice in enumerate(voices):
        for row, column in chosen:
            card = board.cards[(row - 1) * columns + (column - 1)]
            texts = (plain[(row, column)], lettered[(column - 1) * board.grid.rows + (row - 1)], label(row, column))
            said += [Utterance(lang, voice, "place", text, "test", card=card) for text in texts]
            leads = PLACE_LEAD_INS[lang.family]
            led = leads[(row + column + number) % len(leads)].format(place=label(row, column))
            said.append(Utterance(lang, voice, "place-lead-in", led, "test", card=card))
    return said
