"""The latency bench times what plays: the host itself hears the move in real time and answers.

The move is real speech (espeak-ng) streamed in real time through the host's own voice loop and
ears (the Silero segmenter, recognition at the first pause); the recognizer is a stand-in that hears
the card (the bench's subject is the path, not Whisper). What reaches the loudspeaker, and the
satellite through the real Wyoming link, is the host's own answer to that move on that board.
"""

from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path

import numpy as np
import pytest

from bench import latency
from bench.corpus import Utterance, boards
from bench.voices import TestVoice
from engine.lang import Lang
from voicehost.audio.samples import SAMPLE_RATE, Audio
from voicehost.audio.wav import read_wav
from voicehost.ears.heard import Heard
from voicehost.understanding.moment import Moment

BOARD = boards(Lang.EN)["test"]
CARD = BOARD.cards[0]
MOVE = Utterance(Lang.EN, TestVoice("espeak:en-us", "en", "espeak", "en-us"), "card", CARD.lower(), "test", card=CARD)


class HearsTheCard:
    """Hears the card, whatever was said: the host's path is under test, not the recognizer."""

    def recognize(self, audio: Audio, moment: Moment) -> Heard:
        return Heard(CARD.lower(), None, timings=(("encode", 1.0), ("transcript", 1.0), ("scores", 1.0)))


class Says:
    """The host's voice: what it is asked to say, and a tenth of a second of tone for it."""

    def __init__(self) -> None:
        self.texts: list[str] = []

    def synthesize(self, text: str) -> Audio:
        self.texts.append(text)
        return (0.1 * np.sin(np.arange(SAMPLE_RATE // 10) / 8)).astype(np.float32)


@pytest.fixture(scope="module")
def speech() -> Audio:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "said.wav"
        subprocess.run(["espeak-ng", "-v", "en-us", "-w", str(path), CARD.lower()], check=True)
        return read_wav(path)


def test_the_host_answers_the_move_it_heard_from_a_microphone(speech: Audio) -> None:
    from voicehost.ears.vad import Segmenter

    says = Says()
    timing = latency.hear_locally(HearsTheCard(), says, MOVE, speech, Segmenter())
    assert timing is not None and timing.path == "local" and timing.outcome == "acted on"
    assert CARD in " ".join(says.texts).upper()  # the host's own reveal of this card
    assert {"pause", "encode", "transcript", "scores", "result", "decision", "synthesis", "first"} <= set(timing.stages)


def test_the_host_answers_the_move_through_a_satellite(speech: Audio) -> None:
    pytest.importorskip("wyoming")
    from voicehost.ears.vad import Segmenter

    says = Says()
    timings = latency.hear_through_satellite(HearsTheCard(), says, [(MOVE, speech)], Segmenter())
    assert [(t.path, t.outcome) for t in timings] == [("satellite", "acted on")]
    assert CARD in " ".join(says.texts).upper()
    assert "first" in timings[0].stages
