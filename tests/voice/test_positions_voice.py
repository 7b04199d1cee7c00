"""A card named by its place, by voice: the real Whisper base model hears "row two column three" (and the
same in Portuguese and Italian) from a synthetic voice, and the host takes the card at that place.

Voices: Pico (en-US, it-IT) and RHVoice's Leticia (pt-BR) when installed, espeak-ng otherwise. When the
words sound like a place, the ears score the grid's places as transcripts beside the cards (in four
ways: "row two column three", "row 2 column 3", "C2", "see two"), and the decision weighs the place
scored first with the place model calibrated on the tuning voices (voicehost/decision/places.py).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
from pathlib import Path

import numpy as np
import pytest

from engine.board import Board
from tests.speech_models import whisper_base_dir
from voicehost.audio.samples import SAMPLE_RATE, Audio
from voicehost.audio.wav import read_wav
from voicehost.cli.hearing import judge

BOARDS = Path(__file__).resolve().parents[1] / "boards"


@pytest.fixture(scope="module")
def whisper() -> object:
    from voicehost.ears.recognizers.whisper import WhisperRecognizer

    return WhisperRecognizer(whisper_base_dir())


def board(name: str) -> Board:
    return Board.from_dict(json.loads((BOARDS / f"{name}.json").read_text(encoding="utf-8")))


def said(lang: str, text: str) -> Audio:
    """The best voice here for `lang`, at 16 kHz, with the VAD's pre-roll and closing silence around it."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "said.wav"
        pico = {"en": "en-US", "it": "it-IT"}.get(lang)
        if pico and shutil.which("pico2wave"):
            subprocess.run(["pico2wave", "-l", pico, "-w", str(path), text], check=True, capture_output=True)
        elif lang == "pt-BR" and shutil.which("RHVoice-test"):
            subprocess.run(
                ["RHVoice-test", "-p", "Leticia-F123", "-o", str(path)],
                input=text.encode(),
                check=True,
                capture_output=True,
            )
        else:
            voice = {"en": "en-us", "it": "it", "pt-BR": "pt-br"}[lang]
            subprocess.run(["espeak-ng", "-v", voice, "-w", str(path), text], check=True)
        audio = read_wav(path)
    quiet = np.zeros(int(0.16 * SAMPLE_RATE), dtype=np.float32)
    return np.concatenate([quiet, audio, quiet, quiet]).astype(np.float32)


PLACES = [
    ("en", "classic-en", "row two column three", "DRUMMER"),
    ("en", "classic-en", "row four, column one", "FARMER"),
    ("pt-BR", "classic-pt-BR", "linha dois, coluna três", "TROMPETE"),
    ("it", "classic-it", "riga due, colonna tre", "PULCINO"),
    ("en", "classic-en", "C2", "DRUMMER"),  # a letter and a number, as the display labels the grid
    ("pt-BR", "classic-pt-BR", "cê dois", "TROMPETE"),
    ("en", "classic-en", "I think it's C2", "DRUMMER"),  # after a lead-in, scored as a card after one
    ("en", "classic-en", "my guess is B4", "MAGPIE"),
    ("pt-BR", "classic-pt-BR", "eu acho que é cê dois", "TROMPETE"),
    ("it", "classic-it", "io dico bi quattro", "BALCONE"),
]


@pytest.mark.parametrize(("lang", "board_name", "text", "card"), PLACES, ids=[p[2] for p in PLACES])
def test_a_place_said_is_the_card_there(whisper: object, lang: str, board_name: str, text: str, card: str) -> None:
    result = judge(whisper, said(lang, text), board(board_name), "guess", text).result  # type: ignore[arg-type]
    assert result["intent"] == "guess", result
    assert result["card"] == card, result
    assert result["action"] in ("accept", "confirm"), result
