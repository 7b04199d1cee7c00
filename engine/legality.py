"""Is a clue legal against the cards still visible? Valid, invalid (with the reason) or doubtful.

The rulebooks forbid a visible word, its forms (plural, gender, diminutive, derivation, another
spelling) and any part of a visible compound, but allow words that merely share letters
(POSIZIONE/zio, AMÉRICA/rica, ARCO-ÍRIS/barco). Spelling decides most cases; what it cannot
decide (a letter, a number, a foreign-looking word, a sound-alike, a short shared stem) comes back
DOUBTFUL, for the opposing spymaster (in Duet, the partner) to rule on, as the rulebooks ask.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from functools import cache
from typing import Final

import snowballstemmer

from engine.characters import latin_lookalikes
from engine.lang import Lang, fold_text
from engine.variants import HouseRules

MIN_STEM: Final = 3
"""Shorter shared beginnings say nothing about meaning (POSIZIONE/posta are not related by 'po')."""
SURE_STEM: Final = 4
"""Shared stems of 3 letters need an inflection after them, of 4 an inflection or derivation; longer
stems mark the same word whatever follows (MOTOR-izado)."""


class Verdict(StrEnum):
    VALID = "valid"
    INVALID = "invalid"
    DOUBTFUL = "doubtful"


class Reason(StrEnum):
    """Why; each has a prompt in every language (`clue_reason.<value>`)."""

    OK = "ok"
    EMPTY = "empty"
    VISIBLE_WORD = "visible_word"  # the card itself, with or without accents or hyphens
    PART_OF_CARD = "part_of_card"  # a part of a visible word or compound
    FORM_OF_CARD = "form_of_card"  # plural, gender, diminutive, derivation
    SPELLING_OF_CARD = "spelling_of_card"  # another spelling of the same word
    NOT_ONE_WORD = "not_one_word"
    LETTER_OR_NUMBER = "letter_or_number"  # valid only when it is about meaning
    FOREIGN = "foreign"  # only words in everyday use in the game's language
    SOUNDS_LIKE_CARD = "sounds_like_card"
    ABBREVIATION = "abbreviation"


@dataclass(frozen=True)
class ClueRuling:
    verdict: Verdict
    reason: Reason
    card: str | None = None  # the visible card the ruling is about

    @property
    def needs_ruling(self) -> bool:
        """Doubtful: the host asks the opposing spymaster (Duet: the partner) to accept it."""
        return self.verdict is Verdict.DOUBTFUL


VALID: Final = ClueRuling(Verdict.VALID, Reason.OK)

# Endings that make a form of the same word: inflections (gender, number, size, verb forms) go on
# any stem of 3 letters or more; derivations (trade, place, agent) only on stems of 4 or more.
INFLECTIONS: Final[dict[str, frozenset[str]]] = {
    "pt": frozenset(
        "a o e as os es s inha inho inhas inhos zinho zinha zinhos zinhas ao oes aes ona onas ada adas ado ados "
        "ar er ir ando endo indo ou eu iu ava ito ita itos itas arao".split()
    ),
    "it": frozenset(
        "a o e i he hi ino ina ini ine etto etta etti ette ello ella one ona oni uccio uccia ucci accio accia "
        "ata ate ato ati are ere ire ando endo".split()
    ),
    "en": frozenset("s es ed ing er ers y ie ies".split()),
}
DERIVATIONS: Final[dict[str, frozenset[str]]] = {
    "pt": frozenset("eiro eira eiros eiras ista aria eria or ora ice aco aca ada mento ante ente".split()),
    "it": frozenset("aio aia ista iere iera aglio alone eria aria ore ora mento ante ente".split()),
    "en": frozenset("let lets ling ish ful ness ly ery or ist".split()),
}

# First elements that make closed compounds (CONTRA+GOLPE, GRATTA+CIELO) or derived words (IM+POSTA).
COMPOUND_HEADS: Final[dict[str, tuple[str, ...]]] = {
    "pt": tuple(
        "contra sobre entre ante anti auto super sub des guarda porta para passa beija bem mal arranha quebra "
        "tira saca salva pica vira mini maxi micro".split()
    ),
    "it": tuple(
        "contro contra sopra sotto anti auto super porta gratta passa salva apri para mini maxi micro mal ben "
        "dis pre ri im in".split()
    ),
    "en": tuple(
        "over under back fire water rain snow foot hand head book star moon tooth horse butter gold black white "
        "light door".split()
    ),
}

# Foreign words in everyday use, which the rulebooks allow (strudel, hamburger).
LOANWORDS: Final[dict[str, frozenset[str]]] = {
    "pt": frozenset(
        [
            "hamburger",
            "hamburguer",
            "shopping",
            "show",
            "ketchup",
            "pizza",
            "sanduiche",
            "jeans",
            "site",
            "email",
            "futebol",
            "rock",
            "jazz",
            "bacon",
            "sushi",
            "kiwi",
            "ok",
            "stop",
            "shampoo",
        ]
    ),
    "it": frozenset(
        [
            "strudel",
            "hamburger",
            "sport",
            "bar",
            "film",
            "computer",
            "jeans",
            "weekend",
            "sushi",
            "kiwi",
            "ok",
            "stop",
            "jazz",
            "rock",
            "yogurt",
            "whisky",
            "mouse",
            "tennis",
        ]
    ),
    "en": frozenset(),
}

# Letter clusters that no native word of the language has: a hint of a foreign word.
FOREIGN_MARKS: Final[dict[str, re.Pattern[str]]] = {
    "pt": re.compile(r"pf|sch|sh|th|ck|tz|[kwy]|[bdfgkptv]$|([^rs])\1"),
    "it": re.compile(r"pf|sh|th|ck|tz|ph|[kwyjx]|[bdfgkptvwh]$|sch[aou]"),
    "en": re.compile(r"^pf|^sch[aeiou]|tz$|ß"),
}

NUMBER_WORDS: Final[dict[str, frozenset[str]]] = {
    "pt": frozenset(
        [
            "zero",
            "um",
            "uma",
            "dois",
            "duas",
            "tres",
            "quatro",
            "cinco",
            "seis",
            "sete",
            "oito",
            "nove",
            "dez",
            "onze",
            "doze",
            "treze",
            "catorze",
            "quatorze",
            "quinze",
            "dezesseis",
            "dezasseis",
            "dezessete",
            "dezassete",
            "dezoito",
            "dezenove",
            "dezanove",
            "vinte",
            "cem",
            "cento",
            "mil",
        ]
    ),
    "it": frozenset(
        [
            "zero",
            "uno",
            "una",
            "un",
            "due",
            "tre",
            "quattro",
            "cinque",
            "sei",
            "sette",
            "otto",
            "nove",
            "dieci",
            "undici",
            "dodici",
            "tredici",
            "quattordici",
            "quindici",
            "sedici",
            "diciassette",
            "diciotto",
            "diciannove",
            "venti",
            "cento",
            "mille",
        ]
    ),
    "en": frozenset(
        [
            "zero",
            "one",
            "two",
            "three",
            "four",
            "five",
            "six",
            "seven",
            "eight",
            "nine",
            "ten",
            "eleven",
            "twelve",
            "thirteen",
            "fourteen",
            "fifteen",
            "sixteen",
            "seventeen",
            "eighteen",
            "nineteen",
            "twenty",
            "hundred",
            "thousand",
        ]
    ),
}

STEMMER_NAMES: Final = {"pt": "portuguese", "it": "italian", "en": "english"}


def check_clue(
    word: str,
    visible: Sequence[str],
    lang: Lang,
    house: HouseRules | None = None,
    *,
    spelled: bool = False,
) -> ClueRuling:
    """Rule on one clue word against the visible cards; `spelled` when the clue was spelled out."""
    house = house or HouseRules()
    family = lang.family
    raw = word.strip()
    pieces = [piece for piece in re.split(r"[\s\-‐–]+", raw) if piece]
    if not pieces:
        return ClueRuling(Verdict.INVALID, Reason.EMPTY)
    whole = _compared("".join(pieces))
    for card in visible:
        if whole == _squash(card):
            return ClueRuling(Verdict.INVALID, Reason.VISIBLE_WORD, card)
    if len(pieces) > 1:
        for piece in pieces:  # every word said is checked: "oyster bay" hides OYSTER
            ruling = _check_single(piece, visible, family, house, spelled, in_name=True)
            if ruling.verdict is not Verdict.VALID:
                return ruling
        if not (house.multiword_names or house.compounds):
            return ClueRuling(Verdict.INVALID, Reason.NOT_ONE_WORD)
        return VALID
    return _check_single(pieces[0], visible, family, house, spelled)


def _check_single(
    piece: str, visible: Sequence[str], family: str, house: HouseRules, spelled: bool, *, in_name: bool = False
) -> ClueRuling:
    """One word against every card; `in_name` for a word of an allowed multi-word name (New York)."""
    clue = _compared(piece)
    for card in visible:
        ruling = _against_card(clue, card, family, house, spelled)
        if ruling is not None:
            return ruling
    if not _in_latin_script(piece):
        return ClueRuling(Verdict.DOUBTFUL, Reason.FOREIGN)  # another script: a foreign word, whatever it means
    if in_name:
        return VALID
    if clue.isdigit() or clue in NUMBER_WORDS[family] or (len(clue) == 1 and clue.isalpha()):
        return ClueRuling(Verdict.DOUBTFUL, Reason.LETTER_OR_NUMBER)
    if piece.isupper() and 2 <= len(piece) <= 5 and not house.abbreviations:
        return ClueRuling(Verdict.DOUBTFUL, Reason.ABBREVIATION)
    if clue not in LOANWORDS[family] and FOREIGN_MARKS[family].search(clue):
        return ClueRuling(Verdict.DOUBTFUL, Reason.FOREIGN)
    return VALID


def _in_latin_script(word: str) -> bool:
    """Whether every letter of the word is a Latin letter (accents included), as pt, it and en write."""
    return all(unicodedata.name(ch, "").startswith("LATIN") for ch in word if ch.isalpha())


def _against_card(clue: str, card: str, family: str, house: HouseRules, spelled: bool) -> ClueRuling | None:
    """The first rule this clue breaks against one visible card, or None."""
    whole = _compared(card)
    parts = _parts(whole, family)
    for part in parts:
        if clue == part:
            return ClueRuling(Verdict.INVALID, Reason.PART_OF_CARD if len(parts) > 1 else Reason.VISIBLE_WORD, card)
    for part in parts:
        if len(clue) >= MIN_STEM and part.startswith(clue) and part != clue:
            return ClueRuling(Verdict.INVALID, Reason.PART_OF_CARD, card)
        form = _form_relation(clue, part, family)
        if form is not None:
            return ClueRuling(form, Reason.FORM_OF_CARD, card)
        if _variant(clue, family) == _variant(part, family):
            return ClueRuling(Verdict.INVALID, Reason.SPELLING_OF_CARD, card)
    for head in COMPOUND_HEADS[family]:
        if clue == head + whole or (whole.startswith(head) and clue == whole[len(head) :] and len(clue) >= MIN_STEM):
            return ClueRuling(Verdict.INVALID, Reason.PART_OF_CARD, card)
    sounds_alike = _sound(clue, family) in {_sound(part, family) for part in (*parts, whole)}
    if sounds_alike and not spelled and not house.homophones:
        return ClueRuling(Verdict.DOUBTFUL, Reason.SOUNDS_LIKE_CARD, card)
    return None


def _form_relation(clue: str, part: str, family: str) -> Verdict | None:
    """INVALID when one word is a form of the other: a shared stem plus an ending that makes forms."""
    if _singular(clue, family).rstrip("e") == _singular(part, family).rstrip("e"):
        return Verdict.INVALID
    for word, other in ((clue, part), (part, clue)):
        for stem in _stems(other, family):
            if not word.startswith(stem) or word == other:
                continue
            rest = word[len(stem) :]
            if family == "en" and rest[:1] == stem[-1:]:
                rest = rest[1:]  # run+n+ing
            if len(stem) >= SURE_STEM + 1 or rest in INFLECTIONS[family] or word == stem:
                return Verdict.INVALID
            if len(stem) >= SURE_STEM and rest in DERIVATIONS[family]:
                return Verdict.INVALID
    return None


IRREGULAR_PLURALS: Final = {
    "mice": "mouse",
    "men": "man",
    "women": "woman",
    "feet": "foot",
    "teeth": "tooth",
    "geese": "goose",
    "children": "child",
    "oxen": "ox",
    "people": "person",
}


@cache
def _singular(word: str, family: str) -> str:
    """The singular of a plural, by the regular rules (pães -> pão, anéis -> anel, knives -> knife)."""
    if family == "pt":
        for plural, singular in (
            ("oes", "ao"),
            ("aes", "ao"),
            ("aos", "ao"),
            ("ns", "m"),
            ("eis", "el"),
            ("ois", "ol"),
            ("uis", "ul"),
            ("ais", "al"),
            ("res", "r"),
            ("zes", "z"),
            ("ses", "s"),
            ("s", ""),
        ):
            if word.endswith(plural) and len(word) > len(plural):
                return word[: -len(plural)] + singular
        return word
    if family == "en":
        if word in IRREGULAR_PLURALS:
            return IRREGULAR_PLURALS[word]
        for plural, singular in (
            ("ies", "y"),
            ("ves", "f"),
            ("ches", "ch"),
            ("shes", "sh"),
            ("xes", "x"),
            ("ses", "s"),
            ("s", ""),
        ):
            if word.endswith(plural) and len(word) > len(plural):
                return word[: -len(plural)] + singular
        return word
    return word


@cache
def _parts(whole: str, family: str) -> tuple[str, ...]:
    """A card's parts: hyphenated or spaced pieces, or a known head plus the rest (CONTRA+GOLPE)."""
    pieces = [piece for piece in re.split(r"[\s\-‐–]+", whole) if piece]
    if len(pieces) > 1:
        return tuple(pieces)
    for head in COMPOUND_HEADS[family]:
        rest = whole[len(head) :]
        if whole.startswith(head) and len(rest) >= MIN_STEM and len(head) >= MIN_STEM:
            return (whole, head, rest)
    return (whole,)


def _squash(card: str) -> str:
    return _compared(re.sub(r"[\s\-‐–]+", "", card))


def _compared(text: str) -> str:
    """A clue or a card as the rules compare them: folded (`fold_text`: no case, accents or invisible format
    characters), and with letters of another script drawn like Latin ones read as those: a clue that looks
    like a visible card is that card."""
    return latin_lookalikes(fold_text(text))


@cache
def _stems(word: str, family: str) -> tuple[str, ...]:
    """The word without its inflection, and its Snowball stem when that is long enough to trust."""
    singular = _singular(word, family)
    if family == "en":
        light = re.sub(r"(es|s|e)$", "", singular)
    else:
        light = re.sub(r"(ar|er|ir|are|ere|ire)$", "", singular) if len(singular) > 5 else singular
        light = light.rstrip("aeiou")
    stems = {light} if len(light) >= MIN_STEM else set()
    snowball = _stemmer(family).stemWord(word)
    if len(snowball) > SURE_STEM:
        stems.add(snowball)
    return tuple(sorted(stems, key=len))


@cache
def _stemmer(family: str) -> snowballstemmer.Stemmer:
    return snowballstemmer.stemmer(STEMMER_NAMES[family])


@cache
def _variant(word: str, family: str) -> str:
    """Collapse spellings of one word: doubled letters, Italian gli/li, ph/f, y/i."""
    text = re.sub(r"(.)\1", r"\1", word)
    text = text.replace("ph", "f").replace("y", "i")
    if family == "it":
        text = text.replace("gli", "li")
    return text


@cache
def _sound(word: str, family: str) -> str:
    """A rough sound key: two spellings with one sound (anno/hanno, sela/cela) match."""
    text = word
    if family in ("pt", "it"):
        text = re.sub(r"^h", "", text)
        text = re.sub(r"c([ei])", r"s\1", text) if family == "pt" else text
        text = text.replace("ç", "s").replace("ss", "s").replace("ch", "x") if family == "pt" else text
        text = re.sub(r"z", "s", text) if family == "pt" else text
    else:
        text = re.sub(r"^(kn|wr|gn)", lambda m: m.group(0)[1], text)
        text = text.replace("ph", "f").replace("gh", "")
    return re.sub(r"(.)\1", r"\1", text)


def rulings(word: str, visible: Iterable[str], lang: Lang) -> list[ClueRuling]:
    """Every card-specific ruling for a clue (for explaining a refusal); empty when none apply."""
    found = []
    for card in visible:
        ruling = _against_card(_compared(word), card, lang.family, HouseRules(), False)
        if ruling is not None:
            found.append(ruling)
    return found
