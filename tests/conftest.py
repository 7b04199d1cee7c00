"""Shared helpers: boards written out by hand, the way a rulebook prints them; and the markers that say
which tests need more than the code (tests/voice: real speech models on real audio; tests/browser: a
real chromium; tests/system: real processes, sockets, files and emulated processors). `make test-fast`
leaves those out; `make test` runs everything."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import pytest
from hypothesis import settings

from engine.board import Board
from engine.lang import Lang
from engine.pieces import GRID_5X4, GRID_5X5, Edition, Identity, Side, Team

# The same commit gives the same result every time: hypothesis draws its examples from a fixed seed
# and keeps no database of earlier failures between runs. `HYPOTHESIS_PROFILE=explore` searches afresh.
settings.register_profile("repeatable", derandomize=True, database=None, print_blob=True)
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "repeatable"))

DUET_EXAMPLE_CARDS = [
    "MANTEIGA",
    "ORDEM",
    "VERMELHO",
    "MOLHO",
    "PESCOÇO",
    "BONECA",
    "GOVERNADOR",
    "CAPA",
    "TORTA",
    "NARIZ",
    "PERGAMINHO",
    "PIZZA",
    "CAPACETE",
    "COZINHA",
    "ESTÚDIO",
    "CEREJA",
    "CHAMA",
    "ARGENTINA",
    "ESPÍRITO",
    "SEDA",
    "SALADA",
    "LAMA",
    "FORMIGA",
    "CINTURÃO",
    "TARDE",
]

# The seed-001 example game needs: on A's side SALADA, TORTA, BONECA, VERMELHO, MOLHO, FORMIGA green,
# CEREJA bystander, PIZZA assassin; on B's side TORTA, CEREJA, COZINHA green. The rest follows the
# printed key structure.
DUET_EXAMPLE_PAIRS = {
    "TORTA": "GG",
    "SALADA": "GG",
    "NARIZ": "GG",
    "ESTÚDIO": "GA",
    "BONECA": "GB",
    "VERMELHO": "GB",
    "MOLHO": "GB",
    "FORMIGA": "GB",
    "CAPA": "GB",
    "PIZZA": "AG",
    "CEREJA": "BG",
    "COZINHA": "BG",
    "SEDA": "BG",
    "CHAMA": "BG",
    "LAMA": "BG",
    "GOVERNADOR": "AA",
    "TARDE": "AB",
    "ARGENTINA": "BA",
    "MANTEIGA": "BB",
    "ORDEM": "BB",
    "PESCOÇO": "BB",
    "PERGAMINHO": "BB",
    "CAPACETE": "BB",
    "ESPÍRITO": "BB",
    "CINTURÃO": "BB",
}
LETTER = {"G": Identity.GREEN, "B": Identity.BYSTANDER, "A": Identity.ASSASSIN}


def duet_board(first: Side | None = None, lang: Lang = Lang.PT_PT) -> Board:
    pairs = [DUET_EXAMPLE_PAIRS[card] for card in DUET_EXAMPLE_CARDS]
    return Board(
        Edition.DUET,
        lang,
        GRID_5X5,
        tuple(DUET_EXAMPLE_CARDS),
        key_a=tuple(LETTER[p[0]] for p in pairs),
        key_b=tuple(LETTER[p[1]] for p in pairs),
        first_clue_giver=first,
    )


def competitive_board(
    spec: Sequence[tuple[str, str]],
    *,
    lang: Lang = Lang.PT_BR,
    edition: Edition = Edition.CLASSIC,
    starting: Team = Team.RED,
) -> Board:
    """Cards with identities given as r, b, n (bystander), x (assassin)."""
    codes = {"r": Identity.RED, "b": Identity.BLUE, "n": Identity.BYSTANDER, "x": Identity.ASSASSIN}
    grid = GRID_5X5 if len(spec) == 25 else GRID_5X4
    return Board(edition, lang, grid, tuple(card for card, _ in spec), tuple(codes[c] for _, c in spec), starting)


CLASSIC_SPEC = [
    ("MANTEIGA", "r"),
    ("ORDEM", "r"),
    ("VERMELHO", "r"),
    ("MOLHO", "r"),
    ("PESCOÇO", "r"),
    ("BONECA", "r"),
    ("GOVERNADOR", "r"),
    ("CAPA", "r"),
    ("TORTA", "r"),
    ("NARIZ", "b"),
    ("PERGAMINHO", "b"),
    ("PIZZA", "b"),
    ("CAPACETE", "b"),
    ("COZINHA", "b"),
    ("ESTÚDIO", "b"),
    ("CEREJA", "b"),
    ("CHAMA", "b"),
    ("ARGENTINA", "n"),
    ("ESPÍRITO", "n"),
    ("SEDA", "n"),
    ("SALADA", "n"),
    ("LAMA", "n"),
    ("FORMIGA", "n"),
    ("CINTURÃO", "n"),
    ("TARDE", "x"),
]

PICTURES_SPEC = [
    ("MONKEY", "r"),
    ("DINOSAUR", "r"),
    ("KANGAROO", "r"),
    ("ROCKET", "r"),
    ("CASTLE", "r"),
    ("PIANO", "r"),
    ("DRAGON", "r"),
    ("ANCHOR", "r"),
    ("TOMATO", "b"),
    ("GUITAR", "b"),
    ("CACTUS", "b"),
    ("VOLCANO", "b"),
    ("PENGUIN", "b"),
    ("UMBRELLA", "b"),
    ("BALLOON", "b"),
    ("CANDLE", "n"),
    ("HAMMER", "n"),
    ("CARROT", "n"),
    ("TURTLE", "n"),
    ("SKULL", "x"),
]


@pytest.fixture
def classic_board() -> Board:
    return competitive_board(CLASSIC_SPEC)


@pytest.fixture
def pictures_board() -> Board:
    return competitive_board(PICTURES_SPEC, lang=Lang.EN, edition=Edition.PICTURES)


KINDS = ("voice", "browser", "system")
"""Folders of tests/ whose tests are marked with the folder's name."""


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        folder = Path(str(item.path)).parent.name
        if folder in KINDS:
            item.add_marker(getattr(pytest.mark, folder))
