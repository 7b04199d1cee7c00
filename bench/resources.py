"""Memory and speed of the host with Whisper loaded, over a simulated hearing session, in a fresh process.

The parent runs `python -m bench.resources --seconds S --cache DIR`, which loads the Whisper engine,
then hears S seconds of a table: the held-out voices' utterances (every language, every kind, clean)
one after another with 1.5-3 s of quiet between them, fed in the microphone's chunks to the ears as the host runs
them (`SegmentedEars`: the Silero segmenter, recognition in the ears' own thread from the first pause)
in the host's context, each taken up as the host takes it up. It prints one JSON line: the load time,
the real-time factor, the resident set after loading and at the end, and the peak (VmHWM, the
kernel's high-water mark of the process's own address space, which starts afresh at exec).
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final

import numpy as np

from bench import ROOT
from bench.report import goal_met, table

RSS_GOAL_MB: Final = 500
SESSION_S: Final = 600.0
"""A 10-minute session; --quick hears QUICK_SESSION_S."""
QUICK_SESSION_S: Final = 60.0
TIMEOUT_S: Final = 3600


def _status_mb(field: str) -> float | None:
    """VmRSS (now) or VmHWM (the peak) of this process, from /proc/self/status."""
    try:
        with open("/proc/self/status", encoding="utf-8") as status:
            for line in status:
                if line.startswith(f"{field}:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return None


def _peak_mb() -> float:
    return _status_mb("VmHWM") or resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def session(model: Path, seconds: float, cache: Path, quick: bool) -> dict[str, Any]:
    """Load Whisper, then hear `seconds` of a simulated table (see the module docstring)."""
    from bench.corpus import Condition, Utterance, audio_of, corpus, voices_of
    from bench.recognition import host_hears, situation
    from engine.lang import Lang
    from voicehost.audio.samples import SAMPLE_RATE
    from voicehost.ears.recognizers.whisper import WhisperRecognizer
    from voicehost.ears.recordings import CHUNK_SECONDS
    from voicehost.ears.streams import SegmentedEars
    from voicehost.ears.vad import Segmenter
    from voicehost.understanding.moment import ListenMode, Moment

    pools = [corpus(lang, voices_of(lang, "held-out")[:1], quick=quick) for lang in Lang]
    order = [pool[i] for i in range(max(map(len, pools))) for pool in pools if i < len(pool)]
    imported = _status_mb("VmRSS")
    started = time.perf_counter()
    recognizer = WhisperRecognizer(model)
    load_s = time.perf_counter() - started
    loaded = _status_mb("VmRSS")
    busy = [0.0]  # recognition and decision, wall time

    class Timed:
        """The recognizer, its time added up (every recognition: those started at a pause and not used too)."""

        def recognize(self, audio: Any, moment: Any) -> Any:
            began = time.perf_counter()
            heard = recognizer.recognize(audio, moment)
            busy[0] += time.perf_counter() - began
            return heard

    ears = SegmentedEars(Timed(), Segmenter())
    spans: list[tuple[float, float, Utterance]] = []
    rng = np.random.default_rng(600)
    clean = Condition("clean")

    def stream() -> Iterator[Any]:
        """The table's audio, made as it is heard (never the whole session in memory)."""
        position, turn = 0, 0
        while position < seconds * SAMPLE_RATE:
            utterance = order[turn % len(order)]
            speech = audio_of(utterance, clean, cache)
            quiet = np.zeros(int(rng.uniform(1.5, 3.0) * SAMPLE_RATE), np.float32)
            quiet += (rng.standard_normal(len(quiet)) * 0.001).astype(np.float32)
            spans.append((position / SAMPLE_RATE, (position + len(speech)) / SAMPLE_RATE, utterance))
            said = np.concatenate([speech, quiet])
            chunk = round(CHUNK_SECONDS * SAMPLE_RATE)  # as the microphone delivers it
            for start in range(0, len(said), chunk):
                yield said[start : start + chunk]
            position, turn = position + len(said), turn + 1

    def moment() -> Moment:
        """What the host waits for: the situation of the utterance being said (or last said)."""
        return situation(spans[-1][2]).moment

    heard_count, samples = 0, []
    for heard in ears.utterances(stream(), moment):
        middle = ((heard.start_s or 0.0) + (heard.end_s or 0.0)) / 2
        utterance = next((u for start, end, u in reversed(spans) if start - 0.5 <= middle <= end + 0.5), spans[-1][2])
        where = situation(utterance)
        began = time.perf_counter()
        host_hears(heard, utterance.lang, where.cards, guessing=where.guessing, answering=where.answering,
                   listening=ListenMode.OPEN)  # fmt: skip
        busy[0] += time.perf_counter() - began
        heard_count += 1
        if heard_count % 10 == 0:
            samples.append(_status_mb("VmRSS"))
    audio_s = spans[-1][1] if spans else 0.0
    return {
        "load_s": load_s,
        "audio_s": audio_s,
        "utterances": heard_count,
        "decode_s": busy[0],
        "rss_imported_mb": imported,
        "rss_loaded_mb": loaded,
        "rss_end_mb": _status_mb("VmRSS"),
        "rss_samples_max_mb": max((s for s in samples if s is not None), default=None),
        "peak_mb": _peak_mb(),
    }


def measure(model: Path, seconds: float, cache: Path, quick: bool) -> dict[str, Any] | str:
    """Run the session in a fresh process; its JSON, or what went wrong."""
    command = [sys.executable, "-m", "bench.resources", "--model", str(model), "--seconds", f"{seconds:g}"]
    command += ["--cache", str(cache), *(["--quick"] if quick else [])]
    try:
        done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return f"timed out after {TIMEOUT_S} s"
    if done.returncode != 0 or not done.stdout.strip():
        tail = (done.stderr.strip().splitlines() or ["no output"])[-1]
        return f"failed (exit {done.returncode}): {tail}"
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def tables(found: dict[str, Any] | str, seconds: float) -> str:
    headers = [
        "session",
        "load s",
        "utterances heard",
        "audio s",
        "real-time factor",
        "RSS before load MB",
        "RSS after load MB",
        "RSS at end MB",
        "peak RSS MB",
        "goal",
        "goal met?",
    ]
    goal = f"peak ≤ {RSS_GOAL_MB} MB"
    name = f"Whisper base, {seconds / 60:g} min heard"
    if isinstance(found, str):
        rows: list[list[object]] = [[name, *[None] * 8, goal, found]]
    else:

        def mb(key: str) -> int | None:
            return None if found.get(key) is None else round(found[key])

        rows = [
            [
                name,
                round(found["load_s"], 2),
                found["utterances"],
                round(found["audio_s"]),
                round(found["decode_s"] / found["audio_s"], 3) if found["audio_s"] else None,
                mb("rss_imported_mb"),
                mb("rss_loaded_mb"),
                mb("rss_end_mb"),
                mb("peak_mb"),
                goal,
                goal_met(found["peak_mb"], RSS_GOAL_MB),
            ]
        ]
    return "\n".join(
        [
            "## 3. Resources",
            "",
            "The host's hearing in a fresh process: Whisper base loaded (load time), then a simulated session: the "
            "held-out voices' utterances in every language, 1.5-3 s apart, through the ears as the host runs them "
            "(`SegmentedEars`: the voice activity detector, Whisper in the ears' own thread from the first pause, in "
            "the host's context) and the host's take-up. *real-time factor*: recognition (every recognition, "
            "those started at a pause and not used too) and take-up wall time over the audio's length. RSS from "
            "/proc/self/status: VmRSS before loading the model (Python, numpy, the project), after loading it and "
            "at the end; *peak*: VmHWM over the whole process.",
            "",
            table(headers, rows),
        ]
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.resources", description=__doc__)
    parser.add_argument("--model", type=Path, required=True)
    parser.add_argument("--seconds", type=float, default=SESSION_S)
    parser.add_argument("--cache", type=Path, required=True)
    parser.add_argument("--quick", action="store_true", help="one voice's few utterances per language, repeated")
    options = parser.parse_args(argv)
    print(json.dumps(session(options.model, options.seconds, options.cache, options.quick)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
