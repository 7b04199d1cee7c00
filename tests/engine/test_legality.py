"""The clue-legality table of RULES.md section 3, plus cases for each language."""

from __future__ import annotations

import pytest

from engine.lang import Lang
from engine.legality import Reason, Verdict, check_clue
from engine.variants import HouseRules

PT = (Lang.PT_BR, Lang.PT_PT)

# (languages, visible card, clue, verdict): the rows of RULES.md section 3, as the rulebooks give them.
# Letters, numbers and foreign words cannot be decided from spelling: the checker calls them doubtful
# and the opposing spymaster rules (RULES.md: "a host that cannot decide should say so and ask").
TABLE = [
    (PT, "TEMPESTADE", "tempestade", "invalid"),
    *[(PT, "ARCO-ÍRIS", clue, "invalid") for clue in ("arco", "íris", "arca", "arcar", "arcada")],
    *[(PT, "ARCO-ÍRIS", clue, "valid") for clue in ("barco", "marco")],
    *[(PT, "MOTORISTA", clue, "invalid") for clue in ("moto", "motor", "motorizado")],
    (PT, "MOTORISTA", "morto", "valid"),
    *[((Lang.IT,), "BOCCA", clue, "invalid") for clue in ("boccalone", "boccaglio", "boccuccia", "bocche")],
    *[((Lang.IT,), "GRATTACIELO", clue, "invalid") for clue in ("grattugia", "grattarsi")],
    ((Lang.IT,), "INGHILTERRA", "terra", "valid"),
    ((Lang.IT,), "POSIZIONE", "zio", "valid"),
    ((Lang.IT,), "FAMILIARE", "famigliare", "invalid"),
    *[(PT, "ARRANHA-CÉU", clue, "invalid") for clue in ("arranha", "aranha", "céu")],
    *[(PT, "CONTRAGOLPE", clue, "invalid") for clue in ("contra", "golpe", "contrabando")],
    *[(PT, "INGLATERRA", clue, "valid") for clue in ("anglo", "terra")],
    (PT, "AMÉRICA", "rica", "valid"),
    ((Lang.IT,), "CALCIO", "c", "doubtful"),
    ((Lang.IT,), "CALCIO", "sei", "doubtful"),
    (PT, "CASA", "c", "doubtful"),
    (PT, "CASA", "cinco", "doubtful"),
    ((Lang.IT,), "MELA", "apfel", "doubtful"),
    ((Lang.IT,), "BERLINO", "strudel", "valid"),
    (PT, "MAÇÃ", "apfel", "doubtful"),
]


@pytest.mark.parametrize(("langs", "card", "clue", "verdict"), TABLE)
def test_rules_md_table(langs: tuple[Lang, ...], card: str, clue: str, verdict: str) -> None:
    for lang in langs:
        ruling = check_clue(clue, [card, "PIANO", "NUVEM"], lang)
        assert ruling.verdict.value == verdict, (lang, card, clue, ruling)
        if verdict == "invalid":
            assert ruling.card == card


def test_spelled_homophone_is_a_different_word() -> None:
    assert check_clue("hanno", ["ANNO"], Lang.IT, spelled=True).verdict is Verdict.VALID
    said = check_clue("hanno", ["ANNO"], Lang.IT)
    assert said.verdict is Verdict.DOUBTFUL and said.reason is Reason.SOUNDS_LIKE_CARD
    assert check_clue("hanno", ["ANNO"], Lang.IT, HouseRules(homophones=True)).verdict is Verdict.VALID
    assert check_clue("famigliare", ["FAMILIARE"], Lang.IT, spelled=True).verdict is Verdict.INVALID


def test_a_covered_card_no_longer_blocks_a_clue() -> None:
    assert check_clue("tempestade", ["NUVEM"], Lang.PT_BR).verdict is Verdict.VALID


# Per language: plurals, gender, diminutives, augmentatives, verb forms, accents, compounds, sharing letters.
CASES = {
    Lang.PT_BR: [
        ("CÉU", "ceu", "invalid"),
        ("GATO", "gata", "invalid"),
        ("GATO", "gatos", "invalid"),
        ("GATO", "gatinho", "invalid"),
        ("CASA", "casarão", "invalid"),
        ("PÃO", "pães", "invalid"),
        ("LEÃO", "leões", "invalid"),
        ("ANEL", "anéis", "invalid"),
        ("CANTOR", "cantar", "invalid"),
        ("GUARDA-CHUVA", "chuva", "invalid"),
        ("GUARDA-CHUVA", "guarda chuva", "invalid"),
        ("GUARDA-CHUVA", "guardachuva", "invalid"),
        ("ARCO-ÍRIS", "arco iris", "invalid"),
        ("PIANO", "oceano", "valid"),
        ("LIVRO", "livraria", "invalid"),
        ("SOL", "soldado", "valid"),
        ("CADEIRA", "cadeado", "valid"),
        ("ÁGUIA", "agulha", "valid"),
        ("CEREJA", "sereja", "doubtful"),
    ],
    Lang.PT_PT: [
        ("COMBOIO", "comboios", "invalid"),
        ("ECRÃ", "ecra", "invalid"),
        ("EQUIPA", "equipas", "invalid"),
        ("ESTÁTUA", "estatuazinha", "invalid"),
        ("FACTO", "factos", "invalid"),
        ("BOLA", "bolinha", "invalid"),
        ("CÃO", "cães", "invalid"),
        ("PORTA-CHAVES", "chaves", "invalid"),
        ("CAVALO", "mar", "valid"),
    ],
    Lang.IT: [
        ("LIBRO", "libretto", "invalid"),
        ("GATTO", "gatta", "invalid"),
        ("GATTO", "gattini", "invalid"),
        ("CASA", "casone", "invalid"),
        ("CAFFÈ", "caffe", "invalid"),
        ("PORTAOMBRELLI", "ombrelli", "invalid"),
        ("CANTANTE", "cantare", "invalid"),
        ("IMPOSTA", "posta", "invalid"),
        ("NAVE", "pesca", "valid"),
        ("MELA", "mele", "invalid"),
        ("SOTTOMARINO", "marino", "invalid"),
    ],
    Lang.EN: [
        ("BOOK", "books", "invalid"),
        ("BOOK", "booklet", "invalid"),
        ("MOUSE", "mice", "invalid"),
        ("KNIFE", "knives", "invalid"),
        ("BUTTERFLY", "fly", "invalid"),
        ("FIREWORK", "work", "invalid"),
        ("RUN", "running", "invalid"),
        ("NIGHT", "knight", "doubtful"),
        ("CHURCH", "church", "invalid"),
        ("PIANO", "ocean", "valid"),
        ("EIGHT", "x", "doubtful"),
        ("LION", "pride", "valid"),
        ("ICE CREAM", "icecream", "invalid"),
        ("ICE CREAM", "cream", "invalid"),
    ],
}


@pytest.mark.parametrize("lang", list(CASES))
def test_forms_in_each_language(lang: Lang) -> None:
    for card, clue, verdict in CASES[lang]:
        ruling = check_clue(clue, [card], lang)
        assert ruling.verdict.value == verdict, (lang, card, clue, ruling)


def test_spelled_with_accent_missing_is_still_the_card() -> None:
    assert check_clue("c-e-u", ["CÉU"], Lang.PT_BR, spelled=True).reason is Reason.VISIBLE_WORD


@pytest.mark.parametrize("lang", list(Lang))
def test_one_word_rule_and_its_house_rules(lang: Lang) -> None:
    assert check_clue("Leonardo da Vinci", ["NUVEM"], lang).reason is Reason.NOT_ONE_WORD
    relaxed = HouseRules(multiword_names=True)
    assert check_clue("Leonardo da Vinci", ["NUVEM"], lang, relaxed).verdict is not Verdict.INVALID
    assert check_clue("Nova York", ["NUVEM"], lang, HouseRules(compounds=True)).verdict is Verdict.VALID
    assert check_clue("nova york", ["YORK"], lang, relaxed).verdict is Verdict.INVALID
    assert check_clue("FBI", ["NUVEM"], lang).reason is Reason.ABBREVIATION
    assert check_clue("FBI", ["NUVEM"], lang, HouseRules(abbreviations=True)).verdict is not Verdict.INVALID
    assert check_clue("   ", ["NUVEM"], lang).reason is Reason.EMPTY
