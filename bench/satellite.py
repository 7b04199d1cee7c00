"""The table through a Wyoming satellite: the players speak into the room of a real wyoming-satellite, in
real time, and the host hears them through the Wyoming protocol.

The satellite is the real wyoming-satellite from PyPI (SATELLITE_VERSION, which pins an old wyoming, so
it lives in a venv of its own: `satellite_python`); its microphone and speaker commands are files
(bench/satellite_room.py): a player's line is played into its microphone 64 ms at a time, over the room's
faint hiss (between lines too, as at a local microphone), and every announcement the host sends to its
speaker is written out as a WAV. The host side is voicehost's own satellite frontend (`SatelliteFrontend`:
the link, the satellite's mouth with espeak-ng, the voice loop with its echo gate), with Whisper base.
Each line is said once the host has heard everything before it, answered, and stopped talking; the reply's
delay is wall-clock time from the end of the line's speech in the room to the host's first announcement.

Used by `python -m bench --sections table` and by tests/voice/test_satellite.py.

The latency bench (`bench.latency`, path `satellite`) uses a stand-in instead (`SatelliteStandIn`): a
Wyoming satellite in this process that behaves as wyoming-satellite streaming all the time does (it
answers `describe` as a satellite, and once told `run-satellite` sends its microphone as `audio-chunk`s
of 1024 samples at 16 kHz, each when its last sample has been "recorded", silence between utterances;
it answers pings, and `played` after each `audio-stop`), and notes when the host's voice comes back: the
time of the first `audio-chunk` after each `audio-start`, to the millisecond, which the real one's
speaker command cannot tell.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, Protocol

import numpy as np

from bench import ROOT
from bench.announcements import Announcements
from bench.corpus import HISS, seed_of
from bench.noise import Condition
from bench.players import PLANNED_TURNS, Seat, Table
from bench.voices import TestVoice
from engine.board import Board
from engine.editions import new_game
from engine.variants import Variants
from voicehost.audio.samples import SAMPLE_RATE, Audio, to_pcm16
from voicehost.prompts import Prompts
from voicehost.referee.host import Host, HostSettings
from voicehost.understanding.moment import ListenMode

ROOM: Final = Path(__file__).resolve().parent / "satellite_room.py"
SATELLITE_VERSION: Final = "1.0.0"
SATELLITE_VENV: Final = ROOT / ".venv" / "wyoming-satellite"
ROOM_CHUNK_S: Final = 1024 / SAMPLE_RATE
"""The room's microphone writes a chunk this long when its time has come: the chunk's first sample was
heard one chunk earlier."""
SETTLE_S: Final = 1.5
"""Sound the host must have taken in after a line: its end, the VAD's closing silence, a margin."""
QUIET_S: Final = 0.6
"""Silence after the host stops talking before the next line (its echo gate's tail is 0.4 s)."""
TIMEOUT: Final = 180.0
"""A safety net only: nothing measured depends on it."""


class SatelliteUnavailable(RuntimeError):
    """wyoming-satellite cannot be installed or run here."""


def satellite_works(python: Path) -> bool:
    check = [str(python), "-c", "import wyoming_satellite.__main__"]
    return python.is_file() and subprocess.run(check, capture_output=True, timeout=60).returncode == 0


def satellite_python(venv: Path = SATELLITE_VENV) -> Path:
    """A Python that runs wyoming-satellite: VOICEHOST_SATELLITE_PYTHON, or a venv made once with pip."""
    named = os.environ.get("VOICEHOST_SATELLITE_PYTHON")
    if named:
        if not satellite_works(Path(named)):
            raise SatelliteUnavailable(f"VOICEHOST_SATELLITE_PYTHON={named} cannot import wyoming_satellite")
        return Path(named)
    python = venv / "bin" / "python"
    if satellite_works(python):
        return python
    advice = f"python3 -m venv {venv} && {venv}/bin/pip install wyoming-satellite=={SATELLITE_VERSION}"
    try:
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, capture_output=True, timeout=120)
        pip = [str(python), "-m", "pip", "install", "--quiet", f"wyoming-satellite=={SATELLITE_VERSION}"]
        subprocess.run(pip, check=True, capture_output=True, timeout=600)
    except (subprocess.SubprocessError, OSError) as exc:
        raise SatelliteUnavailable(f"wyoming-satellite could not be installed ({exc}): {advice}") from None
    if not satellite_works(python):
        raise SatelliteUnavailable(f"wyoming-satellite does not run: {advice}")
    return python


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class Satellite:
    """wyoming-satellite with the room's microphone and speaker, in a process group of its own; announced
    on the network (zeroconf) only when given a `zeroconf_name`."""

    def __init__(
        self, python: Path, port: int, room: Path, log: Path, *, name: str = "kitchen", zeroconf_name: str | None = None
    ) -> None:
        self.python, self.port, self.room, self.log = python, port, room, log
        self.name, self.zeroconf_name = name, zeroconf_name
        self.process: subprocess.Popen[bytes] | None = None
        self.starts = 0

    def start(self) -> None:
        room = f"{sys.executable} {ROOM}"
        announce = ["--no-zeroconf"] if self.zeroconf_name is None else ["--zeroconf-name", self.zeroconf_name]
        command = [
            str(self.python), "-m", "wyoming_satellite", "--name", self.name, *announce,
            "--uri", f"tcp://{'127.0.0.1' if self.zeroconf_name is None else '0.0.0.0'}:{self.port}",
            "--mic-command", f"{room} mic {self.room}",
            "--snd-command", f"{room} snd {self.room} 22050 2 1", "--snd-command-rate", "22050",
        ]  # fmt: skip
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(command, stdout=log, stderr=log, start_new_session=True, cwd=ROOT)
        self.starts += 1
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:  # listening: a probe connects (and leaves at once)
            if self.process.poll() is not None:
                raise SatelliteUnavailable(self.log.read_text(errors="replace")[-2000:])
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", self.port)) == 0:
                    return
            time.sleep(0.05)
        raise SatelliteUnavailable("the satellite never listened")

    def open_files(self) -> int:
        """How many file descriptors the satellite's process holds (each connection it keeps is one)."""
        if self.process is None:
            raise SatelliteUnavailable("the satellite was never started")
        return len(os.listdir(f"/proc/{self.process.pid}/fd"))

    def kill(self) -> None:
        """SIGKILL to the satellite and its microphone and speaker commands: the power cord pulled."""
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(30)


class Sound(Protocol):
    """What the room reads of the host's SatelliteLink: how much sound arrived, and how much of it the
    voice loop has taken."""

    @property
    def received_samples(self) -> int: ...

    @property
    def delivered_samples(self) -> int: ...


class Talking(Protocol):
    """What the room reads of the host's SatelliteMouth."""

    def wait_idle(self, timeout: float | None = None) -> bool: ...


class Room:
    """The satellite's room as the players use it: say a line into its microphone, then wait until the
    host has heard it, answered and stopped talking. `link` is the host's SatelliteLink (how much sound it
    took in), `mouth` its SatelliteMouth (whether it is talking)."""

    def __init__(self, folder: Path, finished: Callable[[], bool]) -> None:
        self.folder = folder
        self.finished = finished
        self.link: Sound | None = None
        self.mouth: Talking | None = None
        self.lines = 0

    def attach(self, link: Sound, mouth: Talking) -> None:
        self.link, self.mouth = link, mouth

    def _until(self, condition: Callable[[], bool], what: str) -> None:
        deadline = time.monotonic() + TIMEOUT
        while not condition():
            if time.monotonic() > deadline:
                raise TimeoutError(f"timed out waiting: {what}")
            time.sleep(0.02)

    def _heard_past(self, seconds: float) -> None:
        """Wait until the voice loop has taken `seconds` more sound than the satellite has sent so far:
        everything said before has been heard and answered (the loop takes sound only between utterances)."""
        link = self.link
        assert link is not None
        mark = link.received_samples + round(seconds * SAMPLE_RATE)
        self._until(lambda: link.delivered_samples >= mark or self.finished(), "the host to take in what was said")

    def quiet(self) -> None:
        """The host has answered and stopped talking, and a moment of silence has gone by."""
        mouth = self.mouth
        assert mouth is not None
        self._heard_past(SETTLE_S)
        if not mouth.wait_idle(TIMEOUT):
            raise TimeoutError("the host never stopped talking")
        self._heard_past(QUIET_S)

    def say(self, audio: Audio) -> float:
        """One line into the satellite's microphone; waits for the host's answer. Returns when the line
        began in the room (time.monotonic)."""
        self.before_line()
        self.lines += 1
        name = f"{self.lines:04d}"
        staged = self.folder / f"{name}.raw"
        after = np.random.default_rng(seed_of("satellite", "hiss", self.lines)).standard_normal(SAMPLE_RATE // 2) * HISS
        staged.write_bytes(to_pcm16(np.concatenate([audio, after.astype(np.float32)])))  # then the room's hiss
        staged.rename(self.folder / "say" / staged.name)
        said = self.folder / "said"
        self._until(lambda: (said / staged.name).exists(), "the microphone to play the line")
        began = float((said / f"{name}.start").read_text(encoding="utf-8")) - ROOM_CHUNK_S
        self.quiet()
        return began

    def before_line(self) -> None:
        """A hook before each line (tests/voice/test_satellite.py kills the satellite here once)."""


class SatelliteTable(Table):
    """`bench.players.Table`'s players, speaking into the satellite's room instead of feeding the loop."""

    def __init__(
        self,
        host: Host,
        heard: Announcements,
        voices: Sequence[TestVoice],
        room: Room,
        *,
        condition: Condition | None = None,
        cache_dir: Path,
        seed: int = 0,
        planned_turns: int = PLANNED_TURNS,
    ) -> None:
        super().__init__(
            host, heard, voices, condition=condition, cache_dir=cache_dir, seed=seed, planned_turns=planned_turns
        )
        self.room = room

    def _quiet(self, seconds: float, *key: object) -> Iterator[Audio]:
        yield from ()

    def _line(self, seat: Seat, text: str, *, answer: bool = False) -> Iterator[Audio]:
        line = self.line(seat, text)
        heard = self._hissed(line.audio, "line", self.tally.lines)  # the hiss the line has at a local microphone
        self.recorded.append(heard)
        self.tally.audio_seconds += len(heard) / SAMPLE_RATE
        mark = len(self.heard.said)
        ended = self.room.say(heard) + line.speech_end / SAMPLE_RATE
        self._reply = self.heard.said[mark:]
        after = [said for said in self._reply if said.at >= ended]
        if after:
            self._reply_ms = 1000 * (after[0].at - ended)
        yield from ()


def play_game(
    board: Board,
    voices: Sequence[TestVoice],
    *,
    python: Path,
    model_dir: Path,
    folder: Path,
    cache_dir: Path,
    condition: Condition | None = None,
    listening: ListenMode = ListenMode.OPEN,
    seed: int = 0,
    planned_turns: int = PLANNED_TURNS,
) -> SatelliteTable:
    """One whole game through a real wyoming-satellite (started here, killed at the end): voicehost's
    satellite frontend with Whisper base hears the players' lines played into the satellite's room."""
    from voicehost.frontends.satellite import SatelliteFrontend, SatelliteSettings  # wyoming: an extra

    room_dir = folder / "room"
    room_dir.mkdir(parents=True, exist_ok=True)
    satellite = Satellite(python, free_port(), room_dir, folder / "satellite.log")
    prompts = Prompts.load(board.lang)
    satellite.start()
    try:
        with contextlib.redirect_stdout(io.StringIO()):  # the mouth prints every announcement: not here
            frontend = SatelliteFrontend(
                SatelliteSettings(board.lang, "127.0.0.1", satellite.port, engine="whisper", model=model_dir), prompts
            )
        try:
            heard = Announcements(forward=frontend.mouth.say)
            host = Host(new_game(board, Variants()), prompts, heard, settings=HostSettings(listening=listening))
            room = Room(room_dir, lambda: host.finished)
            room.attach(frontend.link, frontend.voice)
            table = SatelliteTable(
                host,
                heard,
                voices,
                room,
                condition=condition,
                cache_dir=cache_dir,
                seed=seed,
                planned_turns=planned_turns,
            )
            problems: list[BaseException] = []

            def players() -> None:
                try:
                    room.quiet()  # the host's welcome
                    table.transcript.append(f"host: {heard.said[0].text}")
                    for _ in table.play():
                        pass
                except BaseException as exc:
                    problems.append(exc)
                finally:
                    if not host.finished:
                        frontend.link.close()  # ends the voice loop

            host.start()
            thread = threading.Thread(target=players, name="players", daemon=True)
            thread.start()
            frontend.run(host)
            thread.join(TIMEOUT)
            if problems:
                raise problems[0]
            table.finish()
            host.close()
            return table
        finally:
            frontend.close()
    finally:
        satellite.kill()


# ---- a stand-in satellite in this process, for the latency bench ---------------------------------------

CHUNK_SAMPLES: Final = 1024
"""What wyoming-satellite's microphone command delivers at a time."""


@dataclass
class Said:
    """An utterance streamed by the stand-in: when its first chunk went, and where its speech ends in it."""

    audio: Audio
    speech_end_s: float  # within `audio`
    started: float | None = None  # wall time (time.perf_counter) its first sample was "recorded"

    @property
    def speech_end(self) -> float | None:
        """Wall time the speech ended at the satellite's microphone."""
        return None if self.started is None else self.started + self.speech_end_s


@dataclass
class Heard:
    """The host's voice as it reached the satellite: wall times of each announcement's first chunk."""

    first_chunks: list[float] = field(default_factory=list)


class SatelliteStandIn:
    """The satellite: a Wyoming server on a local port, on a thread of its own (`close` to stop)."""

    def __init__(self) -> None:
        self.heard = Heard()
        self._pending: list[Said] = []
        self._lock = threading.Lock()
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._server: Any = None
        self.port = 0
        self._thread = threading.Thread(target=self._run, name="bench-satellite", daemon=True)
        self._thread.start()
        if not self._ready.wait(10):
            raise RuntimeError("the stand-in satellite did not start")

    def say(self, said: Said) -> None:
        """Stream this utterance from the next chunk on (its `started` is set when its first chunk goes)."""
        with self._lock:
            self._pending.append(said)

    def close(self) -> None:
        self._loop.call_soon_threadsafe(self._stop)
        self._thread.join(10)

    # ---- the satellite's own thread ---------------------------------------------------------------

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        self._server = self._loop.run_until_complete(asyncio.start_server(self._handle, "127.0.0.1", 0))
        self.port = int(self._server.sockets[0].getsockname()[1])
        self._ready.set()
        self._loop.run_forever()

    def _stop(self) -> None:
        if self._server is not None:
            self._server.close()
        for task in asyncio.all_tasks(self._loop):
            task.cancel()
        self._loop.stop()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        from wyoming.audio import AudioChunk, AudioStart, AudioStop
        from wyoming.event import async_read_event, async_write_event
        from wyoming.info import Attribution, Describe, Info
        from wyoming.info import Satellite as SatelliteInfo
        from wyoming.ping import Ping, Pong
        from wyoming.satellite import RunSatellite
        from wyoming.snd import Played

        streaming: asyncio.Task[None] | None = None
        waiting_first = False
        try:
            while (event := await async_read_event(reader)) is not None:
                if Describe.is_type(event.type):
                    info = SatelliteInfo("bench", Attribution(name="", url=""), True, "bench", None)
                    await async_write_event(Info(satellite=info).event(), writer)
                elif Ping.is_type(event.type):
                    await async_write_event(Pong().event(), writer)
                elif RunSatellite.is_type(event.type) and streaming is None:
                    streaming = asyncio.ensure_future(self._stream(writer))
                elif AudioStart.is_type(event.type):
                    waiting_first = True
                elif AudioChunk.is_type(event.type) and waiting_first:
                    waiting_first = False
                    self.heard.first_chunks.append(time.perf_counter())
                elif AudioStop.is_type(event.type):
                    await async_write_event(Played().event(), writer)
        except (ConnectionError, OSError, asyncio.CancelledError):
            pass
        finally:
            if streaming is not None:
                streaming.cancel()
            writer.close()

    async def _stream(self, writer: asyncio.StreamWriter) -> None:
        """The microphone: a chunk every 64 ms, scheduled from the start so that it never drifts."""
        from wyoming.audio import AudioChunk
        from wyoming.event import async_write_event

        silence = np.zeros(CHUNK_SAMPLES, dtype=np.float32)
        period = CHUNK_SAMPLES / SAMPLE_RATE
        start = time.perf_counter()
        sent = 0
        current: Said | None = None
        position = 0
        while True:
            if current is None:
                with self._lock:
                    current = self._pending.pop(0) if self._pending else None
                position = 0
                if current is not None:
                    current.started = start + sent * period  # its first sample is recorded from now
            if current is not None:
                piece = current.audio[position : position + CHUNK_SAMPLES]
                piece = np.pad(piece, (0, CHUNK_SAMPLES - len(piece)))
                position += CHUNK_SAMPLES
                if position >= len(current.audio):
                    current = None
            else:
                piece = silence
            sent += 1
            delay = start + sent * period - time.perf_counter()  # sent once its last sample is recorded
            if delay > 0:
                await asyncio.sleep(delay)
            chunk = AudioChunk(rate=SAMPLE_RATE, width=2, channels=1, audio=to_pcm16(piece), timestamp=0)
            await async_write_event(chunk.event(), writer)
