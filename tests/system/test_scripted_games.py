"""Scripted games: whole games typed into the real CLI, one stdin file per game.

Every file in ``tests/scripts/`` is a game as players would say it at the table, one utterance a
line, played with ``voicehost play --text`` in a subprocess on a fixed board from
``tests/boards/`` (made with ``voicehost deal``). The test asserts what the events file says
happened, and checks what the host printed.

Script format
-------------
Lines starting with ``#`` are comments and are **stripped before the rest is fed to stdin**
(the host itself has no comment syntax: "# ..." would be heard as an utterance). Every other
line is fed as is, empty lines included: an empty line is an utterance the host must shrug off.
Headers, read from the comment lines:

``# args: ...``
    the ``play`` options (shell-quoted), e.g. ``--edition classic --board tests/boards/x.json``.
``# expect: game_over winner=red reason=all_found score=7``
    the last event is ``game_over`` with these fields (compared as text: ``number=unlimited``,
    ``token_taken=True``).
``# expect-events: game_started clue guess ...``
    optional: the exact sequence of event types (this is how "bad input changes nothing" is
    asserted: no extra event may appear).
``# expect-event: SEQ TYPE field=value ...``
    optional, repeatable: the event with this ``seq`` has this type and these fields.
``# expect-say: text``
    optional, repeatable: some announcement contains this text.
``# expect-not-say: text``
    optional, repeatable: no announcement contains this text.
``# expect-last-say: text``
    optional: the last announcement contains this text.
``# expect-console: text``
    optional, repeatable: the console (stderr) shows this text, and no announcement says it.
``# xfail: reason``
    a known bug in the host (not in the script): the test is ``xfail(strict=True)``.

Checks on every game: exit code 0 and nothing on stderr but the console's key hint; every stdout line is non-empty text;
``seq`` runs 1..n; one ``game_over``, the last event; and a simple secrecy check: an identity
word ("um agente azul", "the assassin"...) said right after a card's name must be that card's
identity, said no earlier than the event that revealed it (see ``check_secrecy``).

Runs are independent subprocesses (~0.2 s each); the selected scripts are run in parallel
once, on a thread pool, and each test reads its own result.
Parsing scripts and running the CLI live in ``tests/scripting.py``, shared with the crash tests.
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from tests.scripting import (
    BOARDS,
    ROOT,
    SCRIPTS,
    TIMEOUT,
    Run,
    Script,
    board_of,
    console_notes_only,
    kill_after,
    lines_text,
    parse_script,
    play_command,
    read_events,
    resume_cli,
    run_cli,
)

# Identity words as the prompts say them (prompts/*.toml, [identity] and the guess lines),
# per language. Matched case-sensitively: card names are printed in capitals, these are not.
IDENTITY_WORDS: dict[str, dict[str, tuple[str, ...]]] = {
    "pt": {
        "red": ("agente vermelho",),
        "blue": ("agente azul",),
        "green": ("agente verde",),
        "bystander": ("civil inocente",),
        "assassin": ("assassino",),
    },
    "it": {
        "red": ("agente rosso",),
        "blue": ("agente blu",),
        "green": ("agente verde",),
        "bystander": ("passante",),
        "assassin": ("assassino",),
    },
    "en": {
        "red": ("red agent",),
        "blue": ("blue agent",),
        "green": ("green agent",),
        "bystander": ("bystander",),
        "assassin": ("assassin",),
    },
}


# ---- scripts ----------------------------------------------------------------------------------

SCRIPT_FILES = sorted(SCRIPTS.glob("*.txt"))


def _param(path: Path) -> Any:
    script = parse_script(path)
    marks = [pytest.mark.xfail(strict=True, reason=script.xfail)] if script.xfail else []
    return pytest.param(script, id=script.name, marks=marks)


# ---- running the CLI -------------------------------------------------------------------------


class Runner:
    """Runs scripts on a thread pool, each once, and hands out the results."""

    def __init__(self, workdir: Path) -> None:
        self.workdir = workdir
        self.pool = ThreadPoolExecutor(max_workers=max(2, (os.cpu_count() or 2)))
        self.futures: dict[str, Future[Run]] = {}
        self.lock = threading.Lock()

    def submit(self, script: Script) -> Future[Run]:
        with self.lock:
            if script.name not in self.futures:
                self.futures[script.name] = self.pool.submit(
                    run_cli, script.args, script.stdin, self.workdir / script.name
                )
            return self.futures[script.name]

    def result(self, script: Script) -> Run:
        return self.submit(script).result(timeout=TIMEOUT)


@pytest.fixture(scope="module")
def runner(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Runner]:
    runner = Runner(tmp_path_factory.mktemp("scripted"))
    # Start every selected script now, so that they run side by side.
    for item in request.session.items:
        callspec = getattr(item, "callspec", None)
        script = callspec.params.get("script") if callspec else None
        if isinstance(script, Script):
            runner.submit(script)
    yield runner
    runner.pool.shutdown(wait=True, cancel_futures=True)


# ---- checks ----------------------------------------------------------------------------------


def check_log(run: Run) -> None:
    """seq runs 1..n, one game_over and it is the last event."""
    assert run.events, "no events were written"
    assert [e["seq"] for e in run.events] == list(range(1, len(run.events) + 1))
    assert run.events[0]["type"] == "game_started"
    overs = [e for e in run.events if e["type"] == "game_over"]
    assert len(overs) <= 1, f"more than one game_over: {overs}"


def check_said(run: Run) -> None:
    assert run.said, "the host said nothing"
    for number, line in enumerate(run.said, start=1):
        assert line.strip(), f"stdout line {number} is empty"
        assert line == line.strip(), f"stdout line {number} has stray spaces: {line!r}"
        assert any(ch.isalnum() for ch in line), f"stdout line {number} is not text: {line!r}"


def identity_mentions(line: str, cards: list[str], lang: str) -> list[tuple[str, str]]:
    """(card, identity) pairs the line states: an identity word soon after a card's name.

    "TROVÃO: um agente vermelho." and "Cobertas: GUINDASTE, um agente azul; ..." state an
    identity; "Ainda escondidas: UMBIGO, MOINHO, ..." does not. The text after a card's name,
    up to the next sentence or list break, is searched for the identity words.
    """
    words = IDENTITY_WORDS[lang.split("-")[0]]
    found = []
    for card in sorted(set(cards), key=len, reverse=True):
        for match in re.finditer(rf"(?<!\w){re.escape(card)}(?!\w)", line):
            tail = re.split(r"[.;!?]", line[match.end() : match.end() + 48])[0]
            if re.search(r"\b[A-ZÀ-Ý]{2,}", tail):
                continue  # another card name comes first: a list of names, not a reveal
            for identity, phrases in words.items():
                if any(phrase in tail for phrase in phrases):
                    found.append((card, identity))
    return found


def check_secrecy(run: Run, cards: list[str], lang: str) -> None:
    """No announcement pairs a card with an identity before the event that revealed it.

    Announcements and reveal events (guess, cover) come in the same order. Walking the
    announcements, each (card, identity) stated must be already revealed, or be revealed by a
    later event of the log that has not been announced yet (everything revealed before it in
    the log counts as revealed from then on). A pair that no event of the log reveals is a leak,
    or a wrong announcement. Kept simple: an undo hides its card again only once the walk passes
    it in the log, so a leak of an undone card before the next reveal would go unseen.
    """
    reveals: list[tuple[str, str] | tuple[str, int]] = []
    by_seq: dict[int, tuple[str, str]] = {}
    for event in run.events:
        if event["type"] in ("guess", "cover"):
            pair = (event["card"], event["identity"])
            by_seq[event["seq"]] = pair
            reveals.append(pair)
        elif event["type"] == "undo":
            reveals.append(("undo", int(event["undoes"])))
    position = 0
    revealed: list[tuple[str, str]] = []
    undone: set[int] = set()
    for number, line in enumerate(run.said, start=1):
        for pair in identity_mentions(line, cards, lang):
            if pair in revealed:
                continue
            while position < len(reveals):
                step = reveals[position]
                position += 1
                if step[0] == "undo":
                    undone.add(int(step[1]))
                    gone = by_seq[int(step[1])]
                    if gone in revealed:
                        revealed.remove(gone)
                    continue
                revealed.append(step)  # type: ignore[arg-type]
                if step == pair:
                    break
            else:
                pytest.fail(f"stdout line {number} says {pair[0]} is {pair[1]}, no event revealed that by then: {line}")


def check_expectations(script: Script, run: Run) -> None:
    last = run.events[-1]
    assert last["type"] == "game_over", f"the game did not end; last event: {last}"
    for key, value in script.expect_over.items():
        assert str(last.get(key)) == value, f"game_over {key}={last.get(key)!r}, expected {value}"
    if script.expect_types is not None:
        assert [e["type"] for e in run.events] == script.expect_types
    for seq, kind, fields in script.expect_events:
        assert seq <= len(run.events), f"there is no event {seq}"
        event = run.events[seq - 1]
        assert event["type"] == kind, f"event {seq} is {event}"
        for key, value in fields.items():
            assert str(event.get(key)) == value, f"event {seq} {key}={event.get(key)!r}, expected {value}: {event}"
    for text in script.expect_say:
        assert any(text in line for line in run.said), f"the host never said {text!r}"
    for text in script.expect_not_say:
        said = [line for line in run.said if text in line]
        assert not said, f"the host said {text!r}: {said[0]}"
    if script.expect_last_say is not None:
        assert script.expect_last_say in run.said[-1], f"the last announcement is {run.said[-1]!r}"
    for text in script.expect_console:
        assert text in run.stderr, f"the console never showed {text!r}"
        assert not any(text in line for line in run.said), f"the host said {text!r} aloud"


def test_the_secrecy_check_catches_a_leak() -> None:
    """The check itself: a card's identity said before (or without) its reveal fails."""
    cards = ["TROVÃO", "DETETIVE", "UMBIGO"]
    events = [
        {"seq": 1, "type": "game_started"},
        {"seq": 2, "type": "guess", "card": "TROVÃO", "identity": "red"},
        {"seq": 3, "type": "undo", "undoes": 2},
    ]
    fine = Run(0, "TROVÃO: um agente vermelho.\nCobertas: TROVÃO, um agente vermelho; UMBIGO.\n", "", events, "")
    check_secrecy(fine, cards, "pt-BR")
    for leak in (
        "Ainda escondidas: UMBIGO. DETETIVE: o assassino!\n",  # never revealed
        "TROVÃO: um agente azul.\n",  # wrong identity
    ):
        with pytest.raises(pytest.fail.Exception):
            check_secrecy(Run(0, leak, "", events, ""), cards, "pt-BR")
    assert identity_mentions("Ainda escondidas: UMBIGO, TROVÃO, DETETIVE.", cards, "pt-BR") == []


# ---- the scripted games ----------------------------------------------------------------------


def test_scripts_cover_every_language_and_edition() -> None:
    """The corpus itself: each language has classic, pictures and duet games, on kept boards."""
    seen: dict[str, set[str]] = {}
    for path in SCRIPT_FILES:
        script = parse_script(path)
        board = board_of(script.args)
        assert (ROOT / script.args[script.args.index("--board") + 1]).parent == BOARDS
        seen.setdefault(board["lang"], set()).add(board["edition"])
    assert seen == {lang: {"classic", "pictures", "duet"} for lang in ("pt-BR", "pt-PT", "it", "en")}


@pytest.mark.parametrize("script", [_param(path) for path in SCRIPT_FILES])
def test_scripted_game(script: Script, runner: Runner) -> None:
    run = runner.result(script)
    assert run.returncode == 0, run.stderr
    assert console_notes_only(run.stderr), run.stderr
    check_said(run)
    check_log(run)
    board = board_of(script.args)
    check_secrecy(run, board["cards"], board["lang"])
    check_expectations(script, run)


# ---- kill -9 in the middle, then resume ------------------------------------------------------


def kill_in_the_middle(script: Script, cut: int, workdir: Path) -> tuple[Path, Path, int]:
    """Pipe the first `cut` utterances into a live `play`, wait for their events, SIGKILL it.

    Returns the save, the events file and how many events were written before the kill.
    """
    # How many events those utterances make: the same lines, played to the end of input.
    prefix = run_cli(script.args, lines_text(script.feed[:cut]), workdir / "prefix")
    assert prefix.returncode == 0, prefix.stderr
    expected = len(prefix.events)
    save, events = workdir / "save.json", workdir / "events.jsonl"
    kill_after(play_command(script.args, save, events), lines_text(script.feed[:cut]), events, expected)
    return save, events, expected


KILLED = [
    # (script, utterances piped before the kill): each cut falls where no question is pending.
    pytest.param("pt-BR-classic-all-found", 17, id="classic-pt-BR"),
    pytest.param("it-duet-win", 11, id="duet-it"),
    pytest.param(
        "en-classic-coop-win",
        5,
        id="coop-random-en",
    ),
]


@pytest.mark.parametrize(("name", "cut"), KILLED)
def test_kill_9_then_resume_gives_the_same_log(name: str, cut: int, runner: Runner, tmp_path: Path) -> None:
    script = parse_script(SCRIPTS / f"{name}.txt")
    whole = runner.result(script)
    assert whole.returncode == 0, whole.stderr
    save, events, written = kill_in_the_middle(script, cut, tmp_path)
    before, _ = read_events(events)
    assert 1 < written < len(whole.events), "cut the game in its middle"
    assert before == whole.events[: len(before)]

    resumed = resume_cli(save, events, lines_text(script.feed[cut:]))
    assert resumed.returncode == 0, resumed.stderr
    after, text = resumed.events, resumed.events_text
    assert [e["seq"] for e in after] == list(range(1, len(after) + 1)), "seq must go on, without gaps or repeats"
    assert after == whole.events
    assert text == whole.events_text


def test_resume_fills_in_events_the_log_missed(runner: Runner, tmp_path: Path) -> None:
    """A kill between the save (written first) and the events log leaves the log one batch behind.

    The save is complete, so a resume can and must write the missing events to the log.
    """
    script = parse_script(SCRIPTS / "pt-BR-classic-all-found.txt")
    whole = runner.result(script)
    cut = 17  # the last of these utterances ("hum... o umbigo") wrote guess + turn_ended
    first = run_cli(script.args, lines_text(script.feed[:cut]), tmp_path)
    assert first.returncode == 0, first.stderr
    assert [e["type"] for e in first.events[-2:]] == ["guess", "turn_ended"]
    # What a kill right after the save's rename and before the log's write leaves behind:
    # the last announcement's events are in the save but not in the log.
    kept = first.events_text.splitlines(keepends=True)[:-2]
    events = tmp_path / "events.jsonl"
    events.write_text("".join(kept), encoding="utf-8")
    resumed = resume_cli(tmp_path / "save.json", events, lines_text(script.feed[cut:]))
    assert resumed.returncode == 0, resumed.stderr
    after = resumed.events
    assert [e["seq"] for e in after] == list(range(1, len(after) + 1)), "the log has a gap"
    assert after == whole.events


# ---- the boards ------------------------------------------------------------------------------

# How each kept board was dealt: `voicehost deal <options> --out tests/boards/<name>`.
DEALS = {
    "classic-pt-BR.json": "--edition classic --lang pt-BR --seed 11",
    "classic-pt-PT.json": "--edition classic --lang pt-PT --seed 12",
    "classic-it.json": "--edition classic --lang it --seed 13",
    "classic-en.json": "--edition classic --lang en --seed 14",
    "pictures-pt-BR.json": "--edition pictures --lang pt-BR --seed 21",
    "pictures-pt-PT.json": "--edition pictures --lang pt-PT --seed 22",
    "pictures-it.json": "--edition pictures --lang it --seed 23",
    "pictures-en.json": "--edition pictures --lang en --seed 24",
    "words5x4-pt-BR.json": "--edition pictures --deck words --lang pt-BR --seed 31",
    "words5x4-pt-PT.json": "--edition pictures --deck words --lang pt-PT --seed 32",
    "words5x4-it.json": "--edition pictures --deck words --lang it --seed 33",
    "words5x4-en.json": "--edition pictures --deck words --lang en --seed 34",
    "duet-pt-BR.json": "--edition duet --lang pt-BR --seed 41 --first a",
    "duet-pt-PT.json": "--edition duet --lang pt-PT --seed 42",
    "duet-it.json": "--edition duet --lang it --seed 43 --first b",
    "duet-en.json": "--edition duet --lang en --seed 44",
}


def test_boards_are_dealt_by_the_cli(tmp_path: Path) -> None:
    """Every kept board is exactly what `voicehost deal` writes with the options above."""
    from voicehost.cli import main

    assert sorted(path.name for path in BOARDS.glob("*.json")) == sorted(DEALS)
    for name, options in DEALS.items():
        out = tmp_path / name
        assert main(["deal", *options.split(), "--out", str(out)]) == 0
        assert out.read_text(encoding="utf-8") == (BOARDS / name).read_text(encoding="utf-8"), name
