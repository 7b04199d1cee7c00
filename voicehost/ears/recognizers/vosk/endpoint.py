"""The vosk adapter's own end of utterance while guessing: quiet after the speech, in the stream's loudness.

vosk 0.3.45's own endpointer waits for 0.5-1 s of trailing silence (and its Python API cannot shorten
that), which puts results 0.8-1.1 s after the speech; this ends a guess ENDPOINT_SILENCE_MS (120 ms)
after it, holding a cut that may be early until the player goes on or CONTINUATION_SILENCE_MS pass.
See vosk_engine's module docstring.
"""

from __future__ import annotations

import itertools
import json
import math
import time
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import Any, Final, Protocol

import numpy as np
import numpy.typing as npt

from voicehost.audio.samples import Audio
from voicehost.ears.heard import Heard, MomentSource
from voicehost.ears.recognizers.vosk.decoder import Decoder, elapsed_ms
from voicehost.ears.recognizers.vosk.grammar import Grammar
from voicehost.ears.voice_check import NOT_SPEECH_CONFIDENCE
from voicehost.understanding.moment import Moment

LEVEL_FRAME_S: Final = 0.01
"""The endpointer follows the stream's loudness in 10 ms frames (dB of the mean power)."""
ENDPOINT_SILENCE_MS: Final = 120
"""Quiet after the speech that ends an utterance while guessing (vosk's own rules wait 500 ms or more).

Tuned on `python -m bench --sections latency --engines vosk`, whose 0.1 s chunks then closed an
utterance this much to 100 ms more after its speech, against the goal of p95 end of speech -> result <=
250 ms: 100 ms gave p95 282 ms there (one cut held, at a lower confidence), 120 ms 224-228 ms, 150 ms 261
ms. With the microphone's 32 ms chunks (`recordings.CHUNK_SECONDS`), 120 ms gives p50 / p90 162 / 175 ms
on the quick latency run (the same 15 of 16 cards right).

And on the quiet inside words: espeak-ng's stop closures last 30-50 ms in ko, pt-br and en, but
110-120 ms in Italian double consonants ("gatto", "letto"), and real speakers hold them longer; with
120-300 ms of quiet put inside the ko nouns, the results are the same as with vosk's endpointer
(23, 21 and 17 right of 32, against 23, 21 and 19; 3, 2 and 4 wrong cards at a confidence the host
acts on, the same as vosk's): a half word is either held (EARLY_MIN_CONFIDENCE, `Grammar.ends_one_guess`)
or its rest comes out doubtful (`Endpointer._end`)."""
CONTINUATION_SILENCE_MS: Final = 500
"""How long a held cut waits for the player to go on, from the end of the speech: vosk's own rule
after a complete phrase (rule2 of the models' conf/model.conf), so a pause that vosk kept inside one
utterance still is. An early result followed by speech within it makes that speech doubtful."""
RESUME_MS: Final = 30
"""Loud audio in a row that counts as the player going on after a cut: more than a click."""
MIN_SPEECH_MS: Final = 50
"""Loud audio an utterance needs before quiet can end it."""
QUIET_FRACTION: Final = 0.2
"""A frame is quiet below the noise floor plus this share of the floor-to-speech distance in dB (and
QUIET_MARGIN_DB at least).

Measured on the ko nouns of tests/voice/test_vosk_engine.py in bench/corpus.py's white noise: their loudest
50 ms are 44-49 dB above the hiss when clean (the line: 9 dB above it, where espeak-ng's last frames
are 11-37 dB above), 24-28 dB above the noise at 20 dB SNR (the line: 5 dB). A larger share would
take more of a word's fading end, or a weak final consonant, for quiet."""
QUIET_MARGIN_DB: Final = 3.0
"""Quiet reaches at least this far above the floor: white noise's 10 ms frames scatter about 1 dB."""
MIN_CONTRAST_DB: Final = 20.0
"""With less speech above the noise floor, vosk's endpointer decides. At 10 dB SNR (14-18 dB here) a
word's weak consonants sink into the noise: 지하철's aspirated affricate sits 1-4 dB above it for
140 ms, so at 12 dB this cut 지하철 after its first syllables, and its rest came out as another card
at confidence 1.0. At 20 dB SNR (24-28 dB) the ko nouns are cut early, all right at confidence 1.0."""
FLOOR_PERCENTILE: Final = 10.0
"""The noise floor: this percentile of the frame levels of the last FLOOR_WINDOW_S of the stream."""
FLOOR_WINDOW_S: Final = 5.0
"""Long enough to hold some quiet between utterances; when it holds none (5 s of talk), the floor
comes out high, the contrast low, and vosk's endpointer decides."""
SPEECH_SMOOTHING_FRAMES: Final = 5
"""The utterance's speech level is its loudest median of this many frames (50 ms): a click is not speech."""
REPLAY_LEAD_S: Final = 1.0
"""A held utterance is decoded again from up to this much before its first loud frame: FinalResult
leaves vosk a new feature pipeline, which decodes better after some quiet (with 0.3 s, 14 of 32
word halves came out right, with the utterance's 0.5 s 17, as with vosk's endpointer)."""
MAX_REPLAY_S: Final = 10.0
"""Longer utterances end by vosk's endpointer only (a held one would be decoded again at length)."""


class Decoding(Protocol):
    """What `Endpointer` needs of the recognizer whose utterances it ends (`VoskRecognizer`): its decoders,
    and how it reads their results. A protocol, so that this module need not import the recognizer."""

    @property
    def sample_rate(self) -> int: ...

    def decoder_for(self, moment: Moment) -> tuple[Decoder, Grammar | None]:
        """A decoder at the start of an utterance in this moment, and the grammar it holds: None when
        only vosk's endpointer may end its utterances (free words)."""
        ...

    def heard(self, result_json: str, decoder: Decoder, started: float, spent_ms: float) -> Heard | None:
        """The Heard of a result that vosk's endpointer or the stream's end closed; None for no words."""
        ...

    def early_result(
        self, result_json: str, decoder: Decoder, started: float, spent_ms: float, grammar: Grammar
    ) -> tuple[Heard | None, bool]:
        """The Heard of an utterance cut early, and whether it can go to the host at once."""
        ...


def _frame_levels(audio: npt.NDArray[Any], frame: int) -> npt.NDArray[np.float64]:
    """dB of the mean power of each whole frame."""
    samples = np.asarray(audio, dtype=np.float64)
    whole = len(samples) // frame * frame
    power = np.mean(samples[:whole].reshape(-1, frame) ** 2, axis=1) if whole else np.zeros(0)
    return np.asarray(10 * np.log10(power + 1e-12), dtype=np.float64)


class _Levels:
    """The loudness of the stream one `listen` hears, frame by frame (dB), numbered from its start."""

    def __init__(self, sample_rate: int) -> None:
        self.frame = max(1, round(LEVEL_FRAME_S * sample_rate))  # samples per frame
        self.samples = 0  # samples heard so far
        self._rest = np.zeros(0, dtype=np.float64)  # the start of the next frame
        self._kept = max(int(FLOOR_WINDOW_S / LEVEL_FRAME_S), int((MAX_REPLAY_S + 1) / LEVEL_FRAME_S))
        self._levels: deque[float] = deque(maxlen=self._kept)

    @property
    def frames(self) -> int:
        """Whole frames heard so far."""
        return self.samples // self.frame

    def add(self, audio: Audio) -> None:
        samples = np.concatenate([self._rest, np.asarray(audio, dtype=np.float64)])
        whole = len(samples) // self.frame * self.frame
        self._levels.extend(_frame_levels(samples[:whole], self.frame).tolist())
        self._rest = samples[whole:]
        self.samples += len(audio)

    def between(self, first: int, last: int) -> npt.NDArray[np.float64]:
        """The levels of frames first to last (not included), as far as they are still kept."""
        oldest = self.frames - len(self._levels)
        first, last = max(first, oldest), min(last, self.frames)
        if last <= first:
            return np.zeros(0)
        kept = itertools.islice(self._levels, first - oldest, last - oldest)
        return np.fromiter(kept, dtype=np.float64, count=last - first)

    def floor(self, last: int) -> float:
        """The noise floor before frame `last`: a low percentile of the recent levels."""
        recent = self.between(last - int(FLOOR_WINDOW_S / LEVEL_FRAME_S), last)
        return float(np.percentile(recent, FLOOR_PERCENTILE)) if len(recent) else 0.0


def _quiet_after_speech(levels: npt.NDArray[np.float64], floor_db: float, since: int) -> tuple[int, int, float] | None:
    """In an utterance's frame levels, the first place from frame `since` on where ENDPOINT_SILENCE_MS of
    quiet follows its speech: (the frame where that quiet is complete, the frame after the speech's
    last loud one, the level under which a frame is quiet). None when there is none yet, or when it
    cannot be told: too little speech, or speech too close to the noise floor (`MIN_CONTRAST_DB`)."""
    if len(levels) < SPEECH_SMOOTHING_FRAMES:
        return None
    windows = np.lib.stride_tricks.sliding_window_view(levels, SPEECH_SMOOTHING_FRAMES)
    contrast = float(np.median(windows, axis=1).max()) - floor_db
    if contrast < MIN_CONTRAST_DB:
        return None
    quiet_below = floor_db + max(QUIET_MARGIN_DB, QUIET_FRACTION * contrast)
    loud = np.flatnonzero(levels >= quiet_below).tolist()
    silence = round(ENDPOINT_SILENCE_MS / 1000 / LEVEL_FRAME_S)
    for index in range(max(0, math.ceil(MIN_SPEECH_MS / 1000 / LEVEL_FRAME_S) - 1), len(loud)):
        speech_end = loud[index] + 1
        cut = speech_end + silence
        if index + 1 < len(loud):  # the speech went on after this gap
            if loud[index + 1] >= cut >= since:
                return cut, speech_end, quiet_below
        elif cut <= len(levels):  # the quiet at the end: when it was complete before, cut now
            return max(cut, since), speech_end, quiet_below
    return None


@dataclass
class _Utterance:
    """The audio one utterance fed its decoder: decoded again when the player goes on after a held cut."""

    start: int  # the stream's sample where it begins
    audio: list[Audio] = field(default_factory=list)  # kept while it may be decoded again
    samples: int = 0

    def add(self, audio: Audio, keep: bool) -> None:
        if keep:
            self.audio.append(audio)
        self.samples += len(audio)


@dataclass
class _Cut:
    """Where an utterance was ended early, and what that was measured on."""

    at: int  # the stream's sample where the decoder stopped
    speech_end: int  # the frame after the speech's last loud frame
    quiet_below: float  # dB: louder frames are speech
    heard: Heard | None = None  # the result, while it waits (held)
    tail: list[Audio] = field(default_factory=list)  # heard since the cut, while it waits


class Endpointer:
    """One `VoskRecognizer.listen`: the utterance under way with its decoder and grammar, the stream's
    loudness, and a cut that waits to see whether the player goes on."""

    def __init__(self, recognizer: Decoding, moment: MomentSource) -> None:
        self.recognizer = recognizer
        self.moment = moment
        self.current = moment()
        self.decoder, self.grammar = recognizer.decoder_for(self.current)
        self.levels = _Levels(recognizer.sample_rate)
        self.utterance = _Utterance(0)
        self.spent_ms = 0.0  # time spent inside vosk on this utterance's audio: its decode cost
        self.held: _Cut | None = None  # an early cut whose result waits
        self.after: _Cut | None = None  # the last early cut whose result went out, while the player may go on
        self.doubtful = False  # the utterance under way began where an early result's speech may go on

    def hear(self, chunk: Audio) -> Iterator[Heard]:
        audio = np.array(chunk, dtype=np.float32).reshape(-1)  # a copy: the caller may reuse its buffer
        pieces = [(self.levels.samples, audio)]  # where in the stream, and the audio: what is left to do
        self.levels.add(audio)
        while pieces:
            start, piece = pieces.pop()
            rest = self._wait(start, piece) if self.held is not None else self._feed(start, piece)
            for item in rest:
                if isinstance(item, Heard):
                    yield item  # the consumer may change the moment before the rest of the chunk
                else:
                    pieces.append(item)

    def finish(self) -> Iterator[Heard]:
        """The end of the stream: what is held, or what the decoder has."""
        if self.held is not None:
            yield from self._end(self.held.heard)
            return
        started = time.perf_counter()
        yield from self._end(
            self.recognizer.heard(self.decoder.kaldi.FinalResult(), self.decoder, started, self.spent_ms)
        )

    def _feed(self, start: int, piece: Audio) -> Iterator[Heard | tuple[int, Audio]]:
        """Feed the decoder, up to where quiet ends the utterance early if it does."""
        wanted = self.moment()
        if wanted != self.current and not _partial(self.decoder.kaldi):
            self.current, (self.decoder, self.grammar) = wanted, self.recognizer.decoder_for(wanted)
            self.spent_ms, self.utterance = 0.0, _Utterance(start)
        end = start + len(piece)
        self._watch_after(end)
        grammar = self.grammar  # None: only vosk's endpointer ends this utterance
        cut = self._end_of_speech(grammar, start, end)
        fed = piece if cut is None else piece[: cut.at - start]
        if len(fed) < len(piece):
            yield (start + len(fed), piece[len(fed) :])  # the next utterance's
        started = time.perf_counter()
        ended = self.decoder.accept(fed) if len(fed) else False
        self.utterance.add(fed, keep=cut is not None or self._may_cut(grammar, len(fed)))
        if ended:  # vosk's own endpointer
            heard = self.recognizer.heard(self.decoder.kaldi.Result(), self.decoder, started, self.spent_ms)
            self.spent_ms, self.utterance = 0.0, _Utterance(start + len(fed))
            yield from self._end(heard)  # the next chunk starts a new utterance, and reads the moment again
            return
        if cut is None or grammar is None:
            self.spent_ms += elapsed_ms(started)
            return
        result = self.decoder.kaldi.FinalResult()  # decodes all that was fed (vosk lags), ends the utterance
        heard, complete = self.recognizer.early_result(result, self.decoder, started, self.spent_ms, grammar)
        cut.heard = self._placed(heard, cut)
        if complete:
            self.spent_ms, self.utterance, self.after = 0.0, _Utterance(cut.at), cut
            yield from self._end(cut.heard)
        else:
            self.held = cut
            self.spent_ms += elapsed_ms(started)

    def _wait(self, start: int, piece: Audio) -> Iterator[Heard | tuple[int, Audio]]:
        """While a cut is held: nothing is fed until the player goes on or CONTINUATION_SILENCE_MS pass."""
        held = self.held
        assert held is not None
        held.tail.append(piece)
        end = start + len(piece)
        until = held.speech_end + round(CONTINUATION_SILENCE_MS / 1000 / LEVEL_FRAME_S)
        if self._went_on(held, end, until):
            again = self._again(held)
            self.held, self.utterance = None, _Utterance(end - len(again), [again], len(again))
            started = time.perf_counter()
            if self.decoder.accept(again):  # vosk's endpointer, on what was decoded again
                heard = self.recognizer.heard(self.decoder.kaldi.Result(), self.decoder, started, self.spent_ms)
                self.spent_ms, self.utterance = 0.0, _Utterance(end)
                yield from self._end(heard)
            else:
                self.spent_ms += elapsed_ms(started)
        elif end // self.levels.frame >= until:
            self.held, self.spent_ms, self.utterance = None, 0.0, _Utterance(held.at)
            yield from self._end(held.heard)
            yield (held.at, np.concatenate(held.tail))  # the quiet since the cut opens the next utterance

    def _end(self, heard: Heard | None) -> Iterator[Heard]:
        """The utterance under way ended with this result: yield it, doubtful when it may be the rest of
        an early result's speech (a word cut at a long stop closure would otherwise give two cards)."""
        doubtful, self.doubtful = self.doubtful, False
        if heard is None:
            return
        if doubtful and heard.text:
            heard = replace(heard, confidence=min(heard.confidence or 0.0, NOT_SPEECH_CONFIDENCE))
        yield heard

    def _watch_after(self, end: int) -> None:
        """After an early result: the player going on within CONTINUATION_SILENCE_MS makes the next
        utterance doubtful."""
        after = self.after
        if after is None:
            return
        until = after.speech_end + round(CONTINUATION_SILENCE_MS / 1000 / LEVEL_FRAME_S)
        if self._went_on(after, end, until):
            self.doubtful, self.after = True, None
        elif end // self.levels.frame >= until:
            self.after = None

    def _went_on(self, cut: _Cut, end: int, until: int) -> bool:
        """Whether RESUME_MS of loud frames in a row came after the cut, before frame `until`."""
        frame = self.levels.frame
        loud = self.levels.between(cut.at // frame, min(end // frame, until)) >= cut.quiet_below
        run = longest = 0
        for frame_is_loud in loud.tolist():
            run = run + 1 if frame_is_loud else 0
            longest = max(longest, run)
        return longest * LEVEL_FRAME_S * 1000 >= RESUME_MS

    def _end_of_speech(self, grammar: Grammar | None, start: int, end: int) -> _Cut | None:
        """Where, in the stream's samples start to end, the utterance has had ENDPOINT_SILENCE_MS of
        quiet after its speech; None when not yet, or when that cannot be told."""
        if not self._may_cut(grammar, end - start):
            return None
        frame = self.levels.frame
        first, last = self.utterance.start // frame, end // frame
        found = _quiet_after_speech(self.levels.between(first, last), self.levels.floor(last), start // frame - first)
        if found is None:
            return None
        at, speech_end, quiet_below = found
        return _Cut(max((first + at) * frame, start), first + speech_end, quiet_below)

    def _placed(self, heard: Heard | None, cut: _Cut) -> Heard | None:
        """The result with where its speech lies in the stream (seconds from its start): from the
        utterance's first loud frame to the end of its speech."""
        if heard is None:
            return None
        frame, rate = self.levels.frame, self.recognizer.sample_rate
        first = self.utterance.start // frame
        loud = np.flatnonzero(self.levels.between(first, cut.speech_end) >= cut.quiet_below)
        begin = first + int(loud[0]) if len(loud) else cut.speech_end
        return replace(heard, start_s=begin * frame / rate, end_s=cut.speech_end * frame / rate)

    def _may_cut(self, grammar: Grammar | None, more: int) -> bool:
        """Whether this endpointer may end the utterance under way, with `more` samples in it."""
        return grammar is not None and self.utterance.samples + more <= MAX_REPLAY_S * self.recognizer.sample_rate

    def _again(self, held: _Cut) -> Audio:
        """What to decode again when the player went on after a held cut: the utterance from
        REPLAY_LEAD_S before its first loud frame, and all heard since the cut."""
        audio = np.concatenate([*self.utterance.audio, *held.tail])
        frame = self.levels.frame
        loud = np.flatnonzero(_frame_levels(audio, frame) >= held.quiet_below)
        skip = max(0, int(loud[0]) * frame - round(REPLAY_LEAD_S * self.recognizer.sample_rate)) if len(loud) else 0
        return audio[skip:]


def _partial(recognizer: Any) -> str:
    """The words the decoder has so far in this utterance ("" while it has heard only silence)."""
    return str(json.loads(recognizer.PartialResult()).get("partial", ""))
