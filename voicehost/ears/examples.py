"""Query by example: a second signal beside Whisper's scores, from the cards said by the host's own voices.

Whisper's decoder scores each card as a forced transcript; that fails on voices it transcribes badly
(a formant synthesizer, a strong accent), where the words come out wrong but the sounds are still there.
Query by example compares the sounds: each visible card is said by the host's own voices (espeak-ng
variants, and Piper where a voice is installed), put through the same Whisper encoder, and kept (its
frames with speech only); a guess's encoder states are then aligned with each card's by dynamic time
warping, and the card whose examples align at the lowest cost is the one the sounds name. No training:
the idea of CB-Whisper's keyword spotting with the encoder Whisper already runs.

The examples of a board are made once (`ExampleBank.prepare`, about a second a board: one synthesis and
one short encoding per card and voice) and cached; a guess then costs only the alignments (`align`):
the frames are unit vectors, the distances one matrix product, and the warping a loop over the
examples' frames, vectorized over every example and every frame of the guess at once.
"""

from __future__ import annotations

import contextlib
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import cache
from typing import Any, Final, Protocol

import numpy as np
import numpy.typing as npt

from engine.lang import Lang
from voicehost.audio.samples import SAMPLE_RATE, Audio
from voicehost.ears.heard import ByExample

Floats = npt.NDArray[np.float32]

FRAME_SAMPLES: Final = 320
"""One encoder frame of Whisper: 20 ms."""
PRE_ROLL_S: Final = 0.16
TAIL_S: Final = 0.1
"""Around an example, what the voice activity detector hands the recognizer around a guess."""
SPEECH_DB: Final = -35.0
"""A 20 ms frame this far below the loudest frame of an example is silence, left out of it."""
MAX_EXAMPLES: Final = 400
"""Examples kept (a card in one voice each): the last four boards' worth (three or four voices), ~16 MB at
most in float16 (a card's example is about 40 frames of 512)."""
SKIP_WEIGHT: Final = 2.0
"""An example frame skipped (the guess said faster) still costs: its neighbour's distance counts twice."""
INFINITE: Final = np.float32(1e9)


class ExampleVoice(Protocol):
    """One of the host's voices, saying a card the way it would in the game."""

    name: str

    def synthesize(self, text: str) -> Audio: ...


Encoder = Callable[[Sequence[Audio]], list[Floats]]
"""Clips (as the detector hands them: pre-roll, speech, tail) -> each one's encoder states, (frames, width):
a board's examples are encoded in batches, about three times cheaper than one by one."""


def unit_rows(states: Floats) -> Floats:
    """Each frame as a unit vector less the mean frame: cosine distances become one product, and what
    every frame of an utterance shares (the voice, the channel) counts less than what tells sounds apart."""
    centered = states - states.mean(0, keepdims=True)
    norms = np.linalg.norm(centered, axis=1, keepdims=True)
    out: Floats = (centered / np.maximum(norms, 1e-6)).astype(np.float32)
    return out


def speech_span(audio: Audio, start: int = 0) -> tuple[int, int]:
    """The encoder frames of `audio` (from sample `start` on) that hold speech: from the first to the last
    20 ms frame within SPEECH_DB of the loudest."""
    count = len(audio) // FRAME_SAMPLES
    if count == 0:
        return 0, 0
    frames = audio[: count * FRAME_SAMPLES].astype(np.float64).reshape(count, FRAME_SAMPLES)
    power = np.mean(frames**2, axis=1)
    loud = np.flatnonzero(power >= power.max() * 10 ** (SPEECH_DB / 10))
    if power.max() <= 1e-12 or len(loud) == 0:
        return 0, count
    first = max(start // FRAME_SAMPLES, int(loud[0]))
    return first, max(first + 1, int(loud[-1]) + 1)


def align(query: Floats, examples: Sequence[npt.NDArray[np.float16] | Floats]) -> Floats:
    """The cost of each example found in the query (both unit rows): subsequence dynamic time warping,
    the example whole, anywhere in the query, the query said between half and twice the example's speed;
    the mean cosine distance along the best path (0 alike .. 2 opposite). Every example advances one of
    its frames a step, the query one or two (or the example two frames for one of the query's, the
    skipped frame's distance counted again), so each step depends only on the two before: a loop over
    the examples' frames, vectorized over the examples and the query's frames."""
    count = len(examples)
    if count == 0:
        return np.zeros(0, dtype=np.float32)
    lengths = np.asarray([len(example) for example in examples])
    longest = int(lengths.max())
    frames = len(query)
    # distances of every example frame to every query frame: one product, then laid out as
    # (examples, example frame, query frame), rows past an example's end pointing at a row of zeros
    rows = np.concatenate([*examples, np.zeros((1, query.shape[1]), dtype=examples[0].dtype)]).astype(np.float32)
    flat = 1.0 - rows @ query.T
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]])
    index = starts[:, None] + np.arange(longest)[None, :]
    index = np.where(np.arange(longest)[None, :] < lengths[:, None], index, len(rows) - 1)
    distances = flat[index]
    before2 = np.full((count, frames), INFINITE, dtype=np.float32)
    before = distances[:, 0, :].copy()  # the example may start anywhere in the query
    final = np.full(count, INFINITE, dtype=np.float32)
    final[lengths == 1] = before[lengths == 1].min(1)
    shifted = np.empty_like(before)
    for row in range(1, longest):
        cost = distances[:, row, :]
        step = np.full((count, frames), INFINITE, dtype=np.float32)
        step[:, 1:] = before[:, :-1]  # one query frame
        shifted[:, :2] = INFINITE
        shifted[:, 2:] = before[:, :-2]  # two query frames: the query said slower
        np.minimum(step, shifted, out=step)
        step += cost
        skipped = np.full((count, frames), INFINITE, dtype=np.float32)
        skipped[:, 1:] = before2[:, :-1] + SKIP_WEIGHT * cost[:, 1:]  # two example frames: said faster
        np.minimum(step, skipped, out=step)
        ends = lengths == row + 1
        if ends.any():
            final[ends] = step[ends].min(1)
        before2, before = before, step
    out: Floats = (final / lengths).astype(np.float32)
    return out


@dataclass(frozen=True)
class Example:
    """A card said by one of the host's voices: its encoder states with speech, as unit rows (float16)."""

    phrase: str
    voice: str
    states: npt.NDArray[np.float16] | Floats


class ExampleBank:
    """The examples of every card seen, made on first need and kept (least recently used dropped)."""

    def __init__(self, encode: Encoder, voices: Callable[[Lang], Sequence[ExampleVoice]]) -> None:
        self._encode = encode
        self._voices = voices
        self._kept: OrderedDict[tuple[str, str, str], Example] = OrderedDict()
        self._lock = threading.Lock()
        self._making: dict[tuple[str, tuple[str, ...]], threading.Event] = {}

    def examples(self, lang: Lang, phrases: Sequence[str]) -> list[Example]:
        """Every example of `phrases`, made now where missing (waiting for one being made elsewhere)."""
        self.prepare(lang, phrases)
        with self._lock:
            found = []
            for phrase in phrases:
                for voice in self._voices(lang):
                    key = (lang.value, phrase, voice.name)
                    example = self._kept.get(key)
                    if example is not None:
                        self._kept.move_to_end(key)
                        found.append(example)
            return found

    def missing(self, lang: Lang, phrases: Sequence[str]) -> list[tuple[str, ExampleVoice]]:
        with self._lock:
            return [
                (phrase, voice)
                for phrase in phrases
                for voice in self._voices(lang)
                if (lang.value, phrase, voice.name) not in self._kept
            ]

    def prepare(self, lang: Lang, phrases: Sequence[str]) -> None:
        """Make the missing examples of `phrases` (the board's cards when it is dealt or first heard)."""
        todo = self.missing(lang, phrases)
        if not todo:
            return
        key = (lang.value, tuple(phrases))
        with self._lock:
            running = self._making.get(key)
            if running is None:
                self._making[key] = threading.Event()
        if running is not None:
            running.wait()
            todo = self.missing(lang, phrases)
            if not todo:
                return
        try:
            with ThreadPoolExecutor(max_workers=4, thread_name_prefix="voicehost-examples") as pool:
                said = list(pool.map(lambda item: item[1].synthesize(item[0]), todo))
            for voice in self._voices(lang):
                release = getattr(voice, "release", None)
                if release is not None:
                    release()  # a neural voice's model is not kept between boards
            made = self._examples(todo, said)
            with self._lock:
                for example in made:
                    if example is not None:
                        self._kept[(lang.value, example.phrase, example.voice)] = example
                while len(self._kept) > MAX_EXAMPLES:
                    self._kept.popitem(last=False)
        finally:
            with self._lock:
                event = self._making.pop(key, None)
            if event is not None:
                event.set()

    def prepare_in_background(self, lang: Lang, phrases: Sequence[str]) -> None:
        """`prepare` in a thread of its own: a board heard first outside a guess (its clue) costs nothing then."""
        if self.missing(lang, phrases):
            threading.Thread(target=self.prepare, args=(lang, tuple(phrases)), daemon=True).start()

    def _examples(self, todo: Sequence[tuple[str, ExampleVoice]], said: Sequence[Audio]) -> list[Example]:
        """Each card said, with the detector's silence around it, encoded; its frames with speech kept."""
        head, tail = round(PRE_ROLL_S * SAMPLE_RATE), round(TAIL_S * SAMPLE_RATE)
        spoken = [(phrase, voice.name, audio) for (phrase, voice), audio in zip(todo, said, strict=True) if len(audio)]
        clips = [
            np.concatenate([np.zeros(head, np.float32), audio.astype(np.float32), np.zeros(tail, np.float32)])
            for _, _, audio in spoken
        ]
        encoded = self._encode(clips)
        made = []
        for (phrase, voice, _), clip, states in zip(spoken, clips, encoded, strict=True):
            first, last = speech_span(clip, head)
            if last - first >= 2:
                made.append(Example(phrase, voice, unit_rows(states[first:last]).astype(np.float16)))
        return made

    @property
    def size_bytes(self) -> int:
        with self._lock:
            return sum(example.states.nbytes for example in self._kept.values())


def by_example(query: Floats, examples: Sequence[Example], phrases: Sequence[str]) -> ByExample | None:
    """Each phrase's cost (its best example's), best first; None without an example of every phrase, or
    without a frame of speech to align (an utterance of no length)."""
    if len(query) == 0:
        return None
    costs = align(unit_rows(query), [example.states for example in examples])
    best: dict[str, float] = {}
    for example, cost in zip(examples, costs, strict=True):
        best[example.phrase] = min(best.get(example.phrase, np.inf), float(cost))
    if any(phrase not in best for phrase in phrases):
        return None
    order = sorted(phrases, key=lambda phrase: best[phrase])
    return ByExample(tuple(order), tuple(round(best[phrase], 5) for phrase in order))


ESPEAK_VARIANTS: Final = ("m7", "klatt", "klatt2")
"""espeak-ng's variants the examples are said in (none is a voice of the bench's corpus)."""


class EspeakVoice:
    """espeak-ng in the game's language with one of its variants, at the host's own rate."""

    def __init__(self, lang: Lang, variant: str) -> None:
        from voicehost.mouth.espeak import Synthesizer

        self._synthesizer = Synthesizer(lang)
        self._synthesizer.voice_id = f"{self._synthesizer.voice_id}+{variant}"
        self.name = f"espeak+{variant}"

    def synthesize(self, text: str) -> Audio:
        return self._synthesizer.synthesize(text)


class PiperVoice:
    """The installed Piper voice of the game's language (`voicehost models install LANG --engine piper`),
    loaded while a board's examples are made and let go after (`release`): ~100 MB the host does not keep."""

    def __init__(self, lang: Lang) -> None:
        from voicehost.mouth.piper import voice_file

        self._model = voice_file(lang)  # SpeechError when none is installed
        self._synthesizer: Any = None
        self.name = "piper"
        self._lock = threading.Lock()

    def synthesize(self, text: str) -> Audio:
        from voicehost.mouth.piper import PiperSynthesizer

        with self._lock:
            if self._synthesizer is None:
                self._synthesizer = PiperSynthesizer(self._model)
            audio: Audio = self._synthesizer.synthesize(text)
            return audio

    def release(self) -> None:
        with self._lock:
            self._synthesizer = None


@cache
def example_voices(lang: Lang) -> tuple[ExampleVoice, ...]:
    """The host's own voices for a language: espeak-ng's ESPEAK_VARIANTS, and Piper's where installed;
    none when espeak-ng cannot speak here (the second signal is then left out)."""
    from voicehost.mouth.base import SpeechError

    voices: list[ExampleVoice] = []
    try:
        voices += [EspeakVoice(lang, variant) for variant in ESPEAK_VARIANTS]
    except SpeechError:
        voices = []
    with contextlib.suppress(SpeechError):
        voices.append(PiperVoice(lang))
    return tuple(voices)
