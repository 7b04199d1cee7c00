"""Every language says everything: same keys, same placeholders, as the English master."""

from __future__ import annotations

import json
import string
import tomllib
from importlib import resources
from pathlib import Path

import pytest

from engine.board import Board
from engine.editions import new_game
from engine.errors import GameError
from engine.lang import Lang
from voicehost.prompts import Prompts
from voicehost.referee.announcer import announcer_for

BOARDS = Path(__file__).resolve().parent / "boards"


def flat(lang: Lang) -> dict[str, str]:
    data = tomllib.loads(
        resources.files("voicehost.prompts").joinpath(f"{lang.value}.toml").read_text(encoding="utf-8")
    )
    return {f"{table}.{key}": value for table, items in data.items() for key, value in items.items()}


def fields(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


@pytest.mark.parametrize("lang", [Lang.PT_BR, Lang.PT_PT, Lang.IT])
def test_same_keys_and_placeholders_as_english(lang: Lang) -> None:
    english, other = flat(Lang.EN), flat(lang)
    assert set(other) == set(english)
    for key, text in english.items():
        assert fields(other[key]) == fields(text), key


def test_rulebook_score_texts_are_verbatim() -> None:
    assert flat(Lang.PT_BR)["coop_rating.pictures_5"] == "Você poderia trabalhar para o Pentágono."
    assert flat(Lang.IT)["coop_rating.classic_5"] == "Verrete presto contattati dalla CIA."
    assert flat(Lang.EN)["coop_rating.pictures_2"] == "Now you're getting the picture."


def _error_classes(base: type[GameError]) -> list[type[GameError]]:
    found = [base]
    for sub in base.__subclasses__():
        found += _error_classes(sub)
    return found


@pytest.mark.parametrize("lang", list(Lang))
def test_every_rule_the_engine_enforces_is_said_in_the_games_language(lang: Lang) -> None:
    """No engine error reaches a player in the engine's English: each has a line in every language,
    with the placeholders its error fills in."""
    game = new_game(Board.from_dict(json.loads((BOARDS / f"duet-{lang.value}.json").read_text(encoding="utf-8"))))
    announcer = announcer_for(game, Prompts.load(lang))
    params = {"card": "CEREJA", "by": "A", "side": "A", "other": "B", "number": 42, "low": 0, "high": 9, "detail": "x"}
    for error_class in _error_classes(GameError):
        error = error_class.__new__(error_class)
        error.params = params
        said = announcer.error(error)
        assert said and "{" not in said, (error_class.__name__, said)
        if lang is not Lang.EN:
            assert said != str(error_class.template.format(**params)), error_class.__name__
