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


def test_a_line_in_a_talking_room_is_an_utterance_of_its_own() -> None:
    """Four other players talk all along, 10 dB under the player, with the room's reverb (the bench's
    babble): the detector hears their talk as speech too, so without the level gate an utterance never
    closes and runs 12 s with the move somewhere in it. With it, most lines are one utterance of their own,
    from at most 0.6 s before the speech to at most 0.6 s after it (a held-out voice; two in three of the
    held-out voices' lines are, at 5 to 20 dB: `python -m bench.calibrate_segmenter`)."""
    from bench.calibrate_segmenter import UNGATED, room, score
    from bench.noise import Condition
    from engine.lang import Lang
    from voicehost.ears.loudness import SUSTAIN_WINDOWS
    from voicehost.ears.vad import KEEP_ABOVE_DB, START_ABOVE_DB, SileroVad

    voice = find_voice("rhvoice:Leticia-F123")
    said = [(voice, text) for text in ("música, dois", "colher", "a resposta é estrela", "passo", "sim", "aeroporto")]
    talking = room(Lang.PT_BR, said, Condition.parse("babble-10-reverb"), seed=7, cache_dir=default_cache())
    gated = score(talking, (START_ABOVE_DB, KEEP_ABOVE_DB, SUSTAIN_WINDOWS), SileroVad())
    assert gated.whole >= 2 * len(said) / 3
    assert score(talking, UNGATED, SileroVad()).whole == 0
