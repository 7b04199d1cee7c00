"""Utterances out of a stream of audio chunks: Whisper behind the Silero VAD, or vosk, which ends them itself."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import replace
from typing import TYPE_CHECKING, Final, Protocol

from voicehost.ears.audio import SAMPLE_RATE, Audio
from voicehost.ears.heard import ContextSource, Heard, Recognizer, StreamingRecognizer

if TYPE_CHECKING:
    from voicehost.ears.vad import Segmenter

VOSK_ENDPOINT_SECONDS: Final = 0.5
SECONDS_PER_WORD: Final = 0.5


class Ears(Protocol):
    """Turns a stream of audio chunks into utterances, reading what makes sense now from `context`."""

    def utterances(self, chunks: Iterable[Audio], context: ContextSource) -> Iterator[Heard]: ...


class SegmentedEars:
    """A one-utterance-at-a-time recognizer (whisper) behind the Silero voice activity detector."""

    def __init__(self, recognizer: Recognizer, segmenter: Segmenter | None = None) -> None:
        self.recognizer = recognizer
        self._segmenter = segmenter

    def utterances(self, chunks: Iterable[Audio], context: ContextSource) -> Iterator[Heard]:
        if self._segmenter is None:
            from voicehost.ears.vad import Segmenter

            self._segmenter = Segmenter()
        for utterance in self._segmenter.utterances(chunks, talking=lambda: context().over_host):
            heard = self.recognizer.recognize(utterance.audio, context())
            yield replace(heard, start_s=utterance.start_s, end_s=utterance.end_s)


class StreamingEars:
    """vosk, which finds the end of each utterance itself and switches grammars as the phase changes."""

    def __init__(self, recognizer: StreamingRecognizer) -> None:
        self.recognizer = recognizer

    def utterances(self, chunks: Iterable[Audio], context: ContextSource) -> Iterator[Heard]:
        position = [0]

        def counted() -> Iterator[Audio]:
            for chunk in chunks:
                position[0] += len(chunk)
                yield chunk

        for heard in self.recognizer.listen(counted(), context):
            end = position[0] / SAMPLE_RATE
            # vosk closes an utterance after its trailing silence; allow for the words said before it
            start = max(0.0, end - VOSK_ENDPOINT_SECONDS - SECONDS_PER_WORD * max(1, len(heard.text.split())))
            if heard.start_s is not None and heard.end_s is not None:
                yield heard  # the adapter ended the utterance itself and knows where it lies
                continue
            yield replace(heard, start_s=start, end_s=end)
