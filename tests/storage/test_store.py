"""Saves and campaigns: crash-safe, refused whole when broken, kept going when the disk is full."""

from __future__ import annotations

import errno
import json
import os
import random
from pathlib import Path

import pytest

from engine.board import deal_duet
from engine.editions import new_game
from engine.lang import Lang
from engine.missions import Campaign
from engine.pieces import Side
from engine.variants import Variants
from tests.conftest import CLASSIC_SPEC, competitive_board
from voicehost.storage import events_log as store
from voicehost.storage.campaigns import load_campaign, save_campaign
from voicehost.storage.events_log import EventLog
from voicehost.storage.saves import SaveError, load_game, save_game
from voicehost.storage.session import Session


def played(tmp_path: Path) -> Path:
    game = new_game(competitive_board(CLASSIC_SPEC))
    game.give_clue("pão", 2)  # type: ignore[call-arg]
    game.guess("MANTEIGA")
    path = tmp_path / "save.json"
    save_game(path, game, {"timer": None})
    return path


def test_a_save_replays_to_the_same_game(tmp_path: Path) -> None:
    path = played(tmp_path)
    loaded = load_game(path)
    assert [e.to_dict() for e in loaded.game.events][-1]["card"] == "MANTEIGA"
    assert loaded.settings == {"timer": None}
    assert not list(tmp_path.glob(".save.json.*")), "no temporary file is left behind"


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (lambda text: text[: len(text) // 2], "broken JSON"),
        (lambda text: json.dumps({"format": "something-else"}), "not a voicehost saved game"),
        (lambda text: text.replace('"version": 1', '"version": 99'), "another version"),
        (lambda text: text.replace('"identity": "red"', '"identity": "blue"'), "does not replay"),
        (lambda text: text.replace('"seq": 3', '"seq": 7'), "numbered 7"),
        (lambda text: "\udcff", "not UTF-8 text"),
    ],
)
def test_a_corrupt_or_foreign_save_is_refused_whole(tmp_path: Path, damage, message: str) -> None:  # type: ignore[no-untyped-def]
    path = played(tmp_path)
    broken = damage(path.read_text(encoding="utf-8"))
    path.write_bytes(broken.encode("utf-8", "surrogateescape"))
    before = path.read_bytes()
    with pytest.raises(SaveError, match=message):
        load_game(path)
    assert path.read_bytes() == before, "a refused save is never rewritten"


def test_a_missing_save_says_so(tmp_path: Path) -> None:
    with pytest.raises(SaveError, match="no saved game"):
        load_game(tmp_path / "nothing.json")


def test_a_full_disk_warns_once_and_the_game_goes_on(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    warnings: list[tuple[str, Path, str]] = []
    recovered: list[str] = []
    game = new_game(competitive_board(CLASSIC_SPEC))
    log = EventLog(tmp_path / "e.jsonl", game.events[:1], resumed=False)
    session = Session(
        tmp_path / "s.json",
        log,
        {},
        on_failure=lambda *said: warnings.append(said),
        on_recovery=recovered.append,
    )

    def full(*args: object, **kwargs: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("voicehost.storage.session.save_game", full)
    session(game, game.events)
    session(game, game.give_clue("pão", 1))  # type: ignore[call-arg]
    assert warnings == [("save", tmp_path / "s.json", "disk_full")] and not session.saved and recovered == []
    monkeypatch.undo()
    session(game, game.guess("MANTEIGA"))
    assert session.saved and recovered == ["save"]
    assert load_game(tmp_path / "s.json").game.events[-1]["card"] == "MANTEIGA"
    session.close()


def log_lines(game_events: list[dict[str, object]]) -> str:
    return "".join(json.dumps(event, ensure_ascii=False) + "\n" for event in game_events)


def test_the_events_log_cuts_off_a_torn_last_line_and_rewrites_it_whole(tmp_path: Path) -> None:
    game = new_game(competitive_board(CLASSIC_SPEC))
    game.give_clue("pão", 2)  # type: ignore[call-arg]
    game.guess("MANTEIGA")
    whole = log_lines([e.to_dict() for e in game.events])
    path = tmp_path / "e.jsonl"
    kept = whole.splitlines(keepends=True)
    path.write_text("".join(kept[:-1]) + kept[-1][:-1], encoding="utf-8")  # even a last line short of its newline
    log = EventLog(path, game.events, resumed=True)
    assert log.last_seq == len(kept) - 1
    assert path.read_text(encoding="utf-8") == "".join(kept[:-1]), "the fragment is cut off on opening"
    log.append(game.events)
    assert path.read_text(encoding="utf-8") == whole


def test_a_write_the_disk_half_takes_is_cut_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    game = new_game(competitive_board(CLASSIC_SPEC))
    path = tmp_path / "e.jsonl"
    log = EventLog(path, game.events[:1], resumed=False)
    log.append(game.events)
    before = path.read_bytes()
    real_write_all = store._write_all

    def half_then_full(handle, data: bytes) -> None:  # type: ignore[no-untyped-def]
        real_write_all(handle, data[: len(data) // 2])
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(store, "_write_all", half_then_full)
    with pytest.raises(OSError):
        log.append(game.give_clue("pão", 2))  # type: ignore[call-arg]
    with pytest.raises(OSError):
        log.append(game.guess("MANTEIGA"))
    assert path.read_bytes() == before, "no half line is left behind"
    monkeypatch.undo()
    log.append(game.events)  # the disk has room again: the log catches up
    log.close()
    assert path.read_text(encoding="utf-8") == log_lines([e.to_dict() for e in game.events])


def test_campaign_progress_is_kept_per_team(tmp_path: Path) -> None:
    path = tmp_path / "campaigns.json"
    ours = Campaign("Os Espiões")
    assert ours.available() == []
    assert ours.record_win(None, 9)  # the normal 9-token game completes Praga
    assert ours.available() == ["berlim", "cairo", "moscovo", "praga"]
    save_campaign(ours, path)
    save_campaign(Campaign("Outros"), path)
    again = load_campaign("Os Espiões", path)
    assert again.completed == {"praga"}
    assert again.record_win("cairo", 9)
    assert "bagda" in again.available()
    assert load_campaign("Outros", path).completed == set()
    with pytest.raises(Exception, match="not open yet"):
        again.record_win("paris", 9)


def test_a_won_mission_moves_the_team_on(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    campaign = Campaign("Nós", {"praga"})
    session = Session(tmp_path / "s.json", None, {}, on_failure=print, on_recovery=print, campaign=campaign)
    board = deal_duet([f"W{i}" for i in range(40)], Lang.PT_PT, random.Random(2))
    game = new_game(board, Variants(mission="cairo"))
    session(game, game.events)
    giver = Side.A
    greens = {side: [board.cards[i] for i in range(25) if board.side_key(side)[i].value == "green"] for side in Side}
    for giver in (Side.A, Side.B):
        if game.over:
            break
        session(game, game.give_clue("x", None, by=giver))  # type: ignore[call-arg]
        for card in greens[giver]:
            if not game.over and card in game.visible_cards():
                session(game, game.guess(card))
    assert game.state.winner is not None and game.state.winner.value == "players"
    assert load_campaign("Nós").completed == {"praga", "cairo"}
