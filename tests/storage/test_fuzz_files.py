"""Fuzzing what a user gives the host: save files, board files, campaign files and command lines.

Every run must end with exit 0, 1 or 2, print no traceback and leave no crash report (see
tests/hostile.py), within a deadline; and a save or board the host refused is left as it was. The
files start from real ones and are damaged the ways a disk, an editor or a prankster damages them:
a value replaced by anything JSON can hold, a key removed, bytes cut off or garbled.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.hostile import run
from tests.scripting import BOARDS

SETTINGS = settings(max_examples=60, deadline=10_000, suppress_health_check=[HealthCheck.function_scoped_fixture])

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**40), max_value=10**40)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=30)
    | st.sampled_from(["unlimited", "red", "blue", "a", "b", "green", "assassin", "game_over", "clue", ""]),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=8), inner, max_size=5),
    max_leaves=12,
)


def _paths(document: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every place in a JSON document a value sits."""
    found = [prefix] if prefix else []
    if isinstance(document, dict):
        for key, value in document.items():
            found += _paths(value, (*prefix, key))
    elif isinstance(document, list):
        for index, value in enumerate(document):
            found += _paths(value, (*prefix, index))
    return found


@st.composite
def damaged(draw: st.DrawFn, original: bytes) -> bytes:
    """`original` (a JSON document) damaged once or a few times."""
    kind = draw(st.sampled_from(["replace", "replace", "remove", "truncate", "garble", "garbage"]))
    if kind == "truncate":
        return original[: draw(st.integers(0, len(original) - 1))]
    if kind == "garble":
        data = bytearray(original)
        for _ in range(draw(st.integers(1, 8))):
            data[draw(st.integers(0, len(data) - 1))] = draw(st.integers(0, 255))
        return bytes(data)
    if kind == "garbage":
        return draw(st.binary(max_size=300))
    document = json.loads(original)
    for _ in range(draw(st.integers(1, 3))):
        places = _paths(document)
        place = draw(st.sampled_from(places))
        parent = document
        for key in place[:-1]:
            parent = parent[key]
        if kind == "remove" and isinstance(parent, dict):
            del parent[place[-1]]
            break
        parent[place[-1]] = draw(json_values)
    return json.dumps(document, ensure_ascii=False, allow_nan=True).encode("utf-8", "surrogatepass")


def _a_real_save(folder: Path) -> bytes:
    done = run(
        ["play", "--text", "--board", str(BOARDS / "duet-en.json"), "--save", str(folder / "game.json")],
        "music 2\nthe dentist\npass\n",
        data=folder,
    )
    assert done.code == 0, done.why()
    return (folder / "game.json").read_bytes()


SAVE_SEED: dict[str, bytes] = {}


def _save_bytes(tmp_path_factory: Any) -> bytes:
    if "save" not in SAVE_SEED:
        SAVE_SEED["save"] = _a_real_save(tmp_path_factory.mktemp("seed"))
    return SAVE_SEED["save"]


@SETTINGS
@given(data=st.data())
def test_a_damaged_save_never_ends_in_a_traceback(tmp_path_factory: Any, data: st.DataObject) -> None:
    original = _save_bytes(tmp_path_factory)
    folder = tmp_path_factory.mktemp("save")
    save = folder / "game.json"
    broken = data.draw(damaged(original))
    save.write_bytes(broken)
    ran = run(["play", "--text", "--resume", str(save)], "score\nquit\nyes\n", data=folder)
    assert ran.ended_well(), ran.why()
    if ran.code != 0:
        assert save.read_bytes() == broken, "a refused save is left as it was"
    shutil.rmtree(folder, ignore_errors=True)


@SETTINGS
@given(data=st.data(), edition=st.sampled_from(["classic-pt-BR", "duet-it", "pictures-en", "words5x4-pt-PT"]))
def test_a_damaged_board_never_ends_in_a_traceback(tmp_path_factory: Any, data: st.DataObject, edition: str) -> None:
    folder = tmp_path_factory.mktemp("board")
    board = folder / "board.json"
    broken = data.draw(damaged((BOARDS / f"{edition}.json").read_bytes()))
    board.write_bytes(broken)
    ran = run(["play", "--text", "--board", str(board), "--save", str(folder / "g.json")], "quit\nyes\n", data=folder)
    assert ran.ended_well(), ran.why()
    assert board.read_bytes() == broken
    shutil.rmtree(folder, ignore_errors=True)


CAMPAIGNS = json.dumps({"teams": [{"team": "Us", "completed": ["praga", "cairo"]}]}).encode()


@SETTINGS
@given(data=st.data())
def test_a_damaged_campaigns_file_never_ends_in_a_traceback(tmp_path_factory: Any, data: st.DataObject) -> None:
    folder = tmp_path_factory.mktemp("campaigns")
    (folder / "voicehost").mkdir()
    path = folder / "voicehost" / "campaigns.json"
    broken = data.draw(damaged(CAMPAIGNS))
    path.write_bytes(broken)
    argv = ["play", "--text", "--edition", "duet", "--lang", "en", "--team", "Us", "--save", str(folder / "g.json")]
    mission = data.draw(st.sampled_from([[], ["--mission", "cairo"], ["--mission", "atlantis"]]))
    ran = run([*argv, *mission], "quit\nyes\n", data=folder)
    assert ran.ended_well(), ran.why()
    shutil.rmtree(folder, ignore_errors=True)


HOSTILE_VALUES = st.sampled_from(
    ["0", "-1", "65536", "99999999999999999999999999", "1" + "0" * 400, "abc", "", " ", "5x5", "5x4", "9x9",
     "duet", "classic", "pictures", "pt-BR", "xx", "en", "a", "b", "red", "/dev/zero", "/dev/null", "/", ".",
     "\x00", "../../etc/passwd", "🎲", "cairo", "nowhere"]
)  # fmt: skip
FLAGS = st.sampled_from(
    ["--edition", "--lang", "--seed", "--grid", "--deck", "--starting", "--first", "--timer", "--port", "--tokens",
     "--mission", "--team", "--simulated", "--display", "--engine", "--board", "--resume", "--events", "--save"]
)  # fmt: skip
SWITCHES = st.sampled_from(
    ["--coop", "--assassin-ending", "--three-players", "--no-penalty", "--timer-ends-turn", "--relaxed-order",
     "--allow-names", "--allow-abbreviations", "--allow-compounds", "--allow-homophones", "--realtime"]
)  # fmt: skip


@st.composite
def command_lines(draw: st.DrawFn) -> list[str]:
    command = draw(st.sampled_from(["play", "play", "play", "deal", "key", "hear", "models"]))
    argv = [command]
    if command == "play":
        argv.append("--text")
    for _ in range(draw(st.integers(0, 5))):
        if draw(st.booleans()):
            argv += [draw(FLAGS), draw(HOSTILE_VALUES)]
        else:
            argv.append(draw(SWITCHES))
    if command == "deal" and draw(st.booleans()):
        argv += ["--out", draw(HOSTILE_VALUES)]
    if command in ("key", "hear", "models") and draw(st.booleans()):
        argv.append(draw(HOSTILE_VALUES))
    return argv


@SETTINGS
@given(argv=command_lines())
def test_any_command_line_ends_with_0_1_or_2(tmp_path_factory: Any, argv: list[str]) -> None:
    folder = tmp_path_factory.mktemp("argv")
    if argv[0] == "play" and "--save" not in argv and "--resume" not in argv:
        argv = [*argv, "--save", str(folder / "g.json")]
    if argv[0] == "deal" and "--out" not in argv:
        argv = [*argv, "--out", str(folder / "b.json")]
    if argv[0] == "models":
        argv = ["models", "path", *argv[1:2]]  # never a download
    ran = run(argv, "quit\nyes\n", data=folder)
    assert ran.ended_well(), ran.why()
    shutil.rmtree(folder, ignore_errors=True)
