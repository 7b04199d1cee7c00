"""Whatever a careless or hostile user types, gives or points the host at: a clear message in the game's
language, exit 0, 1 or 2, never a traceback, and no game lost (issue: no game lost, no traceback).

Each section is one kind of input: clues with junk or hidden cards, the penalty phase, saves and
logs, files that are not what they claim, flags that contradict each other, the web server."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from engine.board import Board
from engine.lang import Lang
from tests.hostile import Ran, run
from tests.scripting import BOARDS, ROOT, cli_env
from voicehost.prompts import Prompts

LANGS = list(Lang)


def board_file(lang: Lang, edition: str = "classic") -> Path:
    return BOARDS / f"{edition}-{lang.value}.json"


def board(lang: Lang, edition: str = "classic") -> Board:
    return Board.from_dict(json.loads(board_file(lang, edition).read_text(encoding="utf-8")))


def play(tmp_path: Path, lang: Lang, lines: list[str], *extra: str, edition: str = "classic") -> Ran:
    save, events = tmp_path / "game.json", tmp_path / "events.jsonl"
    argv = ["play", "--text", "--board", str(board_file(lang, edition)), "--save", str(save), "--events", str(events)]
    return run([*argv, *extra], "".join(line + "\n" for line in lines), data=tmp_path / "data")


def events_of(tmp_path: Path) -> list[dict[str, object]]:
    path = tmp_path / "events.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()] if path.exists() else []


NUMBER = {Lang.PT_BR: "dois", Lang.PT_PT: "dois", Lang.IT: "due", Lang.EN: "two"}
OTHER_WORD = {Lang.PT_BR: "azul", Lang.PT_PT: "azul", Lang.IT: "blu", Lang.EN: "blue"}


# ---- clues that hide a visible card or carry junk ----------------------------------------------------


@pytest.mark.parametrize("lang", LANGS)
def test_every_word_of_a_clue_is_checked_against_the_table(tmp_path: Path, lang: Lang) -> None:
    card = board(lang).cards[3]
    ran = play(tmp_path, lang, [f"{card.lower()} {OTHER_WORD[lang]} {NUMBER[lang]}"])
    assert ran.ended_well(), ran.why()
    rejected = [e for e in events_of(tmp_path) if e["type"] == "clue_rejected"]
    assert [(e["word"], e["reason"]) for e in rejected] == [(f"{card.lower()} {OTHER_WORD[lang]}", "visible_word")]


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("junk", ["\x1b[A", "\x1b[D\x1b[C", "\x1bOA", "\x07", "\u200b"])
def test_keys_and_control_characters_typed_before_a_clue_are_dropped(tmp_path: Path, lang: Lang, junk: str) -> None:
    card = board(lang).cards[5]
    ran = play(tmp_path, lang, [f"{junk}{card.lower()} 2"])
    assert ran.ended_well(), ran.why()
    rejected = [e for e in events_of(tmp_path) if e["type"] == "clue_rejected"]
    assert [(e["word"], e["reason"]) for e in rejected] == [(card.lower(), "visible_word")], ran.out


@pytest.mark.parametrize("lang", LANGS)
def test_a_control_character_inside_a_word_does_not_split_it(tmp_path: Path, lang: Lang) -> None:
    word = {Lang.PT_BR: "tomate", Lang.PT_PT: "tomate", Lang.IT: "pomodoro", Lang.EN: "tomato"}[lang]
    ran = play(tmp_path, lang, [f"{word[:3]}\x01{word[3:]} 2"])
    assert ran.ended_well(), ran.why()
    clues = [e for e in events_of(tmp_path) if e["type"] == "clue"]
    assert [(e["word"], e["number"]) for e in clues] == [(word, 2)]


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("number", ["-1", "-5", "1" + "0" * 30, "10"])
def test_a_negative_or_absurd_number_is_refused_in_the_games_language(tmp_path: Path, lang: Lang, number: str) -> None:
    word = {Lang.PT_BR: "tomate", Lang.PT_PT: "tomate", Lang.IT: "pomodoro", Lang.EN: "tomato"}[lang]
    ran = play(tmp_path, lang, [f"{word} {number}"])
    assert ran.ended_well(), ran.why()
    assert [e["type"] for e in events_of(tmp_path)] == ["game_started"]
    expected = Prompts.load(lang).text("input.number_out_of_range", low=0, high=9, number=number)
    assert expected in ran.said, ran.said


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("word", ["طماطم", "помидор", "トマト", "ντομάτα"])
def test_a_clue_in_another_script_is_put_to_the_opposing_spymaster(tmp_path: Path, lang: Lang, word: str) -> None:
    ran = play(tmp_path, lang, [f"{word} 2"])
    assert ran.ended_well(), ran.why()
    assert [e["type"] for e in events_of(tmp_path)] == ["game_started"], "nothing decided before the opponent"
    foreign = Prompts.load(lang).text("clue_reason.foreign")
    assert word in ran.said[-1] and foreign in ran.said[-1], ran.said[-1]


# ---- the penalty phase tells nothing ---------------------------------------------------------------


@pytest.mark.parametrize("lang", LANGS)
def test_naming_a_card_in_the_penalty_phase_tells_nobody_whose_it_is(tmp_path: Path, lang: Lang) -> None:
    """After red's invalid clue blue may cover one of its agents: naming a blue agent, a red agent, a
    bystander or the assassin aloud gets the very same reply and covers nothing; "choose for me"
    covers one blue agent."""
    table = board(lang)
    invalid = f"{table.cards[0].lower()} 2"  # a visible card: the penalty
    by_identity = {identity: table.cards[table.key.index(identity)] for identity in set(table.key)}
    replies = []
    for identity, card in sorted(by_identity.items()):
        folder = tmp_path / identity.value
        ran = play(folder, lang, [invalid, card.lower()])
        assert ran.ended_well(), ran.why()
        assert [e["type"] for e in events_of(folder)] == ["game_started", "clue_rejected", "turn_ended"]
        replies.append(ran.said[-1])
    assert len(set(replies)) == 1, replies
    phrase = {Lang.PT_BR: "escolhe por mim", Lang.PT_PT: "escolhe tu", Lang.IT: "scegli tu", Lang.EN: "choose for me"}
    folder = tmp_path / "chosen"
    ran = play(folder, lang, [invalid, phrase[lang]])
    covered = [e for e in events_of(folder) if e["type"] == "cover"]
    penalised = table.starting_team.value if table.starting_team else ""
    assert len(covered) == 1 and covered[0]["identity"] == covered[0]["by"] != penalised, covered


# ---- saves and logs --------------------------------------------------------------------------------


def test_save_and_events_in_one_file_are_refused(tmp_path: Path) -> None:
    same = tmp_path / "g.json"
    ran = run(["play", "--text", "--lang", "en", "--save", str(same), "--events", str(same)], data=tmp_path)
    assert ran.code == 2 and "two different files" in ran.err and not same.exists()


def test_a_new_game_never_splices_onto_an_unfinished_games_log(tmp_path: Path) -> None:
    first = play(tmp_path, Lang.EN, ["ocean 2"])
    assert first.code == 0
    log = (tmp_path / "events.jsonl").read_bytes()
    (tmp_path / "game.json").unlink()
    second = play(tmp_path, Lang.EN, ["beach 1"])
    assert second.code == 1 and "not finished" in second.err, second.err
    assert (tmp_path / "events.jsonl").read_bytes() == log, "the old log is untouched"


def test_a_new_game_after_a_finished_one_starts_again_at_seq_1(tmp_path: Path) -> None:
    table = board(Lang.EN)
    assassin = table.cards[table.key.index("assassin")].lower()  # type: ignore[arg-type]
    ended = play(tmp_path, Lang.EN, ["ocean 2", assassin])
    assert ended.code == 0 and events_of(tmp_path)[-1]["type"] == "game_over"
    before = len(events_of(tmp_path))
    again = play(tmp_path / "next", Lang.EN, ["beach 1"], "--events", str(tmp_path / "events.jsonl"))
    assert again.code == 0, again.err
    events = events_of(tmp_path)
    assert [e["seq"] for e in events[before:]] == [1, 2] and events[before]["type"] == "game_started"


def test_a_resumed_game_refuses_another_games_log(tmp_path: Path) -> None:
    play(tmp_path / "a", Lang.EN, ["ocean 2"])
    play(tmp_path / "b", Lang.IT, ["mare 2"])
    other_log = tmp_path / "b" / "events.jsonl"
    before = other_log.read_bytes()
    ran = run(
        ["play", "--text", "--resume", str(tmp_path / "a" / "game.json"), "--events", str(other_log)],
        "quit\nyes\n",
        data=tmp_path,
    )
    assert ran.code == 1 and "another game" in ran.err and other_log.read_bytes() == before


def test_a_second_host_on_the_same_save_is_refused_and_told_who_holds_it(tmp_path: Path) -> None:
    save = tmp_path / "game.json"
    first = subprocess.Popen(
        [sys.executable, "-m", "voicehost", "play", "--text", "--lang", "en", "--save", str(save)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env={**cli_env(), "XDG_DATA_HOME": str(tmp_path)},
    )
    try:
        assert first.stdout is not None
        first.stdout.readline()  # the welcome: it holds the save now
        ran = run(["play", "--text", "--resume", str(save)], "quit\nyes\n", data=tmp_path)
        assert ran.code == 1 and f"process {first.pid}" in ran.err, ran.err
    finally:
        first.communicate("quit\nyes\n", timeout=30)
    again = run(["play", "--text", "--resume", str(save)], "quit\nyes\n", data=tmp_path)
    assert again.code == 0, "the lock goes with the process that held it"


def test_the_default_save_is_kept_aside_never_replaced(tmp_path: Path) -> None:
    first = run(["play", "--text", "--lang", "en", "--seed", "1"], "ocean 2\n", data=tmp_path)
    assert first.code == 0
    current = tmp_path / "voicehost" / "current-game.json"
    kept_before = current.read_bytes()
    second = run(["play", "--text", "--lang", "en", "--seed", "2"], "", data=tmp_path)
    assert second.code == 0
    kept = sorted((tmp_path / "voicehost" / "unfinished-games").glob("game-*.json"))
    assert [path.read_bytes() for path in kept] == [kept_before]
    told = Prompts.load(Lang.EN).text("game.previous_kept", path=str(kept[0]))
    assert told in second.said, second.said
    resumed = run(["play", "--text", "--resume", str(kept[0])], "quit\nyes\n", data=tmp_path)
    assert resumed.code == 0 and "Game resumed" in resumed.out


def test_a_chosen_save_holding_another_game_is_refused(tmp_path: Path) -> None:
    play(tmp_path, Lang.EN, ["ocean 2"])
    save = tmp_path / "game.json"
    before = save.read_bytes()
    ran = run(["play", "--text", "--lang", "en", "--save", str(save)], data=tmp_path)
    assert ran.code == 1 and "not finished" in ran.err and save.read_bytes() == before
    letter = tmp_path / "letter.txt"
    letter.write_text("Dear diary", encoding="utf-8")
    ran = run(["play", "--text", "--lang", "en", "--save", str(letter)], data=tmp_path)
    assert ran.code == 1 and "not a voicehost game" in ran.err and letter.read_text() == "Dear diary"


def test_a_save_folder_that_cannot_be_written_is_refused_before_the_game(tmp_path: Path) -> None:
    folder = tmp_path / "locked"
    folder.mkdir()
    folder.chmod(0o500)
    try:
        if os.access(folder, os.W_OK):
            pytest.skip("this user (root) may write anywhere")
        ran = run(["play", "--text", "--lang", "en", "--save", str(folder / "g.json")], "ocean 2\n", data=tmp_path)
    finally:
        folder.chmod(0o700)
    assert ran.code == 1 and "permission denied" in ran.err and ran.out == ""


def test_a_read_only_file_system_is_refused_before_the_game(tmp_path: Path) -> None:
    ran = run(["play", "--text", "--lang", "en", "--save", "/proc/voicehost-game.json"], "ocean 2\n", data=tmp_path)
    assert ran.code == 1 and ran.ended_well(), ran.why()
    assert "cannot" in ran.err and ran.out == ""


@pytest.mark.parametrize(
    ("where", "value", "reason"),
    [
        (("events", 1, "number"), 10**30, "events[1].number"),
        (("events", 1, "number"), -3, "events[1].number"),
        (("events", 2, "card"), None, "events[2].card"),
        (("settings",), "abc", "settings"),
        (("settings", "seed"), "x", "settings.seed"),
        (("settings", "timer"), "abc", "settings.timer"),
        (("settings", "timer"), -5, "settings.timer"),
        (("events", 0, "variants"), "x", "events[0].variants"),
        (("board", "cards", 3), None, "board.cards[3]"),
        (("board", "columns"), "5", "board.columns"),
    ],
)
def test_a_save_with_wrong_types_or_ranges_is_refused_and_left_untouched(
    tmp_path: Path, where: tuple[str | int, ...], value: object, reason: str
) -> None:
    play(tmp_path, Lang.EN, ["ocean 2", "the dentist"])
    save = tmp_path / "game.json"
    document = json.loads(save.read_text(encoding="utf-8"))
    target = document
    for key in where[:-1]:
        target = target[key]
    target[where[-1]] = value
    save.write_text(json.dumps(document), encoding="utf-8")
    before = save.read_bytes()
    ran = run(["play", "--text", "--resume", str(save)], "quit\nyes\n", data=tmp_path)
    assert ran.code == 1 and ran.ended_well(), ran.why()
    assert reason in ran.err and "left untouched" in ran.err, ran.err
    assert save.read_bytes() == before


def test_a_save_of_deeply_nested_brackets_is_refused(tmp_path: Path) -> None:
    save = tmp_path / "deep.json"
    save.write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    ran = run(["play", "--text", "--resume", str(save)], data=tmp_path)
    assert ran.code == 1 and "nested" in ran.err and ran.ended_well(), ran.why()


ENDLESS = ["--resume", "--board", "--events"]


@pytest.mark.parametrize("option", ENDLESS)
@pytest.mark.parametrize("target", ["/dev/zero", "/dev/urandom", "FOLDER"])
def test_a_device_or_a_folder_given_as_a_file_is_refused_at_once(tmp_path: Path, option: str, target: str) -> None:
    """Run as a separate process with a memory cap: reading /dev/zero into memory would be killed."""
    path = str(tmp_path) if target == "FOLDER" else target
    argv = ["play", "--text", "--lang", "en", "--save", str(tmp_path / "g.json"), option, path]
    if option == "--resume":
        argv = ["play", "--text", "--resume", path]
    elif option == "--board":
        argv = ["play", "--text", "--board", path, "--save", str(tmp_path / "g.json")]
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-c", LIMITED, *argv],
        input="quit\nyes\n",
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**cli_env(), "XDG_DATA_HOME": str(tmp_path / "data")},
        timeout=60,
    )
    assert done.returncode == 1, (done.returncode, done.stderr[-500:])
    assert "Traceback" not in done.stderr and done.stderr.startswith("voicehost: ")
    assert time.monotonic() - started < 30


LIMITED = """
import resource, sys
resource.setrlimit(resource.RLIMIT_AS, (1536 << 20, 1536 << 20))
from voicehost.cli import main
sys.exit(main(sys.argv[1:]))
"""


def test_a_broken_campaigns_file_is_explained(tmp_path: Path) -> None:
    folder = tmp_path / "data" / "voicehost"
    folder.mkdir(parents=True)
    (folder / "campaigns.json").write_text('{"teams": [{"team": 7}]}', encoding="utf-8")
    ran = play(tmp_path, Lang.EN, [], "--team", "Us", edition="duet")
    assert ran.code == 1 and "campaigns file" in ran.err and ran.ended_well(), ran.why()


def test_output_closed_early_is_no_traceback(tmp_path: Path) -> None:
    done = subprocess.run(
        f"{sys.executable} -m voicehost play --text --lang en --save {tmp_path / 'g.json'} | head -1",
        shell=True,
        input="ocean 2\nthe dentist\nscore\nscore\nscore\nquit\nyes\n",
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**cli_env(), "XDG_DATA_HOME": str(tmp_path)},
        timeout=60,
    )
    assert done.stdout.count("\n") == 1 and "Traceback" not in done.stderr, done.stderr


# ---- flags -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "argv",
    [
        ["play", "--text", "--port", "65536"],
        ["play", "--text", "--port", "-1"],
        ["play", "--text", "--timer", "1" + "0" * 400],
        ["play", "--text", "--timer", "-5"],
        ["play", "--text", "--timer", "0"],
        ["play", "--text", "--seed", "x"],
        ["play", "--text", "--audio-in", "table.wav"],
        ["play", "--text", "--engine", "whisper"],
        ["play", "--resume", "g.json", "--lang", "it"],
        ["play", "--resume", "g.json", "--edition", "duet"],
        ["play", "--resume", "g.json", "--board", "b.json"],
        ["play", "--text", "--edition", "duet", "--starting", "red"],
        ["play", "--text", "--edition", "classic", "--first", "a"],
        ["play", "--text", "--edition", "classic", "--tokens", "10"],
        ["play", "--text", "--lang", "en", "--team", "Us"],
        ["play", "--text", "--simulated", "choose"],
        ["play", "--realtime"],
        ["deal", "--edition", "duet", "--grid", "5x4", "--out", "b.json"],
    ],
)
def test_contradicting_or_ignored_flags_are_refused_with_exit_2(tmp_path: Path, argv: list[str]) -> None:
    ran = run(argv, data=tmp_path)
    assert ran.code == 2 and ran.ended_well() and ran.out == "", ran.why()


@pytest.mark.parametrize("option", ["--save", "--resume", "--events", "--board", "--audio-in", "--audio-out"])
@pytest.mark.parametrize("name", ["", " ", "/", ".", "..", "folder/", "a\x00b"])
def test_a_file_option_that_names_no_file_is_usage(tmp_path: Path, option: str, name: str) -> None:
    ran = run(
        ["play", "--text" if option not in ("--audio-in", "--audio-out") else "--lang=en", option, name], data=tmp_path
    )
    assert ran.code == 2 and ran.ended_well(), ran.why()


def test_a_duet_flag_on_a_classic_board_is_refused_with_exit_2(tmp_path: Path) -> None:
    ran = play(tmp_path, Lang.EN, [], "--tokens", "10")
    assert ran.code == 2 and "only for Duet" in ran.err


def test_the_key_of_one_side_on_a_classic_game_is_refused_with_exit_2(tmp_path: Path) -> None:
    play(tmp_path, Lang.EN, [])
    ran = run(["key", str(tmp_path / "game.json"), "--side", "a"], data=tmp_path)
    assert ran.code == 2 and "--side is for Duet" in ran.err


def test_deal_into_a_folder_says_so(tmp_path: Path) -> None:
    ran = run(["deal", "--lang", "en", "--out", str(tmp_path)], data=tmp_path)
    assert ran.code == 1 and "is a folder" in ran.err


def test_an_audio_out_that_cannot_be_written_is_explained(tmp_path: Path) -> None:
    ran = run(
        ["play", "--lang", "en", "--audio-in", "/nonexistent.wav", "--audio-out", str(tmp_path), "--display", "none"],
        data=tmp_path,
    )
    assert ran.code == 1 and ran.ended_well(), ran.why()


@pytest.mark.parametrize("lang", [Lang.PT_BR, Lang.PT_PT, Lang.IT])
def test_duet_pass_before_any_clue_is_answered_in_the_games_language(tmp_path: Path, lang: Lang) -> None:
    ran = play(tmp_path, lang, ["passo"], edition="duet")
    assert ran.code == 0
    reply = ran.said[-1]
    assert "spymaster" not in reply.lower() and "clue" not in reply.lower(), reply


# ---- the web display --------------------------------------------------------------------------------


@pytest.fixture
def display() -> object:
    from tests.display_demo import mid_game
    from voicehost.display.web import WebDisplay

    game, _ = mid_game(board(Lang.EN).edition)
    web = WebDisplay(game, Prompts.load(Lang.EN), port=0)
    yield web
    web.close()


def _ask(port: int, request: bytes) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
        sock.sendall(request)
        chunks = []
        while True:
            data = sock.recv(65536)
            if not data:
                break
            chunks.append(data)
    return b"".join(chunks)


def test_head_answers_as_get_without_the_body(display: object) -> None:
    port = display.port  # type: ignore[attr-defined]
    get = _ask(port, b"GET / HTTP/1.0\r\n\r\n")
    head = _ask(port, b"HEAD / HTTP/1.0\r\n\r\n")
    get_head, body = get.split(b"\r\n\r\n", 1)
    assert head.startswith(b"HTTP/1.0 200") and head.rstrip(b"\r\n") == get_head and body


def test_idle_and_half_sent_requests_are_let_go(display: object, monkeypatch: pytest.MonkeyPatch) -> None:
    from voicehost.display import server

    port = display.port  # type: ignore[attr-defined]
    monkeypatch.setattr(server.Handler, "timeout", 0.5)
    idle = [socket.create_connection(("127.0.0.1", port), timeout=5) for _ in range(20)]
    for sock in idle[:10]:
        sock.sendall(b"GET / HT")  # half a request line, and then nothing
    time.sleep(1.5)
    closed = 0
    for sock in idle:
        try:
            closed += sock.recv(1) == b""
        except OSError:
            closed += 1
        sock.close()
    assert closed == len(idle), "idle connections are closed after the request timeout"
    assert _ask(port, b"GET / HTTP/1.0\r\n\r\n").startswith(b"HTTP/1.0 200")


def test_connections_beyond_the_limit_get_503_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.display_demo import mid_game
    from voicehost.display import server
    from voicehost.display.web import WebDisplay

    monkeypatch.setattr(server, "MAX_CONNECTIONS", 3)
    game, _ = mid_game(board(Lang.EN).edition)
    web = WebDisplay(game, Prompts.load(Lang.EN), port=0)
    held = [socket.create_connection(("127.0.0.1", web.port), timeout=5) for _ in range(3)]
    for sock in held:  # whole requests being served (event streams): a connection still sending would make room
        sock.sendall(b"GET /events HTTP/1.0\r\n\r\n")
        sock.recv(1)
    try:
        time.sleep(0.2)
        assert _ask(web.port, b"GET / HTTP/1.0\r\n\r\n").startswith(b"HTTP/1.0 503")
    finally:
        for sock in held:
            sock.close()
        web.close()
