"""Languages the host speaks. Kept tiny so every layer can share it."""

from __future__ import annotations

import unicodedata
from enum import StrEnum
from functools import lru_cache


class Lang(StrEnum):
    """A game language, named by its BCP 47 tag as players write it on the command line."""

    PT_BR = "pt-BR"
    PT_PT = "pt-PT"
    IT = "it"
    EN = "en"

    @property
    def family(self) -> str:
        """The language without its region: pt-BR and pt-PT share grammar and stemming."""
        return self.value.split("-")[0]

    @classmethod
    def parse(cls, text: str) -> Lang:
        """Accept 'pt-BR', 'pt_br', 'PT-br', 'pt' (Brazilian, the default) and so on."""
        wanted = text.strip().replace("_", "-").lower()
        for lang in cls:
            if lang.value.lower() == wanted:
                return lang
        aliases = {"pt": cls.PT_BR, "en-us": cls.EN, "en-gb": cls.EN, "it-it": cls.IT}
        if wanted in aliases:
            return aliases[wanted]
        known = ", ".join(lang.value for lang in cls)
        raise ValueError(f"unknown language {text!r}: choose one of {known}")


@lru_cache(maxsize=65536)
def fold_text(text: str) -> str:
    """Lowercase without accents or invisible format characters: how two spellings of one word are compared
    (players and recognizers drop or misplace accents; a zero-width joiner inside OR\u200dCHARD is not seen)."""
    decomposed = unicodedata.normalize("NFD", text.casefold())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch) and unicodedata.category(ch) != "Cf")
