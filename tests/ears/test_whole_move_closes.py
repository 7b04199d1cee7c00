"""An utterance the host would act on at once closes after a short silence (`vad.WHOLE_MS`), with the very
same audio it would have closed with after the full closing silence: when it closes changes what the host
hears only if the speaker goes on within the closing silence, never the result for the same audio."""

from __future__ import annotations

import numpy as np

from voicehost.audio.samples import SAMPLE_RATE, Audio
from voicehost.ears.vad import END_SILENCE_MS, WHOLE_MS, WINDOW, Segmenter, Utterance


class LoudIsSpeech:
    """Stands in for the Silero detector: a window is speech when it is loud."""

    def reset(self) -> None:
        pass

    def probability(self, window: Audio) -> float:
        return 1.0 if float(np.abs(window).mean()) > 0.1 else 0.0


def stream(*parts: tuple[str, float]) -> list[Audio]:
    """("speech" or "quiet", seconds) in a row, cut into 0.1 s chunks."""
    audio = np.concatenate(
        [np.full(round(s * SAMPLE_RATE), 0.5 if kind == "speech" else 0.0, np.float32) for kind, s in parts]
    )
    size = SAMPLE_RATE // 10
    return [audio[i : i + size] for i in range(0, len(audio), size)]


def cut(chunks: list[Audio], whole: bool | None) -> list[Utterance]:
    asked: list[Utterance] = []

    def is_whole(utterance: Utterance) -> bool:
        asked.append(utterance)
        return bool(whole)

    segmenter = Segmenter(LoudIsSpeech())  # type: ignore[arg-type]
    found = list(segmenter.utterances(chunks, whole=None if whole is None else is_whole))
    assert whole is None or asked  # the question was put
    return found


def test_a_whole_move_closes_after_the_short_silence_with_the_same_audio() -> None:
    chunks = stream(("quiet", 0.5), ("speech", 0.6), ("quiet", 1.0))
    (late,) = cut(chunks, whole=None)
    (early,) = cut(chunks, whole=True)
    (not_whole,) = cut(chunks, whole=False)
    assert np.array_equal(early.audio, late.audio) and np.array_equal(not_whole.audio, late.audio)
    window_ms = 1000 * WINDOW / SAMPLE_RATE
    assert abs((early.detected_s - early.end_s) * 1000 - WHOLE_MS) <= window_ms
    assert abs((late.detected_s - late.end_s) * 1000 - END_SILENCE_MS) <= window_ms
    assert not_whole.detected_s == late.detected_s


def test_speech_resumed_within_the_closing_silence_joins_unless_the_move_was_whole() -> None:
    """ "cereja ... cebola" with a 250 ms pause: one utterance, unless what came before the pause was a
    whole move the host acts on (then the host has already answered it)."""
    chunks = stream(("quiet", 0.5), ("speech", 0.6), ("quiet", 0.25), ("speech", 0.5), ("quiet", 1.0))
    assert len(cut(chunks, whole=False)) == 1
    assert len(cut(chunks, whole=True)) == 2
