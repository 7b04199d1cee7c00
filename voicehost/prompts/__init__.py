"""What the host says, loaded from `prompts/<lang>.toml` (data, one file per language)."""

from __future__ import annotations

import string
import tomllib
from functools import cache
from importlib import resources
from typing import Any

from engine.lang import Lang


class Prompts:
    """Look up `table.key` and fill its {placeholders}; a missing key is a bug, so it raises."""

    def __init__(self, lang: Lang, data: dict[str, Any]) -> None:
        self.lang = lang
        self._data = data

    @classmethod
    def load(cls, lang: Lang) -> Prompts:
        return cls(lang, _load(lang.value))

    def text(self, key: str, **params: Any) -> str:
        table, _, name = key.partition(".")
        template = self._data[table][name]
        assert isinstance(template, str)
        return string.Formatter().vformat(template, (), params).strip()

    def has(self, key: str) -> bool:
        table, _, name = key.partition(".")
        return name in self._data.get(table, {})


@cache
def _load(tag: str) -> dict[str, Any]:
    text = resources.files("voicehost.prompts").joinpath(f"{tag}.toml").read_text(encoding="utf-8")
    return tomllib.loads(text)
