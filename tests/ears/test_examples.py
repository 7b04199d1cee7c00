"""The second signal (`voicehost.ears.examples`): a card found by its sounds, aligned with examples of it.

Unit tests of the alignment on made-up frames (what it must find, at what speeds), of the bank that makes
and keeps the examples, and of the room's noise estimate (`voicehost.ears.conditions`); the real thing, the
Whisper encoder on a voice, is tested in tests/voice/ (test_whisper_engine.py, test_examples_voice.py).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence

import numpy as np
import pytest

from engine.lang import Lang
from voicehost.audio.samples import SAMPLE_RATE, Audio
from voicehost.ears.conditions import CEILING_DB, snr_db
from voicehost.ears.examples import ExampleBank, align, by_example, speech_span, unit_rows

WIDTH = 16


def sounds(seed: int, count: int) -> np.ndarray:
    """`count` made-up frames, each a sound of its own."""
    return np.random.default_rng(seed).standard_normal((count, WIDTH)).astype(np.float32)


def stretched(frames: np.ndarray, factor: float) -> np.ndarray:
    """The same sounds said `factor` times as long (each frame repeated or skipped)."""
    index = np.minimum(len(frames) - 1, (np.arange(round(len(frames) * factor)) / factor).astype(int))
    return frames[index]


def test_an_example_is_found_anywhere_in_the_utterance() -> None:
    card, other = sounds(1, 20), sounds(2, 20)
    utterance = np.concatenate([sounds(3, 15), card, sounds(4, 5)])  # a lead-in, the card, a pause
    costs = align(unit_rows(utterance), [unit_rows(card), unit_rows(other)])
    assert costs[0] < 0.05 < 0.5 < costs[1]


@pytest.mark.parametrize("factor", [0.6, 1.0, 1.5, 1.9])
def test_the_card_said_faster_or_slower_is_still_found(factor: float) -> None:
    cards = [sounds(seed, 24) for seed in range(10, 15)]
    utterance = np.concatenate([sounds(5, 10), stretched(cards[2], factor), sounds(6, 6)])
    costs = align(unit_rows(utterance), [unit_rows(card) for card in cards])
    assert int(np.argmin(costs)) == 2
    assert costs[2] < np.sort(costs)[1] - 0.3


def test_examples_of_different_lengths_are_aligned_together() -> None:
    short, long = sounds(7, 3), sounds(8, 40)
    alone = [align(unit_rows(long), [unit_rows(example)])[0] for example in (short, long)]
    together = align(unit_rows(long), [unit_rows(short), unit_rows(long)])
    assert together == pytest.approx(alone, abs=1e-5)
    assert together[1] < 1e-4  # the utterance is the long example itself


def test_each_card_costs_its_best_example_and_all_cards_are_ranked() -> None:
    card, other = sounds(20, 18), sounds(21, 18)
    bank = ExampleBank(lambda clips: [audio.reshape(-1, WIDTH) for audio in clips], lambda lang: ())
    examples = [
        bank_example("CHERRY", "a", unit_rows(card)),
        bank_example("CHERRY", "b", unit_rows(sounds(22, 18))),
        bank_example("WALRUS", "a", unit_rows(other)),
    ]
    found = by_example(np.concatenate([sounds(23, 4), card]), examples, ("WALRUS", "CHERRY"))
    assert found is not None
    assert found.phrases == ("CHERRY", "WALRUS")
    assert found.costs[0] < 0.05
    assert by_example(card, examples, ("WALRUS", "CHERRY", "ROBIN")) is None  # a card without examples
    assert by_example(card[:0], examples, ("WALRUS", "CHERRY")) is None  # no frame of speech: nothing to align
    del bank


def bank_example(phrase: str, voice: str, states: np.ndarray) -> object:
    from voicehost.ears.examples import Example

    return Example(phrase, voice, states)


class Voice:
    """A made-up voice: each text becomes its own tone, 0.4 s long; counts what it was asked to say."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.said: list[str] = []
        self._lock = threading.Lock()

    def synthesize(self, text: str) -> Audio:
        with self._lock:
            self.said.append(text)
        t = np.arange(int(0.4 * SAMPLE_RATE)) / SAMPLE_RATE
        return (0.3 * np.sin(2 * np.pi * (200 + 10 * len(text)) * t)).astype(np.float32)


def test_the_bank_makes_each_example_once_and_every_voice_says_every_card() -> None:
    voices = (Voice("one"), Voice("two"))
    encoded: list[int] = []

    def encode(clips: Sequence[Audio]) -> list[np.ndarray]:
        encoded.append(len(clips))  # a batch at a time
        frames = [len(audio) // 320 for audio in clips]
        return [np.tile(np.arange(WIDTH, dtype=np.float32), (n, 1)) + np.arange(n)[:, None] for n in frames]

    bank = ExampleBank(encode, lambda lang: voices)
    made = bank.examples(Lang.EN, ("CHERRY", "WALRUS"))
    assert sorted((example.phrase, example.voice) for example in made) == [
        ("CHERRY", "one"),
        ("CHERRY", "two"),
        ("WALRUS", "one"),
        ("WALRUS", "two"),
    ]
    assert all(len(example.states) == 20 for example in made)  # the 0.4 s of speech, not the silence around it
    bank.examples(Lang.EN, ("WALRUS", "CHERRY", "ROBIN"))
    assert sorted(voices[0].said) == ["CHERRY", "ROBIN", "WALRUS"]  # only ROBIN was new
    assert encoded == [4, 2]  # the first board's four examples in one batch, then ROBIN's two


def test_the_speech_span_leaves_out_the_silence_around_it() -> None:
    audio = np.zeros(SAMPLE_RATE, dtype=np.float32)
    audio[3200:9600] = 0.2  # 0.2 s .. 0.6 s
    assert speech_span(audio) == (10, 30)


def test_the_room_is_quiet_or_noisy() -> None:
    rng = np.random.default_rng(3)
    speech = np.zeros(SAMPLE_RATE, dtype=np.float32)
    speech[4000:12000] = 0.3 * np.sin(np.arange(8000) / 5.0)
    quiet = speech + 0.001 * rng.standard_normal(SAMPLE_RATE).astype(np.float32)
    noisy = speech + 0.05 * rng.standard_normal(SAMPLE_RATE).astype(np.float32)
    quiet_db, noisy_db = snr_db(quiet), snr_db(noisy)
    assert quiet_db == CEILING_DB
    assert noisy_db is not None and 5.0 < noisy_db < 25.0
    assert snr_db(np.zeros(800, dtype=np.float32)) is None  # too short to tell
