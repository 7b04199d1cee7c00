"""One vosk decoder and the tape of what it heard: shared by the recognizer, which reads its results,
and the endpointer, which feeds it and ends its utterances (`endpoint`)."""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass
from typing import Any, Final

import numpy as np

from voicehost.audio.samples import Audio, to_pcm16

MIN_SPEECH_SPAN_S: Final = 0.3
"""Shorter words are judged with the audio around them: vosk's word times come in 30 ms steps and a
short word gives too few frames for a spread."""
MAX_SPEECH_SPAN_S: Final = 6.0
"""Only this much of the words' audio is analysed: a card name is short, and the cost stays bounded."""
TAPE_SECONDS: Final = 20.0
"""Audio kept per recognizer to find the words in (longer utterances are judged on what is left)."""


class Tape:
    """The last seconds of audio one recognizer was fed, on vosk's clock.

    vosk times words in seconds of audio fed since the recognizer was made: Reset, FinalResult and
    SetGrammar do not restart that clock, so counting the samples fed finds a word's audio again."""

    def __init__(self, sample_rate: int) -> None:
        self.rate = sample_rate
        self._keep = int(TAPE_SECONDS * sample_rate)
        self._chunks: deque[Audio] = deque()
        self._start = 0  # sample number of the first sample kept
        self._end = 0  # samples fed so far
        self.utterance_start = 0  # sample number where the utterance under way began (`mark`)

    @property
    def fed(self) -> int:
        """vosk's clock now: samples fed so far."""
        return self._end

    def mark(self) -> None:
        """An utterance begins here: the recognizer was reset, or gave its result."""
        self.utterance_start = self._end

    def append(self, audio: Audio) -> None:
        self._chunks.append(audio)
        self._end += len(audio)
        while len(self._chunks) > 1 and self._end - self._start - len(self._chunks[0]) >= self._keep:
            self._start += len(self._chunks.popleft())

    def around(self, start_s: float, end_s: float) -> Audio:
        """The audio from start_s to end_s, widened to MIN_SPEECH_SPAN_S and cut to MAX_SPEECH_SPAN_S."""
        middle = (start_s + end_s) / 2
        start_s, end_s = min(start_s, middle - MIN_SPEECH_SPAN_S / 2), max(end_s, middle + MIN_SPEECH_SPAN_S / 2)
        first = max(self._start, round(start_s * self.rate))
        return self.between(first, min(round(end_s * self.rate), first + int(MAX_SPEECH_SPAN_S * self.rate)))

    def between(self, first: int, last: int) -> Audio:
        """The samples first to last (not included) of vosk's clock, as far as they are still kept."""
        first, last = max(first, self._start), min(last, self._end)
        if last <= first:
            return np.zeros(0, dtype=np.float32)
        parts: list[Audio] = []
        position = self._start
        for chunk in self._chunks:
            if position + len(chunk) > first and position < last:
                parts.append(chunk[max(0, first - position) : last - position])
            position += len(chunk)
        return np.concatenate(parts).astype(np.float32, copy=False)


@dataclass(frozen=True)
class Decoder:
    """One KaldiRecognizer and the tape of what it heard."""

    kaldi: Any
    tape: Tape

    def accept(self, audio: Audio) -> bool:
        """Feed audio; True when vosk's endpointer closed the utterance."""
        samples = np.array(audio, dtype=np.float32).reshape(-1)  # a copy: the caller may reuse its buffer
        self.tape.append(samples)
        return bool(self.kaldi.AcceptWaveform(to_pcm16(samples)))


def elapsed_ms(started: float) -> float:
    """Milliseconds since `started` (a `time.perf_counter()`): a result's decode_ms."""
    return (time.perf_counter() - started) * 1000
