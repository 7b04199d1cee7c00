"""The sand timer: warnings at 30 and 10 seconds, the last five counted, expiry, pause."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from pathlib import Path

from voicehost.referee.timer import SandTimer


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def collect(seconds: int, steps: list[float]) -> list[tuple[str, int]]:
    clock = FakeClock()
    heard: list[tuple[str, int]] = []
    done = threading.Event()

    def tick(event: str, left: int) -> None:
        heard.append((event, left))
        if event == "expired":
            done.set()

    timer = SandTimer(tick, clock=clock, resolution=0.002)
    timer.flip(seconds)
    for step in steps:
        clock.now += step
        time.sleep(0.02)
    done.wait(2)
    timer.close()
    return heard


def test_warnings_countdown_and_expiry() -> None:
    heard = collect(40, [1.0] * 41)
    assert heard[0] == ("started", 40)
    assert ("warning", 30) in heard and ("warning", 10) in heard
    assert [left for event, left in heard if event == "countdown"] == [5, 4, 3, 2, 1]
    assert heard[-1] == ("expired", 0)


def test_a_short_timer_skips_warnings_it_cannot_give() -> None:
    heard = collect(8, [1.0] * 9)
    assert ("warning", 30) not in heard and ("warning", 10) not in heard
    assert [left for event, left in heard if event == "countdown"] == [5, 4, 3, 2, 1]


def test_pause_and_resume_keep_the_sand() -> None:
    clock = FakeClock()
    heard: list[tuple[str, int]] = []
    timer = SandTimer(lambda e, s: heard.append((e, s)), clock=clock, resolution=0.002)
    timer.flip(60)
    clock.now += 20
    assert timer.pause()
    clock.now += 500  # paused: no sand runs
    time.sleep(0.02)
    assert timer.seconds_left() == 40
    assert timer.resume()
    assert 39 <= timer.seconds_left() <= 40
    assert not any(event == "expired" for event, _ in heard)
    timer.close()


def test_the_timer_speaks_while_the_host_waits_and_can_end_the_turn(tmp_path: Path) -> None:
    """Real time, real process: a 6-second timer with the house rule ends the guessing on its own."""
    board = Path(__file__).parents[1] / "boards" / "classic-en.json"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "voicehost.cli",
            "play",
            "--text",
            "--board",
            str(board),
            "--timer",
            "6",
            "--timer-ends-turn",
            "--save",
            str(tmp_path / "s.json"),
            "--events",
            str(tmp_path / "e.jsonl"),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdin is not None and proc.stdout is not None
    lines = [proc.stdout.readline()]
    proc.stdin.write("animal, two\n")
    proc.stdin.flush()
    lines.append(proc.stdout.readline())
    lines.append(proc.stdout.readline())  # the timer flipped for the guessing
    proc.stdin.write("the sheriff\n")
    proc.stdin.flush()
    deadline = time.time() + 15
    while time.time() < deadline:
        line = proc.stdout.readline()
        lines.append(line)
        if "Time's up" in line:
            break
    proc.stdin.close()
    proc.wait(timeout=10)
    said = "".join(lines)
    assert "5" in said and "Time's up" in said
    events = (tmp_path / "e.jsonl").read_text(encoding="utf-8")
    assert '"reason": "timer"' in events and '"event": "expired"' in events
