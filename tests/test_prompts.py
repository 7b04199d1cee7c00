"""Every language says everything: same keys, same placeholders, as the English master."""

from __future__ import annotations

import string
import tomllib
from importlib import resources

import pytest

from engine.lang import Lang


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
