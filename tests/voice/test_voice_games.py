"""Whole games by voice: person-like and espeak-ng players, the Silero VAD, the real Whisper base model, the host.

The players are the bench's simulated table (bench/players.py, also `python -m bench --sections table`):
they listen to what the host says and answer its questions, as at a table; every game must end as
planned, with at most one card revealed that nobody meant, taken back by voice.
One game is also recorded and replayed through `voicehost play --audio-in --audio-out`, which must
log the very same events.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from bench.announcements import Announcements
from bench.corpus import default_cache
from bench.lines import find_voice
from bench.noise import Condition
from bench.players import Table
from bench.voices import TestVoice
from engine.board import Board
from engine.editions import AnyGame, new_game
from engine.variants import Variants
from tests.speech_models import whisper_base_dir
from tests.table_promises import broken_promises
from voicehost.audio.wav import read_wav, write_wav
from voicehost.ears.recognizers import make_ears
from voicehost.ears.recordings import file_chunks
from voicehost.ears.streams import Ears
from voicehost.frontends.voice_loop import VoiceLoop
from voicehost.prompts import Prompts
from voicehost.referee.host import Host, HostSettings
from voicehost.understanding.moment import ListenMode

ROOT = Path(__file__).resolve().parents[2]
BOARDS = ROOT / "tests" / "boards"
BY_VOICE = HostSettings(listening=ListenMode.ADDRESSED)
"""The addressed way, the harder one by voice: a move counts said to the host (the players say its name)."""


@pytest.fixture(scope="module")
def ears() -> Ears:
    return make_ears("whisper", whisper_base_dir())


def play(
    lang: str, voice: TestVoice, per_clue: int, ears: Ears, condition: Condition | None = None
) -> tuple[AnyGame, Table, float]:
    """One short game: a turn for each team (the second names the assassin), said to the host by name."""
    board = Board.from_dict(json.loads((BOARDS / f"classic-{lang}.json").read_text(encoding="utf-8")))
    game = new_game(board, Variants())
    heard = Announcements()
    host = Host(game, Prompts.load(board.lang), heard, settings=BY_VOICE)
    host.start()
    table = Table(
        host,
        heard,
        [voice],
        condition=condition,
        cache_dir=default_cache(),
        per_clue=per_clue,
        planned_turns=1,
        quit_at_end=False,
    )
    started = time.perf_counter()
    VoiceLoop(host, ears).run(table.chunks())
    table.finish()
    return game, table, time.perf_counter() - started


GAMES = [  # person-like voices the decision was never tuned on (bench/corpus.py), then espeak-ng: the hard tail
    pytest.param("en", find_voice("rhvoice:bdl"), 2, None, id="en-rhvoice-bdl"),
    pytest.param("pt-BR", find_voice("rhvoice:Leticia-F123"), 2, None, id="pt-BR-rhvoice-leticia"),
    pytest.param(
        "pt-PT",
        find_voice("mbrola:mb-pt1"),
        2,
        None,
        id="pt-PT-mbrola-pt1",
        # under the numerics every machine now computes alike (tests/pinned_numerics.py, 2026-11-28), MBROLA pt1's
        # "botão", "lençol" and "orelha" are not heard within the players' tries (3 moves lost), and the game
        # does not end; its wrong reveal ("vamos de botão" heard "a menores de budem": PESCADOR) is taken back
        marks=pytest.mark.xfail(strict=True, reason="three of MBROLA pt1's cards are not heard: the game does not end"),
    ),
    pytest.param("it", find_voice("pico:it-IT"), 2, None, id="it-pico"),
    pytest.param("en", find_voice("espeak:en-us"), 2, None, id="en-espeak"),
    pytest.param("pt-BR", find_voice("espeak:pt-br"), 3, Condition("white", 20), id="pt-BR-espeak-noise20dB"),
    pytest.param("it", find_voice("espeak:it+m3", 140), 2, None, id="it-espeak-male-slow"),
]


@pytest.mark.parametrize(("lang", "voice", "per_clue", "condition"), GAMES)
def test_a_whole_game_by_voice(
    lang: str, voice: TestVoice, per_clue: int, condition: Condition | None, ears: Ears
) -> None:
    game, table, seconds = play(lang, voice, per_clue, ears, condition)
    tally = table.tally
    print(f"{lang}: {tally}, {seconds:.1f} s for {tally.audio_seconds:.1f} s of audio")
    print("\n".join(table.transcript))
    # the decision acts at once with under 0.5 % wrong (bench: the rate on held-out voices); a wrong
    # reveal is rare, and taken back by voice as a table would: "undo that", "yes"
    assert broken_promises(tally) == [], table.transcript
    assert game.over, table.transcript[-6:]
    kinds = [event.type.value for event in game.events]
    assert kinds[:2] == ["game_started", "clue"]
    assert "turn_ended" in kinds, "the first team passed"
    assert game.events[-1]["reason"] in ("assassin", "all_found"), "the assassin, or all agents when it is unheard"


def test_a_recorded_game_replays_through_the_cli(tmp_path: Path, ears: Ears) -> None:
    """The table's recording, played by `voicehost play --audio-in --audio-out`, gives the same events
    as the same recording fed to the voice loop here: the CLI adds nothing and loses nothing."""
    game, table, _ = play("pt-BR", find_voice("rhvoice:Leticia-F123"), 2, ears)
    assert game.over
    recording = tmp_path / "table.wav"
    write_wav(recording, np.concatenate(table.recorded))
    board = Board.from_dict(json.loads((BOARDS / "classic-pt-BR.json").read_text(encoding="utf-8")))
    replayed = new_game(board, Variants())
    host = Host(replayed, Prompts.load(board.lang), Announcements(), settings=BY_VOICE)
    host.start()
    VoiceLoop(host, ears).run(file_chunks(recording))

    events, out = tmp_path / "events.jsonl", tmp_path / "host.wav"
    command = [
        sys.executable, "-m", "voicehost.cli", "play", "--board", str(BOARDS / "classic-pt-BR.json"),
        "--audio-in", str(recording), "--audio-out", str(out),
        "--engine", "whisper", "--model", str(whisper_base_dir()),
        "--events", str(events), "--save", str(tmp_path / "save.json"), "--display", "none", "--listen", "addressed",
    ]  # fmt: skip
    started = time.perf_counter()
    result = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, timeout=600, env={**os.environ})
    seconds = time.perf_counter() - started
    assert result.returncode == 0, result.stderr
    logged = [json.loads(line) for line in events.read_text(encoding="utf-8").splitlines()]
    assert logged == [event.to_dict() for event in replayed.events]
    assert {"clue", "guess"} <= {event["type"] for event in logged}
    assert len(read_wav(out)) > 16000 * 5, "the host's announcements were written, spoken"
    print(f"CLI: {seconds:.1f} s for {table.tally.audio_seconds:.1f} s of recorded table")
