"""What players say, and what the host must understand, in the four languages it speaks."""

from __future__ import annotations

import math
import tomllib
import unicodedata
from importlib import resources

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rapidfuzz import fuzz

from engine.lang import Lang
from tests.understood import candidates_of, card_of, clue_of, command_of
from voicehost.understanding import (
    ACCEPT_SCORE,
    CONFIRM_SCORE,
    LOW_ASR_CONFIDENCE,
    MAX_CANDIDATES,
    MAX_TEXT_CHARS,
    MIN_MARGIN,
    Action,
    Candidate,
    Command,
    HeardNumber,
    HeardWord,
    Intent,
    NotUnderstood,
    Phase,
    SpokenClue,
    Understanding,
    match_card,
    normalize,
    understand,
)

BOARDS: dict[Lang, list[str]] = {
    Lang.PT_BR: ["CEREJA", "CEBOLA", "SINO", "PIANO", "ARCO-ÍRIS", "NOZ", "TOMADA", "PASTA", "MESA", "ECRÃ"],
    Lang.PT_PT: ["CEREJA", "CEBOLA", "SINO", "PIANO", "ARCO-ÍRIS", "NOZ", "TOMADA", "PASTA", "MESA", "ECRÃ"],
    Lang.IT: ["NUVOLA", "NOTTE", "CAFFÈ", "CILIEGIA", "CIPOLLA", "PASTA", "ANCORA", "ARCOBALENO", "NODO", "PESCA"],
    Lang.EN: ["DRAGON", "WAGON", "PIANO", "ICE CREAM", "NOTE", "NOSE", "YARD", "KNIGHT", "BAT", "CAT", "WELL"],
}


def hear(
    text: str,
    lang: Lang,
    phase: Phase = Phase.GUESS,
    cards: list[str] | None = None,
    asr_confidence: float | None = None,
) -> Understanding:
    board = BOARDS[lang] if cards is None else cards
    return understand(text, phase=phase, cards=board, lang=lang, asr_confidence=asr_confidence)


def fold(text: str) -> str:
    decomposed = unicodedata.normalize("NFD", text.casefold())
    return "".join(ch for ch in decomposed if ch.isalnum() and not unicodedata.combining(ch))


# ---- clues --------------------------------------------------------------------------------

CLUES = [
    # lang, said, word, number (None = unlimited), spelled
    (Lang.PT_BR, "tomate três", "tomate", 3, False),
    (Lang.PT_BR, "tomate: 3", "tomate", 3, False),
    (Lang.PT_BR, "tomate 3", "tomate", 3, False),
    (Lang.PT_BR, "Tomate, TRÊS!", "tomate", 3, False),
    (Lang.PT_BR, "a pista é tomate, três", "tomate", 3, False),
    (Lang.PT_BR, "minha pista é água-viva, duas", "água-viva", 2, False),
    (Lang.PT_BR, "café um", "café", 1, False),
    (Lang.PT_BR, "tomate, três cartas", "tomate", 3, False),
    (Lang.PT_BR, "tomate para três", "tomate", 3, False),
    (Lang.PT_BR, "devagar zero", "devagar", 0, False),
    (Lang.PT_BR, "devagar 0", "devagar", 0, False),
    (Lang.PT_BR, "bichos: ilimitado", "bichos", None, False),
    (Lang.PT_BR, "bichos sem limite", "bichos", None, False),
    (Lang.PT_BR, "bichos infinito", "bichos", None, False),
    (Lang.PT_BR, "tomate quinze", "tomate", 15, False),
    (Lang.PT_BR, "tomate dezesseis", "tomate", 16, False),
    (Lang.PT_BR, "tomate vinte", "tomate", 20, False),
    (Lang.PT_BR, "tomate 42", "tomate", 42, False),
    (Lang.PT_BR, "c-e-r-e-j-a três", "cereja", 3, True),
    (Lang.PT_BR, "c e r e j a 3", "cereja", 3, True),
    (Lang.PT_BR, "C-E-R-E-J-A, duas", "cereja", 2, True),
    (Lang.PT_BR, "é a c-e-r-e-j-a três", "cereja", 3, True),
    (Lang.PT_BR, "a pista é c e r e j a dois", "cereja", 2, True),
    (Lang.PT_BR, "cê é erre é jota á três", "cereja", 3, True),
    (Lang.PT_BR, "cereja, c e r e j a, três", "cereja", 3, True),
    (Lang.PT_PT, "tomate dezasseis", "tomate", 16, False),
    (Lang.PT_PT, "a minha pista é tomate, três", "tomate", 3, False),
    (Lang.PT_PT, "devagar zero", "devagar", 0, False),
    (Lang.PT_PT, "bichos sem limites", "bichos", None, False),
    (Lang.PT_PT, "c-e-r-e-j-a duas", "cereja", 2, True),
    (Lang.PT_PT, "guê á tê ó, um", "gato", 1, True),
    (Lang.IT, "frutta due", "frutta", 2, False),
    (Lang.IT, "frutta: 2", "frutta", 2, False),
    (Lang.IT, "il mio indizio è frutta due", "frutta", 2, False),
    (Lang.IT, "la parola è città, una", "città", 1, False),
    (Lang.IT, "frutta, tre carte", "frutta", 3, False),
    (Lang.IT, "lento zero", "lento", 0, False),
    (Lang.IT, "frutta senza limiti", "frutta", None, False),
    (Lang.IT, "frutta: illimitato", "frutta", None, False),
    (Lang.IT, "frutta infinito", "frutta", None, False),
    (Lang.IT, "frutta diciassette", "frutta", 17, False),
    (Lang.IT, "h-a-n-n-o uno", "hanno", 1, True),
    (Lang.IT, "h a n n o un", "hanno", 1, True),
    (Lang.IT, "ci e erre e gi a due", "cerega", 2, True),
    (Lang.IT, "acca a enne enne o, tre", "hanno", 3, True),
    (Lang.EN, "fruit, two", "fruit", 2, False),
    (Lang.EN, "fruit 2", "fruit", 2, False),
    (Lang.EN, "my clue is fruit two", "fruit", 2, False),
    (Lang.EN, "The clue is: fruit, two.", "fruit", 2, False),
    (Lang.EN, "fruit for two", "fruit", 2, False),
    (Lang.EN, "fruit, three cards", "fruit", 3, False),
    (Lang.EN, "fruit to", "fruit", 2, False),
    (Lang.EN, "slow zero", "slow", 0, False),
    (Lang.EN, "feathers unlimited", "feathers", None, False),
    (Lang.EN, "feathers infinity", "feathers", None, False),
    (Lang.EN, "feathers no limit", "feathers", None, False),
    (Lang.EN, "fruit eleven", "fruit", 11, False),
    (Lang.EN, "d-o-g two", "dog", 2, True),
    (Lang.EN, "d o g 2", "dog", 2, True),
    (Lang.EN, "see ay tee, one", "cat", 1, True),
    (Lang.EN, "double-u i en dee one", "wind", 1, True),
    (Lang.EN, "my clue is c-a-t three", "cat", 3, True),
]


@pytest.mark.parametrize(("lang", "said", "word", "number", "spelled"), CLUES)
def test_clues_in_any_phrasing(lang: Lang, said: str, word: str, number: int | None, spelled: bool) -> None:
    heard = hear(said, lang, Phase.CLUE)
    assert heard.intent is Intent.CLUE
    assert heard.action is Action.ACCEPT
    assert clue_of(heard) == SpokenClue(word, number, spelled)
    assert card_of(heard) is None and command_of(heard) is None


@pytest.mark.parametrize(
    ("lang", "said"),
    [
        (Lang.PT_BR, "tomate três"),
        (Lang.PT_PT, "tomate, três"),
        (Lang.IT, "frutta due"),
        (Lang.EN, "fruit two"),
        (Lang.EN, "piano two"),  # even a card's name: with a number it is a clue
    ],
)
def test_a_clue_while_guessing_is_still_a_clue(lang: Lang, said: str) -> None:
    """The rules layer answers "it's guessing time"; it needs to know a clue was given."""
    heard = hear(said, lang, Phase.GUESS)
    assert heard.intent is Intent.CLUE
    assert clue_of(heard) is not None


@pytest.mark.parametrize(
    ("lang", "said"),
    [
        (Lang.PT_BR, "tomate"),
        (Lang.PT_BR, "três"),
        (Lang.PT_BR, "a pista é três"),
        (Lang.PT_BR, "é três"),
        (Lang.PT_BR, "ilimitado"),
        (Lang.PT_PT, "tomate"),
        (Lang.IT, "frutta"),
        (Lang.IT, "due"),
        (Lang.IT, "il mio indizio è due"),
        (Lang.IT, "senza limiti"),
        (Lang.EN, "fruit"),
        (Lang.EN, "two"),
        (Lang.EN, "my clue is two"),
        (Lang.EN, "unlimited"),
    ],
)
def test_half_a_clue_is_read_as_the_half_it_is(lang: Lang, said: str) -> None:
    """A word without a number waits for its number ("Fruit: how many?"); a number without a word is no
    clue by itself (never the clue "3" for 3): neither is a clue, and neither is noise."""
    heard = hear(said, lang, Phase.CLUE)
    assert clue_of(heard) is None
    assert isinstance(heard, HeardWord | HeardNumber), heard
    assert heard.intent is Intent.CLUE and heard.action is Action.ACCEPT
    if isinstance(heard, HeardNumber):
        assert heard.number in (None, 2, 3)


@pytest.mark.parametrize(
    ("lang", "said", "card"),
    [
        (Lang.PT_BR, "cereja", "CEREJA"),
        (Lang.PT_BR, "é a cereja", "CEREJA"),
        (Lang.PT_PT, "escolho a cebola", "CEBOLA"),
        (Lang.IT, "scelgo la nuvola", "NUVOLA"),
        (Lang.EN, "the dragon", "DRAGON"),
    ],
)
def test_a_card_while_a_clue_is_awaited_is_a_guess(lang: Lang, said: str, card: str) -> None:
    """The rules layer answers "we need a clue first"; it needs to know a card was named."""
    heard = hear(said, lang, Phase.CLUE)
    assert heard.intent is Intent.GUESS
    assert card_of(heard) == card


def test_a_vague_word_while_a_clue_is_awaited_is_a_clue_missing_its_number() -> None:
    heard = hear("tomates", Lang.PT_BR, Phase.CLUE, cards=["TOMADA", "PIANO"])
    assert isinstance(heard, HeardWord) and heard.word == "tomates"


# ---- guesses ------------------------------------------------------------------------------

GUESSES = [
    (Lang.PT_BR, "cereja", "CEREJA"),
    (Lang.PT_BR, "CEREJA", "CEREJA"),
    (Lang.PT_BR, "cereja!", "CEREJA"),
    (Lang.PT_BR, "é a cereja", "CEREJA"),
    (Lang.PT_BR, "eu acho que é o piano", "PIANO"),
    (Lang.PT_BR, "acho que é o piano", "PIANO"),
    (Lang.PT_BR, "vamos de piano", "PIANO"),
    (Lang.PT_BR, "a cereja, por favor", "CEREJA"),
    (Lang.PT_BR, "hum... cereja", "CEREJA"),
    (Lang.PT_BR, "sim, a cereja", "CEREJA"),
    (Lang.PT_BR, "arco iris", "ARCO-ÍRIS"),
    (Lang.PT_BR, "arco-íris", "ARCO-ÍRIS"),
    (Lang.PT_BR, "arcoíris", "ARCO-ÍRIS"),
    (Lang.PT_BR, "mêsa", "MESA"),
    (Lang.PT_BR, "c-e-r-e-j-a", "CEREJA"),
    (Lang.PT_PT, "é a cereja", "CEREJA"),
    (Lang.PT_PT, "vamos ao piano", "PIANO"),
    (Lang.PT_PT, "escolho a cebola", "CEBOLA"),
    (Lang.PT_PT, "o ecrã", "ECRÃ"),
    (Lang.IT, "nuvola", "NUVOLA"),
    (Lang.IT, "scelgo la nuvola", "NUVOLA"),
    (Lang.IT, "Scelgo la NUVOLA.", "NUVOLA"),
    (Lang.IT, "penso che sia la notte", "NOTTE"),
    (Lang.IT, "l'ancora", "ANCORA"),
    (Lang.IT, "scelgo l’ancora", "ANCORA"),
    (Lang.IT, "caffe", "CAFFÈ"),
    (Lang.IT, "il caffè, grazie", "CAFFÈ"),
    (Lang.IT, "arco baleno", "ARCOBALENO"),
    (Lang.IT, "ehm... la ciliegia", "CILIEGIA"),
    (Lang.EN, "dragon", "DRAGON"),
    (Lang.EN, "I think it's the dragon", "DRAGON"),
    (Lang.EN, "i think its the dragon", "DRAGON"),
    (Lang.EN, "let's go with the piano please", "PIANO"),
    (Lang.EN, "um, the knight", "KNIGHT"),
    (Lang.EN, "Knight!", "KNIGHT"),
    (Lang.EN, "ice cream", "ICE CREAM"),
    (Lang.EN, "ice-cream", "ICE CREAM"),
    (Lang.EN, "icecream", "ICE CREAM"),
    (Lang.EN, "drag on", "DRAGON"),  # the recognizer split the word
    (Lang.EN, "the well", "WELL"),
]


@pytest.mark.parametrize(("lang", "said", "card"), GUESSES)
def test_guesses_with_fillers_and_articles(lang: Lang, said: str, card: str) -> None:
    heard = hear(said, lang)
    assert heard.intent is Intent.GUESS
    assert heard.action is Action.ACCEPT
    assert card_of(heard) == card
    assert candidates_of(heard)[0] == Candidate(card, 100.0)


NEAR_MISSES = [
    # recognition slips that are still clearly one card
    (Lang.PT_BR, "sereja", "CEREJA"),
    (Lang.PT_BR, "é a sereja", "CEREJA"),
    (Lang.PT_BR, "cebolla", "CEBOLA"),
    (Lang.PT_BR, "pianno", "PIANO"),
    (Lang.PT_BR, "tomadda", "TOMADA"),
    (Lang.PT_PT, "sereja", "CEREJA"),
    (Lang.PT_PT, "é a cebolla", "CEBOLA"),
    (Lang.IT, "nuvolla", "NUVOLA"),
    (Lang.IT, "scelgo la nuvolla", "NUVOLA"),
    (Lang.IT, "kaffe", "CAFFÈ"),
    (Lang.IT, "cilieggia", "CILIEGIA"),
    (Lang.IT, "cipoglia", "CIPOLLA"),
    (Lang.EN, "dragoon", "DRAGON"),
    (Lang.EN, "nite", "KNIGHT"),
    (Lang.EN, "pianno", "PIANO"),
]


@pytest.mark.parametrize(("lang", "said", "card"), NEAR_MISSES)
def test_small_recognition_errors_are_accepted(lang: Lang, said: str, card: str) -> None:
    heard = hear(said, lang)
    assert heard.intent is Intent.GUESS
    assert heard.action is Action.ACCEPT
    assert card_of(heard) == card
    assert ACCEPT_SCORE <= candidates_of(heard)[0].score < 100


AMBIGUOUS = [
    # heard, the two cards it could be (best first)
    (Lang.PT_BR, "ceboja", ("CEBOLA", "CEREJA")),
    (Lang.PT_PT, "ceboja", ("CEBOLA", "CEREJA")),
    (Lang.IT, "pesta", ("PASTA", "PESCA")),
    (Lang.IT, "notto", ("NOTTE", "NODO")),
    (Lang.EN, "wragon", ("WAGON", "DRAGON")),
    (Lang.EN, "pat", ("BAT", "CAT")),
]


@pytest.mark.parametrize(("lang", "said", "cards"), AMBIGUOUS)
def test_ambiguous_guesses_are_confirmed_with_the_candidates(lang: Lang, said: str, cards: tuple[str, str]) -> None:
    heard = hear(said, lang)
    assert heard.intent is Intent.GUESS
    assert heard.action is Action.CONFIRM
    assert card_of(heard) == cards[0]
    assert tuple(c.card for c in candidates_of(heard)[:2]) == cards
    assert 2 <= len(candidates_of(heard)) <= MAX_CANDIDATES
    scores = [c.score for c in candidates_of(heard)]
    assert scores == sorted(scores, reverse=True)
    assert scores[0] < ACCEPT_SCORE or scores[0] - scores[1] < MIN_MARGIN


@pytest.mark.parametrize(
    ("lang", "said", "card"),
    [
        (Lang.PT_BR, "talvez cereja", "CEREJA"),  # a word we cannot explain: ask
        (Lang.PT_BR, "não, a cebola", "CEBOLA"),
        (Lang.IT, "forse la nuvola", "NUVOLA"),
        (Lang.EN, "maybe the dragon", "DRAGON"),
        (Lang.PT_BR, "xereja", "CEREJA"),  # one wrong letter, nothing like it around: still ask
        (Lang.PT_BR, "sin", "SINO"),  # one letter away from "sim": ask, never act
        (Lang.EN, "noze", "NOSE"),  # one letter away from "nope"
    ],
)
def test_doubtful_single_candidates_are_confirmed(lang: Lang, said: str, card: str) -> None:
    heard = hear(said, lang)
    assert heard.intent is Intent.GUESS
    assert heard.action is Action.CONFIRM
    assert card_of(heard) == card
    assert candidates_of(heard)[0].card == card


@pytest.mark.parametrize(
    ("lang", "said"),
    [
        (Lang.PT_BR, ""),
        (Lang.PT_BR, "   "),
        (Lang.PT_BR, "?!..."),
        (Lang.PT_BR, "xyzzy plugh"),
        (Lang.PT_PT, "abracadabra"),
        (Lang.IT, "qwerty asdf"),
        (Lang.IT, "🙂"),
        (Lang.EN, "blorp fnord"),
        (Lang.EN, "the the the"),
        (Lang.EN, "dragon " * MAX_TEXT_CHARS),  # a transcript run wild
    ],
)
@pytest.mark.parametrize("phase", list(Phase))
def test_gibberish_is_asked_again(lang: Lang, said: str, phase: Phase) -> None:
    heard = hear(said, lang, phase)
    if phase is Phase.CLUE and isinstance(heard, HeardWord):
        assert len(said.split()) == 1  # one unknown word while a clue is awaited may be the clue's word
        return
    assert heard == NotUnderstood(said, Action.REPROMPT, 0.0)


# ---- yes / no and commands -----------------------------------------------------------------

YES_NO = [
    (Lang.PT_BR, "sim", Command.YES),
    (Lang.PT_BR, "Sim!", Command.YES),
    (Lang.PT_BR, "isso", Command.YES),
    (Lang.PT_BR, "pode", Command.YES),
    (Lang.PT_BR, "não", Command.NO),
    (Lang.PT_BR, "nao", Command.NO),
    (Lang.PT_PT, "sim", Command.YES),
    (Lang.PT_PT, "pois", Command.YES),
    (Lang.PT_PT, "não", Command.NO),
    (Lang.IT, "sì", Command.YES),
    (Lang.IT, "si", Command.YES),
    (Lang.IT, "certo", Command.YES),
    (Lang.IT, "no", Command.NO),
    (Lang.IT, "No!", Command.NO),
    (Lang.EN, "yes", Command.YES),
    (Lang.EN, "yeah", Command.YES),
    (Lang.EN, "no", Command.NO),
    (Lang.EN, "nope", Command.NO),
]


@pytest.mark.parametrize(("lang", "said", "command"), YES_NO)
@pytest.mark.parametrize("phase", list(Phase))
def test_yes_and_no_are_never_cards(lang: Lang, said: str, command: Command, phase: Phase) -> None:
    """SINO, NOZ, NODO, NOTTE, NOTE, NOSE and YARD are all on these boards."""
    heard = hear(said, lang, phase)
    assert heard.intent is Intent.COMMAND
    assert command_of(heard) is command
    assert heard.action is Action.ACCEPT
    assert card_of(heard) is None and candidates_of(heard) == ()
    assert match_card(said, BOARDS[lang], lang) == ()


def test_yes_with_a_card_named_like_it() -> None:
    assert command_of(hear("sim", Lang.PT_BR, cards=["SIM", "SINO"])) is Command.YES


REQUIRED_COMMANDS = {
    Lang.PT_BR: [
        ("passo", Command.PASS),
        ("passar", Command.PASS),
        ("terminar", Command.PASS),
        ("fim do turno", Command.PASS),
        ("repete", Command.REPEAT),
        ("o quê?", Command.REPEAT),
        ("Pode repetir?", Command.REPEAT),
        ("qual foi a pista?", Command.REPEAT),
        ("ler o tabuleiro", Command.READ_BOARD),
        ("quais são as cartas?", Command.READ_BOARD),
        ("placar", Command.SCORE),
        ("quantos faltam?", Command.SCORE),
        ("pistas", Command.CLUES_SO_FAR),
        ("quais foram as pistas?", Command.CLUES_SO_FAR),
        ("vira a ampulheta", Command.TIMER_FLIP),
        ("pausa", Command.TIMER_PAUSE),
        ("continua", Command.TIMER_RESUME),
        ("desfazer", Command.UNDO),
        ("volta", Command.UNDO),
        ("ajuda", Command.HELP),
        ("novo jogo", Command.NEW_GAME),
        ("sair", Command.QUIT),
        ("para", Command.STOP_TALKING),
        ("para de falar", Command.STOP_TALKING),
        ("os meus verdes acabaram", Command.ALL_MY_GREENS_FOUND),
    ],
    Lang.PT_PT: [
        ("passo", Command.PASS),
        ("repete lá", Command.REPEAT),
        ("não percebi", Command.REPEAT),
        ("o que está no ecrã?", Command.READ_BOARD),
        ("pontuação", Command.SCORE),
        ("quem está a ganhar?", Command.SCORE),
        ("pistas", Command.CLUES_SO_FAR),
        ("vira a ampulheta", Command.TIMER_FLIP),
        ("pausa", Command.TIMER_PAUSE),
        ("continua", Command.TIMER_RESUME),
        ("desfazer", Command.UNDO),
        ("ajuda", Command.HELP),
        ("novo jogo", Command.NEW_GAME),
        ("sair", Command.QUIT),
        ("cala-te", Command.STOP_TALKING),
        ("já encontraste todos os meus", Command.ALL_MY_GREENS_FOUND),
        ("os meus verdes acabaram", Command.ALL_MY_GREENS_FOUND),
    ],
    Lang.IT: [
        ("passo", Command.PASS),
        ("fine turno", Command.PASS),
        ("mi fermo", Command.PASS),
        ("ripeti", Command.REPEAT),
        ("come?", Command.REPEAT),
        ("puoi ripetere, per favore?", Command.REPEAT),
        ("leggi il tabellone", Command.READ_BOARD),
        ("punteggio", Command.SCORE),
        ("indizi", Command.CLUES_SO_FAR),
        ("gira la clessidra", Command.TIMER_FLIP),
        ("metti in pausa", Command.TIMER_PAUSE),
        ("riprendi", Command.TIMER_RESUME),
        ("annulla", Command.UNDO),
        ("aiuto", Command.HELP),
        ("nuova partita", Command.NEW_GAME),
        ("un'altra partita", Command.NEW_GAME),
        ("esci", Command.QUIT),
        ("stai zitto", Command.STOP_TALKING),
        ("ho finito i miei verdi", Command.ALL_MY_GREENS_FOUND),
    ],
    Lang.EN: [
        ("pass", Command.PASS),
        ("end turn", Command.PASS),
        ("stop guessing", Command.PASS),
        ("we're done", Command.PASS),
        ("repeat", Command.REPEAT),
        ("say again", Command.REPEAT),
        ("What was the clue?", Command.REPEAT),
        ("read the board", Command.READ_BOARD),
        ("score", Command.SCORE),
        ("what's left?", Command.SCORE),
        ("whats left", Command.SCORE),
        ("clues so far", Command.CLUES_SO_FAR),
        ("flip the timer", Command.TIMER_FLIP),
        ("start the timer", Command.TIMER_FLIP),
        ("pause", Command.TIMER_PAUSE),
        ("resume", Command.TIMER_RESUME),
        ("undo", Command.UNDO),
        ("help", Command.HELP),
        ("can you help, please?", Command.HELP),
        ("new game", Command.NEW_GAME),
        ("quit", Command.QUIT),
        ("exit", Command.QUIT),
        ("stop talking", Command.STOP_TALKING),
        ("all my greens are found", Command.ALL_MY_GREENS_FOUND),
    ],
}


@pytest.mark.parametrize(
    ("lang", "said", "command"),
    [(lang, said, command) for lang, pairs in REQUIRED_COMMANDS.items() for said, command in pairs],
)
@pytest.mark.parametrize("phase", list(Phase))
def test_commands_players_are_known_to_say(lang: Lang, said: str, command: Command, phase: Phase) -> None:
    heard = hear(said, lang, phase)
    assert (heard.intent, command_of(heard), heard.action) == (Intent.COMMAND, command, Action.ACCEPT)


@pytest.mark.parametrize(
    ("lang", "said", "in_guess", "in_clue"),
    [
        (Lang.IT, "basta", Command.PASS, Command.STOP_TALKING),
        (Lang.IT, "basta così", Command.PASS, Command.STOP_TALKING),
        (Lang.PT_BR, "chega", Command.PASS, Command.STOP_TALKING),
        (Lang.PT_PT, "já chega", Command.PASS, Command.STOP_TALKING),
        (Lang.EN, "enough", Command.PASS, Command.STOP_TALKING),
        (Lang.EN, "stop", Command.PASS, Command.STOP_TALKING),
    ],
)
def test_enough_ends_the_turn_while_guessing_and_silences_the_host_otherwise(
    lang: Lang, said: str, in_guess: Command, in_clue: Command
) -> None:
    assert command_of(hear(said, lang, Phase.GUESS)) is in_guess
    assert command_of(hear(said, lang, Phase.CLUE)) is in_clue


def _vocabulary_phrases(lang: Lang) -> list[tuple[str, Command, Phase | None]]:
    """Every command phrase in the data files, read as the data says (pt-PT inherits pt-BR)."""
    text = resources.files("voicehost.vocab").joinpath(f"{lang.value}.toml").read_text(encoding="utf-8")
    table = tomllib.loads(text)
    phrases: list[tuple[str, Command, Phase | None]] = [
        (phrase, Command[name], None) for name, listed in table.get("commands", {}).items() for phrase in listed
    ]
    for phase_name, commands in table.get("phase_commands", {}).items():
        for name, listed in commands.items():
            phrases += [(phrase, Command[name], Phase[phase_name]) for phrase in listed]
    if "inherits" in table:
        forgotten = {normalize(phrase, lang) for phrase in table.get("forget", [])}
        inherited = _vocabulary_phrases(Lang(table["inherits"]))
        phrases += [p for p in inherited if normalize(p[0], lang) not in forgotten]
    return phrases


@pytest.mark.parametrize("lang", list(Lang))
def test_every_command_synonym_maps_to_its_command(lang: Lang) -> None:
    phrases = _vocabulary_phrases(lang)
    assert {command for _, command, _ in phrases} == set(Command)
    by_phase = {(normalize(p, lang), phase): c for p, c, phase in phrases if phase is not None}
    wrong = []
    for phrase, command, only in phrases:
        for phase in [only] if only is not None else list(Phase):
            expected = by_phase.get((normalize(phrase, lang), phase), command)
            heard = hear(phrase, lang, phase)
            if (heard.intent, command_of(heard)) != (Intent.COMMAND, expected):
                wrong.append((phrase, phase.name, expected.name, heard.intent.name, command_of(heard)))
    assert wrong == []


def test_dialects_use_their_own_words() -> None:
    assert command_of(hear("placar", Lang.PT_BR)) is Command.SCORE
    assert command_of(hear("pontuação", Lang.PT_PT)) is Command.SCORE
    assert command_of(hear("o que está no ecrã", Lang.PT_PT)) is Command.READ_BOARD
    assert command_of(hear("o que está na tela", Lang.PT_BR)) is Command.READ_BOARD
    assert command_of(hear("repete lá", Lang.PT_PT)) is Command.REPEAT
    assert command_of(hear("repete lá", Lang.PT_BR)) is None
    assert command_of(hear("já encontraste todos os meus", Lang.PT_BR)) is None
    assert command_of(hear("oi?", Lang.PT_BR)) is Command.REPEAT  # Brazilian "what?"
    assert command_of(hear("oi?", Lang.PT_PT)) is None  # a greeting in Portugal
    assert clue_of(hear("tomate dezasseis", Lang.PT_PT, Phase.CLUE)) == SpokenClue("tomate", 16, False)


def test_a_command_said_alone_wins_over_a_card_with_the_same_name() -> None:
    """Documented choice: the decks avoid such words; with an article the card is reachable."""
    board = ["FIM", "PIANO"]
    assert command_of(hear("fim", Lang.PT_BR, cards=board)) is Command.PASS
    heard = hear("é o fim", Lang.PT_BR, cards=board)
    assert (heard.intent, card_of(heard), heard.action) == (Intent.GUESS, "FIM", Action.ACCEPT)


def test_an_exact_card_wins_over_a_command_it_sounds_like() -> None:
    heard = hear("pasta", Lang.IT)  # "basta" is PASS, but PASTA was said letter for letter
    assert (heard.intent, card_of(heard), heard.action) == (Intent.GUESS, "PASTA", Action.ACCEPT)
    assert command_of(hear("basta", Lang.IT)) is Command.PASS


def test_commands_are_not_read_inside_longer_sentences() -> None:
    assert clue_of(hear("volta dois", Lang.PT_BR, Phase.CLUE)) == SpokenClue("volta", 2, False)
    assert command_of(hear("undo the dragon", Lang.EN)) is None


# ---- recognizer confidence -----------------------------------------------------------------


def test_low_recognizer_confidence_asks_back_before_acting() -> None:
    low = LOW_ASR_CONFIDENCE / 2
    guess = hear("cereja", Lang.PT_BR, asr_confidence=low)
    assert (guess.intent, card_of(guess), guess.action) == (Intent.GUESS, "CEREJA", Action.CONFIRM)
    assert guess.confidence == pytest.approx(low)
    clue = hear("frutta due", Lang.IT, Phase.CLUE, asr_confidence=low)
    assert (clue.intent, clue.action) == (Intent.CLUE, Action.CONFIRM)
    assert (hear("pass", Lang.EN, asr_confidence=low).action) is Action.CONFIRM
    assert hear("ceboja", Lang.PT_BR, asr_confidence=low).action is Action.CONFIRM


def test_low_confidence_yes_or_no_is_asked_again_and_reading_out_is_just_done() -> None:
    low = LOW_ASR_CONFIDENCE / 2
    for said, lang in [("sim", Lang.PT_BR), ("no", Lang.IT), ("yes", Lang.EN)]:
        heard = hear(said, lang, asr_confidence=low)
        assert (heard.intent, heard.action, command_of(heard)) == (Intent.UNKNOWN, Action.REPROMPT, None)
    heard = hear("placar", Lang.PT_BR, asr_confidence=low)
    assert (command_of(heard), heard.action) == (Command.SCORE, Action.ACCEPT)


@pytest.mark.parametrize("confidence", [None, 0.95, 1.0, 7.0, math.nan, math.inf])
def test_good_or_meaningless_confidence_does_not_slow_the_game(confidence: float | None) -> None:
    heard = hear("dragon", Lang.EN, asr_confidence=confidence)
    assert heard.action is Action.ACCEPT
    assert 0.0 <= heard.confidence <= 1.0


# ---- match_card and normalize --------------------------------------------------------------


def test_match_card_ranks_the_plausible_cards() -> None:
    assert match_card("ceboja", BOARDS[Lang.PT_BR], Lang.PT_BR)[:2] == (
        Candidate("CEBOLA", 83.3),
        Candidate("CEREJA", 66.7),
    )
    assert match_card("arco iris", BOARDS[Lang.PT_BR], Lang.PT_BR) == (Candidate("ARCO-ÍRIS", 100.0),)
    assert match_card("I think it's the dragon", BOARDS[Lang.EN], Lang.EN)[0] == Candidate("DRAGON", 100.0)


@pytest.mark.parametrize(
    ("said", "cards"),
    [
        ("xyzzy", BOARDS[Lang.EN]),
        ("", BOARDS[Lang.EN]),
        ("dragon", []),
        ("dragon", ["", "  ", "-"]),
        ("no", BOARDS[Lang.EN]),
        ("yes", ["YES", "DRAGON"]),
    ],
)
def test_match_card_is_empty_when_nothing_is_plausible(said: str, cards: list[str]) -> None:
    assert match_card(said, cards, Lang.EN) == ()


def test_match_card_ignores_repeated_cards() -> None:
    assert match_card("dragon", ["DRAGON", "DRAGON", "WAGON"], Lang.EN)[0] == Candidate("DRAGON", 100.0)
    assert [c.card for c in match_card("dragon", ["DRAGON", "DRAGON"], Lang.EN)] == ["DRAGON"]


def test_normalize_is_what_matching_compares() -> None:
    assert normalize("Você pode repetir?", Lang.PT_BR) == "voce pode repetir"
    assert normalize("ARCO-ÍRIS", Lang.PT_BR) == "arco iris"
    assert normalize("L'ancora", Lang.IT) == "l ancora"
    assert normalize("What's left?", Lang.EN) == "whats left"
    assert normalize("tomate3", Lang.PT_BR) == "tomate 3"


# ---- the real decks ------------------------------------------------------------------------

DECK_FILES = {
    Lang.PT_BR: "words-pt-BR.txt",
    Lang.PT_PT: "words-pt-PT.txt",
    Lang.IT: "words-it.txt",
    Lang.EN: "words-en.txt",
}


def _deck(lang: Lang) -> list[str]:
    try:
        text = resources.files("engine.decks").joinpath(DECK_FILES[lang]).read_text(encoding="utf-8")
    except (ModuleNotFoundError, FileNotFoundError):
        pytest.skip("no word deck for this language")
    return [line.strip() for line in text.splitlines() if line.strip() and not line.startswith("#")]


@pytest.mark.parametrize("lang", list(Lang))
def test_every_deck_word_said_alone_is_that_card(lang: Lang) -> None:
    """Guards the data against the decks: no card is a command, a number or a filler."""
    deck = _deck(lang)
    wrong = []
    for i, word in enumerate(deck):
        board = [*deck[max(0, i - 12) : i], *deck[i : i + 13]]
        for phase in Phase:
            heard = hear(word.lower(), lang, phase, cards=board)
            if (heard.intent, card_of(heard), heard.action) != (Intent.GUESS, word, Action.ACCEPT):
                wrong.append((word, phase.name, heard.intent.name, command_of(heard)))
    assert wrong == []


# ---- properties ----------------------------------------------------------------------------

ALL_CARDS = sorted({card for board in BOARDS.values() for card in board})
PROPERTY_SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@PROPERTY_SETTINGS
@given(
    text=st.text(max_size=120),
    phase=st.sampled_from(list(Phase)),
    lang=st.sampled_from(list(Lang)),
    cards=st.lists(st.sampled_from(ALL_CARDS), max_size=25),
    confidence=st.none() | st.floats(allow_nan=True, allow_infinity=True),
)
def test_any_text_is_understood_without_raising(
    text: str, phase: Phase, lang: Lang, cards: list[str], confidence: float | None
) -> None:
    heard = understand(text, phase=phase, cards=cards, lang=lang, asr_confidence=confidence)
    assert heard.heard == text
    assert (heard.action is Action.REPROMPT) == (heard.intent is Intent.UNKNOWN)
    assert 0.0 <= heard.confidence <= 1.0
    assert (clue_of(heard) is not None) == (
        heard.intent is Intent.CLUE and not isinstance(heard, HeardWord | HeardNumber)
    )
    assert (command_of(heard) is not None) == (heard.intent is Intent.COMMAND)
    assert (card_of(heard) is not None) == (heard.intent is Intent.GUESS)
    if card_of(heard) is not None:
        assert card_of(heard) in cards
        assert candidates_of(heard)[0].card == card_of(heard)
    assert len(candidates_of(heard)) <= MAX_CANDIDATES
    assert all(c.card in cards and CONFIRM_SCORE <= c.score <= 100 for c in candidates_of(heard))
    assert [c.score for c in candidates_of(heard)] == sorted((c.score for c in candidates_of(heard)), reverse=True)
    assert match_card(text, cards, lang) is not None
    assert isinstance(normalize(text, lang), str)


WORDISH = st.text(alphabet="abcdefghijklmnopqrstuvwxyzàéíóúç -'!?,", min_size=1, max_size=40)


@PROPERTY_SETTINGS
@given(text=WORDISH | st.text(max_size=40), lang=st.sampled_from(list(Lang)))
def test_random_text_is_never_accepted_as_a_card_it_is_not_close_to(text: str, lang: Lang) -> None:
    heard = understand(text, phase=Phase.GUESS, cards=BOARDS[lang], lang=lang)
    if heard.intent is Intent.GUESS and heard.action is Action.ACCEPT:
        assert card_of(heard) is not None
        assert fuzz.partial_ratio(fold(card_of(heard)), fold(text)) >= 50


@PROPERTY_SETTINGS
@given(
    lang=st.sampled_from(list(Lang)),
    index=st.integers(min_value=0),
    upper=st.booleans(),
    strip_accents=st.booleans(),
    punctuation=st.sampled_from(["", "!", ".", "?", "..."]),
)
def test_a_card_said_exactly_is_accepted_in_any_case_and_accent(
    lang: Lang, index: int, upper: bool, strip_accents: bool, punctuation: str
) -> None:
    card = BOARDS[lang][index % len(BOARDS[lang])]
    said = card if upper else card.lower()
    if strip_accents:
        said = "".join(ch for ch in unicodedata.normalize("NFD", said) if not unicodedata.combining(ch))
    heard = understand(said + punctuation, phase=Phase.GUESS, cards=BOARDS[lang], lang=lang)
    assert (heard.intent, card_of(heard), heard.action) == (Intent.GUESS, card, Action.ACCEPT)
