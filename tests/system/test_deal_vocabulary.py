"""A dealt game by voice with vosk prefers the cards the model knows (the others can only be named by
their place), keeping the deal seeded; `voicehost models list` says how much of each deck a model knows.

The real vocabulary is the Korean vosk model's (the only vosk model a registry ships): it knows no pt,
it or en word, so its decks here are Korean nouns, some of them words it lacks.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from bench.korean import KOREAN_FILLERS, KOREAN_NOUNS
from engine.decks import picture_names, words
from engine.lang import Lang
from tests.scripting import cli_env
from voicehost.cli import setup
from voicehost.cli.models import vocabulary_lines
from voicehost.cli.setup import deal_board, preferred, vocabulary_knows
from voicehost.speech_models import Manifest, install

LACKING = ("탕후루", "뚱카롱", "꿻")  # words the Korean model does not know
KOREAN_DECK = (*LACKING, *KOREAN_NOUNS, *KOREAN_FILLERS)


@pytest.fixture(scope="module")
def korean_model() -> Path:
    return install(Manifest.load().get("vosk-ko"))


def options(**given: object) -> argparse.Namespace:
    chosen: dict[str, object] = dict.fromkeys(("edition", "deck", "grid", "starting", "first"))
    chosen["seed"] = 5
    return argparse.Namespace(**{**chosen, **given})


def test_the_known_cards_are_preferred_and_the_deal_stays_seeded() -> None:
    deck = [f"W{n}" for n in range(100)]
    known = {f"W{n}" for n in range(0, 100, 3)}  # 34 known: enough for a board
    assert preferred(deck, known.__contains__, 25, random.Random(1)) == sorted(known, key=deck.index)
    few = {"W1", "W2"}
    chosen = preferred(deck, few.__contains__, 25, random.Random(1))
    assert chosen[:2] == ["W1", "W2"] and len(chosen) == 25  # all known, and just enough of the others
    assert chosen == preferred(deck, few.__contains__, 25, random.Random(1))
    assert preferred(deck, lambda card: False, 25, random.Random(1)) == deck  # nothing known: the plain deal


@pytest.mark.parametrize("edition", ["classic", "pictures", "duet"])
def test_a_board_holds_only_known_cards_when_the_deck_has_enough(edition: str) -> None:
    lang = Lang.EN
    deck = [*words(lang), *picture_names(lang)]
    known = set(deck[::4])
    board = deal_board(options(edition=edition), lang, known.__contains__)
    assert set(board.cards) <= known
    assert board == deal_board(options(edition=edition), lang, known.__contains__)  # the same seed, the same board
    assert board != deal_board(options(edition=edition, seed=6), lang, known.__contains__)


def test_a_deal_with_the_korean_model_leaves_out_the_words_it_lacks(
    korean_model: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(setup, "words", lambda lang: KOREAN_DECK)
    knows = vocabulary_knows("vosk", korean_model, Lang.EN)
    assert knows is not None and not knows("탕후루") and knows("고양이")
    for seed in range(20):
        board = deal_board(options(seed=seed), Lang.EN, knows)
        assert not set(board.cards) & set(LACKING), board.cards
    assert vocabulary_knows("whisper", None, Lang.EN) is None  # whisper hears any word


def test_voicehost_deal_with_a_vosk_model(korean_model: Path, tmp_path: Path) -> None:
    """The Korean model knows no English card: the deal is the plain one, the same as with whisper."""
    boards = []
    for engine in (["--engine", "vosk", "--model", str(korean_model)], ["--engine", "whisper"]):
        out = tmp_path / f"{engine[1]}.json"
        command = [sys.executable, "-m", "voicehost.cli", "deal", "--lang", "en", "--seed", "9", *engine]
        done = subprocess.run([*command, "--out", str(out)], capture_output=True, text=True, env=cli_env(), check=False)
        assert done.returncode == 0, done.stderr
        boards.append(json.loads(out.read_text(encoding="utf-8")))
    assert boards[0] == boards[1]


def test_models_list_counts_the_deck_words_a_vosk_model_knows(korean_model: Path) -> None:
    spec = Manifest.load().get("vosk-ko")
    assert vocabulary_lines(spec, korean_model) == ["knows no deck's words: it serves ko, not a game language"]
    as_english = replace(spec, langs=("en",))
    assert vocabulary_lines(as_english, korean_model) == [
        f"knows en: 0 of {len(words(Lang.EN))} words, 0 of {len(picture_names(Lang.EN))} pictures"
    ]
