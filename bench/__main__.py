"""`python -m bench`: recognition, table talk, latency, memory and whole games of the voice host, as
Markdown tables.

    python -m bench --out bench-results.md   # everything: held-out voices x 3 conditions (hours on 2 cores)
    python -m bench --quick                  # CI: 1 voice per language, clean + babble, a few utterances
    python -m bench --langs en,it --conditions clean,white-10 --sections recognition
    python -m bench --sections table         # whole games by voice: what a move costs a table

Progress goes to stderr, the tables to stdout (and to --out FILE). Goals are printed with a "goal met?"
column and never fail the command: it exits 0 unless something crashes.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import time
from pathlib import Path
from typing import Any, TextIO

from bench import latency, recognition, resources
from bench import table as games
from bench.corpus import Condition, Utterance, corpus, default_cache, voices_of
from bench.korean import korean_corpus
from bench.places import place_corpus
from bench.players import PLANNED_TURNS
from bench.recognition import HOST, Outcome, Results, TalkOutcome, model_dir, progress
from bench.report import COMPARISONS, goal_met, header, load_average, percentile, table
from engine.lang import Lang
from voicehost.ears.recognizers import make_recognizer

SECTIONS = ("recognition", "latency", "resources", "table")
ENGINES = ("whisper", "baselines", "vosk")
FULL_CONDITIONS = "clean,babble-10-reverb,white-10"
QUICK_CONDITIONS = "clean,babble-10-reverb"


def parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m bench",
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--quick", action="store_true", help="1 voice per language, a few utterances (CI)")
    parser.add_argument("--langs", default="pt-BR,pt-PT,it,en", help="comma-separated game languages")
    parser.add_argument(
        "--conditions",
        help=f"comma-separated (bench/noise.py Condition; default {FULL_CONDITIONS}; --quick: {QUICK_CONDITIONS})",
    )
    parser.add_argument("--sections", default=",".join(SECTIONS), help="comma-separated: " + ",".join(SECTIONS))
    parser.add_argument("--engines", default=",".join(ENGINES), help="comma-separated: " + ",".join(ENGINES))
    parser.add_argument("--latency-samples", type=int, help="moves of each kind per language (default 10; --quick: 2)")
    parser.add_argument(
        "--latency-paths", default=",".join(latency.PATHS), help="comma-separated: " + ",".join(latency.PATHS)
    )
    parser.add_argument(
        "--session-seconds", type=float, help=f"simulated hearing (default {resources.SESSION_S:g}; --quick: 60)"
    )
    parser.add_argument(
        "--kinds",
        help="comma-separated utterance kinds to hear (card, lead-in, clue, command, yes/no, talk, place, "
        "addressed; default all): a section of the recognition table, e.g. card,place",
    )
    parser.add_argument(
        "--table-editions", default="classic,duet", help="table: comma-separated editions (classic, duet)"
    )
    parser.add_argument(
        "--table-ways", default="open,addressed", help="table: ways of playing (open; addressed, in Classic)"
    )
    parser.add_argument("--table-games", type=int, default=1, help="table: games per row (default 1)")
    parser.add_argument(
        "--table-satellite",
        default="en",
        help="table: languages also played through a real wyoming-satellite, in real time ('' for none)",
    )
    parser.add_argument(
        "--table-satellite-conditions", help="table: conditions through the satellite (default: the table's)"
    )
    parser.add_argument("--table-transcripts", type=Path, help="table: write each game's transcript in this folder")
    parser.add_argument(
        "--table-hard-tail", action="store_true", help="table: espeak-ng's held-out voices sit at the table too"
    )
    parser.add_argument("--cache", type=Path, default=default_cache(), help="where synthesized speech is kept")
    parser.add_argument(
        "--calibration",
        type=Path,
        help="decide with this calibration.json instead of the shipped one (compare calibrations on the same hearings)",
    )
    parser.add_argument("--out", type=Path, help="also write the tables to this file")
    options = parser.parse_args(argv)
    try:
        options.langs = [Lang.parse(tag) for tag in _items(options.langs)]
        conditions = options.conditions or (QUICK_CONDITIONS if options.quick else FULL_CONDITIONS)
        table_conditions = options.conditions or games.CONDITIONS
        options.conditions = [Condition.parse(item) for item in _items(conditions)]
        options.table_conditions = [Condition.parse(item) for item in _items(table_conditions)]
        satellite_conditions = options.table_satellite_conditions or table_conditions
        options.table_satellite_conditions = [Condition.parse(item) for item in _items(satellite_conditions)]
        options.table_satellite = [Lang.parse(tag) for tag in _items(options.table_satellite)]
    except ValueError as exc:
        parser.error(str(exc))
    options.sections = _choices(parser, "section", options.sections, SECTIONS)
    options.engines = _choices(parser, "engine", options.engines, ENGINES)
    options.latency_paths = _choices(parser, "latency path", options.latency_paths, latency.PATHS)
    options.table_editions = _choices(parser, "edition", options.table_editions, games.EDITIONS)
    options.table_ways = _choices(parser, "way of playing", options.table_ways, games.WAYS)
    options.latency_samples = options.latency_samples or (2 if options.quick else 10)
    options.vosk_streams = 3 if options.quick else 16
    default_session = resources.QUICK_SESSION_S if options.quick else resources.SESSION_S
    options.session_seconds = options.session_seconds or default_session
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
            path.parent.mkdir(parents=True, exist_ok=True)  # a results folder named for this run
            self._streams.append(path.open("w", encoding="utf-8"))

    def write(self, text: str) -> None:
        for stream in self._streams:
            stream.write(text.rstrip("\n") + "\n\n")
            stream.flush()

    def close(self) -> None:
        for stream in self._streams[1:]:
            stream.close()


class Engines:
    """The recognizers, loaded once on first use (or why they cannot be)."""

    def __init__(self) -> None:
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
                self._loaded[engine] = make_recognizer(engine, found)
                progress(f"{model_id} loaded in {time.perf_counter() - started:.1f} s")
        return self._loaded[engine]


def held_out(options: argparse.Namespace) -> list[Utterance]:
    """The held-out voices' corpus (--quick: the first voice of each language, a few of each kind), and
    cards said to the host by name for the addressed way of playing (the test board's)."""
    said: list[Utterance] = []
    for lang in options.langs:
        voices = voices_of(lang, "held-out")
        if not voices:
            progress(f"no held-out voice installed for {lang.value}")
        found = corpus(lang, voices[:1] if options.quick else voices, quick=options.quick)
        cards = [u for u in found if u.kind == "card" and (options.quick or u.board == "test")]
        places = place_corpus(lang, voices[:1] if options.quick else voices, quick=options.quick)
        said += found + [recognition.addressed(u) for u in cards] + places
    if options.kinds:
        kinds = set(_items(options.kinds))
        said = [u for u in said if u.kind in kinds]
    return said


def main(argv: list[str] | None = None) -> int:
    options = parse(argv)
    if options.calibration is not None:
        from voicehost.decision.calibration import Calibration, use

        use(Calibration.from_dict(json.loads(options.calibration.read_text(encoding="utf-8"))))
    started = time.perf_counter()
    out = Output(options.out)
    out.write(header(shlex.join(sys.argv[1:] if argv is None else argv)))
    engines = Engines()
    goals: list[list[object]] = []
    sections: list[str] = []
    if "resources" in options.sections and "whisper" in options.engines:
        text, rows = _resources(options)  # first: a fresh process while this one is still small and idle
        sections.append(text)
        goals += rows
    if "recognition" in options.sections:
        text, rows = _recognition(options, engines)
        out.write(text)
        goals += rows
    if "latency" in options.sections:
        text, rows = _latency(options, engines)
        out.write(text)
        goals += rows
    if "table" in options.sections:
        text, rows = _table(options, engines)
        out.write(text)
        goals += rows
    for text in sections:
        out.write(text)
    if goals:
        out.write("## Goals\n\n" + table(["goal", "target", "measured", "goal met?"], goals))
    out.write(f"Ran in {time.perf_counter() - started:.0f} s; load average {load_average()} at the end.")
    out.close()
    return 0


def _resources(options: argparse.Namespace) -> tuple[str, list[list[object]]]:
    found = model_dir("whisper-base")
    seconds = options.session_seconds
    if isinstance(found, str):
        measured: dict[str, Any] | str = found
    else:
        progress(f"resources: a fresh process hears {seconds:g} s of a table")
        measured = resources.measure(found, seconds, options.cache, options.quick)
    peak = None if isinstance(measured, str) else measured["peak_mb"]
    goal = _goal_row(f"peak RSS, Whisper base, {seconds / 60:g} min heard", peak, resources.RSS_GOAL_MB, "MB")
    return resources.tables(measured, seconds), [goal]


def _recognition(options: argparse.Namespace, engines: Engines) -> tuple[str, list[list[object]]]:
    results = Results()
    goals: list[list[object]] = []
    if "whisper" in options.engines:
        whisper = engines.get("whisper")
        if isinstance(whisper, str):
            results.notes.append(f"whisper: {whisper}")
        else:
            said = held_out(options)
            progress(f"recognition: {len(said)} utterances x {len(options.conditions)} conditions")
            hearings = recognition.hear_all(
                whisper, said, options.conditions, options.cache, prompted="baselines" in options.engines
            )
            recognition.score_whisper(hearings, results)
            if "baselines" not in options.engines:
                for key in [key for key in results.moves if key[0] != HOST]:
                    del results.moves[key]
            guesses = results.total(HOST, recognition.GUESS_KINDS)
            wrong = guesses.count(Outcome.WRONG_REVEAL)
            share = 100 * wrong / guesses.n if guesses.n else None
            goals.append(
                _goal_row(
                    "WRONG reveals, host path, held-out voices, every condition",
                    share,
                    recognition.WRONG_REVEAL_GOAL,
                    "%",
                    shown=f"{share or 0:.2f} % ({wrong} of {guesses.n} guesses)",
                )
            )
            for listening in ("addressed", "open"):
                acted = sum(
                    tally.count(TalkOutcome.ACTED) for key, tally in results.talk.items() if key[0] == listening
                )
                lines = sum(tally.n for key, tally in results.talk.items() if key[0] == listening)
                goals.append(
                    _goal_row(
                        f"table talk acted on, {listening}",
                        acted if lines else None,
                        recognition.TALK_ACTED_GOAL,
                        "",
                        "=",
                        f"{acted} of {lines} lines",
                    )
                )
    if "vosk" in options.engines:
        vosk = engines.get("vosk")
        if isinstance(vosk, str):
            results.notes.append(f"vosk: {vosk}")
        else:
            recognition.run_vosk(vosk, korean_corpus(quick=options.quick), options.conditions, options.cache, results)
    return recognition.tables(results), goals


def _latency(options: argparse.Namespace, engines: Engines) -> tuple[str, list[list[object]]]:
    from voicehost.mouth import SpeechError, Synthesizer

    whisper_timings: list[latency.Timing] | str | None = None
    vosk_timings: list[latency.Timing] | str | None = None
    try:
        synthesizers: dict[Lang, Any] = {lang: Synthesizer(lang) for lang in {*options.langs, Lang.EN}}
    except SpeechError as exc:
        return f"## 2. Latency\n\nNot measured: the host cannot speak here ({exc})", []
    if "whisper" in options.engines:
        whisper = engines.get("whisper")
        if isinstance(whisper, str):
            whisper_timings = whisper
        else:
            from voicehost.ears.vad import VadError

            said = latency.sample(options.langs, options.latency_samples, quick=options.quick)
            try:
                whisper_timings = latency.whisper_latency(
                    whisper, said, synthesizers, options.cache, options.latency_paths
                )
            except VadError as exc:
                whisper_timings = str(exc)
    if "vosk" in options.engines:
        vosk = engines.get("vosk")
        if isinstance(vosk, str):
            vosk_timings = vosk
        else:
            words = latency.korean_streams(options.vosk_streams)
            vosk_timings = latency.vosk_latency(vosk, words, synthesizers[Lang.EN], options.cache)
    goals: list[list[object]] = []
    if isinstance(whisper_timings, list):
        for path in options.latency_paths:
            on_path = [t for t in whisper_timings if t.path == path]
            groups = [[t for t in on_path if t.lang == lang.value] for lang in options.langs]
            groups += [[t for t in on_path if t.kind == kind] for kind in latency.KINDS]
            p90s = [p for p in (percentile([t.first_ms for t in g], 90) for g in groups) if p is not None]
            worst = max(p90s, default=None)
            where = "a satellite" if path == "satellite" else "a microphone"
            what = f"p90 end of speech → first sample, Whisper base, {where}, worst language or kind"
            goals.append(_goal_row(what, worst, latency.goal_of(path), "ms"))
    elif whisper_timings is not None:
        goals.append(_goal_row("p90 end of speech → first sample, Whisper base", None, latency.WHISPER_GOAL_MS, "ms"))
    if vosk_timings is not None:
        p90 = None if isinstance(vosk_timings, str) else percentile([t.to_result_ms for t in vosk_timings], 90)
        goals.append(_goal_row("p90 end of speech → result, vosk grammar", p90, latency.VOSK_GOAL_MS, "ms"))
    return latency.tables(whisper_timings, vosk_timings), goals


def _table(options: argparse.Namespace, engines: Engines) -> tuple[str, list[list[object]]]:
    """Whole games by voice (--quick: one short game, the first language, clean, no satellite)."""
    whisper = engines.get("whisper")
    if isinstance(whisper, str):
        return f"## 4. A table: whole games by voice\n\nNot measured: {whisper}", []
    found = model_dir("whisper-base")
    assert not isinstance(found, str)
    turns = games.QUICK_TURNS if options.quick else PLANNED_TURNS
    if options.quick:
        chosen = [games.Cell(options.langs[0], "classic", "open", Condition("clean"))]
    else:
        chosen = list(games.cells(options.langs, options.table_conditions, options.table_editions, options.table_ways))
    progress(f"table: {len(chosen)} rows x {options.table_games} games, played faster than real time")
    rows = games.run(
        whisper,
        chosen,
        games=options.table_games,
        cache_dir=options.cache,
        planned_turns=turns,
        hard_tail=options.table_hard_tail,
    )
    notes: list[str] = []
    satellite = [] if options.quick else options.table_satellite
    through = [
        games.Cell(lang, "classic", "open", condition, "satellite")
        for lang in satellite
        for condition in options.table_satellite_conditions
    ]
    if through:
        more, notes = games.run_satellite(
            through,
            games=options.table_games,
            model_dir=found,
            cache_dir=options.cache,
            planned_turns=turns,
            hard_tail=options.table_hard_tail,
        )
        rows += more
    if options.table_transcripts is not None:
        games.write_transcripts(rows, options.table_transcripts)
    return games.section(rows, notes), games.goals(rows)


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


if __name__ == "__main__":
    raise SystemExit(main())
