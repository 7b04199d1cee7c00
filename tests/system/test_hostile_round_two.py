"""The second round of hostile probes (issue: no game lost, on any machine, from any input), by class.

- data lost: nothing a player had is replaced, emptied or left out of the log, whatever file it is in;
- tracebacks: any bytes on standard input, under any locale, end in a sentence, never a traceback;
- rules and terminals: a line too long is refused whole; a board file's card names never act on a
  terminal; invisible and look-alike letters never hide a visible card from the clue rules.

Each test plays the real CLI (in-process with `tests.hostile.run`, or as a process where the locale or
the standard input's bytes matter) on real files in a temporary folder.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from engine.lang import Lang
from tests.hostile import Ran, run
from tests.scripting import BOARDS, ROOT, cli_env
from voicehost.prompts import Prompts

LANGS = list(Lang)
WORD = {Lang.PT_BR: "tomate", Lang.PT_PT: "tomate", Lang.IT: "pomodoro", Lang.EN: "tomato"}
CONTROLS = ("\x1b", "\x00", "\x07", "\x9b", "\u202e", "\u202d", "\u2066", "\u200f")


def board_file(lang: Lang = Lang.EN) -> Path:
    return BOARDS / f"classic-{lang.value}.json"


def cards(lang: Lang = Lang.EN) -> list[str]:
    return list(json.loads(board_file(lang).read_text(encoding="utf-8"))["cards"])


def play(folder: Path, lines: list[str], *extra: str, lang: Lang = Lang.EN, board: Path | None = None) -> Ran:
    argv = ["play", "--text", "--board", str(board or board_file(lang)), "--save", str(folder / "game.json")]
    return run([*argv, "--events", str(folder / "events.jsonl"), *extra], _typed(lines), data=folder / "data")


def resume(folder: Path, lines: list[str], *extra: str, save: Path | None = None) -> Ran:
    argv = ["play", "--text", "--resume", str(save or folder / "game.json"), *extra]
    return run(argv, _typed(lines), data=folder / "data")


def events(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()] if path.exists() else []


def _typed(lines: list[str]) -> str:
    return "".join(line + "\n" for line in lines)


# ---- data lost -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("taken", [True, False], ids=["clue taken", "clue refused"])
def test_a_clue_word_of_any_length_leaves_a_save_that_resumes(tmp_path: Path, taken: bool) -> None:
    """Data lost: every event the host writes, its save loader reads back (here a clue word of 100 or 98
    letters, taken as a clue or refused as a form of a visible card)."""
    word = "a" * 100 if taken else cards()[0].lower() + "x" * 90
    first = play(tmp_path, [f"{word} 2"])
    assert first.code == 0 and first.ended_well(), first.why()
    logged = events(tmp_path / "events.jsonl")[-1 if taken else -2]
    assert logged["type"] == ("clue" if taken else "clue_rejected") and logged["word"] == word, logged
    again = resume(tmp_path, ["quit", "yes"])
    assert again.code == 0 and again.ended_well(), again.why()
    assert Prompts.load(Lang.EN).text("game.resumed").split(".")[0] in again.out, again.out


@pytest.mark.parametrize(
    "notes",
    ["my notes, no newline at the end", "line one\nline two without its newline", '{"seq": 1} my own json'],
)
def test_events_on_a_file_that_is_not_an_events_log_leaves_it_as_it_was(tmp_path: Path, notes: str) -> None:
    """Data lost: --events never cuts, empties or replaces a file that is not an events log of voicehost."""
    log = tmp_path / "events.jsonl"
    log.write_text(notes, encoding="utf-8")
    ran = play(tmp_path, ["tomato 2"])
    assert ran.code == 1 and ran.ended_well(), ran.why()
    assert "not an events log" in ran.err and "untouched" in ran.err, ran.err
    assert log.read_text(encoding="utf-8") == notes
    assert not (tmp_path / "game.json").exists(), "no game starts that could not be logged"


@pytest.mark.parametrize("locked", ["game.json", "events.jsonl"])
def test_a_lock_file_that_is_a_link_is_never_followed(tmp_path: Path, locked: str) -> None:
    """Data lost: the lock beside a save or a log is never opened through a symbolic link (it is emptied
    and written), so the file a planted link points at keeps every byte."""
    precious = tmp_path / "thesis.txt"
    precious.write_text("four years of work\n", encoding="utf-8")
    (tmp_path / f"{locked}.lock").symlink_to(precious)
    ran = play(tmp_path, ["tomato 2"])
    assert ran.code == 1 and ran.ended_well(), ran.why()
    assert "symbolic link" in ran.err, ran.err
    assert precious.read_text(encoding="utf-8") == "four years of work\n"


def test_a_log_ahead_of_its_save_is_refused_and_both_are_left_as_they_were(tmp_path: Path) -> None:
    """Data lost: a resumed game whose log already holds later events (an older copy of the save) would
    have its next events skipped as already written; it is refused, and nothing is changed."""
    table = cards()
    first = play(tmp_path, ["tomato 2"])
    assert first.code == 0, first.why()
    older = (tmp_path / "game.json").read_bytes()
    later = resume(tmp_path, [table[0].lower(), table[1].lower()], "--events", str(tmp_path / "events.jsonl"))
    assert later.code == 0, later.why()
    (tmp_path / "game.json").write_bytes(older)  # a backup put back, while the log went on
    log_before = (tmp_path / "events.jsonl").read_bytes()
    ran = resume(tmp_path, ["quit", "yes"], "--events", str(tmp_path / "events.jsonl"))
    assert ran.code == 1 and ran.ended_well(), ran.why()
    assert "ahead of this save" in ran.err, ran.err
    assert (tmp_path / "events.jsonl").read_bytes() == log_before and (tmp_path / "game.json").read_bytes() == older


def test_deal_never_replaces_a_game_or_another_file_without_force(tmp_path: Path) -> None:
    """Data lost: `voicehost deal --out` replaces an older board file only; an unfinished game or any other
    file is refused (exit 1, the way to force it said) and left as it was; --force replaces it."""
    assert play(tmp_path, ["tomato 2"]).code == 0
    save = tmp_path / "game.json"
    before = save.read_bytes()
    ran = run(["deal", "--lang", "en", "--out", str(save)], data=tmp_path / "data")
    assert ran.code == 1 and ran.ended_well(), ran.why()
    assert "not finished" in ran.err and "--resume" in ran.err and "--force" in ran.err, ran.err
    assert save.read_bytes() == before
    notes = tmp_path / "notes.txt"
    notes.write_text("shopping list", encoding="utf-8")
    ran = run(["deal", "--lang", "en", "--out", str(notes)], data=tmp_path / "data")
    assert ran.code == 1 and "--force" in ran.err and notes.read_text(encoding="utf-8") == "shopping list"
    board = tmp_path / "board.json"
    for seed in ("1", "2"):  # dealing again over a board file is what --out is for
        assert run(["deal", "--lang", "en", "--seed", seed, "--out", str(board)], data=tmp_path / "data").code == 0
    forced = run(["deal", "--lang", "en", "--out", str(save), "--force"], data=tmp_path / "data")
    assert forced.code == 0, forced.why()
    assert "cards" in json.loads(save.read_text(encoding="utf-8"))


def test_resume_through_a_link_writes_the_game_where_the_link_points(tmp_path: Path) -> None:
    """Data lost: a save reached through a symbolic link stays a link; the game is written to its target."""
    real = tmp_path / "games" / "ours.json"
    real.parent.mkdir()
    assert play(tmp_path, ["tomato 2"]).code == 0
    shutil.move(tmp_path / "game.json", real)
    link = tmp_path / "current.json"
    link.symlink_to(real)
    table = cards()
    ran = resume(tmp_path, [table[0].lower()], save=link)
    assert ran.code == 0, ran.why()
    assert link.is_symlink() and link.resolve() == real.resolve()
    saved = json.loads(real.read_text(encoding="utf-8"))["events"]
    assert [e["type"] for e in saved][-1] in ("guess", "turn_ended", "game_over"), saved[-1]
    assert not list(tmp_path.glob(".current.json.*")) and not list(real.parent.glob(".ours.json.*"))


# ---- tracebacks ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("locale", ["C.UTF-8", "C", "POSIX"])
def test_invalid_utf8_on_standard_input_is_a_line_not_understood(tmp_path: Path, locale: str) -> None:
    """Tracebacks: bytes that are not UTF-8, under a strict UTF-8 standard input and under any locale, are a
    line the host says it did not understand (in the game's language); none of it is taken as a move."""
    env = {**cli_env(), "LC_ALL": locale, "PYTHONIOENCODING": "utf-8:strict", "XDG_DATA_HOME": str(tmp_path)}
    command = [sys.executable, "-m", "voicehost", "play", "--text", "--board", str(board_file(Lang.PT_BR))]
    typed = b"tomate \xff\xfe 2\n\xc3\x28 passo\nsair\nsim\n"
    done = subprocess.run(
        [*command, "--save", str(tmp_path / "g.json"), "--events", str(tmp_path / "e.jsonl")],
        input=typed,
        capture_output=True,
        cwd=ROOT,
        env=env,
        timeout=60,
    )
    out, err = done.stdout.decode("utf-8"), done.stderr.decode("utf-8")
    assert done.returncode == 0 and "Traceback" not in out + err, err
    unreadable = Prompts.load(Lang.PT_BR).text("input.unreadable")
    assert out.splitlines().count(unreadable) == 2, out
    assert [e["type"] for e in events(tmp_path / "e.jsonl")] == ["game_started"]


# ---- rules and terminals ---------------------------------------------------------------------------------


@pytest.mark.parametrize("lang", LANGS)
def test_a_line_over_4096_characters_is_refused_whole_in_the_games_language(tmp_path: Path, lang: Lang) -> None:
    """Rules: a typed line longer than the limit is no move, however it ends (its tail is not a clue)."""
    ran = play(tmp_path, ["a" * 4096 + f"{WORD[lang]} 2", "é" * 5000 + f" {WORD[lang]} 2"], lang=lang)
    assert ran.code == 0 and ran.ended_well(), ran.why()
    assert [e["type"] for e in events(tmp_path / "events.jsonl")] == ["game_started"]
    assert ran.said[-2:] == [Prompts.load(lang).text("input.too_long")] * 2, ran.said[-2:]


@pytest.mark.parametrize("control", CONTROLS, ids=[f"U+{ord(c):04X}" for c in CONTROLS])
def test_a_board_file_whose_card_names_hold_control_characters_is_refused(tmp_path: Path, control: str) -> None:
    """Terminals: a shared board file cannot write to the terminal it is played on: a card name with an
    escape sequence, a text-direction override or NUL is refused on load with the reason, by `play` and
    by `key` (through a save), and nothing printed holds the character raw."""
    data = json.loads(board_file().read_text(encoding="utf-8"))
    data["cards"][4] = f"PI{control}[2JANO"
    evil = tmp_path / "evil.json"
    evil.write_text(json.dumps(data), encoding="utf-8")
    ran = play(tmp_path, ["tomato 2"], board=evil)
    assert ran.code == 1 and ran.ended_well(), ran.why()
    assert "control characters" in ran.err and control not in ran.out + ran.err, ran.err
    assert play(tmp_path / "fair", ["tomato 2"]).code == 0
    save = tmp_path / "fair" / "game.json"
    document = json.loads(save.read_text(encoding="utf-8"))
    document["board"]["cards"][4] = document["events"][0]["cards"][4] = data["cards"][4]
    save.write_text(json.dumps(document), encoding="utf-8")
    key = run(["key", str(save)], data=tmp_path / "data")
    assert key.code == 1 and key.ended_well() and "control characters" in key.err, key.why()
    assert control not in key.out + key.err


def test_a_control_character_in_a_path_is_never_printed_raw(tmp_path: Path) -> None:
    """Terminals: a file name given on the command line is printed with its control characters escaped."""
    ran = resume(tmp_path, [], save=tmp_path / "g\x1b]0;owned\x07.json")  # no such save: its name is printed
    assert ran.code == 1 and ran.ended_well(), ran.why()
    assert "\x1b" not in ran.out + ran.err and "\\x1b]0;owned\\x07" in ran.err, ran.err
    dealt = run(["deal", "--lang", "en", "--out", str(tmp_path / "b\u202e\x1b[2J.json")], data=tmp_path / "data")
    assert dealt.code == 0 and dealt.ended_well(), dealt.why()
    assert not any(ch in dealt.out + dealt.err for ch in CONTROLS) and "\\u202e\\x1b" in dealt.out, dealt.out


@pytest.mark.parametrize(
    ("card", "clue"),
    [
        ("OR\u200dCHARD", "orchard"),  # a zero-width joiner inside the card
        ("OR\u00adCHARD", "orchard"),  # a soft hyphen
        ("CROISSANT", "\u0441r\u043eissant"),  # Cyrillic с and о
        ("CROISSANT", "cr\u03bfissant"),  # a Greek ο
        ("PIANO", "\u0420\u0406\u0410NO"),  # capitals: Cyrillic Р, І and А
    ],
)
def test_invisible_or_look_alike_letters_never_hide_a_visible_card(tmp_path: Path, card: str, clue: str) -> None:
    """Rules: the clue rules compare a clue with the cards without invisible format characters and with
    letters of other scripts drawn like Latin ones read as those: the clue is refused as the card, not
    let through nor put to the opposing spymaster as a foreign word."""
    data = json.loads(board_file().read_text(encoding="utf-8"))
    data["cards"][2] = card
    board = tmp_path / "board.json"
    board.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    ran = play(tmp_path, [f"{clue} 2"], board=board)
    assert ran.code == 0 and ran.ended_well(), ran.why()
    logged = events(tmp_path / "events.jsonl")
    assert [(e["type"], e.get("reason")) for e in logged[1:2]] == [("clue_rejected", "visible_word")], ran.said
