"""Every language says everything (same keys, same placeholders as the English master), in one voice: one
register, one label at a time, one breath per sentence, no English left, no command read aloud, and every
phrase it tells the players to say understood."""

from __future__ import annotations

import json
import re
import string
import tomllib
from importlib import resources
from pathlib import Path

import pytest

from engine.board import Board
from engine.editions import new_game
from engine.errors import GameError
from engine.lang import Lang
from tests.hostile import run
from voicehost.cli.deal import key_marks
from voicehost.prompts import Prompts
from voicehost.referee.announcer import announcer_for
from voicehost.understanding import (
    Action,
    Grid,
    HeardCommand,
    HeardGuess,
    Intent,
    Phase,
    normalize,
    understand,
    vocabulary,
)
from voicehost.understanding.checks import clue_check

BOARDS = Path(__file__).resolve().parents[1] / "boards"


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


# ---- one voice per language: the rules a prompt file is held to, where a rule can be checked ----------
#
# Who is spoken to: a named person ("Red spymaster, ...", "Player A, ...", the key page, the earpiece) is
# "you" singular; the table, a team, or nobody in particular is "you" plural (pt vocês, it voi). Words the
# players say to the host are quoted (“...” in en and pt-BR, «...» in pt-PT and it): they are the players'
# words, not the host's register, and each must be understood (see test_every_quoted_phrase_is_understood).

QUOTE_MARKS: dict[Lang, tuple[str, str]] = {
    Lang.EN: ("“", "”"),
    Lang.PT_BR: ("“", "”"),
    Lang.PT_PT: ("«", "»"),
    Lang.IT: ("«", "»"),
}
QUOTED = re.compile(r"[“«]([^”»]*)[”»]")
PLACEHOLDER = re.compile(r"\{[^}]*\}")

READOUTS = frozenset({"info.help_clue", "info.help_guess", "info.help_places", "earpiece.how"})
"""Said when a player asks for them: several sentences, each still one breath."""
CONSOLE_ONLY = frozenset(
    {
        *("earpiece.no_device", "earpiece.no_file", "earpiece.no_voice"),
        *(f"satellite.{name}" for name in ("playing", "searching", "found", "stopped", "back", "unreachable")),
        *(f"satellite.{name}" for name in ("not_found", "none_found", "two_found", "no_wyoming", "no_zeroconf")),
    }
)
"""Lines printed on the terminal, never said (besides [console] and display.console_*): why the host cannot
start, and how its satellite is doing."""
SATELLITE_SETUP = frozenset({"satellite.busy", "satellite.not_streaming"})
"""Said on a satellite's own speaker when it sends no sound, with the steps to free it (Home Assistant's
menus, wyoming-satellite's flags): the one place a command is still said aloud, and far longer than a
breath. Those steps belong on the terminal; until the satellite's code prints them there, these two are
held to the register and translation rules only."""

MAX_SENTENCE_WORDS = 14
"""One breath: about 5 s at the 2.7 to 3 words a second of the host's voices and of people reading aloud."""
MAX_ANNOUNCEMENT_WORDS = 18
"""What the host says after one move, at most two short breaths (about 6 s)."""
MAX_READOUT_WORDS = 40
"""Help and the like, asked for: a few sentences."""
MAX_OPENING_WORDS = 26
"""The opening (the edition, who starts, where the key is, the first prompt): about 9 s, where it took 14 s
and a file path read aloud."""

# The other register, per language (checked outside quoted words, case-insensitively).
OTHER_REGISTER: dict[Lang, list[tuple[str, str]]] = {
    Lang.PT_BR: [
        (r"\b(tu|te|teu|tua|teus|tuas|contigo|podes|dizes|queres|tens|estás|és|disseste)\b", "tu"),
        (
            r"(^|[.!?:;]\s+)(diz|lê|repete|escolhe|faz|dá(?! para)|responde|vê|tenta|usa|pede|cobre|joga|fala|espera"
            r"|volta|desfaz|põe|continua)\b",
            "an imperative of tu",
        ),
    ],
    Lang.PT_PT: [
        (r"\bvocê\b|\bo senhor\b|\ba senhora\b", "você (pt-PT says tu to one player)"),
        (
            r"(^|[.!?:;]\s+)(diga|dê|escolha|responda|jogue|tente|use|peça|cubra|indique|repita|leia|faça)\b",
            "an imperative of você",
        ),
    ],
    Lang.IT: [(r"(^|[.!?:;]\s+)(dica|scelga|risponda|copra|provi|scusi|riprovi)\b", "an imperative of Lei")],
    Lang.EN: [],
}

# Forms that speak to one person, and forms that speak to several: one message never mixes them.
SINGULAR_PLURAL: dict[Lang, tuple[str, str]] = {
    Lang.PT_BR: (
        r"\b(você|diga|dê|escolha|responda|cubra|tente|repita|continue|jogue|peça)\b",
        r"\b(vocês|digam|deem|escolham|respondam|cubram|tentem|repitam|continuem|joguem|peçam|adivinhem"
        r"|encontrem|percam)\b",
    ),
    Lang.PT_PT: (
        r"\b(tu|te|teu|tua|teus|tuas|contigo|podes|dizes|queres|tens|estás|disseste|digas)\b|-te\b",
        r"\b(vocês|vosso|vossa|vossos|vossas|digam|deem|escolham|respondam|cubram|tentem|continuem|joguem"
        r"|adivinhem|encontrem|percam)\b|-vos\b",
    ),
    Lang.IT: (
        r"\b(tu|ti|te|tuo|tua|tuoi|tue|puoi|hai|scegli|copri|rispondi|riprova|sceglilo|chiedi|dillo|esci|scusa)\b|\bdi'",
        r"\b(voi|vi|vostro|vostra|vostri|vostre|potete|avete|siete|dite|scegliete|coprite|rispondete|riprovate"
        r"|indovinate|continuate|trovate|volete|scusate|fermarvi)\b",
    ),
}

ENGLISH_WORDS = frozenset(
    "key card cards host board clue clues guess guesses spymaster spymasters player team timer score undo pass "
    "help quit yes display the and please sorry turn side".split()
)
"""Words that must not be left in English in another language's prompts."""

COMMAND_LINE = re.compile(r"voicehost \w+(?: \{\w+\})?|python3? -m \w+|pip install \S+|--[\w-]+(?: [ab]\b| [A-Z:]+\b)?")
SPOKEN_COMMAND = re.compile(r"--\w|\bvoicehost\b|\bpython3?\b|\{(?:save|path|url)\}")


def _is_console(key: str) -> bool:
    table, _, name = key.partition(".")
    return table == "console" or name.startswith("console_") or key in CONSOLE_ONLY


def _is_spoken(key: str) -> bool:
    """Said by the host at the table (the [display] lines are labels and the key page's own readings)."""
    return key.partition(".")[0] != "display" and not _is_console(key) and key not in SATELLITE_SETUP


def _unquoted(text: str) -> str:
    return QUOTED.sub("Q", PLACEHOLDER.sub("X", text))


def _sentences(text: str) -> list[str]:
    return [part for part in re.split(r"(?<=[.!?])\s+", text.strip()) if part]


def _words(text: str) -> list[str]:
    return [word for word in PLACEHOLDER.sub("X", text).split() if re.search(r"\w", word)]


def _register_problems(lang: Lang, key: str, text: str) -> list[str]:
    said = _unquoted(text)
    found = [
        f"{key}: {why} ({match.group(0).strip()!r})"
        for pattern, why in OTHER_REGISTER[lang]
        for match in [re.search(pattern, said, re.IGNORECASE)]
        if match
    ]
    if lang in SINGULAR_PLURAL:
        one, many = (re.search(p, said, re.IGNORECASE) for p in SINGULAR_PLURAL[lang])
        if one and many:
            found.append(f"{key}: speaks to one ({one.group(0)!r}) and to many ({many.group(0)!r})")
    return found


def _label_problems(key: str, text: str) -> list[str]:
    said = PLACEHOLDER.sub("X", text)
    found = [f"{key}: two labels in one sentence: {s!r}" for s in _sentences(said) if s.count(":") > 1]
    if said.rstrip().endswith(":"):
        found.append(f"{key}: a label with nothing after it: {text!r}")
    return found


def _length_problems(key: str, text: str) -> list[str]:
    found = [
        f"{key}: {len(_words(s))} words in one sentence (at most {MAX_SENTENCE_WORDS}): {s!r}"
        for s in _sentences(text)
        if len(_words(s)) > MAX_SENTENCE_WORDS
    ]
    limit = MAX_READOUT_WORDS if key in READOUTS else MAX_ANNOUNCEMENT_WORDS
    if len(_words(text)) > limit:
        found.append(f"{key}: {len(_words(text))} words (at most {limit}): {text!r}")
    return found


def _english_problems(key: str, text: str) -> list[str]:
    words = re.findall(r"[^\W\d_]+", COMMAND_LINE.sub(" ", PLACEHOLDER.sub(" ", text)).lower())
    return [f"{key}: English {word!r}" for word in words if word in ENGLISH_WORDS]


@pytest.mark.parametrize("lang", list(Lang))
def test_one_register_throughout(lang: Lang) -> None:
    """pt-BR speaks você/vocês, pt-PT tu/vocês, it tu/voi; no message speaks to one and to many at once."""
    problems = [problem for key, text in flat(lang).items() for problem in _register_problems(lang, key, text)]
    assert problems == []


@pytest.mark.parametrize("lang", list(Lang))
def test_no_two_labels_in_a_row(lang: Lang) -> None:
    """ "Cartas na mesa: Ainda escondidas: ..." says two labels before anything; one sentence has one colon."""
    p = Prompts.load(lang)
    composed = {
        f"{key} with {how}": p.text(key, Team="X", how=p.text(how))
        for key in ("clue.penalty_cover", "turn.simulated_choose")
        for how in ("cover.how_key_page", "cover.how_aloud")
    }
    said = [(key, text) for key, text in flat(lang).items() if not _is_console(key) and key not in SATELLITE_SETUP]
    problems = [problem for key, text in [*said, *composed.items()] for problem in _label_problems(key, text)]
    assert problems == []


@pytest.mark.parametrize("lang", list(Lang))
def test_the_board_read_aloud_has_one_label_a_list(lang: Lang) -> None:
    game = new_game(Board.from_dict(json.loads((BOARDS / f"classic-{lang.value}.json").read_text(encoding="utf-8"))))
    game.give_clue("zzzz", 2)
    game.guess(game.board.cards[0])
    said = announcer_for(game, Prompts.load(lang)).board_text()
    assert _label_problems("board", said) == []
    assert game.board.cards[0] in said and game.board.cards[1] in said


@pytest.mark.parametrize("lang", list(Lang))
def test_each_announcement_is_said_in_one_breath(lang: Lang) -> None:
    problems = [
        problem for key, text in flat(lang).items() if _is_spoken(key) for problem in _length_problems(key, text)
    ]
    assert problems == []


@pytest.mark.parametrize("lang", [Lang.PT_BR, Lang.PT_PT, Lang.IT])
def test_no_english_left_in_other_languages(lang: Lang) -> None:
    problems = [problem for key, text in flat(lang).items() for problem in _english_problems(key, text)]
    assert problems == []


@pytest.mark.parametrize("lang", list(Lang))
def test_commands_and_paths_go_to_the_console_only(lang: Lang) -> None:
    """Nothing said aloud or shown on the board names a command, a flag, a file path or a link."""
    problems = [
        f"{key}: {text!r}"
        for key, text in flat(lang).items()
        if not _is_console(key) and key not in SATELLITE_SETUP and SPOKEN_COMMAND.search(text)
    ]
    assert problems == []


@pytest.mark.parametrize("lang", list(Lang))
def test_quotes_are_the_languages_own(lang: Lang) -> None:
    opening, closing = QUOTE_MARKS[lang]
    others = set("“”«»") - {opening, closing}
    problems = [f"{key}: {text!r}" for key, text in flat(lang).items() if others & set(text)]
    problems += [
        f"{key}: unbalanced quotes {text!r}"
        for key, text in flat(lang).items()
        if text.count(opening) != text.count(closing)
    ]
    assert problems == []


@pytest.mark.parametrize("lang", list(Lang))
def test_the_opening_is_short_and_says_where_the_key_is(lang: Lang) -> None:
    p = Prompts.load(lang)
    classic = [
        p.text("game.welcome_classic", starting=p.text("team.Red"), agents=9, other_agents=8),
        p.text("game.key_on_phone"),
        p.text("game.clue_prompt", Team=p.text("team.Red")),
    ]
    duet = [
        p.text("game.welcome_duet", tokens=9),
        p.text("game.key_on_phone_duet"),
        p.text("game.clue_prompt_duet_either"),
    ]
    for opening in (" ".join(classic), " ".join(duet)):
        assert len(_words(opening)) <= MAX_OPENING_WORDS, opening
        assert not SPOKEN_COMMAND.search(opening), opening


def _understood(phrase: str, lang: Lang) -> bool:
    """Whether the host acts on the phrase said alone: a command, a clue, a place on the grid, a move said to
    the host ("final answer"), or a clue checked in private ("is OCEAN allowed?")."""
    grid = Grid(tuple(f"CARD{i}" for i in range(25)), 5)
    for phase in Phase:
        heard = understand(phrase, phase=phase, cards=[], lang=lang, grid=grid)
        placed = isinstance(heard, HeardGuess) and bool(heard.place)
        if heard.action is not Action.REPROMPT and (heard.intent in (Intent.COMMAND, Intent.CLUE) or placed):
            return True
    return (
        clue_check(phrase, lang) is not None
        or tuple(normalize(phrase, lang).split()) in vocabulary(lang).commit_phrases
    )


@pytest.mark.parametrize("lang", list(Lang))
def test_every_quoted_phrase_is_understood(lang: Lang) -> None:
    """What the host tells the players to say works when they say it."""
    quoted = {
        (key, phrase)
        for key, text in flat(lang).items()
        for phrase in QUOTED.findall(text)
        if not PLACEHOLDER.search(phrase)
    }
    assert quoted, "the prompts quote what to say"
    assert sorted((key, phrase) for key, phrase in quoted if not _understood(phrase, lang)) == []


@pytest.mark.parametrize("lang", list(Lang))
@pytest.mark.parametrize("key", ["info.help_clue", "info.help_guess"])
def test_each_command_the_help_lists_works_alone(lang: Lang, key: str) -> None:
    """ "ampulheta" and "clessidra" were listed and did nothing alone (they are cards of the decks, too)."""
    listed = QUOTED.findall(flat(lang)[key])
    commands = [
        phrase
        for phrase in listed
        if understand(phrase, phase=Phase.CLUE, cards=[], lang=lang).intent is not Intent.CLUE
    ]
    assert len(commands) >= 8, listed
    for phrase in commands:
        heard = [understand(phrase, phase=phase, cards=[], lang=lang) for phase in Phase]
        assert all(isinstance(h, HeardCommand) and h.action is Action.ACCEPT for h in heard), (phrase, heard)


@pytest.mark.parametrize("lang", list(Lang))
@pytest.mark.parametrize("edition", ["classic", "duet"])
def test_the_key_printed_for_a_spymaster_is_in_the_games_language(tmp_path: Path, lang: Lang, edition: str) -> None:
    save = tmp_path / "game.json"
    board = BOARDS / f"{edition}-{lang.value}.json"
    played = run(["play", "--text", "--board", str(board), "--save", str(save)], "", data=tmp_path)
    assert played.code == 0, played.why()
    printed = run(["key", str(save), *(["--side", "a"] if edition == "duet" else [])], data=tmp_path)
    assert printed.code == 0, printed.why()
    p = Prompts.load(lang)
    legend = "console.key_legend_duet" if edition == "duet" else "console.key_legend"
    lines = printed.out.splitlines()
    assert lines[-1] == p.text(legend, covered="*", **key_marks(p))
    if edition == "duet":
        assert lines[0] == p.text("console.key_side", side="A")
    if lang is not Lang.EN:
        assert _english_problems("voicehost key", lines[-1]) == []
        assert lines[-1] != Prompts.load(Lang.EN).text(legend, covered="*", **key_marks(Prompts.load(Lang.EN)))


@pytest.mark.parametrize("lang", list(Lang))
def test_each_duet_player_is_told_the_command_for_their_own_side_only(lang: Lang) -> None:
    """`voicehost key SAVE` alone prints both sides of a Duet key: the terminal line gives each side's."""
    line = Prompts.load(lang).text("console.key_hint_duet", save="game.json")
    assert "voicehost key game.json --side a" in line and "--side b" in line


@pytest.mark.parametrize("lang", [Lang.PT_BR, Lang.IT])
def test_the_game_kept_aside_is_said_and_the_command_to_resume_it_printed(tmp_path: Path, lang: Lang) -> None:
    first = run(["play", "--text", "--lang", lang.value, "--seed", "1"], "", data=tmp_path)
    assert first.code == 0, first.why()
    second = run(["play", "--text", "--lang", lang.value, "--seed", "2"], "", data=tmp_path)
    assert second.code == 0, second.why()
    kept = sorted((tmp_path / "voicehost" / "unfinished-games").glob("game-*.json"))
    p = Prompts.load(lang)
    assert p.text("game.previous_kept") in second.said
    assert "voicehost" not in second.out and str(kept[0]) not in second.out
    assert p.text("console.previous_kept", path=str(kept[0])) in second.err
