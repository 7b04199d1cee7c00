"""A satellite's speaker: announcements synthesized and sent to a Wyoming satellite (`--satellite`).

Each announcement is printed at once, then synthesized and sent by a worker thread as audio-start,
audio-chunks and audio-stop, paced a little ahead of the satellite's playback, so that a player's
"stop" (the voice loop calls `stop()`) cuts it within about LEAD_SECONDS: the mouth stops sending and
sends audio-stop. A voice that speaks sentence by sentence (Piper's `sentences`) is sent as it comes,
so the first sound leaves before the last sentence is synthesized.

`speaking` is true from the first queued announcement until the satellite has played the last one:
until it says `played` (wyoming-satellite 1.4 and later) or, from one that never says so, until the
sound's own duration has passed. The voice loop's echo gate reads it, so what the satellite's
microphone hears of the host's own voice is not taken for a player's.

A satellite that is not connected (lost, the game paused) gets nothing: the announcement is printed
only, and the next one goes to the satellite again once it is back.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Generator, Iterable
from dataclasses import dataclass
from typing import IO, Final, Protocol

from voicehost.audio.samples import SAMPLE_RATE, Audio, to_pcm16
from voicehost.mouth.base import SpeechSynthesizer
from voicehost.mouth.queued import QueuedMouth

CHUNK_SAMPLES: Final = 1024
"""Samples per audio-chunk event (what Home Assistant sends)."""
LEAD_SECONDS: Final = 0.5
"""How far ahead of the satellite's playback the sound is sent: short enough that a "stop" is heard
at once, long enough that a busy machine does not starve the speaker."""
PLAYED_GRACE_SECONDS: Final = 3.0
"""How long after the sound's end a satellite that reports `played` is still waited for."""
POLL_SECONDS: Final = 0.05


class RemoteSpeaker(Protocol):
    """What the mouth needs of a satellite link (tests give a fake). A send to a satellite that is not
    connected, or that goes while sending, raises ConnectionError."""

    @property
    def connected(self) -> bool: ...

    @property
    def sends_played(self) -> bool: ...

    @property
    def played_count(self) -> int: ...

    def play_start(self, rate: int) -> None: ...

    def play_chunk(self, pcm16: bytes, rate: int, timestamp_ms: int) -> None: ...

    def play_stop(self, timestamp_ms: int) -> None: ...

    def wait_played(self, after: int, timeout: float) -> bool: ...


class SatelliteMouth(QueuedMouth):
    """Speaks announcements on a satellite's speaker without holding up the game (see the module)."""

    def __init__(
        self,
        synthesizer: SpeechSynthesizer | None,
        speaker: RemoteSpeaker,
        *,
        out: IO[str] | None = None,
        err: IO[str] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._synthesizer = synthesizer
        self._speaker = speaker
        self._clock = clock
        self.unsent = 0  # announcements only printed: the satellite was away
        self.seconds_sent = 0.0  # sound sent to the satellite
        super().__init__(out=out, err=err, thread_name="voicehost-satellite-mouth")

    @property
    def silent(self) -> bool:
        """True once the voice broke (or there was none) and the mouth only prints."""
        return self._synthesizer is None or super().silent

    # ---- the worker thread ---------------------------------------------------------------------------

    def _speak(self, text: str, cancel: threading.Event) -> None:
        speaker = self._speaker
        if not speaker.connected:
            self.unsent += 1
            return
        rate, sentences = self._sound(text)
        before = speaker.played_count
        sent = _Sent(rate)
        try:
            speaker.play_start(rate)
            try:
                with _closing(sentences):  # a stopped Piper voice stops synthesizing
                    self._send(sentences, cancel, sent)
            finally:
                speaker.play_stop(sent.milliseconds)
        except ConnectionError:  # the satellite went: the link tells the game; this one is only printed
            self.unsent += 1
            return
        self.seconds_sent += sent.seconds
        if cancel.is_set():
            self.interrupted += 1
            return
        started = sent.started if sent.started is not None else self._clock()
        self._until_played(before, started + sent.seconds, cancel)
        self.played += 1

    def _sound(self, text: str) -> tuple[int, Iterable[Audio]]:
        """The voice's own rate and its sentences as they come, or the whole announcement at 16 kHz."""
        synthesizer = self._synthesizer
        assert synthesizer is not None
        sentences = getattr(synthesizer, "sentences", None)
        rate = getattr(synthesizer, "rate", None)
        if callable(sentences) and isinstance(rate, int) and rate > 0:
            return rate, sentences(text)
        return SAMPLE_RATE, [synthesizer.synthesize(text)]

    def _send(self, sentences: Iterable[Audio], cancel: threading.Event, sent: _Sent) -> None:
        """Send the sound chunk by chunk, LEAD_SECONDS ahead of the satellite's playback."""
        for audio in sentences:
            for first in range(0, len(audio), CHUNK_SAMPLES):
                if cancel.is_set():
                    return
                if sent.started is None:
                    sent.started = self._clock()
                ahead = sent.seconds - (self._clock() - sent.started)
                if ahead > LEAD_SECONDS and cancel.wait(ahead - LEAD_SECONDS):
                    return
                piece = audio[first : first + CHUNK_SAMPLES]
                self._speaker.play_chunk(to_pcm16(piece), sent.rate, sent.milliseconds)
                sent.samples += len(piece)

    def _until_played(self, before: int, end: float, cancel: threading.Event) -> None:
        """Wait until the satellite has played the sound: its `played`, or the sound's end when it never
        says so, at most PLAYED_GRACE_SECONDS past the end; a stop or a lost satellite ends it at once."""
        speaker = self._speaker
        while not cancel.is_set() and speaker.connected:
            now = self._clock()
            if speaker.played_count > before:
                return
            if now >= end and not speaker.sends_played:
                return
            if now >= end + PLAYED_GRACE_SECONDS:
                return
            speaker.wait_played(before, POLL_SECONDS)


@dataclass
class _Sent:
    """How much of one announcement has been sent, and when its first chunk went."""

    rate: int
    samples: int = 0
    started: float | None = None

    @property
    def seconds(self) -> float:
        return self.samples / self.rate

    @property
    def milliseconds(self) -> int:
        return round(1000 * self.samples / self.rate)


def _closing(items: Iterable[Audio]) -> contextlib.AbstractContextManager[object]:
    """Closes a generator left before its end (Piper's sentences); a list needs nothing."""
    if isinstance(items, Generator):
        return contextlib.closing(items)
    return contextlib.nullcontext()
