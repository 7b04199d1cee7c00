"""Speech recognition behind one small interface, so the host does not care which engine hears.

Engines are adapters around heavy libraries (vosk, faster-whisper) that are imported inside the
adapter and installed as extras; `voicehost.ears.recognizers` builds one from settings.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Protocol

from voicehost.ears.audio import Audio
from voicehost.ears.context import Context


@dataclass(frozen=True)
class Heard:
    """One utterance as the engine understood it, with its confidence (0..1) when the engine has one."""

    text: str
    confidence: float | None = None
    decode_ms: float = 0.0
    alternatives: tuple[tuple[str, float], ...] = field(default=())  # (text, score) runners-up, best first
    start_s: float | None = None  # where the utterance lies in the audio stream, when known
    end_s: float | None = None


class Recognizer(Protocol):
    """Turns one utterance of audio into text, given what makes sense now."""

    def recognize(self, audio: Audio, context: Context) -> Heard: ...


class StreamingRecognizer(Protocol):
    """Listens to a stream of audio chunks and yields each utterance as it ends (vosk does its own
    end-of-speech detection; whisper gets it from a voice activity detector)."""

    def listen(self, chunks: Iterable[Audio], context: ContextSource) -> Iterator[Heard]: ...


class ContextSource(Protocol):
    def __call__(self) -> Context: ...
