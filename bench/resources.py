"""Per engine: model load time, real-time factor and peak memory, each in a fresh process.

The parent runs `python -m bench.resources ENGINE --count N --cache DIR`, which imports the engine,
loads its model, recognizes N utterances of the corpus (already synthesized in the cache) as the host
would (whisper: guesses, closed-set scoring; vosk: Korean nouns in a grammar), and prints one JSON line:
the load time, decode time over audio time, and `ru_maxrss` before loading, after loading and at
the end (the peak resident set of the whole process).
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Final

from bench import ROOT
from bench.report import goal_met, table

WHISPER_RSS_GOAL_MB: Final = 600
TIMEOUT_S: Final = 900


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def _hwm_mb() -> float | None:
    """The peak resident set of this address space (VmHWM): unlike ru_maxrss, it starts afresh at exec."""
    try:
        with open("/proc/self/status", encoding="utf-8") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return None


def child(engine: str, model: Path, count: int, cache: Path) -> dict[str, Any]:
    from bench.corpus import Condition, Speech, corpus, korean_corpus
    from bench.recognition import host_context
    from engine.lang import Lang
    from voicehost.ears.audio import SAMPLE_RATE
    from voicehost.ears.heard import Recognizer

    speech = Speech(cache)
    if engine == "whisper":
        from voicehost.ears.recognizers.whisper import WhisperRecognizer

        pools = [[u for u in corpus(lang) if u.kind in ("card", "lead-in")] for lang in Lang]
        said = [pools[index % len(pools)][index // len(pools) * 7 % len(pools[0])] for index in range(count)]
    else:
        from voicehost.ears.recognizers.vosk.recognizer import VoskRecognizer

        nouns = [u for u in korean_corpus() if u.kind == "card"]
        said = [nouns[index % len(nouns)] for index in range(count)]
    clips = [speech.clip(utterance, Condition(None)) for utterance in said]
    imported = _rss_mb()
    started = time.perf_counter()
    recognizer: Recognizer = WhisperRecognizer(model) if engine == "whisper" else VoskRecognizer(model)
    load_s = time.perf_counter() - started
    loaded = _rss_mb()
    decode_s = 0.0
    for utterance, audio in zip(said, clips, strict=True):
        started = time.perf_counter()
        recognizer.recognize(audio, host_context(utterance))
        decode_s += time.perf_counter() - started
    audio_s = sum(len(audio) for audio in clips) / SAMPLE_RATE
    return {
        "load_s": load_s,
        "count": count,
        "audio_s": audio_s,
        "decode_s": decode_s,
        "rss_imported_mb": imported,
        "rss_loaded_mb": loaded,
        "rss_peak_mb": _rss_mb(),
        "hwm_peak_mb": _hwm_mb(),
    }


def measure(engine: str, model: Path, count: int, cache: Path) -> dict[str, Any] | str:
    """Run the child; its JSON, or what went wrong."""
    command = [
        sys.executable,
        "-m",
        "bench.resources",
        engine,
        "--model",
        str(model),
        "--count",
        str(count),
        "--cache",
        str(cache),
    ]
    try:
        done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return f"timed out after {TIMEOUT_S} s"
    if done.returncode != 0 or not done.stdout.strip():
        tail = (done.stderr.strip().splitlines() or ["no output"])[-1]
        return f"failed (exit {done.returncode}): {tail}"
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def tables(measured: dict[str, tuple[str, dict[str, Any] | str]]) -> str:
    headers = [
        "engine",
        "model",
        "load s",
        "utterances",
        "audio s",
        "real-time factor",
        "RSS before load MB",
        "RSS after load MB",
        "peak RSS MB",
        "VmHWM MB",
        "goal",
        "goal met?",
    ]
    rows: list[list[object]] = []
    for engine, (model, found) in measured.items():
        goal = f"peak RSS ≤ {WHISPER_RSS_GOAL_MB} MB" if engine == "whisper" else "–"
        if isinstance(found, str):
            rows.append([engine, model, None, None, None, None, None, None, None, None, goal, found])
            continue
        met = goal_met(found["rss_peak_mb"], WHISPER_RSS_GOAL_MB) if engine == "whisper" else "–"
        rows.append(
            [
                engine,
                model,
                round(found["load_s"], 2),
                found["count"],
                round(found["audio_s"], 1),
                round(found["decode_s"] / found["audio_s"], 3) if found["audio_s"] else None,
                round(found["rss_imported_mb"]),
                round(found["rss_loaded_mb"]),
                round(found["rss_peak_mb"]),
                None if found.get("hwm_peak_mb") is None else round(found["hwm_peak_mb"]),
                goal,
                met,
            ]
        )
    return "\n".join(
        [
            "## 3. Resources",
            "",
            "Each engine in a fresh process: model load time; real-time factor (decode time / audio time) over the "
            "utterances, as the host recognizes guesses (whisper: the four languages' cards, clean; vosk: Korean nouns "
            "in a grammar); `ru_maxrss` of the process before loading the model (Python, numpy, the project), "
            "after loading it, and at the end (peak); VmHWM, the kernel's peak for the process's own address space, "
            "as a cross-check (ru_maxrss also counts the parent's memory at fork, so this section runs before the "
            "parent loads any model).",
            "",
            table(headers, rows),
        ]
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.resources", description=__doc__)
    parser.add_argument("engine", choices=("whisper", "vosk"))
    parser.add_argument("--model", type=Path, required=True)
    parser.add_argument("--count", type=int, default=10)
    parser.add_argument("--cache", type=Path, required=True)
    options = parser.parse_args(argv)
    print(json.dumps(child(options.engine, options.model, options.count, options.cache)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
