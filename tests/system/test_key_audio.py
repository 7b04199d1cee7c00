"""A blind spymaster's key by ear (`voicehost play --key-audio DEVICE`): asked aloud, answered in the earpiece.

"Host, read my key", "read my agents" (row by row on request) and "is OCEAN allowed?" in the four
languages: the earpiece gets the key page's own texts (tests/browser/test_key_page_listen.py) and the ruling
of the host's own clue check; the table hears a short acknowledgment that is the same whatever the key
(or, without an earpiece, how to hear the key in private), and the game does not move. Checked three
ways: the host with fake mouths (the texts each mouth was given); the real file mouths with a synthesizer
that writes each character as one sample, so what went into each WAV is read back from it; and the real
CLI by text (`--text --key-audio ear.wav`, espeak-ng in the earpiece), on two boards whose keys differ
only where nobody may look: the table's lines, the terminal display, the events log and the save (all
but its key) are byte-identical, the earpiece files are not.
"""

from __future__ import annotations

import io
import json
import random
import subprocess
import sys
import wave
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from engine.board import Board
from engine.competitive import CompetitiveGame
from engine.editions import AnyGame, new_game
from engine.events import EventType
from engine.game import Phase
from engine.lang import Lang, fold_text
from engine.legality import Verdict
from engine.pieces import Identity
from engine.variants import Variants
from tests.display_support import PUBLIC_PATHS, raw_get
from tests.scripting import cli_env
from voicehost import understanding
from voicehost.audio.samples import SAMPLE_RATE, Audio
from voicehost.display.private import ruling_text
from voicehost.display.web import WebDisplay
from voicehost.mouth.recording import FileMouth
from voicehost.prompts import Prompts
from voicehost.referee.earpiece import check_text, key_text
from voicehost.referee.host import Host, HostSettings
from voicehost.understanding import Action, Command, HeardCommand, understand
from voicehost.understanding.checks import clue_check
from voicehost.understanding.moment import ListenMode
from voicehost.understanding.results import HeardClueCheck
from voicehost.understanding.talk import spoken_host_name

ROOT = Path(__file__).resolve().parents[2]
BOARDS = ROOT / "tests" / "boards"
LANGS = ("pt-BR", "pt-PT", "it", "en")

READ_KEY = {"pt-BR": "ler minha chave", "pt-PT": "lê-me a chave", "it": "leggi la mia chiave", "en": "read my key"}
READ_AGENTS = {"pt-BR": "o que me falta", "pt-PT": "os meus agentes", "it": "cosa mi resta", "en": "read my agents"}
BY_ROWS = {
    "pt-BR": "meus agentes em ordem do tabuleiro",
    "pt-PT": "os meus agentes por ordem do tabuleiro",
    "it": "i miei agenti in ordine di griglia",
    "en": "read my agents in grid order",
}
CHECK = {"pt-BR": "{} é permitida?", "pt-PT": "{} vale?", "it": "{} è valida?", "en": "is {} allowed?"}
FREE_WORD = {"pt-BR": "galáxia", "pt-PT": "galáxia", "it": "galassia", "en": "galaxy"}
CLUE = {"pt-BR": "música, dois", "pt-PT": "música, dois", "it": "musica, due", "en": "music, two"}
QUIT = {"pt-BR": ["sair", "sim"], "pt-PT": ["sair", "sim"], "it": ["esci", "sì"], "en": ["quit", "yes"]}


class Said:
    """A mouth that keeps what it was given."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    def say(self, text: str) -> None:
        self.lines.append(text)


def board_of(name: str) -> Board:
    return Board.from_dict(json.loads((BOARDS / f"{name}.json").read_text(encoding="utf-8")))


def table(
    lang: str, *, earpiece: bool = True, edition: str = "classic", board: Board | None = None, **variants: Any
) -> tuple[Host, Said, Said | None, AnyGame]:
    game = new_game(board or board_of(f"{edition}-{lang}"), Variants(**variants))
    public, ear = Said(), (Said() if earpiece else None)
    host = Host(
        game,
        Prompts.load(game.board.lang),
        public,
        earpiece=ear,
        settings=HostSettings(listening=ListenMode.ADDRESSED, simulated="choose"),
    )
    host.start()
    public.lines.clear()
    return host, public, ear, game


def to_host(lang: str, line: str) -> str:
    return f"{spoken_host_name(Lang.parse(lang))}, {line}"


def names_of(game: AnyGame, identity: Identity) -> list[str]:
    key = game.board.key if isinstance(game, CompetitiveGame) else game.key_for("a")
    cards = game.board.cards
    return [card for i, card in enumerate(cards) if key[i] is identity and not game.is_covered(i)]


# ---- what is understood ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("lang", "said", "command"),
    [
        *((lang, READ_KEY[lang], Command.READ_KEY) for lang in LANGS),
        ("pt-BR", "ler a minha chave", Command.READ_KEY),
        ("pt-PT", "ler a minha chave", Command.READ_KEY),
        ("en", "read the key row by row", Command.READ_KEY_GRID),
        ("pt-BR", "lê a minha chave em ordem do tabuleiro", Command.READ_KEY_GRID),
        ("it", "leggi la mia chiave in ordine di griglia", Command.READ_KEY_GRID),
        *((lang, READ_AGENTS[lang], Command.READ_MY_AGENTS) for lang in LANGS),
        ("en", "what's left for me", Command.READ_MY_AGENTS),
        *((lang, BY_ROWS[lang], Command.READ_MY_AGENTS_GRID) for lang in LANGS),
        ("en", "in grid order", Command.READ_MY_AGENTS_GRID),
        ("pt-BR", "em ordem do tabuleiro", Command.READ_MY_AGENTS_GRID),
        ("it", "in ordine di griglia", Command.READ_MY_AGENTS_GRID),
        ("en", "is it allowed", Command.CHECK_CLUE),
    ],
)
def test_requests_are_commands_in_every_language(lang: str, said: str, command: Command) -> None:
    heard = understand(
        said, phase=understanding.Phase.CLUE, cards=board_of(f"classic-{lang}").cards, lang=Lang.parse(lang)
    )
    assert isinstance(heard, HeardCommand) and heard.command is command


@pytest.mark.parametrize(
    ("lang", "said", "word"),
    [
        ("en", "is ocean allowed?", "ocean"),
        ("en", "Is the word ocean two allowed", "ocean"),
        ("en", "can I say Apfel?", "apfel"),
        ("en", "please, is ocean ok", "ocean"),
        ("pt-BR", "Oceano é permitida?", "oceano"),
        ("pt-BR", "oceano vale?", "oceano"),
        ("pt-BR", "posso dizer maçã?", "maçã"),
        ("pt-PT", "mar está bem?", "mar"),
        ("pt-PT", "oceano é permitida?", "oceano"),
        ("it", "oceano è valida?", "oceano"),
        ("it", "l'indizio mare è valido", "mare"),
        ("it", "posso dire città?", "città"),
    ],
)
def test_is_x_allowed_is_a_check_of_x(lang: str, said: str, word: str) -> None:
    check = clue_check(said, Lang.parse(lang))
    assert check == HeardClueCheck(said, Action.ACCEPT, 1.0, Command.CHECK_CLUE, word)


@pytest.mark.parametrize(
    ("lang", "said"),
    [
        ("en", "is it allowed"),  # a command: how to ask
        ("en", "read my key"),
        ("en", "ocean, two"),
        ("en", "is it the piano?"),
        ("pt-BR", "o vale"),  # a guess of VALE, not a check of "o"
        ("pt-BR", "vale, dois"),  # a clue
        ("pt-BR", "vale"),
        ("it", "sì va bene"),
        ("pt-PT", "sim está bem"),
    ],
)
def test_moves_and_talk_are_no_checks(lang: str, said: str) -> None:
    assert clue_check(said, Lang.parse(lang)) is None


def test_table_talk_holds_no_check() -> None:
    for lang in LANGS:
        lines = (ROOT / "tests" / "data" / "table_talk" / f"{lang}.txt").read_text(encoding="utf-8").splitlines()
        assert [line for line in lines if clue_check(line, Lang.parse(lang))] == []


# ---- the host, with fake mouths ---------------------------------------------------------------------


@pytest.mark.parametrize("lang", LANGS)
def test_read_my_key_goes_to_the_earpiece_only(lang: str) -> None:
    host, public, ear, game = table(lang)
    p = host.p
    assert ear is not None
    events = len(game.events)
    host.hear(to_host(lang, READ_KEY[lang]))
    assert public.lines == [p.text("earpiece.reading")]
    assert len(ear.lines) == 1
    reading = ear.lines[0]
    assert isinstance(game, CompetitiveGame)
    team = game.team
    mine = sorted(names_of(game, Identity.of_team(team)), key=fold_text)
    theirs = sorted(names_of(game, Identity.of_team(team.other)), key=fold_text)
    bystanders = sorted(names_of(game, Identity.BYSTANDER), key=fold_text)
    (assassin,) = names_of(game, Identity.ASSASSIN)
    assert reading == " ".join(
        [
            p.text("earpiece.for_team", Team=p.text(f"team.{team.value.capitalize()}")),
            p.text("display.say_agents", count=len(mine), cards=", ".join(mine)),
            p.text("display.say_assassin", count=1, cards=assassin),
            p.text("display.say_opponents", count=len(theirs), cards=", ".join(theirs)),
            p.text("display.say_bystanders", count=len(bystanders), cards=", ".join(bystanders)),
        ]
    )
    assert len(game.events) == events and game.state.phase is Phase.CLUE and host.question is None


@pytest.mark.parametrize("lang", LANGS)
def test_my_agents_alphabetically_or_row_by_row(lang: str) -> None:
    host, public, ear, game = table(lang)
    assert ear is not None and isinstance(game, CompetitiveGame)
    host.hear(to_host(lang, READ_AGENTS[lang]))
    host.hear(to_host(lang, BY_ROWS[lang]))
    assert public.lines == [host.t("earpiece.reading")] * 2
    mine = names_of(game, Identity.of_team(game.team))
    alpha, rows = ear.lines
    assert alpha.index(sorted(mine, key=fold_text)[0]) < alpha.index(sorted(mine, key=fold_text)[-1])
    assert all(card in alpha and card in rows for card in mine)
    row_word = host.t("display.say_row", row=1, cards="|").split("|")[0]
    assert row_word in rows and row_word not in alpha
    by_index = [card for card in game.board.cards if card in mine]
    assert [rows.index(card) for card in by_index] == sorted(rows.index(card) for card in by_index)


@pytest.mark.parametrize("lang", LANGS)
def test_is_x_allowed_is_ruled_in_private_and_is_no_clue(lang: str) -> None:
    host, public, ear, game = table(lang)
    assert ear is not None
    p = host.p
    visible = game.board.cards[0]
    free = FREE_WORD[lang]
    for word in (free, visible.lower()):
        host.hear(to_host(lang, CHECK[lang].format(word)))
    assert public.lines == [p.text("earpiece.checking")] * 2
    assert ear.lines == [ruling_text(w, game.check_clue(w), p) for w in (free, visible.lower())]
    assert game.check_clue(free).verdict is Verdict.VALID
    assert game.check_clue(visible.lower()).verdict is Verdict.INVALID and visible in ear.lines[1]
    assert [e.type for e in game.events] == [EventType.GAME_STARTED] and game.state.phase is Phase.CLUE
    host.hear(to_host(lang, CLUE[lang]))  # the real clue is still to be given, and counts
    assert game.events[-1].type is EventType.CLUE


@pytest.mark.parametrize("lang", LANGS)
def test_without_an_earpiece_the_table_hears_how_never_the_key(lang: str) -> None:
    host, public, _, game = table(lang, earpiece=False)
    for line in (READ_KEY[lang], READ_AGENTS[lang], BY_ROWS[lang], CHECK[lang].format(FREE_WORD[lang])):
        host.hear(to_host(lang, line))
    assert public.lines == [host.t("earpiece.how")] * 4
    assert not any(card in line for line in public.lines for card in game.board.cards)
    assert len(game.events) == 1


@pytest.mark.parametrize("lang", LANGS)
def test_only_before_a_clue_and_only_said_to_the_host(lang: str) -> None:
    host, public, ear, game = table(lang)
    assert ear is not None
    host.hear(READ_KEY[lang])  # not said to the host, in the addressed way: the one hint, nothing read
    assert public.lines == [host.t("listen.hint", name=spoken_host_name(Lang.parse(lang)))] and ear.lines == []
    host.hear(to_host(lang, CLUE[lang]))
    public.lines.clear()
    assert game.state.phase is Phase.GUESS
    host.hear(to_host(lang, READ_KEY[lang]))  # the operatives guess: no reading now
    host.hear(to_host(lang, CHECK[lang].format(FREE_WORD[lang])))  # heard as a guess while guessing
    assert public.lines[0] == host.t("earpiece.not_now") and ear.lines == []


def test_duet_reads_the_side_of_the_clue_giver_who_says_who_they_are() -> None:
    data = json.loads((BOARDS / "duet-en.json").read_text(encoding="utf-8"))
    data.pop("first_clue_giver", None)
    host, public, ear, game = table("en", board=Board.from_dict(data))
    assert ear is not None and len(game.clue_givers()) == 2
    host.hear(to_host("en", "read my key"))
    assert public.lines == [host.t("earpiece.which_side")] and ear.lines == []
    host.hear(to_host("en", "B"))
    host.hear(to_host("en", "read my agents"))
    greens = sorted(
        (c for i, c in enumerate(game.board.cards) if game.key_for("b")[i] is Identity.GREEN), key=fold_text
    )
    assert ear.lines == [
        f"{host.t('earpiece.for_side', side='B')} "
        + host.t("display.say_greens", count=len(greens), cards=", ".join(greens))
    ]


def test_coop_reads_the_players_key_while_the_simulated_card_is_chosen() -> None:
    host, _, ear, game = table("en", coop=True)
    assert ear is not None and isinstance(game, CompetitiveGame)
    host.hear(to_host("en", "music, one"))
    bystander = names_of(game, Identity.BYSTANDER)[0]
    host.hear(to_host("en", bystander.lower()))
    assert game.state.phase is Phase.SIMULATED_TURN
    host.hear(to_host("en", "read my key"))
    players = game.players_team.value
    assert ear.lines[-1].startswith(host.t("earpiece.for_team", Team=host.t(f"team.{players.capitalize()}")))
    assert bystander not in ear.lines[-1]  # covered cards are not read


def test_key_text_drops_covered_cards_and_check_text_takes_the_last_word() -> None:
    game = new_game(board_of("classic-en"))
    assert isinstance(game, CompetitiveGame)
    p = Prompts.load(Lang.EN)
    mine = names_of(game, Identity.of_team(game.team))
    game.give_clue("music", 2)
    game.guess(mine[0])
    game.end_turn()
    text = key_text(game, p, game.team.other.value, Command.READ_KEY)  # the first team's key, read to it
    assert mine[0] not in text and mine[1] in text
    assert check_text(game, p, "well ocean") == ruling_text("ocean", game.check_clue("ocean"), p)


# ---- real file mouths: what went into each WAV, read back ------------------------------------------

SCALE = 4096.0


class CharSynth:
    """Each character one sample (its code point / SCALE), so a WAV's announcements can be read back."""

    def synthesize(self, text: str) -> Audio:
        return np.array([ord(ch) / SCALE for ch in text], dtype=np.float32)


def read_back(path: Path) -> list[str]:
    with wave.open(str(path), "rb") as wav:
        samples = np.frombuffer(wav.readframes(wav.getnframes()), dtype="<i2")
    codes = np.round(samples.astype(np.float64) / 32767.0 * SCALE).astype(int)
    texts, current = [], ""
    for code in codes:
        if code == 0:
            if current:
                texts.append(current)
            current = ""
        else:
            current += chr(code)
    return [*texts, current] if current else texts


class ShownFile:
    """The table's mouth as `voicehost play` makes it: the loudspeaker (a file here) and the page."""

    def __init__(self, mouth: FileMouth, display: WebDisplay) -> None:
        self.mouth, self.display = mouth, display

    def say(self, text: str) -> None:
        self.mouth.say(text)
        self.display.said(text)


def twin(board: Board, untouched: list[int], seed: int) -> Board:
    """The same board with the identities of `untouched` cards shuffled among themselves."""
    key = list(board.key)
    moved = [key[i] for i in untouched]
    rng = random.Random(seed)
    while [key[i] for i in untouched] == moved:
        rng.shuffle(moved)
    for i, identity in zip(untouched, moved, strict=True):
        key[i] = identity
    return replace(board, key=tuple(key))


def test_wav_files_the_loudspeaker_and_the_page_do_not_depend_on_the_key(tmp_path: Path) -> None:
    first = board_of("classic-en")
    team = first.starting_team
    assert team is not None
    guessed = next(i for i, identity in enumerate(first.key) if identity is Identity.of_team(team))
    lines = [
        "read my key",
        "is ocean allowed?",
        "music, one",
        first.cards[guessed].lower(),
        "pass",
        "read my agents in grid order",
        f"is {first.cards[3].lower()} allowed?",
    ]
    second = twin(first, [i for i in range(len(first.cards)) if i != guessed], seed=3)
    assert sum(a is not b for a, b in zip(first.key, second.key, strict=True)) >= 6
    results = []
    for n, board in enumerate((first, second)):
        game = new_game(board)
        prompts = Prompts.load(Lang.EN)
        display = WebDisplay(game, prompts, port=0)
        loud = FileMouth(tmp_path / f"host{n}.wav", CharSynth(), out=io.StringIO())
        ear = FileMouth(tmp_path / f"ear{n}.wav", CharSynth(), out=io.StringIO())
        host = Host(
            game,
            prompts,
            ShownFile(loud, display),
            earpiece=ear,
            on_events=lambda changed, events, shown=display: shown.show(changed),  # type: ignore[misc]
            settings=HostSettings(key_pages=True),
        )
        try:
            host.start()
            for line in lines:
                host.hear(to_host("en", line))
            public = {path: raw_get(display.port, path) for path in PUBLIC_PATHS}
        finally:
            loud.close()
            ear.close()
            display.close()
        results.append((public, [e.to_dict() for e in game.events], host))
    assert results[0][0] == results[1][0]  # every public address of the display
    assert results[0][1] == results[1][1]  # the events
    assert (tmp_path / "host0.wav").read_bytes() == (tmp_path / "host1.wav").read_bytes()
    said = read_back(tmp_path / "host0.wav")
    host = results[0][2]
    assert said.count(host.t("earpiece.reading")) == 2 and said.count(host.t("earpiece.checking")) == 2
    ears = [read_back(tmp_path / f"ear{n}.wav") for n in (0, 1)]
    assert len(ears[0]) == 4 and ears[0] != ears[1]
    assert ears[0][1] == "OCEAN: allowed." and first.cards[3] in ears[0][3]
    assert all(card in ears[0][0] for card in first.cards)


# ---- the real CLI, by text ---------------------------------------------------------------------------


def run(args: list[str], lines: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "voicehost", "play", "--text", *args],
        input="".join(line + "\n" for line in lines),
        capture_output=True,
        text=True,
        cwd=cwd,
        env=cli_env(),
        timeout=120,
    )


def cli_game(lang: str) -> tuple[Board, list[str]]:
    board = board_of(f"classic-{lang}")
    assert board.starting_team is not None
    guessed = next(i for i, identity in enumerate(board.key) if identity is Identity.of_team(board.starting_team))
    lines = [
        READ_KEY[lang],
        CHECK[lang].format(FREE_WORD[lang]),
        CLUE[lang].replace("dois", "um").replace("due", "uno").replace("two", "one"),
        board.cards[guessed].lower(),
        READ_AGENTS[lang],  # the operatives still guess: refused, the same on both boards
        *QUIT[lang],
    ]
    return twin(board, [i for i in range(len(board.cards)) if i != guessed], seed=7), lines


@pytest.mark.parametrize("lang", LANGS)
def test_cli_public_bytes_do_not_depend_on_the_key(lang: str, tmp_path: Path) -> None:
    second, lines = cli_game(lang)
    first = board_of(f"classic-{lang}")
    outputs = []
    for n, board in enumerate((first, second)):
        folder = tmp_path / str(n)
        folder.mkdir()
        (folder / "board.json").write_text(json.dumps(board.to_dict()), encoding="utf-8")
        addressed = [to_host(lang, line) for line in lines]
        done = run(
            [
                *("--board", "board.json", "--save", "game.json", "--events", "events.jsonl"),
                *("--key-audio", "ear.wav", "--display", "terminal", "--listen", "addressed"),
            ],
            addressed,
            folder,
        )
        assert done.returncode == 0, done.stderr
        save = json.loads((folder / "game.json").read_text(encoding="utf-8"))
        save["board"].pop("key")
        outputs.append((done.stdout, done.stderr, (folder / "events.jsonl").read_bytes(), save))
    assert outputs[0] == outputs[1]
    prompts = Prompts.load(Lang.parse(lang))
    said = outputs[0][0].splitlines()
    assert said.count(prompts.text("earpiece.reading")) == 1 and prompts.text("earpiece.checking") in said
    assert prompts.text("earpiece.not_now") in said
    for n in (0, 1):  # espeak-ng spoke the key and the ruling there: seconds of speech
        with wave.open(str(tmp_path / str(n) / "ear.wav"), "rb") as wav:
            assert wav.getframerate() == SAMPLE_RATE and wav.getnframes() > 2 * SAMPLE_RATE


@pytest.mark.parametrize("lang", LANGS)
def test_cli_without_key_audio_says_how_and_no_key(lang: str, tmp_path: Path) -> None:
    board = board_of(f"classic-{lang}")
    done = run(
        ["--board", str(BOARDS / f"classic-{lang}.json"), "--save", "game.json"],
        [READ_KEY[lang], CHECK[lang].format(FREE_WORD[lang]), *QUIT[lang]],
        tmp_path,
    )
    assert done.returncode == 0, done.stderr
    how = Prompts.load(Lang.parse(lang)).text("earpiece.how")
    said = done.stdout.splitlines()
    assert said[1:3] == [how, how]
    assert not any(card in how for card in board.cards)


@pytest.mark.parametrize(
    ("lang", "target", "key", "field"),
    [
        ("it", "no-such-earpiece", "earpiece.no_device", "device"),
        ("pt-BR", "99", "earpiece.no_device", "device"),
        ("en", "folder.wav", "earpiece.no_file", "file"),
        ("pt-PT", "a-file/ear.wav", "earpiece.no_file", "file"),
    ],
)
def test_a_missing_device_or_unwritable_file_is_said_plainly(
    lang: str, target: str, key: str, field: str, tmp_path: Path
) -> None:
    (tmp_path / "folder.wav").mkdir()
    (tmp_path / "a-file").write_text("not a folder", encoding="utf-8")
    done = run(["--lang", lang, "--save", "game.json", "--key-audio", target], [], tmp_path)
    assert done.returncode == 1 and done.stdout == ""
    prompts = Prompts.load(Lang.parse(lang))
    start = prompts.text(key, **{field: target, "reason": "|"}).split("|")[0]
    assert done.stderr.startswith(f"voicehost: {start}"), done.stderr
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
