"""The voice activity detector over a game's minutes: every line a player says is an utterance, the last
as surely as the first (the real Silero detector, MBROLA's European Portuguese voice, as at the bench's
table: short words, a faint hiss between them)."""

from __future__ import annotations

import numpy as np

from bench.corpus import HISS, default_cache
from bench.lines import find_voice
from bench.voices import synthesize
from voicehost.audio.samples import SAMPLE_RATE
from voicehost.ears.recordings import CHUNK_SECONDS
from voicehost.ears.vad import Segmenter

LINES = (
    "música, dois|colher|perfume|perfume|perfume|perfume|aeroporto|aeroporto|não|não|aeroporto|aeroporto|não|"
    "não|a resposta é estrela|passo|papel, dois|vamos de botão|sim|farinha|passo|cidade, dois|cometa|"
    "vamos de cemitério|cemitério|passo|passo|passo|janela, dois|janela, dois"
).split("|")
"""A pt-PT table's lines in the order a game of the bench said them: the later "passo" were lost once."""


def test_every_line_of_a_long_stream_is_an_utterance() -> None:
    voice = find_voice("mbrola:mb-pt1")
    quiet_before, quiet_after = np.zeros(int(0.75 * SAMPLE_RATE)), np.zeros(int(2.5 * SAMPLE_RATE))
    parts = [
        part
        for text in LINES
        for part in (quiet_before, synthesize(voice, text, cache_dir=default_cache()), quiet_after)
    ]
    stream = np.concatenate(parts)
    stream = (stream + np.random.default_rng(0).standard_normal(len(stream)) * HISS).astype(np.float32)
    size = round(CHUNK_SECONDS * SAMPLE_RATE)
    utterances = list(Segmenter().utterances(stream[i : i + size] for i in range(0, len(stream), size)))
    assert len(utterances) == len(LINES)
