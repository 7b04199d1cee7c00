"""The second signal with the real Whisper base (`voicehost.ears.examples`): a board's examples are made
in the background when the recognizer first hears the board, before its first guess."""

from __future__ import annotations

import threading
from collections.abc import Sequence

import numpy as np

from engine.lang import Lang
from voicehost.audio.samples import SAMPLE_RATE, Audio
from voicehost.ears.examples import ExampleBank
from voicehost.ears.recognizers.whisper import WhisperRecognizer
from voicehost.understanding.moment import Awaited, Moment

from ..ears.test_examples import WIDTH, Voice
from ..speech_models import whisper_base_dir


def test_a_board_heard_first_in_its_clue_has_its_examples_made_before_its_first_guess() -> None:
    """The recognizer makes a board's examples in the background on the first utterance it hears of that
    board (its clue, usually), so that the first guess does not wait for them (the real Whisper base)."""
    recognizer = WhisperRecognizer(whisper_base_dir())
    voice = Voice("made-up")
    asked = threading.Event()

    def encode(clips: Sequence[Audio]) -> list[np.ndarray]:
        asked.set()
        return [np.ones((len(audio) // 320, WIDTH), dtype=np.float32) for audio in clips]

    recognizer._examples = ExampleBank(encode, lambda lang: (voice,))
    board = ("CHERRY", "WALRUS", "ROBIN")
    quiet = np.zeros(SAMPLE_RATE, dtype=np.float32)
    recognizer.recognize(quiet, Moment(Lang.EN, Awaited.CLUE, visible=board))
    assert asked.wait(120), "the board's examples were not made after its clue was heard"
    assert sorted(voice.said) == sorted(board)
