"""`voicehost play --audio-in FILE` without `--audio-out`, where the loudspeaker fails (no output device):
the moves in the recording are taken and every announcement printed (issue: no game lost, silent failure).

The class it stands for: a move-shaped line the ears heard never meets silence. Here the host's welcome
was still being spoken (and then failing) while the recording was read, far faster than real time, and the
echo gate took the whole recording for the host's own voice: `--show-heard` printed the clue, the host
took nothing and the command ended with 0. Everything is real (the recording, Silero, Whisper base, the
host, espeak-ng) but the loudspeaker, which fails the way PortAudio does on a machine without one.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from bench.corpus import default_cache
from bench.lines import find_voice
from bench.voices import synthesize
from engine.lang import Lang
from tests.hostile import run
from tests.scripting import BOARDS
from tests.speech_models import whisper_base_dir
from voicehost.audio.samples import SAMPLE_RATE
from voicehost.audio.wav import write_wav
from voicehost.mouth import NoSpeaker, speaker
from voicehost.prompts import Prompts


class NoOutputDevice:
    """What `SoundDeviceOutput` does where PortAudio finds no output device."""

    def play(self, audio: object, rate: int, cancel: object) -> bool:
        raise NoSpeaker("No loudspeaker found (there is no output device on this machine).")

    def close(self) -> None:
        """Nothing was opened."""


def test_a_recording_played_without_a_loudspeaker_is_heard_and_answered(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(speaker, "_make_output", NoOutputDevice)
    silence = np.zeros(SAMPLE_RATE, dtype=np.float32)
    voice, cache = find_voice("rhvoice:bdl"), default_cache()
    clue = synthesize(voice, "ocean, two", cache_dir=cache)
    yes = synthesize(voice, "yes", cache_dir=cache)  # in case the host asks back
    recording = tmp_path / "table.wav"
    write_wav(recording, np.concatenate([silence, clue, silence, silence, yes, silence]))
    board = BOARDS / "classic-en.json"
    argv = ["play", "--board", str(board), "--engine", "whisper", "--model", str(whisper_base_dir())]
    argv += ["--audio-in", str(recording), "--display", "none", "--show-heard"]
    argv += ["--save", str(tmp_path / "game.json"), "--events", str(tmp_path / "events.jsonl")]
    ran = run(argv, data=tmp_path / "data")
    assert ran.code == 0 and ran.ended_well(), ran.why()
    logged = [json.loads(line) for line in (tmp_path / "events.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [(e["type"], e.get("word"), e.get("number")) for e in logged[1:]] == [("clue", "ocean", 2)], ran.err
    accepted = Prompts.load(Lang.EN).text("clue.accepted", word="ocean", number=2)
    assert any(line.startswith(accepted) for line in ran.said), ran.said
    assert "No loudspeaker" in ran.err, "the player is told the voice is only printed"
