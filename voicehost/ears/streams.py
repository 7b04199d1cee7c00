"""Utterances out of a stream of audio chunks: Whisper behind the Silero VAD, or vosk, which ends them itself."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import replace
from typing import TYPE_CHECKING, Final, Protocol

import numpy as np

from voicehost.audio.samples import SAMPLE_RATE, Audio
from voicehost.ears.heard import Heard, MomentSource, Preparing, Recognizer, StreamingRecognizer
from voicehost.understanding.moment import Moment

if TYPE_CHECKING:
    from voicehost.ears.vad import Segmenter, Utterance

VOSK_ENDPOINT_SECONDS: Final = 0.5
SECONDS_PER_WORD: Final = 0.5


Unfinished = Callable[[Heard, Moment], bool]
"""Whether an utterance heard so far is unfinished and worth waiting a moment for (a clue's word said
without its number): the decision's to say (`voicehost.decision.unfinished`), given by the voice loop."""
Whole = Callable[[Heard, Moment], bool]
"""Whether an utterance heard so far is a whole move the host acts on at once ("cereja", "yes"), so it
closes after a short silence (`voicehost.ears.vad.WHOLE_MS`): the host's to say, given by the voice loop."""


class Ears(Protocol):
    """Turns a stream of audio chunks into utterances, reading what the host waits for from `moment`."""

    def utterances(
        self,
        chunks: Iterable[Audio],
        moment: MomentSource,
        unfinished: Unfinished | None = None,
        whole: Whole | None = None,
    ) -> Iterator[Heard]: ...


class SegmentedEars:
    """A one-utterance-at-a-time recognizer (whisper) behind the Silero voice activity detector.

    Heard while the silence goes on: when the detector first hears a pause that may end the utterance,
    recognition starts on what was said (in the recognizer's own thread); when the silence is long
    enough to close it and the audio and the moment are still the same, that result is the one
    used, ready or nearly. Otherwise the utterance is recognized afresh. Either way the result is the
    recognizer's for that audio in that context: when it was computed changes nothing."""

    def __init__(self, recognizer: Recognizer, segmenter: Segmenter | None = None) -> None:
        self.recognizer = recognizer
        self._segmenter = segmenter

    def utterances(
        self,
        chunks: Iterable[Audio],
        moment: MomentSource,
        unfinished: Unfinished | None = None,
        whole: Whole | None = None,
    ) -> Iterator[Heard]:
        """`unfinished`: asked at the end of each utterance whether to wait a moment for more (the
        segmenter's `hold`); `whole`: asked after a short silence whether to close it at once (the
        segmenter's `whole`); both on the recognizer's result for the audio as it stands."""
        if self._segmenter is None:
            from voicehost.ears.vad import Segmenter

            self._segmenter = Segmenter()
        ahead: list[tuple[Audio, Moment, Future[Heard]]] = []
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="voicehost-ears") as hearing:

            def on_pause(utterance: Utterance) -> None:
                now = moment()
                ahead[:] = [(utterance.audio, now, hearing.submit(self.recognizer.recognize, utterance.audio, now))]

            def asked(question: Unfinished | Whole | None) -> Callable[[Utterance], bool]:
                """The question put to the recognizer's result for the utterance as it stands, the result
                begun at the pause when the audio and the moment are the same."""

                def ask(utterance: Utterance) -> bool:
                    if question is None:
                        return False
                    now = moment()
                    early = ahead[-1] if ahead else None
                    if early is not None and early[1] == now and np.array_equal(early[0], utterance.audio):
                        heard = early[2].result()
                    else:
                        heard = hearing.submit(self.recognizer.recognize, utterance.audio, now).result()
                        ahead[:] = [(utterance.audio, now, _done(heard))]
                    return question(heard, now)

                return ask

            talking = lambda: moment().over_host  # noqa: E731
            segments = self._segmenter.utterances(
                chunks, talking=talking, on_pause=on_pause, hold=asked(unfinished), whole=asked(whole)
            )
            self._prepare(moment)  # the board dealt or resumed: made ready while the host opens the game
            for utterance in segments:
                now = moment()
                early = ahead.pop() if ahead else None
                if early is not None and early[1] == now and np.array_equal(early[0], utterance.audio):
                    heard = early[2].result()
                else:
                    heard = hearing.submit(self.recognizer.recognize, utterance.audio, now).result()
                yield replace(heard, start_s=utterance.start_s, end_s=utterance.end_s, closed_s=utterance.detected_s)
                self._prepare(moment)  # the host has acted on it: a new game's board is made ready at once

    def _prepare(self, moment: MomentSource) -> None:
        """What the recognizer needs for the board now awaited, made in the background; the moment is asked
        only of a recognizer that makes anything (a stream's moment may know nothing before its first line)."""
        if isinstance(self.recognizer, Preparing):
            self.recognizer.prepare(moment())


def _done(heard: Heard) -> Future[Heard]:
    """A result already known, as the early results are kept."""
    future: Future[Heard] = Future()
    future.set_result(heard)
    return future


class StreamingEars:
    """vosk, which finds the end of each utterance itself and switches grammars as the phase changes."""

    def __init__(self, recognizer: StreamingRecognizer) -> None:
        self.recognizer = recognizer

    def utterances(
        self,
        chunks: Iterable[Audio],
        moment: MomentSource,
        unfinished: Unfinished | None = None,
        whole: Whole | None = None,
    ) -> Iterator[Heard]:
        """(vosk ends utterances itself: `unfinished` and `whole` are not asked.)"""
        position = [0]

        def counted() -> Iterator[Audio]:
            for chunk in chunks:
                position[0] += len(chunk)
                yield chunk

        for heard in self.recognizer.listen(counted(), moment):
            end = position[0] / SAMPLE_RATE
            # vosk closes an utterance after its trailing silence; allow for the words said before it
            start = max(0.0, end - VOSK_ENDPOINT_SECONDS - SECONDS_PER_WORD * max(1, len(heard.text.split())))
            if heard.start_s is not None and heard.end_s is not None:
                yield heard  # the adapter ended the utterance itself and knows where it lies
                continue
            yield replace(heard, start_s=start, end_s=end)
