"""A machine without a microphone: one message, in the game's language, with the exact command that plays
the same game by typing (as `voicehost play` or as `make play` was typed), then exit 1; nothing about the
loudspeaker, no "the game goes on"."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from engine.lang import Lang
from tests.speech_models import whisper_base_dir
from voicehost.cli.by_text import STARTED_BY, play_by_text
from voicehost.ears.microphone import NoMicrophone, NoSoundLibrary
from voicehost.frontends.devices import DeviceError, microphone_chunks, no_microphone_message
from voicehost.prompts import Prompts

ROOT = Path(__file__).resolve().parents[2]
BOARD = ROOT / "tests" / "boards" / "classic-en.json"


# ---- the command that plays by text ---------------------------------------------------------------------


def test_the_same_options_then_text() -> None:
    argv = ["play", "--lang", "pt-PT", "--edition", "duet", "--seed", "7"]
    assert play_by_text(argv, "voicehost", {}) == "voicehost play --lang pt-PT --edition duet --seed 7 --text"


def test_options_for_playing_by_voice_are_left_out_however_they_are_written() -> None:
    argv = ["play", "--engine", "whisper", "--lang=it", "--model=models/x", "--show-heard", "--vo", "piper"]
    argv += ["--audio-out", "host.wav", "--timer", "90"]
    assert play_by_text(argv, "voicehost", {}) == "voicehost play --lang=it --timer 90 --text"


def test_a_file_name_with_spaces_is_quoted() -> None:
    argv = ["play", "--board", "boards/game night.json"]
    assert play_by_text(argv, "voicehost", {}) == "voicehost play --board 'boards/game night.json' --text"


def test_started_by_make_gives_a_make_command() -> None:
    argv = ["play", "--lang", "en", "--engine", "vosk"]
    assert play_by_text(argv, "/x/.venv/bin/voicehost", {STARTED_BY: "make"}) == 'make play ARGS="--lang en --text"'


def test_the_make_command_survives_the_shell() -> None:
    argv = ["play", "--board", 'my "best" board.json', "--events", "a$b`c.jsonl"]
    command = play_by_text(argv, "voicehost", {STARTED_BY: "make"})
    typed = command.removeprefix("make play ARGS=")
    given = subprocess.run(["sh", "-c", f"printf %s {typed}"], capture_output=True, text=True, check=True).stdout
    assert given == "--board 'my \"best\" board.json' --events 'a$b`c.jsonl' --text"


def test_the_program_as_typed_when_the_path_does_not_find_it() -> None:
    assert play_by_text(["play"], ".venv/bin/voicehost", {}).startswith(".venv/bin/voicehost play")
    assert play_by_text(["play"], "/somewhere/voicehost/__main__.py", {}) == "voicehost play --text"


# ---- the message --------------------------------------------------------------------------------------


@pytest.mark.parametrize("lang", list(Lang))
def test_the_message_names_the_command_once_in_the_games_language(lang: Lang) -> None:
    prompts, english = Prompts.load(lang), Prompts.load(Lang.EN)
    command = 'make play ARGS="--lang en --text"'
    missing = NoMicrophone("No microphone found (there is no input device on this machine).")
    library = NoSoundLibrary("No microphone can be used: the PortAudio library is missing.", "sudo apt-get install x")
    for exc in (missing, library):
        message = no_microphone_message(prompts, exc, command)
        assert message.count(command) == 1
        assert str(exc) not in message and "--audio-in" not in message
        assert lang is Lang.EN or message != no_microphone_message(english, exc, command)
    assert "sudo apt-get install x" in no_microphone_message(prompts, library, command)


def test_a_missing_sound_library_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "sounddevice", None)  # import sounddevice raises ImportError
    prompts = Prompts.load(Lang.EN)
    with pytest.raises(DeviceError) as caught:
        microphone_chunks(
            lambda lost: None, lambda: None, lambda exc: no_microphone_message(prompts, exc, "voicehost play --text")
        )
    assert str(caught.value) == prompts.text(
        "console.no_sound_library", fix="pip install 'voicehost[player]'", command="voicehost play --text"
    )


def _has_input_device() -> bool:
    try:
        import sounddevice

        sounddevice.query_devices(kind="input")
    except Exception:  # no PortAudio, or no input device
        return False
    return True


@pytest.mark.skipif(_has_input_device(), reason="this machine has a microphone")
@pytest.mark.parametrize(
    ("started_by", "expected"),
    [
        (None, "voicehost play --board {board} --display none --text"),
        ("make", 'make play ARGS="--board {board} --display none --text"'),
    ],
)
def test_a_machine_without_a_microphone(tmp_path: Path, started_by: str | None, expected: str) -> None:
    """The real thing: the voice mode on this machine, which has no sound card."""
    whisper_base_dir()
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path)}
    env.pop(STARTED_BY, None)
    if started_by is not None:
        env[STARTED_BY] = started_by
    command = [sys.executable, "-m", "voicehost", "play", "--board", str(BOARD), "--display", "none", "--engine"]
    command += ["whisper"]
    result = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, env=env, timeout=300, check=False)
    line = Prompts.load(Lang.EN).text("console.no_microphone", command=expected.format(board=shlex.quote(str(BOARD))))
    assert (result.returncode, result.stdout, result.stderr) == (1, "", f"voicehost: {line}\n")
