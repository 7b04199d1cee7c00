"""Where an utterance ends (`Segmenter`): a whole move closes after WHOLE_CLOSE_MS of silence, anything else
after END_SILENCE_MS, asked once at that window whatever the pace of the stream (a scripted detector)."""

from __future__ import annotations

import numpy as np
import pytest

from voicehost.audio.samples import SAMPLE_RATE, Audio
from voicehost.ears.vad import END_SILENCE_MS, WHOLE_CLOSE_MS, WINDOW, Segmenter, Utterance

WINDOW_S = WINDOW / SAMPLE_RATE


class ScriptedVad:
    """Speech where the window's first sample is 1, silence where it is 0."""

    def reset(self) -> None:
        """Nothing carried over."""

    def probability(self, window: Audio) -> float:
        return 0.9 if window[0] > 0.5 else 0.0


def stream(*runs: tuple[bool, int]) -> list[Audio]:
    """Windows of speech (True) or silence (False), as one chunk each."""
    return [np.full(WINDOW, 1.0 if speech else 0.0, dtype=np.float32) for speech, count in runs for _ in range(count)]


def cut(chunks: list[Audio], whole: bool) -> tuple[list[Utterance], int]:
    asked: list[Utterance] = []

    def is_whole(utterance: Utterance) -> bool:
        asked.append(utterance)
        return whole

    segmenter = Segmenter(vad=ScriptedVad())  # type: ignore[arg-type]
    return list(segmenter.utterances(chunks, whole=is_whole)), len(asked)


def test_a_whole_move_closes_after_the_short_silence_and_anything_else_after_the_long_one() -> None:
    chunks = stream((False, 10), (True, 20), (False, 40))
    quick, asked = cut(chunks, whole=True)
    slow, _ = cut(chunks, whole=False)
    assert len(quick) == len(slow) == 1 and asked == 1
    assert quick[0].end_s == slow[0].end_s == pytest.approx(30 * WINDOW_S)
    assert quick[0].detected_s - quick[0].end_s == pytest.approx(round(WHOLE_CLOSE_MS / 1000 / WINDOW_S) * WINDOW_S)
    assert slow[0].detected_s - slow[0].end_s == pytest.approx(round(END_SILENCE_MS / 1000 / WINDOW_S) * WINDOW_S)
    assert np.array_equal(quick[0].audio, slow[0].audio)  # the same audio either way: heard once, at its pause


def test_a_pause_longer_than_the_short_silence_splits_only_a_whole_move() -> None:
    """ "cherry ... walrus" with a 200 ms pause: a whole move closes at the pause; "frutta ... tre" (not whole)
    stays one utterance, as before."""
    chunks = stream((False, 10), (True, 15), (False, round(0.2 / WINDOW_S)), (True, 15), (False, 40))
    assert len(cut(chunks, whole=True)[0]) == 2
    assert len(cut(chunks, whole=False)[0]) == 1
