"""`python -m bench.examples_cost`: what the second signal costs (voicehost/ears/examples.py).

Per language, on the test board: making the board's examples (each card said by the host's voices and
encoded, what the host does when a board is first heard), in wall and processor time, and the memory
it holds (the examples' bytes, and the process's resident set before and after); then per guess of the
held-out voices (clean), the alignment that a guess costs once the examples are made, p50 and p90.
Timings are wall-clock unless said: compare runs at a low load (printed).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

from bench.corpus import Condition, audio_of, boards, corpus, default_cache, voices_of
from bench.report import header, load_average, percentile, table
from bench.resources import _status_mb
from engine.lang import Lang
from voicehost.ears.examples import by_example


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.examples_cost", description=__doc__.split("\n\n")[0])
    parser.add_argument("--langs", default="pt-BR,pt-PT,it,en")
    parser.add_argument("--guesses", type=int, default=40, help="held-out guesses timed per language")
    parser.add_argument("--cache", type=Path, default=default_cache())
    options = parser.parse_args(argv)
    from voicehost.ears.recognizers.whisper import WhisperRecognizer
    from voicehost.speech_models import Manifest, require

    recognizer = WhisperRecognizer(require(Manifest.load().get("whisper-base")))
    bank = recognizer._examples
    rows: list[list[object]] = []
    clean = Condition.parse("clean")
    for tag in options.langs.split(","):
        lang = Lang.parse(tag)
        cards = tuple(boards(lang)["test"].cards)
        rss_before = _status_mb("VmRSS")
        wall, cpu = time.perf_counter(), time.process_time()
        made = bank.examples(lang, cards)
        made_ms, made_cpu_ms = (time.perf_counter() - wall) * 1000, (time.process_time() - cpu) * 1000
        rss_after = _status_mb("VmRSS")
        held = [u for u in corpus(lang, voices_of(lang, "held-out")) if u.kind in ("card", "lead-in")]
        chosen = [u for u in held if u.board == "test"][:: max(1, len(held) // 3 // max(1, options.guesses))]
        chosen = chosen[: options.guesses]
        aligned: list[float] = []
        for utterance in chosen:
            audio = audio_of(utterance, clean, options.cache)
            encoded, _ = recognizer._encode(audio)
            states = recognizer._states_of(encoded, audio)
            started = time.perf_counter()
            by_example(states, bank.examples(lang, cards), cards)
            aligned.append((time.perf_counter() - started) * 1000)
        frames = [len(example.states) for example in made]
        rows.append(
            [
                tag,
                len(made),
                round(float(np.mean(frames)), 1) if frames else None,
                round(made_ms),
                round(made_cpu_ms),
                round(sum(example.states.nbytes for example in made) / 1e6, 1),
                None if rss_before is None or rss_after is None else round(rss_after - rss_before, 1),
                len(aligned),
                percentile(aligned, 50),
                percentile(aligned, 90),
            ]
        )
        print(f"[examples] {tag}: {len(made)} examples, {len(aligned)} guesses", file=sys.stderr, flush=True)
    headers = [
        "lang",
        "examples",
        "frames each",
        "made, ms",
        "made, processor ms",
        "held, MB",
        "RSS grew, MB",
        "guesses",
        "align p50 ms",
        "align p90 ms",
    ]
    print(header(" ".join(argv if argv is not None else sys.argv[1:]), "python -m bench.examples_cost"))
    print()
    print(table(headers, rows))
    print(
        f"\nLoad average {load_average()} at the end; the examples of every board kept: {bank.size_bytes / 1e6:.1f} MB."
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
