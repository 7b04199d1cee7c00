"""`python -m bench`: recognition, latency and resource benchmarks, printed as Markdown tables.

    python -m bench                       # everything: 4 languages x 4 conditions (about half an hour on 2 cores)
    python -m bench --quick               # CI: English, clean, a few utterances (under a minute)
    python -m bench --langs en,it --conditions clean,10 --sections recognition

Progress goes to stderr, the tables to stdout (and to --out FILE). Goals are printed with a "goal met?"
column and never fail the command: it exits 0 unless something crashes.
"""

from __future__ import annotations

import argparse
import shlex
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

from bench import latency, recognition, resources
from bench.corpus import Condition, Speech, Utterance, corpus, default_cache, korean_corpus
from bench.recognition import HOST, Results, model_dir, progress
from bench.report import COMPARISONS, goal_met, header, load_average, percentile, table
from engine.lang import Lang

SECTIONS = ("recognition", "latency", "resources")
ENGINES = ("whisper", "baseline", "vosk")
FULL_CONDITIONS = "clean,20,10,5"


def parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m bench",
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--quick", action="store_true", help="a few utterances, one language, one condition (CI)")
    parser.add_argument("--langs", help="comma-separated: pt-BR,pt-PT,it,en (default: all; --quick: en)")
    parser.add_argument(
        "--conditions", help=f"comma-separated: clean and SNRs in dB (default: {FULL_CONDITIONS}; --quick: clean)"
    )
    parser.add_argument("--sections", default=",".join(SECTIONS), help="comma-separated: " + ",".join(SECTIONS))
    parser.add_argument("--engines", default=",".join(ENGINES), help="comma-separated: " + ",".join(ENGINES))
    parser.add_argument(
        "--latency-samples",
        type=int,
        help="whisper utterances per language, and vosk streams (default: 10 and 16; --quick: 2 and 3)",
    )
    parser.add_argument(
        "--resource-utterances",
        type=int,
        help="utterances each engine recognizes in its process (default: 20; --quick: 3)",
    )
    parser.add_argument("--cache", type=Path, default=default_cache(), help="where synthesized speech is kept")
    parser.add_argument("--out", type=Path, help="also write the tables to this file")
    options = parser.parse_args(argv)
    try:
        options.langs = [Lang.parse(tag) for tag in _items(options.langs or ("en" if options.quick else ""))] or list(
            Lang
        )
        options.conditions = [Condition.parse(item) for item in _items(options.conditions or "")] or [
            Condition.parse(item) for item in _items("clean" if options.quick else FULL_CONDITIONS)
        ]
    except ValueError as exc:
        parser.error(str(exc))
    options.sections = _choices(parser, "section", options.sections, SECTIONS)
    options.engines = _choices(parser, "engine", options.engines, ENGINES)
    options.latency_samples = options.latency_samples or (2 if options.quick else 10)
    options.vosk_streams = 3 if options.quick else max(options.latency_samples, 16)
    options.resource_utterances = options.resource_utterances or (3 if options.quick else 20)
    return options


def _items(text: str) -> list[str]:
    return [item.strip() for item in text.split(",") if item.strip()]


def _choices(parser: argparse.ArgumentParser, what: str, text: str, known: tuple[str, ...]) -> list[str]:
    chosen = _items(text)
    unknown = [item for item in chosen if item not in known]
    if unknown:
        parser.error(f"unknown {what} {', '.join(unknown)}: choose from {', '.join(known)}")
    return chosen


class Output:
    """stdout, and the --out file when given."""

    def __init__(self, path: Path | None) -> None:
        self._streams: list[TextIO] = [sys.stdout]
        if path is not None:
            self._streams.append(path.open("w", encoding="utf-8"))

    def write(self, text: str) -> None:
        for stream in self._streams:
            stream.write(text.rstrip("\n") + "\n\n")
            stream.flush()

    def close(self) -> None:
        for stream in self._streams[1:]:
            stream.close()


def main(argv: list[str] | None = None) -> int:
    options = parse(argv)
    started = time.perf_counter()
    out = Output(options.out)
    out.write(header(shlex.join(sys.argv[1:] if argv is None else argv)))

    def utterances(lang: Lang) -> list[Utterance]:
        return corpus(lang, quick=options.quick)

    speech = Speech(options.cache)
    wanted = [u for lang in options.langs for u in utterances(lang)] + korean_corpus(quick=options.quick)
    made = speech.ensure(wanted)
    progress(f"corpus: {len(wanted)} sentences, {made} synthesized now, the others from {options.cache}")

    # Resources first: a child's ru_maxrss starts from the parent's at fork, so the parent must still be small.
    resource_text, resource_goals = _resources(options, speech) if "resources" in options.sections else ("", [])
    engines = _Engines(options)
    goals: list[list[object]] = []
    if "recognition" in options.sections:
        text, rows = _recognition(options, engines, speech, utterances)
        out.write(text)
        goals += rows
    if "latency" in options.sections:
        text, rows = _latency(options, engines, speech, utterances)
        out.write(text)
        goals += rows
    if resource_text:
        out.write(resource_text)
        goals += resource_goals
    if goals:
        out.write("## Goals\n\n" + _goal_table(goals))
    out.write(f"Ran in {time.perf_counter() - started:.0f} s; load average {load_average()} at the end.")
    out.close()
    return 0


def _resources(options: argparse.Namespace, speech: Speech) -> tuple[str, list[list[object]]]:
    measured: dict[str, tuple[str, dict[str, Any] | str]] = {}
    for engine, model_id in (("whisper", "whisper-base"), ("vosk", "vosk-ko")):
        if engine not in options.engines:
            continue
        found = model_dir(model_id)
        if isinstance(found, str):
            measured[engine] = (model_id, found)
            continue
        progress(f"resources {engine}: a fresh process, {options.resource_utterances} utterances")
        measured[engine] = (model_id, resources.measure(engine, found, options.resource_utterances, speech.folder))
    if not measured:
        return "", []
    goals: list[list[object]] = []
    whisper = measured.get("whisper")
    if whisper is not None:
        peak = None if isinstance(whisper[1], str) else whisper[1]["rss_peak_mb"]
        goals.append(_goal_row("peak RSS, whisper base", peak, resources.WHISPER_RSS_GOAL_MB, "MB"))
    return resources.tables(measured), goals


class _Engines:
    """The recognizers, loaded once on first use (or why they cannot be)."""

    def __init__(self, options: argparse.Namespace) -> None:
        self._options = options
        self._loaded: dict[str, Any] = {}

    def get(self, engine: str) -> Any:
        """The recognizer, or a string saying why there is none."""
        if engine not in self._loaded:
            model_id = "whisper-base" if engine == "whisper" else "vosk-ko"
            found = model_dir(model_id)
            if isinstance(found, str):
                self._loaded[engine] = found
            else:
                started = time.perf_counter()
                if engine == "whisper":
                    from voicehost.ears.recognizers.whisper import WhisperRecognizer

                    self._loaded[engine] = WhisperRecognizer(found)
                else:
                    from voicehost.ears.recognizers.vosk.recognizer import VoskRecognizer

                    self._loaded[engine] = VoskRecognizer(found)
                progress(f"{model_id} loaded in {time.perf_counter() - started:.1f} s")
        return self._loaded[engine]


def _recognition(
    options: argparse.Namespace, engines: _Engines, speech: Speech, utterances: Callable[[Lang], list[Utterance]]
) -> tuple[str, list[list[object]]]:
    results = Results()
    wrong_as_text = recognition.text_check(options.langs, utterances)
    if wrong_as_text:
        results.notes.append(
            "Not understood even as typed text (a corpus or vocabulary problem): " + "; ".join(wrong_as_text)
        )
    if "whisper" in options.engines or "baseline" in options.engines:
        whisper = engines.get("whisper")
        if isinstance(whisper, str):
            results.notes.append(f"whisper: {whisper}")
        else:
            if "whisper" not in options.engines:
                results.notes.append("The host path was left out (--engines); the baseline alone is not run.")
            else:
                recognition.run_whisper(
                    whisper,
                    speech,
                    options.langs,
                    options.conditions,
                    utterances,
                    results,
                    baseline="baseline" in options.engines,
                )
    if "vosk" in options.engines:
        vosk = engines.get("vosk")
        if isinstance(vosk, str):
            results.notes.append(f"vosk: {vosk}")
        else:
            recognition.run_vosk(vosk, speech, options.conditions, korean_corpus(quick=options.quick), results)
            results.notes.append(
                "vosk-ko: the only vosk model a package registry ships is Korean: espeak-ng's Korean "
                "voice saying the grammar's 8 nouns, and 10 words outside it (the vosk tests' "
                "words); no commands, clues or yes/no."
            )
    results.notes.append(
        "yes/no are heard as after one of the host's questions (Context.answering, as the host "
        "sets it); clues in the clue phase, everything else in the guessing phase, every card "
        "visible."
    )
    return recognition.tables(results), _recognition_goals(options, results)


def _recognition_goals(options: argparse.Namespace, results: Results) -> list[list[object]]:
    """Right intent on clean speech and at 10 dB SNR (when that condition ran), and no wrong reveals:
    the host path, every language together; '–' when the host path could not run."""
    if "whisper" not in options.engines:
        return []
    goals: list[list[object]] = []
    for condition, goal in (
        (Condition(None), recognition.RIGHT_CLEAN_GOAL),
        (Condition(recognition.NOISY_SNR_DB), recognition.RIGHT_NOISY_GOAL),
    ):
        if condition not in options.conditions:
            continue
        tally = recognition.total(results, HOST, condition.name)
        right = tally.count(*recognition.RIGHT_INTENT)
        goals.append(
            _goal_row(
                f"right intent, {'clean speech' if condition.snr_db is None else condition.name}, "
                "whisper base host path, every language",
                100 * right / tally.n if tally.n else None,
                goal,
                "%",
                ">=",
                f"{100 * right / tally.n if tally.n else 0:.1f} % ({right} of {tally.n})",
            )
        )
    tally = recognition.total(results, HOST)
    reveals = tally.outcomes[recognition.Outcome.WRONG_REVEAL]
    goals.append(
        _goal_row(
            "wrong reveals, whisper base host path, every condition",
            reveals if tally.n else None,
            recognition.WRONG_REVEALS_GOAL,
            "",
            "=",
            f"{reveals} (of {tally.n} utterances)",
        )
    )
    return goals


def _latency(
    options: argparse.Namespace, engines: _Engines, speech: Speech, utterances: Callable[[Lang], list[Utterance]]
) -> tuple[str, list[list[object]]]:
    from voicehost.mouth import SpeechError, Synthesizer

    whisper_timings: list[latency.Timing] | str | None = None
    vosk_timings: list[latency.Timing] | str | None = None
    try:
        synthesizers = {lang: Synthesizer(lang) for lang in {*options.langs, Lang.EN}}
    except SpeechError as exc:
        return f"## 2. Latency\n\nNot measured: the host cannot speak here ({exc})", []
    if "whisper" in options.engines:
        whisper = engines.get("whisper")
        if isinstance(whisper, str):
            whisper_timings = whisper
        else:
            from voicehost.ears.vad import Segmenter, VadError

            try:
                segmenter = Segmenter()
            except VadError as exc:
                whisper_timings = str(exc)
            else:
                said = latency.latency_sample(options.langs, options.latency_samples, utterances)
                whisper_timings = latency.whisper_latency(whisper, speech, said, synthesizers, segmenter)
    if "vosk" in options.engines:
        vosk = engines.get("vosk")
        if isinstance(vosk, str):
            vosk_timings = vosk
        else:
            said = latency.korean_streams(options.vosk_streams)
            vosk_timings = latency.vosk_latency(vosk, speech, said, synthesizers[Lang.EN])
    goals: list[list[object]] = []
    if whisper_timings is not None:
        p95 = None if isinstance(whisper_timings, str) else _p95([t.total_ms for t in whisper_timings])
        goals.append(
            _goal_row(
                "p95 end of speech → first sample of the verdict, whisper base", p95, latency.WHISPER_GOAL_MS, "ms"
            )
        )
    if vosk_timings is not None:
        p95 = None if isinstance(vosk_timings, str) else _p95([t.to_result_ms for t in vosk_timings])
        goals.append(_goal_row("p95 end of speech → result, vosk grammar path", p95, latency.VOSK_GOAL_MS, "ms"))
    return latency.tables(whisper_timings, vosk_timings), goals


def _p95(values: list[float]) -> float | None:
    return percentile(values, 95)


def _goal_row(
    what: str, measured: float | None, limit: float, unit: str, compare: str = "<=", shown: str | None = None
) -> list[object]:
    """goal, target, measured (as `shown` when given) and goal met?; `compare` is <=, >= or =."""
    return [
        what,
        f"{COMPARISONS[compare]} {limit:g} {unit}".rstrip(),
        "–" if measured is None else shown or f"{measured:.0f} {unit}".rstrip(),
        goal_met(measured, limit, compare),
    ]


def _goal_table(rows: list[list[object]]) -> str:
    return table(["goal", "target", "measured", "goal met?"], rows)


if __name__ == "__main__":
    raise SystemExit(main())
