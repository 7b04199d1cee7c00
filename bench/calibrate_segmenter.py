"""`python -m bench.calibrate_segmenter`: choose how far a player's speech must stand above the room's
background to start and to go on (`voicehost.ears.vad.START_ABOVE_DB`, `KEEP_ABOVE_DB`) on the tuning voices,
and report the held-out voices at the margins chosen.

The voice activity detector hears the table's other talkers as speech: in a room where they never stop, an
utterance runs to its longest (12 s). Here each language's room is the corpus's lines (every LINE_STEP-th:
cards, lead-ins, clues, commands, answers, talk) said by the voices of one role, reverberated, GAP_S apart,
with the room's noise all along: four other talkers at an SNR with reverb, or the microphone's hiss alone.
Each pair of margins cuts the room into utterances (`Segmenter`), and is scored by
- the lines **caught whole**: one utterance holds all of a line's speech, starting at most EARLY_S before it
  and closed at most LATE_S after it (a line cut in two, buried in the talk before it, or held open by the
  talk after it, is not);
- the **stray** utterances: those holding no line (the talk around the table taken for a move), a minute.
The pair chosen catches the most lines whole in babble (every SNR pooled) among those that catch in the
quiet room every line the segmenter without a margin catches there and hear at most MAX_STRAY_A_MINUTE
stray utterances in babble. Speed: the detector runs at about 0.06 ms a window; the whole calibration
takes about 15 minutes on 2 cores (a process a core).
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import sys
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import numpy as np

from bench.corpus import HISS, Condition, corpus, default_cache, voices_of
from bench.lines import seed_of
from bench.noise import active_power, babble, reverb
from bench.voices import TestVoice, synthesize
from engine.lang import Lang
from voicehost.audio.samples import SAMPLE_RATE, Audio
from voicehost.ears.loudness import SUSTAIN_WINDOWS
from voicehost.ears.vad import KEEP_ABOVE_DB, START_ABOVE_DB, Segmenter, SileroVad

LINE_STEP: Final = 3
"""Every this-many-th line of a voice's corpus is said into the room."""
GAP_S: Final = (2.0, 4.5)
"""The room's time between two lines, drawn uniformly: the table talks on meanwhile."""
EARLY_S: Final = 0.6
"""A line is caught whole only if its utterance starts at most this long before its speech..."""
LATE_S: Final = 0.8
"""...and is closed at most this long after it (the closing silence is 320 ms): the move is answered soon
after it is said, and heard without the talk that follows it."""
EDGE_S: Final = 0.05
"""The tolerance at the speech's own edges (its first and last sounds are faint)."""
CONDITIONS: Final = ("clean", "babble-5-reverb", "babble-10-reverb", "babble-20-reverb")
GRID: Final = tuple(
    (start, keep, sustain) for start in (9.0, 10.5, 12.0) for keep in (4.5, 6.0, 7.5) for sustain in (3, 6, 10)
)
"""Each (start margin dB, keep margin dB, windows the keep level is averaged over)."""
UNGATED: Final = (-np.inf, -np.inf, 3)
Margins = tuple[float, float, int]
"""(start margin dB, keep margin dB, windows the keep level is averaged over)."""
MAX_STRAY_A_MINUTE: Final = 1.0
"""At most this many utterances a minute of babble that hold no line: the table's talk cut into pieces the
host must hear and leave be (a lower start margin catches a few more lines and hears four times as many)."""


@dataclass(frozen=True)
class Room:
    """A language's room in one condition: its audio and where each line's speech is, in seconds."""

    lang: str
    condition: str
    audio: Audio
    lines: tuple[tuple[float, float], ...]


@dataclass(frozen=True)
class Score:
    lines: int
    whole: int
    stray: int
    minutes: float
    late: tuple[float, ...] = ()  # for each line caught whole, how long after its speech the utterance closed

    def late_ms(self, q: float) -> float:
        return 1000 * float(np.percentile(self.late, q)) if self.late else float("nan")


def room(
    lang: Lang, said: Sequence[tuple[TestVoice, str]], condition: Condition, *, seed: int, cache_dir: Path
) -> Room:
    """Each (voice, text) said into the room in turn, the noise at the condition's SNR against the lines' mean
    active power, all along."""
    rng = np.random.default_rng(seed)
    pieces: list[Audio] = []
    spans: list[tuple[float, float]] = []
    powers: list[float] = []
    position = int(rng.uniform(*GAP_S) * SAMPLE_RATE)
    pieces.append(np.zeros(position, np.float32))
    for voice, text in said:
        speech = synthesize(voice, text, cache_dir=cache_dir)
        tail = np.zeros(SAMPLE_RATE // 2, np.float32)
        wet = reverb(np.concatenate([speech, tail]), rng) if condition.reverb else np.concatenate([speech, tail])
        gap = np.zeros(int(rng.uniform(*GAP_S) * SAMPLE_RATE), np.float32)
        spans.append((position / SAMPLE_RATE, (position + len(speech)) / SAMPLE_RATE))
        powers.append(active_power(speech))
        pieces += [wet, gap]
        position += len(wet) + len(gap)
    voices = np.concatenate(pieces)
    heard = voices + rng.standard_normal(len(voices)).astype(np.float32) * HISS
    if condition.snr_db is not None:
        noise = babble(len(voices), lang.value, rng, cache_dir=cache_dir)
        noise = reverb(noise, rng) if condition.reverb else noise
        gain = np.sqrt(
            float(np.mean(powers)) / 10 ** (condition.snr_db / 10) / float(np.mean(np.square(noise, dtype=np.float64)))
        )
        heard = heard + (gain * noise).astype(np.float32)
    peak = float(np.max(np.abs(heard)))
    return Room(lang.value, condition.name, (heard / max(1.0, peak)).astype(np.float32), tuple(spans))


def lines_of(lang: Lang, role: str) -> list[tuple[TestVoice, str]]:
    """Every LINE_STEP-th line of each of `role`'s voices' corpus."""
    return [(u.voice, u.text) for voice in voices_of(lang, role) for u in corpus(lang, [voice])[::LINE_STEP]]


def score(space: Room, margins: Margins, vad: SileroVad) -> Score:
    """How a triple of margins cuts the room: lines caught whole and how late they closed, stray utterances."""
    start_db, keep_db, sustain = margins
    segmenter = Segmenter(vad, start_above_db=start_db, keep_above_db=keep_db, sustain_windows=sustain)
    size = 512
    chunks = (space.audio[i : i + size] for i in range(0, len(space.audio), size))
    cuts = [(u.start_s, u.end_s, u.detected_s) for u in segmenter.utterances(chunks)]
    late: list[float] = []
    for begin, end in space.lines:
        closed = [
            detected
            for start, stop, detected in cuts
            if begin - EARLY_S <= start <= begin + EDGE_S and end - EDGE_S <= stop and detected <= end + LATE_S
        ]
        late += [closed[0] - end] if closed else []
    stray = sum(not any(start < end and stop > begin for begin, end in space.lines) for start, stop, _ in cuts)
    return Score(len(space.lines), len(late), stray, len(space.audio) / SAMPLE_RATE / 60, tuple(late))


def pooled(scores: Sequence[Score]) -> Score:
    return Score(
        sum(s.lines for s in scores),
        sum(s.whole for s in scores),
        sum(s.stray for s in scores),
        sum(s.minutes for s in scores),
        tuple(late for s in scores for late in s.late),
    )


def choose(by_pair: dict[Margins, dict[str, Score]]) -> Margins:
    """The triple that catches the most lines whole in babble among those losing no line in the quiet room
    (against the segmenter without a margin) and hearing at most MAX_STRAY_A_MINUTE stray utterances in
    babble; ties go to the smaller margins."""
    quiet = by_pair[UNGATED]["clean"].whole
    fit = [
        pair
        for pair in GRID
        if by_pair[pair]["clean"].whole >= quiet
        and by_pair[pair]["babble"].stray <= MAX_STRAY_A_MINUTE * by_pair[pair]["babble"].minutes
    ]
    if not fit:
        return UNGATED
    return max(fit, key=lambda pair: (by_pair[pair]["babble"].whole, -pair[0], -pair[1]))


def table(
    by_pair: dict[Margins, dict[str, Score]],
    pairs: Sequence[Margins],
    conditions: Sequence[str] = (*CONDITIONS, "babble"),
) -> str:
    rows = [
        "| start / keep dB, keep over | condition | lines caught whole | closed after the speech p50 / p90 ms "
        "| stray utterances a minute |",
        "|---|---|---:|---:|---:|",
    ]
    for pair in pairs:
        name = "no margin" if pair == UNGATED else f"{pair[0]:g} / {pair[1]:g}, {pair[2] * 32} ms"
        for condition in conditions:
            s = by_pair[pair][condition]
            share = f"{s.whole} of {s.lines} ({100 * s.whole / max(1, s.lines):.0f} %)"
            late = f"{s.late_ms(50):.0f} / {s.late_ms(90):.0f}"
            rows.append(f"| {name} | {condition} | {share} | {late} | {s.stray / max(s.minutes, 1e-9):.1f} |")
    return "\n".join(rows)


_ROOMS: list[Room] = []
"""The rooms being scored, for the worker processes (forked: they share them without copying)."""


def _scores(margins: Margins) -> dict[str, Score]:
    """One triple's scores on `_ROOMS`: each condition pooled over the languages, and babble over its SNRs."""
    vad = SileroVad()
    each = {space.lang + "|" + space.condition: score(space, margins, vad) for space in _ROOMS}
    by_condition = {name: pooled([s for key, s in each.items() if key.endswith("|" + name)]) for name in CONDITIONS}
    by_condition["babble"] = pooled([s for name, s in by_condition.items() if name.startswith("babble")])
    return by_condition


def measure(role: str, pairs: Sequence[Margins], cache_dir: Path) -> dict[Margins, dict[str, Score]]:
    """Every triple's scores on `role`'s rooms (`_scores`), a process a core."""
    _ROOMS[:] = [
        room(
            lang, lines_of(lang, role), Condition.parse(name), seed=seed_of(lang.value, name, role), cache_dir=cache_dir
        )
        for lang in Lang
        for name in CONDITIONS
    ]
    with ProcessPoolExecutor(max_workers=os.cpu_count() or 1, mp_context=multiprocessing.get_context("fork")) as pool:
        return dict(zip(pairs, pool.map(_scores, pairs), strict=True))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.calibrate_segmenter", description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--held-out-only", action="store_true", help="report the held-out voices at the shipped margins, choose none"
    )
    args = parser.parse_args(argv)
    cache = default_cache()
    shipped = (START_ABOVE_DB, KEEP_ABOVE_DB, SUSTAIN_WINDOWS)
    if args.held_out_only:
        print("held-out voices:")
        print(table(measure("held-out", [UNGATED, shipped], cache), [UNGATED, shipped]))
        return 0
    tuning = measure("tune", [UNGATED, *GRID], cache)
    chosen = choose(tuning)
    print(
        f"tuning voices (chosen: start {chosen[0]:g} dB, keep {chosen[1]:g} dB over {chosen[2]} windows; "
        f"shipped {shipped}):"
    )
    print(table(tuning, [UNGATED, *GRID], ("clean", "babble")))
    print(table(tuning, [UNGATED, chosen]))
    pairs = list(dict.fromkeys([UNGATED, chosen, shipped]))
    print("\nheld-out voices:")
    print(table(measure("held-out", pairs, cache), pairs))
    return 0


if __name__ == "__main__":
    sys.exit(main())
