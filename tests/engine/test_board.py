"""Board files: validated on load with a reason for every rejection; keys dealt from a seed."""

from __future__ import annotations

import json
import random
from collections import Counter
from typing import Any

import pytest

from engine.board import DUET_PAIRS, Board, deal_competitive, deal_duet
from engine.errors import BoardError
from engine.lang import Lang
from engine.pieces import GRID_5X4, GRID_5X5, Edition, Identity, Side, Team
from tests.conftest import duet_board

WORDS = [f"CARTA{i}" for i in range(60)]


def classic_dict() -> dict[str, Any]:
    return deal_competitive(WORDS, Lang.PT_BR, random.Random(3)).to_dict()


def test_board_file_round_trip(classic_board: Board) -> None:
    text = json.dumps(classic_board.to_dict(), ensure_ascii=False)
    assert Board.from_dict(json.loads(text)) == classic_board
    assert Board.from_dict(duet_board().to_dict()) == duet_board()


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d["cards"].pop(), "5x5 grid needs 25 cards, not 24"),
        (lambda d: d.update(rows=4), "needs 20 cards, not 25"),
        (lambda d: d["key"].__setitem__(0, "purple"), "unknown identity 'purple'"),
        (
            lambda d: d["key"].__setitem__(d["key"].index("bystander"), "assassin"),
            "7 bystander, not 6; 1 assassin, not 2",
        ),
        (lambda d: d.update(starting_team="green"), "starting_team cannot be 'green'"),
        (lambda d: d.update(edition="chess"), "unknown edition 'chess'"),
        (lambda d: d.update(lang="fr"), "unknown language 'fr'"),
        (lambda d: d["cards"].__setitem__(1, d["cards"][0].lower()), "is on the board twice"),
        (lambda d: d.update(columns=6, rows=4, cards=d["cards"][:24], key=d["key"][:24]), "5x5 or a 5x4"),
        (lambda d: d.update(key_a=d["key"]), "key_a and key_b belong to Duet"),
    ],
)
def test_bad_competitive_boards_say_why(change: Any, message: str) -> None:
    data = classic_dict()
    change(data)
    with pytest.raises(BoardError, match=message):
        Board.from_dict(data)


def test_starting_team_must_match_the_key() -> None:
    data = classic_dict()
    data["starting_team"] = Team(data["starting_team"]).other.value
    with pytest.raises(BoardError, match="starting needs 9"):
        Board.from_dict(data)


def test_duet_key_structure_is_enforced() -> None:
    data = duet_board().to_dict()
    a, b = data["key_a"], data["key_b"]
    i = next(i for i in range(25) if a[i] == "green" and b[i] == "green")
    j = next(j for j in range(25) if a[j] == "bystander" and b[j] == "bystander")
    a[i], a[j] = a[j], a[i]  # still 9 greens on A, but the pairs no longer follow the structure
    with pytest.raises(BoardError, match="green on side A and green on side B"):
        Board.from_dict(data)
    with pytest.raises(BoardError, match="not an identity of a Duet key"):
        Board.from_dict({**duet_board().to_dict(), "key_a": ["red"] * 25})


def test_not_an_object() -> None:
    with pytest.raises(BoardError, match="one JSON object"):
        Board.from_dict([])  # type: ignore[arg-type]


@pytest.mark.parametrize("seed", range(50))
def test_dealt_keys_have_the_right_counts(seed: int) -> None:
    rng = random.Random(seed)
    classic = deal_competitive(WORDS, Lang.IT, rng)
    starter = classic.starting_team
    assert starter is not None
    tally = Counter(classic.key)
    assert tally[Identity.of_team(starter)] == 9 and tally[Identity.of_team(starter.other)] == 8
    assert (tally[Identity.BYSTANDER], tally[Identity.ASSASSIN]) == (7, 1)
    pictures = deal_competitive(WORDS, Lang.EN, rng, edition=Edition.PICTURES)
    assert pictures.grid == GRID_5X4 and Counter(pictures.key)[Identity.BYSTANDER] == 4
    mixed = deal_competitive(WORDS, Lang.EN, rng, edition=Edition.PICTURES, grid=GRID_5X5)
    assert Counter(mixed.key)[Identity.BYSTANDER] == 7  # pictures on 5x5 use the classic counts
    duet = deal_duet(WORDS, Lang.PT_PT, rng, first_clue_giver=Side.B)
    assert Counter(zip(duet.key_a, duet.key_b, strict=True)) == DUET_PAIRS
    assert len(set(duet.key_a[i] for i in range(25) if duet.key_b[i] is Identity.GREEN)) == 3


def test_same_seed_same_deal() -> None:
    assert deal_duet(WORDS, Lang.EN, random.Random(7)) == deal_duet(WORDS, Lang.EN, random.Random(7))
