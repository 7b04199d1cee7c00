"""Whole games through a real Wyoming satellite: `voicehost play --satellite HOST:PORT`.

The satellite is the real wyoming-satellite from the package registry (1.0.0, the one PyPI has; it
pins an old wyoming, so it lives in a venv of its own, made here on first use: `.venv/wyoming-satellite`,
or the Python that VOICEHOST_SATELLITE_PYTHON names; bench/satellite.py, which the bench's table uses
too). Its microphone and speaker commands are files (bench/satellite_room.py): the players' lines,
synthesized by espeak-ng (the bench's simulated table, bench/players.py), are played into its
microphone in real time, 64 ms at a time, with silence between them; every announcement the host
sends to its speaker is written out as a WAV.

`voicehost play --satellite` runs in this process, through the command line's own code (cli.main), with
the real Whisper base model, the VAD, the voice loop with its echo gate and the host. Only the sand
timer's clock is the test's (it moves only when the test says, so the timer is deterministic).

The players behave as at a real table (bench/players.py: clue, guesses, pass, the assassin, goodbye;
they answer what the host asks): each line is said once the host has heard everything before it,
answered, and stopped talking. No assertion reads the wall clock; timeouts are only safety nets. The
same commit plays the same game: every line starts on a 1024-sample boundary after silence, so the VAD
and Whisper get the same samples.

One game is played undisturbed; in another the satellite is killed mid-game (SIGKILL to its process
group: the Raspberry Pi unplugged) and started again: the host says once that it is lost, holds the
sand, looks for it every second, says when it is back, and the game ends with the very same events.
"""

from __future__ import annotations

import contextlib
import functools
import io
import json
import os
import re
import socket
import threading
import time
import wave
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import voicehost.cli.play
import voicehost.frontends.satellite
import voicehost.mouth
import voicehost.referee.host
from bench.announcements import Announcements
from bench.corpus import default_cache
from bench.lines import find_voice
from bench.satellite import (
    SATELLITE_VENV,
    SATELLITE_VERSION,
    Room,
    Satellite,
    SatelliteTable,
    SatelliteUnavailable,
    free_port,
)
from bench.satellite import satellite_python as find_satellite_python
from engine.game import Phase
from engine.lang import Lang
from tests.speech_models import whisper_base_dir
from tests.watched import SandClock, WatchedHost, guesses
from voicehost import cli
from voicehost.audio.samples import SAMPLE_RATE, Audio
from voicehost.ears.recognizers import make_ears
from voicehost.ears.streams import Ears
from voicehost.frontends.satellite import SatelliteFrontend
from voicehost.frontends.satellite_problems import (
    BAD_RATE,
    BUSY,
    MALFORMED,
    NOT_STREAMING,
    REFUSED,
    TOO_LARGE,
    Problem,
    SatelliteLost,
    SatelliteNotice,
    told,
    why,
)
from voicehost.mouth.espeak import Synthesizer
from voicehost.prompts import Prompts
from voicehost.referee.host import Host
from voicehost.referee.timer import SandTimer

ROOT = Path(__file__).resolve().parents[2]
BOARD = ROOT / "tests" / "boards" / "classic-en.json"  # blue starts; BUTTERFLY is the assassin
VOICE = find_voice("espeak:en-us")
TIMER_SECONDS = 120
HOST_WPM = 260
AWAY_SECONDS = 600  # sand that would run while the satellite is away, were the timer not held
BUSY_TIMES = 3  # connections found busy before the other server lets the satellite go
TIMEOUT = 180.0  # a safety net only: no assertion depends on how long anything takes
EN = Prompts.load(Lang.EN)


# ---- the satellite ----------------------------------------------------------------------------------


def _needs_wyoming() -> None:
    pytest.importorskip("wyoming", reason="voicehost's side needs wyoming: pip install 'voicehost[satellite]'")


@pytest.fixture(scope="session")
def satellite_python() -> Path:
    """A Python that runs wyoming-satellite: VOICEHOST_SATELLITE_PYTHON, or a venv made here once."""
    _needs_wyoming()
    try:
        return find_satellite_python()
    except SatelliteUnavailable as exc:
        if os.environ.get("VOICEHOST_SATELLITE_PYTHON"):
            pytest.fail(str(exc))
        pytest.skip(f"{exc} (python3 -m venv {SATELLITE_VENV} && pip install wyoming-satellite=={SATELLITE_VERSION})")


class OtherServer:
    """Another server holding the satellite, as Home Assistant does: connected, `describe`, then
    `run-satellite`, reading the sound it streams until `detach()` (Home Assistant's entry disabled)."""

    def __init__(self, port: int) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        self.sock.sendall(b'{"type": "describe"}\n')
        self.received = 0
        self.first_sound = threading.Event()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self.sock.sendall(b'{"type": "run-satellite"}\n')
        assert self.first_sound.wait(30), "the other server never got the satellite's sound"

    def _read(self) -> None:
        with contextlib.suppress(OSError):
            while data := self.sock.recv(65536):
                self.received += len(data)
                if b"audio-chunk" in data:
                    self.first_sound.set()

    def detach(self) -> None:
        with contextlib.suppress(OSError):
            self.sock.shutdown(socket.SHUT_RDWR)
        self.sock.close()
        self._reader.join(10)


@pytest.fixture(scope="module")
def ears() -> Ears:
    return make_ears("whisper", whisper_base_dir())


# ---- the table --------------------------------------------------------------------------------------


@dataclass
class Outage:
    """The game as the satellite went, while it was away, and once it was back."""

    guesses: int = 0
    seconds_left: int = 0
    paused_while_away: bool = False
    left_while_away: int = 0
    after_back: tuple[bool, int] = (False, 0)
    failed_attempts: int = 0


class Harness(Room):
    """The satellite's room (bench/satellite.py), and the host the players wait for; once mid-game, the
    satellite killed and started again."""

    def __init__(self, room: Path, satellite: Satellite, sand: SandClock, *, interrupt: bool) -> None:
        super().__init__(room, lambda: self.host is not None and self.host.finished)
        self.satellite, self.sand, self.interrupt = satellite, sand, interrupt
        self.host: WatchedHost | None = None
        self.heard: Announcements | None = None
        self.frontend: SatelliteFrontend | None = None
        self.outage: Outage | None = None
        self.notices: list[tuple[Any, Any]] = []  # what the frontend was told about the satellite, and its link
        self.busy_notices = 0

    def before_line(self) -> None:
        """Mid-game, while a team guesses with the sand running: the satellite is killed and comes back."""
        host = self.host
        assert host is not None and self.frontend is not None
        if not self.interrupt or self.outage is not None:
            return
        made = guesses(host)
        if not (made >= 1 and host.game.state.phase is Phase.GUESS and host.timer.running):
            return
        link = self.frontend.link
        self.outage = outage = Outage(made, host.timer.seconds_left())
        self.satellite.kill()
        assert host.wait_until(lambda: host.lost >= 1, TIMEOUT), "the host never said the satellite was gone"
        outage.paused_while_away = host.timer.paused
        self.sand.now += AWAY_SECONDS  # minutes go by without the satellite
        outage.left_while_away = host.timer.seconds_left()
        attempts = link.failed_attempts
        self._until(lambda: link.failed_attempts >= attempts + 2, "two attempts to reach the satellite again")
        outage.failed_attempts = link.failed_attempts
        self.satellite.start()
        assert host.wait_until(lambda: host.back >= 1, TIMEOUT), "the host never said the satellite was back"
        outage.after_back = (host.timer.running, host.timer.seconds_left())
        self.quiet()


@dataclass
class Played:
    """What one game left behind."""

    exit_code: int
    events: list[dict[str, Any]]  # without the timer's, and without seq
    timer: list[dict[str, Any]]
    printed: list[str]
    errors: list[str]
    tally: Any
    outage: Outage | None
    busy_notices: int  # what the host had said about the satellite being busy when it was let go
    sent: int  # announcements sent to the satellite's speaker (played or cut short)
    unsent: int  # announcements only printed: the satellite was away
    seconds_sent: float
    played: list[Path] = field(default_factory=list)  # what the speaker command wrote, one WAV each


def play(
    tmp_path: Path,
    satellite_python: Path,
    ears: Ears,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    *,
    interrupt: bool,
    held: bool = False,
) -> Played:
    """One whole game by `voicehost play --satellite`, the players speaking into the satellite's room.
    `held`: another server holds the satellite when the game is started, and lets it go once voicehost
    has found it busy a few times (Home Assistant's entry disabled while voicehost waits)."""
    capsys.readouterr()
    folder = tmp_path / ("interrupted" if interrupt else "held" if held else "undisturbed")
    room = folder / "room"
    room.mkdir(parents=True)
    satellite = Satellite(satellite_python, free_port(), room, folder / "satellite.log")
    sand = SandClock()
    harness = Harness(room, satellite, sand, interrupt=interrupt)

    class Frontend(SatelliteFrontend):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            harness.frontend = self
            harness.attach(self.link, self.voice)

        def _notice(self, notice: Any) -> None:
            super()._notice(notice)
            harness.notices.append((notice, self.link))

    class Watched(WatchedHost):
        """The real host; the players hear what it says as its mouth receives it."""

        def __init__(self, game: Any, prompts: Any, mouth: Any, **kwargs: Any) -> None:
            harness.heard = Announcements(forward=mouth.say)
            super().__init__(game, prompts, harness.heard, **kwargs)
            harness.host = self

    monkeypatch.setattr(voicehost.frontends.satellite, "SatelliteFrontend", Frontend)
    monkeypatch.setattr(voicehost.frontends.satellite, "make_ears", lambda engine, model_dir: ears)
    monkeypatch.setattr(voicehost.cli.play, "Host", Watched)
    monkeypatch.setattr(voicehost.referee.host, "SandTimer", functools.partial(SandTimer, clock=sand))
    # the host talks fast (nobody listens to it here): the game takes a minute less, nothing else changes
    monkeypatch.setattr(voicehost.mouth, "Synthesizer", functools.partial(Synthesizer, rate_wpm=HOST_WPM))

    problem: list[str] = []
    tallies: list[Any] = []

    def players() -> None:
        try:
            deadline = time.monotonic() + TIMEOUT
            while harness.host is None or harness.frontend is None or not harness.host.started.is_set():
                assert time.monotonic() < deadline, "the game never started"
                time.sleep(0.05)
            harness.quiet()  # the host's welcome
            assert harness.heard is not None
            host = harness.host
            table = SatelliteTable(host, harness.heard, [VOICE], harness, cache_dir=default_cache(), planned_turns=1)
            tallies.append(table.tally)
            for _ in table.play():  # the game, and goodbye: "yes" to the host's questions about it
                pass
            assert host.wait_until(lambda: host.finished, TIMEOUT), "the game did not end"
        except BaseException as exc:
            problem.append(f"{type(exc).__name__}: {exc}")
            if harness.frontend is not None:
                harness.frontend.link.close()  # ends the voice loop: the test fails instead of hanging

    events = folder / "events.jsonl"
    command = [
        "play", "--satellite", f"127.0.0.1:{satellite.port}", "--board", str(BOARD),
        "--engine", "whisper", "--model", str(whisper_base_dir()), "--timer", str(TIMER_SECONDS),
        "--events", str(events), "--save", str(folder / "save.json"), "--display", "none", "--show-heard",
    ]  # fmt: skip
    satellite.start()
    other = OtherServer(satellite.port) if held else None

    def detach() -> None:
        """Let the satellite go once voicehost has found it busy three times (and said so once)."""
        deadline = time.monotonic() + TIMEOUT
        while not (harness.notices and harness.notices[-1][1].busy_sessions >= BUSY_TIMES):
            if time.monotonic() > deadline:
                break
            time.sleep(0.05)
        harness.busy_notices = len(harness.notices)
        assert other is not None
        other.detach()

    table = threading.Thread(target=players, name="players", daemon=True)
    detacher = threading.Thread(target=detach, name="home-assistant", daemon=True)
    try:
        table.start()
        if other is not None:
            detacher.start()
        exit_code = cli.main(command)
        table.join(TIMEOUT)
        frontend = harness.frontend
        assert frontend is not None, capsys.readouterr().err
        sent = frontend.voice.played + frontend.voice.interrupted
        played_dir = room / "played"
        deadline = time.monotonic() + 30  # the speaker command writes the last announcement
        while len(list(played_dir.glob("[0-9]*.wav"))) < sent and time.monotonic() < deadline:
            time.sleep(0.05)
    finally:
        if other is not None:
            other.detach()
        satellite.kill()
    output = capsys.readouterr()
    (folder / "stdout.txt").write_text(output.out, encoding="utf-8")  # for whoever reads a failure
    (folder / "stderr.txt").write_text(output.err, encoding="utf-8")
    assert not problem, f"{problem[0]}; the host's last words: {' / '.join(output.out.splitlines()[-4:])}"
    logged = [json.loads(line) for line in events.read_text(encoding="utf-8").splitlines()]
    for event in logged:
        del event["seq"]
    return Played(
        exit_code=exit_code,
        events=[event for event in logged if event["type"] != "timer"],
        timer=[event for event in logged if event["type"] == "timer"],
        printed=output.out.replace(str(folder), "GAME").splitlines(),  # the save's path is said at the start
        errors=output.err.splitlines(),
        tally=tallies[0],
        outage=harness.outage,
        busy_notices=harness.busy_notices,
        sent=sent,
        unsent=frontend.voice.unsent,
        seconds_sent=frontend.voice.seconds_sent,
        played=sorted(played_dir.glob("[0-9]*.wav")),
    )


def _seconds(path: Path) -> float:
    with wave.open(str(path), "rb") as recording:
        return recording.getnframes() / recording.getframerate()


# ---- the tests ------------------------------------------------------------------------------------------

_REFERENCE: dict[str, Played] = {}


def reference(
    tmp_path: Path,
    satellite_python: Path,
    ears: Ears,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> Played:
    """The undisturbed game, played once for the tests that compare with it."""
    if "game" not in _REFERENCE:
        _REFERENCE["game"] = play(tmp_path, satellite_python, ears, monkeypatch, capsys, interrupt=False)
    return _REFERENCE["game"]


def test_a_whole_game_through_a_satellite(
    tmp_path: Path,
    satellite_python: Path,
    ears: Ears,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    game = reference(tmp_path, satellite_python, ears, monkeypatch, capsys)
    print(f"{game.tally}; {len(game.printed)} announcements, {game.seconds_sent:.1f} s of the host's voice")
    assert game.exit_code == 0, game.errors
    assert game.tally.wrong_reveals == [], "a card was revealed that nobody said"
    assert game.tally.quit, "the table could not leave by voice"
    kinds = [event["type"] for event in game.events]
    assert kinds[:2] == ["game_started", "clue"]
    assert "guess" in kinds and "turn_ended" in kinds
    assert game.events[-1]["type"] == "game_over"
    assert game.events[-1]["reason"] in ("assassin", "all_found")
    assert len(game.tally.lost) <= 2, game.tally.lost
    assert {event["event"] for event in game.timer} == {"started"}  # the sand never ran out: its clock is the test's

    # every announcement was printed and sent to the satellite's speaker, which played each one whole
    assert game.unsent == 0 and game.sent == len(game.printed)
    assert len(game.played) == game.sent
    assert sum(_seconds(path) for path in game.played) == pytest.approx(game.seconds_sent, rel=0.01, abs=0.1)
    assert not any("satellite" in line and "stopped" in line for line in game.errors)


def test_the_satellite_killed_mid_game(
    tmp_path: Path,
    satellite_python: Path,
    ears: Ears,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    before = reference(tmp_path, satellite_python, ears, monkeypatch, capsys)
    game = play(tmp_path, satellite_python, ears, monkeypatch, capsys, interrupt=True)
    assert game.exit_code == 0, game.errors
    outage = game.outage
    assert outage is not None, "the satellite was never killed: the game had no guess with the sand running"

    # the host said so once, held the sand while the satellite was away, and said once that it was back
    lost, back = EN.text("error.microphone_lost"), EN.text("error.microphone_back")
    assert game.printed.count(lost) == 1 and game.printed.count(back) == 1
    at = game.printed.index(lost)
    inserted = [EN.text("timer.paused"), lost, EN.text("timer.resumed"), back]
    assert game.printed[at - 1 : at + 3] == inserted
    assert outage.paused_while_away and outage.left_while_away == outage.seconds_left
    assert outage.after_back == (True, outage.seconds_left)  # the sand runs again from where it stopped
    assert outage.failed_attempts >= 2
    stopped = [line for line in game.errors if "satellite kitchen stopped" in line]
    assert len(stopped) == 1 and "The game waits until it is back" in stopped[0]
    assert game.unsent >= 1  # what was said while it was away was printed only

    # nothing was lost: the same lines heard, the same announcements, the same events
    assert game.printed[: at - 1] + game.printed[at + 3 :] == before.printed
    assert game.events == before.events
    assert [event for event in game.timer if event["event"] != "paused"] == before.timer
    assert [event["event"] for event in game.timer].count("paused") == 1
    assert len(game.played) == game.sent


# ---- the link and the mouth against a stand-in satellite (fast: what 1.0.0 cannot show) ------------------


class StandIn:
    """A satellite as wyoming-satellite 1.4 behaves, in this process: it describes itself, streams
    silence 64 ms at a time once told to run, answers pings, and says `played` after each audio-stop.
    `freeze()` stops its sound without closing the connection (a hung satellite); a new connection
    streams again. `streams=False`: one that waits for a wake word (it answers, but sends no sound).
    `script`: once told to run, it sends these bytes as they are (hostile messages), then nothing."""

    def __init__(self, *, streams: bool = True, script: list[bytes] | None = None) -> None:
        _needs_wyoming()
        import asyncio

        self.asyncio = asyncio
        self.streams, self.script = streams, script
        self.port = free_port()
        self.frozen = threading.Event()
        self.received: list[str] = []  # event types from voicehost, pings left out
        self.samples = 0  # speaker samples received
        self.connections = 0
        self.changed = threading.Condition()
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        assert self._ready.wait(10)

    def _run(self) -> None:
        self._loop.run_until_complete(self._serve())

    async def _serve(self) -> None:
        asyncio = self.asyncio
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", self.port)
        self._ready.set()
        async with self._server:
            with contextlib.suppress(asyncio.CancelledError):
                await self._server.serve_forever()

    async def _handle(self, reader: Any, writer: Any) -> None:
        from wyoming.audio import AudioChunk, AudioStart, AudioStop
        from wyoming.event import async_read_event, async_write_event
        from wyoming.info import Attribution, Describe, Info
        from wyoming.info import Satellite as SatelliteInfo
        from wyoming.ping import Ping, Pong
        from wyoming.satellite import RunSatellite
        from wyoming.snd import Played

        with self.changed:
            self.connections += 1
            self.changed.notify_all()
        self.frozen.clear()
        streaming: Any = None

        async def stream() -> None:
            silence = bytes(2 * 1024)
            while True:
                if not self.frozen.is_set():
                    chunk = AudioChunk(rate=16000, width=2, channels=1, audio=silence, timestamp=0)
                    await async_write_event(chunk.event(), writer)
                await self.asyncio.sleep(1024 / 16000)

        try:
            while (event := await async_read_event(reader)) is not None:
                if Describe.is_type(event.type):
                    attribution = Attribution(name="", url="")
                    info = SatelliteInfo("stand-in", attribution, True, "stand-in", None)
                    await async_write_event(Info(satellite=info).event(), writer)
                    continue
                if Ping.is_type(event.type):
                    await async_write_event(Pong().event(), writer)
                    continue
                with self.changed:
                    self.received.append(event.type)
                    if AudioChunk.is_type(event.type):
                        self.samples += len(AudioChunk.from_event(event).audio) // 2
                    self.changed.notify_all()
                if RunSatellite.is_type(event.type) and self.script is not None:
                    for blob in self.script:
                        writer.write(blob)
                        await writer.drain()
                elif RunSatellite.is_type(event.type) and streaming is None and self.streams:
                    streaming = self.asyncio.ensure_future(stream())
                elif AudioStop.is_type(event.type):
                    await async_write_event(Played().event(), writer)
                elif AudioStart.is_type(event.type):
                    assert AudioStart.from_event(event).rate > 0
        except (ConnectionError, OSError):
            pass
        finally:
            if streaming is not None:
                streaming.cancel()
            writer.close()

    def wait(self, condition: Callable[[], bool]) -> None:
        with self.changed:
            assert self.changed.wait_for(condition, 30), "the stand-in satellite never got there"

    def close(self) -> None:
        self._loop.call_soon_threadsafe(self._server.close)
        self._thread.join(10)


class Tone:
    """A synthesizer that says every announcement as `seconds` of a quiet tone, at 16 kHz."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds

    def synthesize(self, text: str) -> Audio:
        t = np.arange(round(self.seconds * SAMPLE_RATE)) / SAMPLE_RATE
        return (0.1 * np.sin(2 * np.pi * 220 * t)).astype(np.float32)


@pytest.fixture
def stand_in() -> Iterator[StandIn]:
    satellite = StandIn()
    yield satellite
    satellite.close()


def _link(port: int, *, ours: bool = False, **settings: Any) -> Any:
    """A link to the satellite at `port`; `ours`: once it has answered (its speaker then takes sound)."""
    from voicehost.frontends.wyoming_link import SatelliteLink

    link = SatelliteLink("127.0.0.1", port, **settings)
    link.open()
    deadline = time.monotonic() + 30
    while ours and not link.connected:
        assert time.monotonic() < deadline, "the satellite never answered"
        time.sleep(0.01)
    return link


def test_an_announcement_is_sent_in_full_and_played(stand_in: StandIn) -> None:
    from voicehost.mouth.satellite import SatelliteMouth

    link = _link(stand_in.port, ours=True)
    mouth = SatelliteMouth(Tone(1.0), link, out=io.StringIO())
    try:
        mouth.say("CHERRY: a red agent.")
        assert mouth.speaking
        assert mouth.wait_idle(30)
        stand_in.wait(lambda: "audio-stop" in stand_in.received)
        assert stand_in.received == ["run-satellite", "audio-start", *["audio-chunk"] * 16, "audio-stop"]
        assert stand_in.samples == SAMPLE_RATE
        assert link.sends_played and link.played_count == 1
        assert (mouth.played, mouth.interrupted, mouth.unsent) == (1, 0, 0)
        heard = link.chunks(lambda lost: None, lambda: None)
        assert len(next(heard)) == 1024  # and its microphone is heard, at 16 kHz
    finally:
        mouth.close()
        link.close()


def test_a_stop_cuts_the_announcement_at_once(stand_in: StandIn) -> None:
    from voicehost.mouth.satellite import SatelliteMouth

    link = _link(stand_in.port, ours=True)
    mouth = SatelliteMouth(Tone(30.0), link, out=io.StringIO())
    try:
        mouth.say("A very long announcement.")
        mouth.say("And one queued after it.")
        stand_in.wait(lambda: stand_in.received.count("audio-chunk") >= 20)
        mouth.stop()  # what the voice loop does when a player says "stop" over the host
        assert mouth.wait_idle(30)
        stand_in.wait(lambda: "audio-stop" in stand_in.received)
        assert stand_in.received.count("audio-start") == 1  # the queued one was dropped
        assert stand_in.samples < 10 * SAMPLE_RATE  # sent only a little ahead of playback, not all 30 s
        assert (mouth.played, mouth.interrupted) == (0, 1)
    finally:
        mouth.close()
        link.close()


def test_a_frozen_satellite_is_lost_and_found_again(stand_in: StandIn) -> None:
    """Connected but silent (hung): lost once after the watchdog's time, back once it streams again."""
    link = _link(stand_in.port, audio_timeout=0.5)
    events: list[str] = []
    stop = threading.Event()

    def listen() -> None:
        for _ in link.chunks(
            lambda lost: events.append(f"lost: {told(EN, lost)}"), lambda: events.append("back"), stop
        ):
            if events and events[-1] == "back":
                stop.set()

    listener = threading.Thread(target=listen, daemon=True)
    try:
        listener.start()
        deadline = time.monotonic() + 30
        while link.delivered_samples == 0:  # it streams; then it hangs
            assert time.monotonic() < deadline, "the stand-in never streamed"
            time.sleep(0.01)
        stand_in.frozen.set()
        listener.join(30)
        assert not listener.is_alive()
        assert len(events) == 2 and events[1] == "back", events
        assert events[0].startswith("lost: The satellite stand-in stopped (no sound arrived for 0.5 seconds)")
        assert stand_in.connections == 2 and link.connections == 2
    finally:
        stop.set()
        link.close()


def test_the_mouth_only_prints_while_the_satellite_is_away() -> None:
    from voicehost.mouth.satellite import SatelliteMouth

    class Away:
        connected = False
        sends_played = False
        played_count = 0

        def __getattr__(self, name: str) -> Any:
            raise AssertionError(f"nothing is sent to a satellite that is away ({name})")

    out = io.StringIO()
    mouth = SatelliteMouth(Tone(1.0), Away(), out=out)
    mouth.say("The microphone stopped working.")
    assert mouth.wait_idle(10)
    mouth.close()
    assert out.getvalue() == "The microphone stopped working.\n"
    assert (mouth.unsent, mouth.played, mouth.silent) == (1, 0, False)


def test_an_unreachable_satellite_says_what_to_check() -> None:
    _needs_wyoming()
    from voicehost.frontends.wyoming_link import SatelliteLink, SatelliteUnreachable

    port = free_port()  # nothing listens there
    with pytest.raises(SatelliteUnreachable) as raised:
        SatelliteLink("127.0.0.1", port).open()
    assert raised.value.problem == Problem(REFUSED)
    assert why(EN, raised.value.problem) == "nothing listens on that port"


# ---- the command line ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "flags",
    [
        ["--text", "--satellite", "127.0.0.1:10700"],
        ["--satellite", "127.0.0.1:10700", "--audio-in", "table.wav"],
        ["--satellite", "127.0.0.1:10700", "--audio-out", "host.wav"],
        ["--satellite", "192.168.1.20"],  # an address without its port
        ["--satellite", ""],
        ["--satellite", "kitchen\x1b[2J"],
        ["--satellite", "kitchen:0"],
        ["--satellite", "::1:10700"],
        ["--text", "--voice", "piper"],
        ["--voice", "festival"],
    ],
)
def test_flags_that_cannot_go_with_a_satellite_are_refused(
    flags: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["play", *flags]) == 2
    assert "usage:" in capsys.readouterr().err


def test_addresses() -> None:
    from voicehost.cli.parser import host_port

    assert host_port("192.168.1.20:10700") == ("192.168.1.20", 10700)
    assert host_port("tcp://kitchen.local:10700") == ("kitchen.local", 10700)
    assert host_port("[::1]:10700") == ("::1", 10700)


def test_a_satellite_that_is_not_there_stops_the_game_before_it_starts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _needs_wyoming()
    port = free_port()
    command = [
        "play", "--satellite", f"127.0.0.1:{port}", "--board", str(BOARD), "--engine", "whisper",
        "--model", str(whisper_base_dir()), "--save", str(tmp_path / "save.json"), "--display", "none",
    ]  # fmt: skip
    assert cli.main(command) == 1
    err = capsys.readouterr().err
    assert f"voicehost: cannot reach the satellite at 127.0.0.1:{port}" in err
    assert "Is wyoming-satellite running there" in err


# ---- a satellite another server holds (the real wyoming-satellite) ------------------------------------------


def test_a_game_through_a_satellite_another_server_holds(
    tmp_path: Path,
    satellite_python: Path,
    ears: Ears,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Home Assistant holds the satellite when `voicehost play` starts: the host says once, in the game's
    language, that another server has it and what to do, and waits; once it is let go, the game is the
    undisturbed one, line for line and event for event."""
    before = reference(tmp_path, satellite_python, ears, monkeypatch, capsys)
    game = play(tmp_path, satellite_python, ears, monkeypatch, capsys, interrupt=False, held=True)
    assert game.exit_code == 0, game.errors
    busy = EN.text("satellite.busy", name="kitchen")
    assert game.busy_notices == 1  # told once, though found busy BUSY_TIMES times
    assert game.printed[0] == busy and game.printed.count(busy) == 1
    assert "Home Assistant" in busy and "second wyoming-satellite" in busy
    assert game.unsent == 1  # the satellite was not ours: that was printed, not sent to its speaker
    assert game.printed[1:] == before.printed
    assert game.events == before.events and game.timer == before.timer
    assert game.sent == len(game.printed) - 1 and len(game.played) == game.sent
    assert not any("stopped" in line for line in game.errors), game.errors


def test_a_busy_satellite_is_told_once_and_taken_once_free(satellite_python: Path, tmp_path: Path) -> None:
    """wyoming-satellite answers `describe` while another server holds it, then ignores the connection:
    that is told once however often it is tried, nothing is sent to its speaker, it is not left with a
    half-open connection for each try, and its sound is heard once the other server lets it go."""
    satellite = Satellite(satellite_python, free_port(), tmp_path / "room", tmp_path / "satellite.log")
    satellite.start()
    other = OtherServer(satellite.port)
    link = _link(satellite.port, audio_timeout=0.5, retry_seconds=0.1, max_retry_seconds=0.1)
    notices: list[SatelliteNotice] = []
    heard: list[Audio] = []
    stop = threading.Event()

    def listen() -> None:
        for chunk in link.chunks(lambda lost: None, lambda: None, stop, on_notice=notices.append):
            heard.append(chunk)
            stop.set()

    listener = threading.Thread(target=listen, daemon=True)
    try:
        listener.start()
        deadline = time.monotonic() + TIMEOUT
        while link.busy_sessions < 2:
            assert time.monotonic() < deadline, "never found busy"
            time.sleep(0.02)
        files = satellite.open_files()
        while link.busy_sessions < 12:
            assert time.monotonic() < deadline, "never found busy again"
            time.sleep(0.02)
        assert satellite.open_files() <= files + 1  # each refused connection was freed (one may be open now)
        assert not link.connected
        other.detach()
        listener.join(TIMEOUT)
        assert heard and len(heard[0]) > 0, "its sound never came once it was free"
        assert notices == [SatelliteNotice("kitchen", Problem(BUSY))]
    finally:
        stop.set()
        link.close()
        other.detach()
        satellite.kill()


def test_a_satellite_that_answers_but_streams_nothing_says_so_on_its_speaker() -> None:
    """A satellite of ours that waits for a wake word: told once, and since it is ours, said on its speaker."""
    from voicehost.mouth.satellite import SatelliteMouth

    stand_in = StandIn(streams=False)
    link = _link(stand_in.port, audio_timeout=0.5)
    mouth = SatelliteMouth(Tone(0.5), link, out=io.StringIO())
    notices: list[SatelliteNotice] = []
    stop = threading.Event()

    def notice(told_now: SatelliteNotice) -> None:
        notices.append(told_now)
        mouth.say(told(EN, told_now))

    listener = threading.Thread(target=lambda: list(link.chunks(print, print, stop, on_notice=notice)), daemon=True)
    try:
        listener.start()
        stand_in.wait(lambda: "audio-stop" in stand_in.received)
        assert mouth.wait_idle(30)
        assert notices == [SatelliteNotice("stand-in", Problem(NOT_STREAMING))]
        assert (mouth.played, mouth.unsent) == (1, 0)
        assert "--wake-uri" in told(EN, notices[0])
        assert link.connections == 1  # kept: it is ours
    finally:
        stop.set()
        mouth.close()
        link.close()
        stand_in.close()


# ---- hostile satellites: bounded, refused with a reason, never an exception's name --------------------------


def _message(kind: str, data: dict[str, Any] | None = None, payload: bytes = b"", **header: Any) -> bytes:
    """One Wyoming message as a satellite writes it; `header` overrides what the header announces."""
    data_bytes = json.dumps(data).encode() if data else b""
    head: dict[str, Any] = {"type": kind, "version": "1.5.0"}
    if data_bytes:
        head["data_length"] = len(data_bytes)
    if payload:
        head["payload_length"] = len(payload)
    head.update(header)
    return json.dumps(head).encode() + b"\n" + data_bytes + payload


def _chunk(samples: np.ndarray, rate: int = 16000, width: int = 2, channels: int = 1, **header: Any) -> bytes:
    pcm = np.asarray(samples, dtype=np.int64)
    raw = (
        b"".join(int(v).to_bytes(width, "little", signed=True) for v in pcm)
        if width == 3
        else (pcm.astype({1: "<i1", 2: "<i2", 4: "<i4"}[width]).tobytes())
    )
    return _message("audio-chunk", {"rate": rate, "width": width, "channels": channels}, raw, **header)


GOOD = _chunk(np.zeros(1024, dtype=np.int16))


def _reports(link: Any, until: Callable[[list[Any]], bool], seconds: float = 60) -> tuple[list[Any], int]:
    """What the link reported (lost, notices) and how many samples it handed over, until `until(reports)`."""
    reports: list[Any] = []
    samples = 0
    stop = threading.Event()

    def listen() -> None:
        nonlocal samples
        for chunk in link.chunks(reports.append, lambda: reports.append("back"), stop, on_notice=reports.append):
            samples += len(chunk)
            if until(reports):
                stop.set()

    listener = threading.Thread(target=listen, daemon=True)
    listener.start()
    deadline = time.monotonic() + seconds
    while not until(reports) and time.monotonic() < deadline:
        time.sleep(0.02)
    stop.set()
    listener.join(10)
    return reports, samples


@pytest.mark.parametrize(
    ("hostile", "problem"),
    [
        (_message("audio-chunk", {"rate": 16000, "width": 2, "channels": 1}, payload_length=2_000_000_000),
         Problem(TOO_LARGE, {"size": 2_000_000_000, "limit": 1024 * 1024})),
        (_message("audio-chunk", {"rate": 16000, "width": 2, "channels": 1}, payload_length=2e9), Problem(MALFORMED)),
        (_message("info", data_length=2_000_000_000), Problem(TOO_LARGE, {"size": 2_000_000_000, "limit": 65536})),
        (_message("audio-chunk", {"width": 2, "channels": 1}, b"\0\0"), Problem(MALFORMED)),
        (_message("audio-chunk", {"rate": "fast", "width": 2, "channels": 1}, b"\0\0"), Problem(MALFORMED)),
        (_message("audio-chunk", {"rate": 16000, "width": 2}, b"\0\0", data_length=-1), Problem(MALFORMED)),
        (b"this is not a Wyoming message\n", Problem(MALFORMED)),
        (b'{"type": "audio-chunk", "data": [1, 2]}\n', Problem(MALFORMED)),
        (b"x" * 70_000 + b"\n", Problem(MALFORMED)),
    ],
    ids=["payload-2000000000", "payload-2e9", "data-2000000000", "no-rate", "rate-text", "negative-length",
         "not-json", "data-not-object", "endless-header"],
)  # fmt: skip
def test_a_hostile_message_is_refused_with_a_reason(hostile: bytes, problem: Problem) -> None:
    """After some sound, a message that breaks the protocol: the satellite is lost with the reason, at
    once (nothing announced is read or buffered first), and the table hears no exception's name."""
    stand_in = StandIn(script=[GOOD, GOOD, hostile, b"\0" * 1_000_000])
    link = _link(stand_in.port, audio_timeout=60)  # only the message itself can end the session
    try:
        reports, samples = _reports(link, lambda reports: any(isinstance(r, SatelliteLost) for r in reports))
        lost = [report for report in reports if isinstance(report, SatelliteLost)]
        assert lost == [SatelliteLost("stand-in", problem)], reports
        assert samples == 2048
        said = told(EN, lost[0])
        assert not re.search(r"Error|Exception|Traceback|\{", said), said
    finally:
        link.close()
        stand_in.close()


@pytest.mark.parametrize("rate", [1, 7999, 48001, 5_000_011])
def test_rates_no_microphone_has_are_refused_at_once(rate: int) -> None:
    """1 Hz would cost the resampler minutes, 5000011 Hz gigabytes: refused at once, with the rate said."""
    stand_in = StandIn(script=[GOOD, _chunk(np.zeros(1024, dtype=np.int16), rate=rate)])
    link = _link(stand_in.port, audio_timeout=60)
    try:
        reports, _ = _reports(link, lambda reports: any(isinstance(r, SatelliteLost) for r in reports))
        lost = [report for report in reports if isinstance(report, SatelliteLost)]
        assert lost == [SatelliteLost("stand-in", Problem(BAD_RATE, {"rate": rate, "low": 8000, "high": 48000}))]
        assert f"it sends sound at {rate} Hz, and I take 8000 to 48000 Hz" in told(EN, lost[0])
    finally:
        link.close()
        stand_in.close()


def test_a_satellite_that_never_sends_usable_sound_is_told_once() -> None:
    """Refused from its first chunk, tried again and again: said once, with the reason."""
    stand_in = StandIn(script=[_chunk(np.zeros(1024, dtype=np.int16), rate=1)])
    link = _link(stand_in.port, retry_seconds=0.05, max_retry_seconds=0.05)
    try:
        reports, _ = _reports(link, lambda reports: link.connections >= 5)
        assert reports == [SatelliteNotice("stand-in", Problem(BAD_RATE, {"rate": 1, "low": 8000, "high": 48000}))]
        assert told(EN, reports[0]).startswith("I cannot hear the satellite stand-in: it sends sound at 1 Hz")
    finally:
        link.close()
        stand_in.close()


@pytest.mark.parametrize(("width", "channels"), [(1, 1), (2, 1), (3, 1), (4, 1), (3, 2)])
def test_every_sample_width_is_heard(width: int, channels: int) -> None:
    """8, 16, 24 and 32-bit signed PCM, mono or interleaved: heard, not dropped."""
    full = 1 << (8 * width - 1)
    values = np.array([-full, -full // 2, -1, 0, 1, full // 3, full - 1] * 200, dtype=np.int64)
    interleaved = np.repeat(values, channels)
    stand_in = StandIn(script=[_chunk(interleaved, width=width, channels=channels)])
    link = _link(stand_in.port, audio_timeout=60)
    try:
        heard: list[Audio] = []
        stop = threading.Event()
        for chunk in link.chunks(print, print, stop):
            heard.append(chunk)
            break
        np.testing.assert_allclose(heard[0], values / full, atol=1e-7)
        assert link.received_samples == len(values)
    finally:
        link.close()
        stand_in.close()


def test_big_chunks_do_not_grow_the_queue_past_its_seconds() -> None:
    """A satellite sending 15-second chunks while the voice loop is busy: at most MAX_QUEUED_SECONDS of
    sound is kept, however few chunks that is, and the rest is dropped oldest first, and counted."""
    from voicehost.frontends.wyoming_link import MAX_QUEUED_SECONDS

    big = _chunk(np.ones(250_000, dtype=np.int16))  # 500 kB a message: within what one message may carry
    stand_in = StandIn(script=[big] * 40)
    link = _link(stand_in.port, audio_timeout=60)
    try:
        deadline = time.monotonic() + TIMEOUT
        while link.received_samples < 40 * 250_000:
            assert time.monotonic() < deadline, f"only {link.received_samples} samples arrived"
            time.sleep(0.05)
        assert 0 < link.queued_samples <= MAX_QUEUED_SECONDS * SAMPLE_RATE
        assert link.dropped_samples == link.received_samples - link.queued_samples
    finally:
        link.close()
        stand_in.close()


def test_the_queue_keeps_markers_and_drops_the_oldest_sound() -> None:
    from voicehost.frontends.sound_queue import SoundQueue

    queue = SoundQueue(max_samples=10, max_items=4)
    queue.put_sound(np.full(6, 1, dtype=np.float32))
    queue.put_marker("lost")
    queue.put_sound(np.full(6, 2, dtype=np.float32))  # 12 > 10: the first chunk goes
    queue.put_sound(np.full(2_000_000, 3, dtype=np.float32))  # alone over the cap: its last 10 samples stay
    assert (queue.queued_samples, queue.dropped_samples) == (10, 6 + 6 + 1_999_990)
    assert queue.get(0) == "lost"
    last = queue.get(0)
    assert isinstance(last, np.ndarray) and last.tolist() == [3.0] * 10
    assert queue.get(0) is None


def test_a_satellites_name_cannot_write_to_the_terminal() -> None:
    from voicehost.frontends.wyoming_wire import printable_name

    assert printable_name("kit\x1b[2Jchen\u202e\x00") == "kit[2Jchen"
    assert printable_name(["not", "a", "name"]) == ""
    assert len(printable_name("k" * 500)) == 60


# ---- a satellite found by its name (zeroconf, the real wyoming-satellite) -------------------------------------


@pytest.fixture(scope="module")
def announced(satellite_python: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Satellite]:
    """The real wyoming-satellite, announced on the network under names no other test run uses."""
    pytest.importorskip(
        "zeroconf", reason="finding a satellite by name needs zeroconf: pip install 'voicehost[satellite]'"
    )
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        if probe.connect_ex(("224.0.0.251", 5353)) != 0:
            pytest.skip("this machine has no route for multicast: zeroconf cannot announce anything")
    unique = f"{os.getpid()}-{free_port()}"
    folder = tmp_path_factory.mktemp("announced")
    satellite = Satellite(
        satellite_python, free_port(), folder / "room", folder / "satellite.log",
        name=f"Kitchen {unique}", zeroconf_name=f"voicehost-test-{unique}",
    )  # fmt: skip
    satellite.start()
    yield satellite
    satellite.kill()


def test_a_satellite_is_found_by_the_name_it_gives_itself(announced: Satellite) -> None:
    """wyoming-satellite announces `--zeroconf-name` (by default its MAC address); the name people know is
    `--name`, which it answers to `describe`: either finds it, in any case."""
    from voicehost.frontends.satellite_discovery import find_satellite

    assert announced.zeroconf_name is not None
    for name in (announced.name, announced.name.upper(), announced.zeroconf_name):
        found = find_satellite(name)
        assert (found.port, found.name, found.service) == (announced.port, announced.name, announced.zeroconf_name)


def test_a_name_nobody_answers_to_lists_the_names_found(
    announced: Satellite, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    command = [
        "play", "--satellite", "living room", "--board", str(ROOT / "tests" / "boards" / "classic-pt-BR.json"),
        "--engine", "whisper", "--model", str(whisper_base_dir()), "--save", str(tmp_path / "save.json"),
        "--display", "none",
    ]  # fmt: skip
    assert cli.main(command) == 1
    err = capsys.readouterr().err
    assert "voicehost: Nenhum satélite chamado living room respondeu na rede em 4 segundos." in err
    listed = err.split("Satélites que responderam: ")[1].split(". Indique")[0].split(", ")
    assert announced.name in listed
    assert "Error" not in err and "Traceback" not in err


def test_play_finds_the_satellite_by_name(
    announced: Satellite, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`voicehost play --satellite NAME`: looked up, connected, and the game's first words are played on
    the satellite's speaker; then the satellite is let go (the game stays resumable)."""
    frontends: list[SatelliteFrontend] = []

    class Frontend(SatelliteFrontend):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            frontends.append(self)

        def run(self, host: Host) -> None:
            self.voice.wait_idle(TIMEOUT)  # the welcome, played on the satellite; then the table leaves
            self.link.close()
            super().run(host)

    monkeypatch.setattr(voicehost.frontends.satellite, "SatelliteFrontend", Frontend)
    played = announced.room / "played"
    before = len(list(played.glob("[0-9]*.wav")))
    command = [
        "play", "--satellite", announced.name, "--board", str(BOARD), "--engine", "whisper",
        "--model", str(whisper_base_dir()), "--save", str(tmp_path / "save.json"), "--display", "none",
    ]  # fmt: skip
    assert cli.main(command) == 0
    err = capsys.readouterr().err
    assert f"voicehost: Found the satellite {announced.name} at " in err
    assert f":{announced.port}." in err
    assert frontends and frontends[0].voice.played >= 1
    deadline = time.monotonic() + 30
    while len(list(played.glob("[0-9]*.wav"))) <= before and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(list(played.glob("[0-9]*.wav"))) > before
