"""Soak: play many scripted games back to back in one process, and watch that process's memory.

    python bench/soak.py                  # 1000 games, RSS sampled every 50
    python bench/soak.py --games 60 --every 10 --warmup 20 --tolerance-mb 10 --json
    python bench/soak.py --timer 600      # and a sand timer (a thread) on every turn

Each game is a script of ``tests/scripts`` (cycled in order), played through a real `Host` with a
quiet mouth and a real `Session` (the save rewritten and the events log appended after every
event, in a temporary folder), exactly as ``voicehost play --text`` wires them, minus stdin and
stdout. Every game must end as its script's ``# expect:`` line says, or the soak stops.

After every ``--every`` games (and after garbage collection) it samples the resident set size
(VmRSS), the open file descriptors, the live threads and the games still alive. It prints a table
and exits 1 when the RSS grew more than ``--tolerance-mb`` from game ``--warmup`` to the end, or
when threads, file descriptors or games are left behind by finished games; 0 otherwise.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import resource
import sys
import tempfile
import threading
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from engine.competitive import CompetitiveGame  # noqa: E402
from engine.duet import DuetGame  # noqa: E402
from engine.editions import new_game  # noqa: E402
from tests.scripting import Script, parse_script  # noqa: E402
from voicehost.cli.parser import build_parser  # noqa: E402
from voicehost.cli.setup import read_board, variants_from  # noqa: E402
from voicehost.prompts import Prompts  # noqa: E402
from voicehost.referee.host import Host, HostSettings  # noqa: E402
from voicehost.storage.events_log import EventLog  # noqa: E402
from voicehost.storage.session import Session  # noqa: E402
from voicehost.understanding.moment import ListenMode  # noqa: E402

SCRIPTS = ROOT / "tests" / "scripts"


def read_script(path: Path) -> Script:
    """A script as the scripted-game tests play it (tests/scripting.py): said to the host the addressed
    way unless the script chooses ``--listen`` itself."""
    return parse_script(path)


class QuietMouth:
    """Keeps only a count: nothing said is printed or kept."""

    def __init__(self) -> None:
        self.count = 0

    def say(self, text: str) -> None:
        self.count += 1


def play(script: Script, folder: Path, timer: int | None = None) -> None:
    """One whole game through the Host and a Session, as `voicehost play --text` wires them.

    `timer`: a sand timer of that many seconds on every turn (a thread per game: it must end with it)."""
    extra = ["--timer", str(timer)] if timer else []
    args = build_parser().parse_args(["play", "--text", *script.args, *extra])
    board = read_board(ROOT / args.board)
    variants = variants_from(args)
    game = new_game(board, variants)
    save, events = folder / "save.json", folder / "events.jsonl"
    save.unlink(missing_ok=True)
    events.unlink(missing_ok=True)
    simulated = args.simulated or "random"
    settings = {"timer": args.timer, "simulated": simulated, "seed": args.seed if args.seed is not None else 0}
    mouth = QuietMouth()
    prompts = Prompts.load(board.lang)
    log = EventLog(events, game.events[:1], resumed=False)
    session = Session(save, log, settings, on_failure=lambda *_: mouth.say("not saved"), on_recovery=lambda _what: None)
    host = Host(
        game,
        prompts,
        mouth,
        settings=HostSettings(
            timer_seconds=args.timer,
            simulated=simulated,
            seed=int(settings["seed"]),
            listening=ListenMode(args.listen or "open"),
        ),
        on_events=session,
        new_game=lambda: new_game(board, variants),
    )
    try:
        session(game, game.events)
        host.start()
        for line in script.feed:
            host.hear(line)
            if host.finished:
                break
    finally:
        host.close()
        session.close()
    last = host.game.events[-1].to_dict()
    wrong = {key: (last.get(key), value) for key, value in script.expect_over.items() if str(last.get(key)) != value}
    if last["type"] != "game_over" or wrong:
        raise RuntimeError(f"{script.name}: the game did not end as its script expects: {last} {wrong}")


@dataclass(frozen=True)
class Sample:
    games: int
    rss_mb: float
    fds: int
    threads: int
    live_games: int
    seconds: float


def rss_mb() -> float:
    """The resident set size now (VmRSS), in MB; the peak (ru_maxrss) where /proc is missing."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / (1024 * 1024 if sys.platform == "darwin" else 1024)


def open_fds() -> int:
    try:
        return len(os.listdir("/proc/self/fd"))
    except OSError:
        return -1


def sample(games: int, started: float) -> Sample:
    gc.collect()
    live = sum(1 for item in gc.get_objects() if issubclass(type(item), CompetitiveGame | DuetGame))  # no proxies
    return Sample(games, rss_mb(), open_fds(), threading.active_count(), live, time.perf_counter() - started)


@dataclass
class Result:
    samples: list[Sample]
    baseline: Sample
    growth_mb: float
    problems: list[str]

    @property
    def ok(self) -> bool:
        return not self.problems


def soak(
    games: int, every: int, warmup: int, tolerance_mb: float, *, timer: int | None = None, quiet: bool = False
) -> Result:
    scripts = [read_script(path) for path in sorted(SCRIPTS.glob("*.txt"))]
    if not scripts:
        raise SystemExit(f"no scripts in {SCRIPTS}")
    started = time.perf_counter()
    samples = [sample(0, started)]
    with tempfile.TemporaryDirectory(prefix="voicehost-soak-") as folder:
        for number in range(1, games + 1):
            play(scripts[(number - 1) % len(scripts)], Path(folder), timer)
            if number % every == 0 or number in (games, warmup):
                samples.append(sample(number, started))
                if not quiet:
                    print_row(samples[-1], samples)
    baseline = next((s for s in samples if s.games >= warmup), samples[-1])
    last = samples[-1]
    growth = last.rss_mb - baseline.rss_mb
    problems = []
    if growth > tolerance_mb:
        problems.append(
            f"RSS grew {growth:.1f} MB from game {baseline.games} to game {last.games} (> {tolerance_mb} MB)"
        )
    if last.threads > samples[0].threads:
        problems.append(f"{last.threads - samples[0].threads} threads left behind by finished games")
    if last.fds > baseline.fds:
        problems.append(f"{last.fds - baseline.fds} file descriptors left open by finished games")
    if last.live_games > 1:
        problems.append(f"{last.live_games} games still alive after they ended")
    return Result(samples, baseline, growth, problems)


def print_row(row: Sample, samples: list[Sample]) -> None:
    if len(samples) == 2:
        print(f"{'games':>6} {'RSS MB':>8} {'fds':>5} {'threads':>7} {'games alive':>11} {'seconds':>8}")
        print_line(samples[0])
    print_line(row)


def print_line(row: Sample) -> None:
    print(f"{row.games:>6} {row.rss_mb:>8.1f} {row.fds:>5} {row.threads:>7} {row.live_games:>11} {row.seconds:>8.1f}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--every", type=int, default=50, help="sample after this many games")
    parser.add_argument("--warmup", type=int, default=100, help="growth is measured from this game on")
    parser.add_argument("--tolerance-mb", type=float, default=20.0)
    parser.add_argument("--timer", type=int, default=None, metavar="SECONDS", help="a sand timer on every turn")
    parser.add_argument("--json", action="store_true", help="also print the result as one JSON line at the end")
    options = parser.parse_args(argv)
    result = soak(options.games, options.every, options.warmup, options.tolerance_mb, timer=options.timer)
    print(f"RSS from game {result.baseline.games} to game {result.samples[-1].games}: {result.growth_mb:+.1f} MB")
    for problem in result.problems:
        print(f"soak: {problem}", file=sys.stderr)
    if options.json:
        summary: dict[str, Any] = {
            "ok": result.ok,
            "growth_mb": result.growth_mb,
            "baseline_games": result.baseline.games,
            "problems": result.problems,
            "samples": [asdict(s) for s in result.samples],
        }
        print(json.dumps(summary))
    return 0 if result.ok else 1


if __name__ == "__main__":
    sys.exit(main())
