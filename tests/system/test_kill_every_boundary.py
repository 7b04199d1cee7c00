"""kill -9 at every event boundary, then --resume: the events file ends exactly as without the kill.

For a scripted game (``tests/scripts``), `probe` first plays it in-process, one utterance at a time,
and notes after each how many events the events file holds: that says which utterances write
which events. Then, for every event k of the game:

- the real CLI is started in a subprocess, fed the utterances up to the one that writes event k
  (stdin left open, as at a table), SIGKILLed as soon as the events file holds those events,
  and `play --resume` is fed the remaining utterances;
- when one utterance writes several events (guess + turn_ended), the save (written first) holds
  them all and the log may hold only some: the kill is also made to land between the save and
  each of the log's lines, by cutting the killed run's events file back to k lines.

Each resumed run must leave the events file byte for byte equal to the uninterrupted run's.
A cut always falls after an utterance that wrote events and left no question of the host's
pending (the probe checks that, so a cut never loses a question the resumed host cannot know).

The classic game runs by default; the others are marked ``slow`` (``pytest -m slow``).
"""

from __future__ import annotations

import shutil
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path

import pytest

from tests.scripting import (
    SCRIPTS,
    TIMEOUT,
    Run,
    Script,
    Step,
    console_notes_only,
    kill_after,
    lines_text,
    parse_script,
    play_command,
    probe,
    resume_cli,
    resume_command,
    run_cli,
)

WORKERS = 2


@dataclass(frozen=True)
class Cut:
    lines: int  # utterances piped in before the kill
    written: int  # events in the file when the process is killed
    keep: int  # events left in the file: `written`, or fewer (killed between the save and the log)


def plan(steps: list[Step]) -> list[Cut]:
    """Every cut of a game whose probe gave these steps (steps[0]: before any utterance)."""
    cuts = [Cut(0, steps[0].events, steps[0].events)]  # right after game_started
    for before, step in pairwise(steps):
        if step.events == before.events:
            continue
        assert step.question is None and step.chosen_side is None, (
            f"utterance {step.lines} writes events and leaves a question pending ({step}): no clean cut there"
        )
        cuts += [Cut(step.lines, step.events, keep) for keep in range(before.events, step.events + 1)]
    return cuts


def keep_lines(events: Path, keep: int) -> None:
    lines = events.read_text(encoding="utf-8").splitlines(keepends=True)
    events.write_text("".join(lines[:keep]), encoding="utf-8")


def killed_then_resumed(script: Script, lines: int, cuts: list[Cut], workdir: Path) -> list[tuple[Cut, Run]]:
    """One kill after `lines` utterances; then one resume per cut, each on its own copy of the files."""
    killed = workdir / f"killed-{lines}"
    killed.mkdir(parents=True)
    save, events = killed / "save.json", killed / "events.jsonl"
    kill_after(play_command(script.args, save, events), lines_text(script.feed[:lines]), events, cuts[0].written)
    results = []
    for cut in cuts:
        copy = workdir / f"resumed-{lines}-{cut.keep}"
        shutil.copytree(killed, copy)
        keep_lines(copy / "events.jsonl", cut.keep)
        rest = lines_text(script.feed[cut.lines :])
        results.append((cut, resume_cli(copy / "save.json", copy / "events.jsonl", rest)))
    return results


def uninterrupted(script: Script, workdir: Path) -> tuple[Run, list[Step]]:
    whole = run_cli(script.args, script.stdin, workdir / "whole")
    assert whole.returncode == 0, whole.stderr
    assert whole.events and whole.events[-1]["type"] == "game_over"
    steps, probed = probe(script, workdir / "probe")
    assert probed.returncode == 0, probed.stderr
    # The in-process probe plays the same game as the CLI in a subprocess, or its steps mean nothing.
    assert probed.events_text == whole.events_text
    assert steps[-1].events == len(whole.events)
    return whole, steps


GAMES = [
    pytest.param("en-classic-all-found", id="classic-en"),  # an undo, a confirmation, every command
    pytest.param("it-pictures-coop-choose", id="pictures-coop-choose-it", marks=pytest.mark.slow),
    pytest.param("en-classic-coop-win", id="coop-random-en", marks=pytest.mark.slow),  # the seeded simulated team
    pytest.param("en-duet-win", id="duet-en", marks=pytest.mark.slow),  # side choices, passes, side_done
]


@pytest.mark.parametrize("name", GAMES)
def test_kill_9_at_every_event_boundary_then_resume(name: str, tmp_path: Path) -> None:
    script = parse_script(SCRIPTS / f"{name}.txt")
    whole, steps = uninterrupted(script, tmp_path)
    cuts = plan(steps)
    assert {cut.keep for cut in cuts} == set(range(1, len(whole.events) + 1)), "every event k is a cut"
    by_lines: dict[int, list[Cut]] = {}
    for cut in cuts:
        by_lines.setdefault(cut.lines, []).append(cut)
    with ThreadPoolExecutor(max_workers=WORKERS) as pool:
        jobs = [
            pool.submit(killed_then_resumed, script, lines, group, tmp_path / "cuts")
            for lines, group in by_lines.items()
        ]
        results = [item for job in jobs for item in job.result(timeout=TIMEOUT * 4)]
    assert len(results) == len(cuts)
    wrong = []
    for cut, resumed in results:
        if resumed.returncode != 0 or not console_notes_only(resumed.stderr):
            wrong.append(f"{cut}: exit {resumed.returncode}, stderr {resumed.stderr.strip()[-300:]}")
        elif resumed.events_text != whole.events_text:
            got = [(e["seq"], e["type"]) for e in resumed.events]
            wrong.append(f"{cut}: the events differ; got {got}")
    assert not wrong, f"{len(wrong)} of {len(cuts)} cuts went wrong:\n" + "\n".join(wrong)


def test_killed_again_and_again_each_resume_goes_on(tmp_path: Path) -> None:
    """One game killed at every utterance that writes events, each time resumed from the last kill's
    files (a resumed game killed again): the last resume still ends with the uninterrupted log."""
    script = parse_script(SCRIPTS / "en-duet-win.txt")
    whole, steps = uninterrupted(script, tmp_path)
    boundaries = [step for before, step in pairwise(steps) if step.events != before.events]
    assert all(step.question is None and step.chosen_side is None for step in boundaries)
    save, events = tmp_path / "chain" / "save.json", tmp_path / "chain" / "events.jsonl"
    save.parent.mkdir()
    done = 0
    for number, step in enumerate(boundaries[:-1]):
        first = number == 0
        command = play_command(script.args, save, events) if first else resume_command(save, events)
        kill_after(command, lines_text(script.feed[done : step.lines]), events, step.events)
        assert events.read_text(encoding="utf-8") == "".join(whole.events_text.splitlines(keepends=True)[: step.events])
        done = step.lines
    last = resume_cli(save, events, lines_text(script.feed[done:]))
    assert last.returncode == 0, last.stderr
    assert last.events_text == whole.events_text


def test_a_line_torn_by_the_crash_is_rewritten_whole(tmp_path: Path) -> None:
    """A crash in the middle of writing a line (power cut, a full disk, a kill during a large write)
    leaves half an event at the end of the log; the save has the whole event. The resume must
    leave a log of whole lines, equal to the uninterrupted one."""
    script = parse_script(SCRIPTS / "en-classic-all-found.txt")
    whole = run_cli(script.args, script.stdin, tmp_path / "whole")
    cut = 15  # "the igloo": guess + turn_ended, events 9 and 10
    first = run_cli(script.args, lines_text(script.feed[:cut]), tmp_path / "cut")
    assert [e["type"] for e in first.events[-2:]] == ["guess", "turn_ended"]
    events = tmp_path / "cut" / "events.jsonl"
    lines = first.events_text.splitlines(keepends=True)
    events.write_text("".join(lines[:-1]) + lines[-1][: len(lines[-1]) // 2], encoding="utf-8")
    resumed = resume_cli(tmp_path / "cut" / "save.json", events, lines_text(script.feed[cut:]))
    assert resumed.returncode == 0, resumed.stderr
    assert events.read_text(encoding="utf-8") == whole.events_text
