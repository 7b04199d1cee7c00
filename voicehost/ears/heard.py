"""Speech recognition behind one small interface, so the host does not care which engine hears.

Engines are adapters around heavy libraries (vosk, faster-whisper) that are imported inside the
adapter and installed as extras; `voicehost.ears.recognizers` builds one from settings. They return
evidence only (`Heard`): what was said and how well each phrase that makes sense now explains it. What
it means and what the host does with it is `voicehost.decision`'s to say.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from voicehost.audio.samples import Audio
from voicehost.understanding.moment import Moment


@dataclass(frozen=True)
class ClosedSet:
    """Phrases the engine scored as forced transcripts of one utterance (the visible cards, and "yes",
    "no" or "pass"): the evidence the decision step reads. Best first."""

    phrases: tuple[str, ...]
    logprobs: tuple[float, ...]  # log P(phrase | audio), at the best of its lead-ins
    logits: tuple[float, ...]  # the same less what the decoder gives the phrase over silence (its prior)
    shares: tuple[float, ...]  # the softmax of the logits: each phrase's share of the belief

    def share_of(self, phrase: str) -> float:
        return self.shares[self.phrases.index(phrase)] if phrase in self.phrases else 0.0


@dataclass(frozen=True)
class ByExample:
    """The second signal (`voicehost.ears.examples`): each phrase's cost when its examples, said by the
    host's own voices, are aligned with the utterance's sounds (mean distance, 0 alike), best first."""

    phrases: tuple[str, ...]
    costs: tuple[float, ...]


@dataclass(frozen=True)
class ClueNumbers:
    """A clue's number as the ears heard it: every way of saying a number scored after the clue's word
    (a free transcript of "città, due" is often "città tu e"). Best first."""

    word: str  # the transcript up to where the number begins: the clue's word, with any lead-in said before it
    word_logprob: float  # log P(the word's tokens | audio)
    word_tokens: int
    values: tuple[int | None, ...]  # each number (None: unlimited)
    logprobs: tuple[float, ...]  # log P(the word, then that number | audio), over all the ways of saying it
    whole_logprob: float  # log P(the whole free transcript | audio)


@dataclass(frozen=True)
class Heard:
    """One utterance as the engine heard it: its text, and what the engine weighed to get there.

    `confidence` is the engine's own (vosk's word posteriors; Whisper's transcript probability); `closed`
    holds Whisper's scores of the phrases that make sense now, `numbers` those of a clue's number, and
    `commands` those of the few commands that alone make sense ("stop" over the host, "new game" or
    "quit" once the game is over)."""

    text: str
    confidence: float | None = None
    decode_ms: float = 0.0
    alternatives: tuple[tuple[str, float], ...] = field(default=())  # (text, score) runners-up, best first
    start_s: float | None = None  # where the utterance lies in the audio stream, when known
    end_s: float | None = None
    # when the ears closed it: its end, then the silence that closed it (short for a whole move)
    closed_s: float | None = None
    transcript_logprob: float | None = None  # of the free transcript, end included (Whisper)
    closed: ClosedSet | None = None
    places: ClosedSet | None = None  # the places of the grid scored the same way, when the words sound like one
    timings: tuple[tuple[str, float], ...] = ()  # (stage, ms): encode, transcript, scores, priors
    name_gain: float | None = None  # log P(the host's name, then the transcript) - log P(the transcript) (Whisper)
    name_words: int = 0  # how many of the transcript's first words that reading takes for the name ("FOST, music 2")
    examples: ByExample | None = None  # the cards aligned with examples of them said by the host's voices (Whisper)
    snr_db: float | None = None  # how far the speech stands above the noise under it, estimated (Whisper)
    numbers: ClueNumbers | None = None  # a clue's number scored after its word (Whisper, while a clue is awaited)
    commands: ClosedSet | None = None  # command phrases scored as transcripts, best first (Whisper; `phrases_scored`);
    # once the game is over, these and `transcript_logprob` are per token
    undo: tuple[str, float] | None = None  # while a clue is awaited after a move "undo" takes back: its phrase scored
    # first, and how many nats a token it explains the audio worse than the free transcript (Whisper)


class Recognizer(Protocol):
    """Turns one utterance of audio into text, given what makes sense now."""

    def recognize(self, audio: Audio, moment: Moment) -> Heard: ...


@runtime_checkable
class Preparing(Protocol):
    """A recognizer that makes ahead what hearing a board needs (whisper: its cards said by the host's own
    voices, the second signal's examples), so that the board's first guess does not wait for it."""

    def prepare(self, moment: Moment, *, wait: bool = False) -> None: ...


class StreamingRecognizer(Protocol):
    """Listens to a stream of audio chunks and yields each utterance as it ends (vosk does its own
    end-of-speech detection; whisper gets it from a voice activity detector)."""

    def listen(self, chunks: Iterable[Audio], moment: MomentSource) -> Iterator[Heard]: ...


class MomentSource(Protocol):
    """What the host waits for now, asked before each utterance is heard."""

    def __call__(self) -> Moment: ...
