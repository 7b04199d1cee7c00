"""Card decks: word lists per language and a picture deck that needs no image files.

The lists are package data, read once; they were written for this project (not the official
card lists), and a test checks with the legality checker that no word is a form of another.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cache
from importlib import resources

from engine.lang import Lang


@dataclass(frozen=True)
class Picture:
    """A picture card: an emoji and the name players say for it in each language."""

    id: str
    emoji: str
    names: dict[str, str]
    aliases: dict[str, tuple[str, ...]] = field(default_factory=dict)  # other names people use, per language

    def name(self, lang: Lang) -> str:
        return self.names[lang.value]


@cache
def words(lang: Lang) -> tuple[str, ...]:
    """The word deck of a language, in capitals as printed."""
    text = resources.files("engine.decks").joinpath(f"words-{lang.value}.txt").read_text(encoding="utf-8")
    return tuple(line.strip() for line in text.splitlines() if line.strip())


@cache
def pictures() -> tuple[Picture, ...]:
    raw = json.loads(resources.files("engine.decks").joinpath("pictures.json").read_text(encoding="utf-8"))
    return tuple(
        Picture(
            item["id"],
            item["emoji"],
            dict(item["names"]),
            {lang: tuple(names) for lang, names in item.get("aliases", {}).items()},
        )
        for item in raw
    )


@cache
def _aliases(lang: Lang) -> dict[str, tuple[str, ...]]:
    return {picture.name(lang): picture.aliases.get(lang.value, ()) for picture in pictures()}


def aliases_of(name: str, lang: Lang) -> tuple[str, ...]:
    """The other names players use for a picture card named `name` in `lang` ("CACHORRO" for CÃO);
    () for a word card. Announcements use the card's own name; these are only heard."""
    return _aliases(lang).get(name, ())


def picture_names(lang: Lang) -> tuple[str, ...]:
    """The picture deck as the recognizer and the board see it: one spoken name per card."""
    return tuple(picture.name(lang) for picture in pictures())


def emoji_for(name: str, lang: Lang) -> str | None:
    """The emoji of a picture card named in `lang`, for the display; None for a word card."""
    for picture in pictures():
        if picture.name(lang) == name:
            return picture.emoji
    return None
