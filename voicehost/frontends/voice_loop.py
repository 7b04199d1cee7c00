"""The voice loop: audio chunks in, utterances to the host, and the host's own voice told apart.

Front-end wiring: the ears hear what the host waits for (`Host.moment`), the host takes each utterance
up; while the host talks, only a player's "stop" (`voicehost.decision.is_stop`) cuts it short. Ears
come from `voicehost.ears.recognizers.make_ears` (tests swap in fakes).
"""

from __future__ import annotations

import logging
import math
import threading
from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Final, Protocol

import numpy as np

from voicehost.audio.samples import SAMPLE_RATE, Audio
from voicehost.decision import is_stop, unfinished
from voicehost.diagnostics import HEARD
from voicehost.ears.heard import Heard
from voicehost.ears.streams import Ears
from voicehost.referee.host import Host
from voicehost.referee.take_up import take_up
from voicehost.understanding.moment import Moment
from voicehost.understanding.reading import Reading

HEARD_LOG: Final = logging.getLogger(HEARD)
ECHO_TAIL_SECONDS: Final = 0.4
"""After the host stops speaking, what the microphone hears is still taken for its echo this long."""
ECHO_MARGIN_DB: Final = 6.0
"""A "stop" over the host's voice is taken when the microphone hears it this much louder than the echo
(measured with a player across the table and the echo at -20 dB: the stop 17-20 dB above the echo's
90th percentile, the echo's own loudest chunks within a few dB of it)."""
ECHO_WINDOW_S: Final = 10.0
ECHO_PERCENTILE: Final = 90.0
MIN_ECHO_SECONDS: Final = 0.5
"""How much of the echo the gate needs to know its level: less, and a "stop" over it is not taken."""
LEVEL_HISTORY: Final = 2000
"""Chunk levels kept while the host talks (a minute of the microphone's 32 ms chunks)."""


class Speaking(Protocol):
    """The part of a mouth the loop needs: whether it is talking, and how to cut it short."""

    @property
    def speaking(self) -> bool: ...

    def stop(self) -> None: ...


@dataclass
class EchoGate:
    """Remembers where in the audio stream the host was talking, so that what the microphone heard
    then is taken for the host's own voice, except a player's "stop", which cuts it short.

    Chunks are marked when the loop reads them, which is close to when they were recorded: the
    microphone's queue is short while the host waits for players."""

    mouth: Speaking | None
    tail_seconds: float = ECHO_TAIL_SECONDS
    _position: int = field(default=0, init=False)
    _talk: list[list[float]] = field(default_factory=list, init=False)  # [start_s, end_s, number] spans
    _spans: int = field(default=0, init=False)
    _levels: deque[tuple[float, float, float]] = field(  # (start_s, seconds, dB) of each chunk while talking
        default_factory=lambda: deque(maxlen=LEVEL_HISTORY), init=False
    )

    def watch(self, chunks: Iterable[Audio]) -> Iterator[Audio]:
        for chunk in chunks:
            start = self._position / SAMPLE_RATE
            self._position += len(chunk)
            if self.mouth is not None and self.mouth.speaking:
                end = self._position / SAMPLE_RATE
                if self._talk and self._talk[-1][1] >= start - 1e-6:
                    self._talk[-1][1] = end
                else:
                    self._spans += 1
                    self._talk.append([start, end, self._spans])
                del self._talk[:-16]
                self._levels.append((start, end - start, _level_db(chunk)))
            yield chunk

    def louder_than_echo(self, heard: Heard) -> bool:
        """Whether the utterance rises clearly above the host's own voice as the microphone hears it.

        The host's echo can sound like anything to a recognizer (its own "para", or a stop word
        scored into its murmur), but a player cutting in over it is louder than the echo. The echo's
        level is a high percentile of what the microphone heard while the host talked over the last
        seconds (not the maximum: a player's earlier "stop" is in there too; and not only the last
        moments, which may be the silence before the host's first sample). With less than half a
        second of it to go by, the stop is not taken: a player who says it again is heard."""
        if heard.start_s is None or heard.end_s is None:
            return True
        start, end = heard.start_s, heard.end_s
        echo = [
            (level, seconds)
            for at, seconds, level in self._levels
            if start - ECHO_WINDOW_S <= at < start - 0.1 or at >= end
        ]
        during = [level for at, _, level in self._levels if start - 0.1 <= at < end]
        if sum(seconds for _, seconds in echo) < MIN_ECHO_SECONDS or not during:
            return False
        return max(during) >= float(np.percentile([level for level, _ in echo], ECHO_PERCENTILE)) + ECHO_MARGIN_DB

    def overlaps(self, heard: Heard) -> bool:
        """Whether the utterance was (partly) said while the host talked, or just after."""
        return self.span_of(heard) is not None

    def span_of(self, heard: Heard) -> int | None:
        """The number of the last stretch of the host's talk the utterance overlaps, if any."""
        if heard.start_s is None or heard.end_s is None:
            return None
        spans = [
            int(n) for start, end, n in self._talk if start < heard.end_s and heard.start_s < end + self.tail_seconds
        ]
        return spans[-1] if spans else None

    @property
    def talking_span(self) -> int | None:
        """The number of the stretch of talk going on now, if the host is talking."""
        speaking = self.mouth is not None and self.mouth.speaking
        return int(self._talk[-1][2]) if speaking and self._talk else None


def whole_move(heard: Heard, moment: Moment) -> bool:
    """Whether the utterance as it stands is a move the host acts on at once (`TakenUp.whole_move`): the
    ears close it after a short silence rather than the full closing one (`voicehost.ears.vad.WHOLE_MS`).
    Never what the ears would hold open for more: "apresentador" alone, scored as "pontuação", was taken
    for the score and cut "apresentador, cometa" in two."""
    if moment.over_host or not heard.text.strip() or unfinished(heard, moment):
        return False
    return take_up(heard, moment).whole_move


class VoiceLoop:
    """Feeds the host what the ears hear until the game ends or the audio does."""

    def __init__(
        self,
        host: Host,
        ears: Ears,
        *,
        mouth: Speaking | None = None,
    ) -> None:
        self.host = host
        self.ears = ears
        self.gate = EchoGate(mouth)
        self.mouth = mouth
        self.heard: list[Heard] = []
        self._stop = threading.Event()

    def run(self, chunks: Iterable[Audio]) -> None:
        for heard in self.ears.utterances(self.gate.watch(chunks), self._moment, unfinished, whole_move):
            self.heard.append(heard)
            self._log(heard)
            if self.gate.overlaps(heard):
                self._while_talking(heard)
            elif heard.text.strip():  # silence or a noise the recognizer dropped: nothing to answer
                self.host.hear(heard)
                if self.host.attention is not None:
                    HEARD_LOG.info("[heard] taken as: %s", self.host.attention.value)
            if self.host.finished or self._stop.is_set():
                break

    def stop(self) -> None:
        self._stop.set()

    def _moment(self) -> Moment:
        """What the host waits for; while it talks, marked so: the ears then slice its echo finely and
        listen only for a player's "stop"."""
        moment = self.host.moment()
        return moment.over_talk() if self.mouth is not None and self.mouth.speaking else moment

    def _while_talking(self, heard: Heard) -> None:
        """Only "stop" counts while the host talks: anything else is most likely its own echo. A stop
        cuts the announcement it was said over, never a later one (overlapping slices of the same
        stretch of talk hear it twice, the second time perhaps after the host has started again)."""
        if not is_stop(heard, Reading(heard.text, self.host.moment().over_talk(), heard.confidence)):
            return
        span = self.gate.span_of(heard)
        current = span is not None and span == self.gate.talking_span
        if self.mouth is not None and current and self.gate.louder_than_echo(heard):
            self.mouth.stop()

    def _log(self, heard: Heard) -> None:
        """What the ears heard, for `--show-heard` (the `voicehost.heard` logger)."""
        if not HEARD_LOG.isEnabledFor(logging.INFO):
            return
        confidence = "-" if heard.confidence is None else f"{heard.confidence:.2f}"
        name = "" if heard.name_gain is None else f", the host's name {heard.name_gain:+.1f}"
        HEARD_LOG.info("[heard] %r confidence %s%s, %.0f ms", heard.text, confidence, name, heard.decode_ms)


def _level_db(chunk: Audio) -> float:
    """A chunk's loudness in dB full scale (RMS)."""
    power = float(np.mean(np.square(chunk, dtype=np.float64))) if len(chunk) else 0.0
    return 10 * math.log10(max(power, 1e-12))
