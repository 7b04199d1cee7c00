"""How long a player waits for the host's answer, when the game is played faster than real time.

The bench feeds the voice loop a recording as fast as it can take it, so wall-clock time between the
end of a line and the host's answer means nothing by itself. What a table would wait is rebuilt from
the audio positions and the compute times, as the loop runs in real time: the Silero segmenter hands
the utterance to the recognizer at the first pause (`vad.PAUSE_MS` of silence) and closes it after
`vad.END_SILENCE_MS` (`vad.WHOLE_MS` for a whole move, longer when held: `Heard.closed_s`); the
recognizer runs on its own thread meanwhile; its result is taken at the close, or when it is ready if
that is later (a result computed afresh at the close starts there); then the
host decides and speaks. So: reply = max(start + recognition, close) + the host's own time − the end
of the player's speech. Recognition and the host's time are measured (wall clock, this machine), the
rest is audio time: "compute time" in the bench's tables.
"""

from __future__ import annotations

import bisect
import threading
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from voicehost.audio.samples import SAMPLE_RATE, Audio
from voicehost.ears.heard import Heard, MomentSource, Recognizer
from voicehost.ears.streams import Ears, Unfinished, Whole
from voicehost.ears.vad import END_SILENCE_MS, PAUSE_MS
from voicehost.understanding.moment import Moment


@dataclass
class ReplyClock:
    """Stamps what the loop does (chunks taken, recognitions, utterances handed to the host) with the
    wall clock, and turns an announcement's wall time into the reply's real-time delay."""

    _pulled_s: list[float] = field(default_factory=list)  # stream position (s) after each chunk taken
    _pulled_wall: list[float] = field(default_factory=list)
    _calls: list[tuple[float, float]] = field(default_factory=list)  # (start, end) wall, per recognition
    _handed: list[tuple[float, Heard]] = field(default_factory=list)  # (wall, utterance) handed to the host
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def chunks(self, chunks: Iterable[Audio]) -> Iterator[Audio]:
        position = 0
        for chunk in chunks:
            position += len(chunk)
            self.pulled(position / SAMPLE_RATE, time.monotonic())
            yield chunk

    def pulled(self, position_s: float, at: float) -> None:
        """The loop took the stream up to `position_s` at wall time `at`."""
        self._pulled_s.append(position_s)
        self._pulled_wall.append(at)

    def recognizer(self, inner: Recognizer) -> Recognizer:
        return _TimedRecognizer(inner, self)

    def ears(self, inner: Ears) -> Ears:
        return _TimedEars(inner, self)

    def called(self, start: float, end: float) -> None:
        with self._lock:
            self._calls.append((start, end))

    def handed(self, heard: Heard, at: float | None = None) -> None:
        """The ears handed `heard` to the host at wall time `at` (now)."""
        self._handed.append((time.monotonic() if at is None else at, heard))

    def reply_ms(self, speech_end_s: float, said_at: float) -> float | None:
        """The delay a table would hear between the end of a line's speech (`speech_end_s` in the stream)
        and an announcement said at wall time `said_at` (time.monotonic), None when no utterance was
        handed to the host before it."""
        handed = [(wall, heard) for wall, heard in self._handed if wall <= said_at]
        if not handed:
            return None
        handed_at, heard = handed[-1]
        if heard.end_s is None:
            return None
        with self._lock:
            calls = [call for call in self._calls if call[1] <= handed_at + 1e-6]
        close_s = heard.closed_s if heard.closed_s is not None else heard.end_s + END_SILENCE_MS / 1000
        if not calls:
            return 1000 * (close_s + (said_at - handed_at) - speech_end_s)
        start_wall, end_wall = calls[-1]
        index = bisect.bisect_left(self._pulled_s, close_s - 1e-9)
        closed_wall = self._pulled_wall[min(index, len(self._pulled_wall) - 1)]
        start_s = heard.end_s + PAUSE_MS / 1000 if start_wall < closed_wall else close_s
        result_s = max(start_s + (end_wall - start_wall), close_s)
        return 1000 * (result_s + (said_at - handed_at) - speech_end_s)


class _TimedRecognizer:
    def __init__(self, inner: Recognizer, clock: ReplyClock) -> None:
        self._inner = inner
        self._clock = clock

    def recognize(self, audio: Audio, moment: Moment) -> Heard:
        start = time.monotonic()
        try:
            return self._inner.recognize(audio, moment)
        finally:
            self._clock.called(start, time.monotonic())

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


class _TimedEars:
    def __init__(self, inner: Ears, clock: ReplyClock) -> None:
        self._inner = inner
        self._clock = clock

    def utterances(
        self,
        chunks: Iterable[Audio],
        moment: MomentSource,
        unfinished: Unfinished | None = None,
        whole: Whole | None = None,
    ) -> Iterator[Heard]:
        for heard in self._inner.utterances(chunks, moment, unfinished, whole):
            self._clock.handed(heard)
            yield heard
