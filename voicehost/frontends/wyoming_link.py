"""A Wyoming satellite reached over TCP: its microphone as a stream of 16 kHz chunks, its speaker as a
place to send the host's voice.

The satellite (wyoming-satellite on a Raspberry Pi, a kitchen smart speaker) is the server; voicehost
connects to it as Home Assistant does: `describe`, then `run-satellite`, after which a satellite that
streams all the time (no wake word, no local VAD) sends `run-pipeline` and then `audio-chunk` events
without end. The host's speech goes back as `audio-start`, `audio-chunk`s and `audio-stop`; satellites
from 1.4 answer with `played` once their speaker is done, and answer pings (and ping back).

A satellite serves one server at a time. While another one holds it (Home Assistant), it still answers
`describe`, then ignores the connection: nothing more ever comes, no sound, no `run-pipeline`, no pong,
and the connection stays open. So a connection that gives nothing at all within AUDIO_TIMEOUT_SECONDS
is reported as busy (SatelliteNotice with the BUSY problem) and the satellite is tried again until it
streams; one that answered (a pong, `run-pipeline`) but sends no sound waits for a wake word or for
speech (NOT_STREAMING): it is kept a while, since it is ours and can say so. Each is told once. (wyoming-satellite 1.0.0
answers no pings, so one of its own that waits for a wake word looks busy: the notice says both.)
Only once it has answered is it `connected`: the mouth never sends the host's voice to a satellite
that is not listening to us.

A satellite that is killed closes the connection; one that freezes, or whose network goes, falls
silent: nothing arrives for AUDIO_TIMEOUT_SECONDS (or, from one that answers pings, no pong for
PONG_TIMEOUT_SECONDS). Either way the voice loop is told once (SatelliteLost), the satellite is looked
for again every second, backing off to a few seconds, and the loop is told again when its first sound
arrives (`on_back`). The asyncio loop runs on a thread of its own; the voice loop and the mouth call
in from theirs.

Nothing a satellite sends is trusted: messages are read with bounds (wyoming_wire), chunks in formats
that cannot be heard are refused with a reason (wyoming_audio), and the queued sound is capped in
samples (sound_queue). wyoming is an optional extra (`pip install 'voicehost[satellite]'`).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import threading
import time
from collections.abc import Callable, Coroutine, Iterator
from dataclasses import dataclass
from typing import Any, Final, TypeVar

import numpy as np
from wyoming.audio import AudioChunk, AudioStart, AudioStop
from wyoming.event import Event
from wyoming.ping import Ping, Pong
from wyoming.satellite import RunSatellite

from voicehost.audio.samples import SAMPLE_RATE, Audio
from voicehost.frontends.satellite_problems import (
    BAD_CHANNELS,
    BAD_RATE,
    BAD_WIDTH,
    BROKEN,
    BUSY,
    CLOSED,
    MALFORMED,
    NO_ANSWER,
    NOT_SATELLITE,
    NOT_STREAMING,
    SILENT,
    TOO_LARGE,
    Problem,
    SatelliteLost,
    SatelliteNotice,
    network_problem,
)
from voicehost.frontends.sound_queue import SoundQueue
from voicehost.frontends.wyoming_audio import ToEars, UnusableAudio, chunk_format, decode
from voicehost.frontends.wyoming_wire import WireError, describe, open_connection, read_event, reset, write_event

CONNECT_TIMEOUT_SECONDS: Final = 5.0
"""A satellite that does not answer the connection and `describe` within this is not there."""
AUDIO_TIMEOUT_SECONDS: Final = 5.0
"""An always-streaming satellite sends about 16 chunks a second: none for this long means it is gone
(frozen, or its network lost), or, on a fresh connection, that it is not streaming to us (busy).
Generous: a loaded machine must not pause the game for nothing."""
PING_SECONDS: Final = 2.0
"""How often the satellite is pinged (as Home Assistant does); from 1.4 it then pings back."""
PONG_TIMEOUT_SECONDS: Final = 7.0
"""A satellite that has answered pings and stops answering for this long is gone."""
RETRY_SECONDS: Final = 1.0
"""The first attempts to reach a lost satellite again come this often..."""
RETRY_BACKOFF: Final = 1.5
MAX_RETRY_SECONDS: Final = 5.0
"""...then less and less often, down to this: a satellite that is back is found within seconds."""
WRITE_TIMEOUT_SECONDS: Final = 5.0
"""Sending to a satellite that does not read for this long means it is frozen."""
NOT_STREAMING_HOLD_SECONDS: Final = 30.0
"""A satellite of ours that streams nothing is kept this long after it is told about (its speaker says
so), then connected again: whatever state it is in gets another chance."""
TICK_SECONDS: Final = 0.25
POLL_SECONDS: Final = 0.1
MAX_QUEUED_SECONDS: Final = 30.0
"""Sound kept while the voice loop is busy (a slow decode); beyond it the oldest is dropped."""


class SatelliteUnreachable(Exception):
    """The satellite cannot be reached when the game starts; `problem` says why."""

    def __init__(self, problem: Problem) -> None:
        super().__init__(problem.key)
        self.problem = problem


class SatelliteGone(ConnectionError):
    """The satellite is not connected now (the speaker's audio cannot be sent)."""


class _Back:
    """Marks, in the sound queue, the moment a lost satellite sent sound again."""


_BACK: Final = _Back()
_CLOSED: Final = object()
_T = TypeVar("_T")
_REFUSED_SOUND: Final = (TOO_LARGE, MALFORMED, BAD_RATE, BAD_WIDTH, BAD_CHANNELS)
"""Problems with what the satellite sends: told even before it has streamed, since they will not pass."""


class _ConnectFailed(Exception):
    def __init__(self, problem: Problem) -> None:
        super().__init__(problem.key)
        self.problem = problem


@dataclass
class _Connection:
    """One TCP connection to the satellite, and what it has shown so far."""

    reader: asyncio.StreamReader
    writer: asyncio.StreamWriter
    answered: bool = False  # it sent something after `run-satellite`: it is ours
    streamed: bool = False  # it sent sound we could hear


class SatelliteLink:
    """One satellite: the sound it hears, queued for the voice loop, and its speaker for the mouth."""

    def __init__(
        self,
        host: str,
        port: int,
        *,
        audio_timeout: float = AUDIO_TIMEOUT_SECONDS,
        retry_seconds: float = RETRY_SECONDS,
        max_retry_seconds: float = MAX_RETRY_SECONDS,
    ) -> None:
        self.host = host
        self.port = port
        self.audio_timeout = audio_timeout
        self.retry_seconds = retry_seconds
        self.max_retry_seconds = max_retry_seconds
        self.satellite_name = ""  # the name it gives itself (`describe`), made safe to print
        self.received_samples = 0  # 16 kHz samples that arrived (the satellite's stream position)
        self.delivered_samples = 0  # of those, the samples handed to the voice loop
        self.connections = 0  # successful connections, the first one included
        self.failed_attempts = 0  # attempts to reach a lost satellite that failed
        self.busy_sessions = 0  # connections that ended because another server holds the satellite
        self.sends_played = False  # the satellite reports `played` when its speaker is done (1.4 and later)
        self._queue = SoundQueue(round(MAX_QUEUED_SECONDS * SAMPLE_RATE))
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="voicehost-satellite", daemon=True)
        self._connection: _Connection | None = None
        self._connected = threading.Event()
        self._closing = False
        self._lost = False
        self._told: Problem | None = None  # the last problem reported, not repeated until sound arrives
        self._task: asyncio.Task[Any] | None = None  # the supervisor, on the link's thread
        self._played = threading.Condition()
        self._played_count = 0
        self._to_ears = ToEars()
        self._last_audio = 0.0
        self._last_pong: float | None = None

    @property
    def address(self) -> str:
        return f"[{self.host}]:{self.port}" if ":" in self.host else f"{self.host}:{self.port}"

    @property
    def name(self) -> str:
        return self.satellite_name or self.address

    @property
    def dropped_samples(self) -> int:
        """Sound dropped because the voice loop fell MAX_QUEUED_SECONDS behind."""
        return self._queue.dropped_samples

    @property
    def queued_samples(self) -> int:
        return self._queue.queued_samples

    # ---- life cycle (the game's thread) ------------------------------------------------------------

    def open(self) -> None:
        """Connect and ask the satellite to stream; SatelliteUnreachable when it cannot be reached."""
        self._thread.start()
        try:
            self._call(self._connect(), CONNECT_TIMEOUT_SECONDS * 3 + 1)
        except _ConnectFailed as exc:
            self.close()
            raise SatelliteUnreachable(exc.problem) from None
        except concurrent.futures.TimeoutError:
            self.close()
            raise SatelliteUnreachable(network_problem(TimeoutError(), self.host, CONNECT_TIMEOUT_SECONDS)) from None
        asyncio.run_coroutine_threadsafe(self._supervise(), self._loop)

    def close(self) -> None:
        """Disconnect; a `chunks()` waiting in another thread returns. Safe to call twice."""
        if self._closing:
            return
        self._closing = True
        if self._thread.is_alive():
            with contextlib.suppress(Exception):  # a satellite that hangs must not hold up the game's exit
                self._call(self._shutdown(), CONNECT_TIMEOUT_SECONDS)
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(CONNECT_TIMEOUT_SECONDS)
        if not self._thread.is_alive():
            self._loop.close()
        self._queue.put_marker(_CLOSED)
        with self._played:
            self._played.notify_all()

    # ---- the microphone (the voice loop's thread) --------------------------------------------------

    def chunks(
        self,
        on_lost: Callable[[SatelliteLost], None],
        on_back: Callable[[], None],
        stop: threading.Event | None = None,
        *,
        on_notice: Callable[[SatelliteNotice], None] | None = None,
    ) -> Iterator[Audio]:
        """16 kHz chunks as the satellite hears them, until `close()` or `stop`. A lost satellite is
        reported to `on_lost` once, and to `on_back` once its sound arrives again; a satellite that
        answers but gives no sound, to `on_notice` once. All on this thread."""
        while not (stop is not None and stop.is_set()):
            item = self._queue.get(POLL_SECONDS)
            if item is None:
                continue
            if item is _CLOSED:
                return
            if isinstance(item, SatelliteLost):
                on_lost(item)
            elif isinstance(item, SatelliteNotice):
                if on_notice is not None:
                    on_notice(item)
            elif item is _BACK:
                on_back()
            else:
                assert isinstance(item, np.ndarray)
                self.delivered_samples += len(item)
                yield item

    # ---- the speaker (the mouth's thread) ------------------------------------------------------------

    @property
    def connected(self) -> bool:
        """True while the satellite is ours: it answered since `run-satellite`, and is still there."""
        return self._connected.is_set()

    def play_start(self, rate: int) -> None:
        self._send(AudioStart(rate=rate, width=2, channels=1, timestamp=0).event())

    def play_chunk(self, pcm16: bytes, rate: int, timestamp_ms: int) -> None:
        self._send(AudioChunk(rate=rate, width=2, channels=1, audio=pcm16, timestamp=timestamp_ms).event())

    def play_stop(self, timestamp_ms: int) -> None:
        self._send(AudioStop(timestamp=timestamp_ms).event())

    @property
    def played_count(self) -> int:
        """How many `played` events the satellite has sent."""
        with self._played:
            return self._played_count

    def wait_played(self, after: int, timeout: float) -> bool:
        """Block until the satellite reports more than `after` announcements played; False on timeout."""
        with self._played:
            return self._played.wait_for(lambda: self._played_count > after or self._closing, max(0.0, timeout))

    def _send(self, event: Event) -> None:
        if not self.connected or self._closing:
            raise SatelliteGone("not connected")
        try:
            self._call(self._write(event), WRITE_TIMEOUT_SECONDS + 1)
        except (OSError, TimeoutError, RuntimeError, concurrent.futures.CancelledError):  # the link is closing
            raise SatelliteGone("the sound was not taken") from None

    def _call(self, coroutine: Coroutine[Any, Any, _T], timeout: float) -> _T:
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop).result(timeout)

    # ---- the connection (the link's own thread) ------------------------------------------------------

    async def _connect(self) -> None:
        """Connect, `describe` (the answer must be a satellite's), then `run-satellite`."""
        try:
            reader, writer = await open_connection(self.host, self.port, CONNECT_TIMEOUT_SECONDS)
        except (OSError, TimeoutError) as exc:
            raise _ConnectFailed(network_problem(exc, self.host, CONNECT_TIMEOUT_SECONDS)) from None
        try:
            is_satellite, name = await describe(reader, writer, CONNECT_TIMEOUT_SECONDS)
            if not is_satellite:
                raise _ConnectFailed(Problem(NOT_SATELLITE))
            await write_event(writer, RunSatellite().event(), WRITE_TIMEOUT_SECONDS)
        except WireError as exc:
            reset(writer)
            raise _ConnectFailed(exc.problem) from None
        except (OSError, TimeoutError, EOFError) as exc:
            reset(writer)
            raise _ConnectFailed(network_problem(exc, self.host, CONNECT_TIMEOUT_SECONDS)) from None
        except BaseException:
            reset(writer)
            raise
        self.satellite_name = name
        self._connection = _Connection(reader, writer)
        self._to_ears = ToEars()
        self._last_audio = time.monotonic()
        self._last_pong = None
        self.connections += 1

    async def _supervise(self) -> None:
        """Run the connection; when it ends, report why (once) and connect again with backoff."""
        self._task = asyncio.current_task()
        delay = self.retry_seconds
        while not self._closing:
            if self._connection is None:
                try:
                    await self._connect()
                    delay = self.retry_seconds
                except _ConnectFailed:
                    self.failed_attempts += 1
                    await asyncio.sleep(delay)
                    delay = min(delay * RETRY_BACKOFF, self.max_retry_seconds)
                    continue
            connection = self._connection
            assert connection is not None
            problem = await self._session(connection)
            await self._disconnect()
            if self._closing:
                return
            self._report(problem, connection)
            await asyncio.sleep(delay)

    def _report(self, problem: Problem, connection: _Connection) -> None:
        """A connection that had streamed is a lost satellite (told once until it is back); one that
        never did is told only when the reason will not pass by itself (busy, a format refused)."""
        if problem.key == BUSY:
            self.busy_sessions += 1
        if connection.streamed:
            if not self._lost:
                self._lost = True
                self._told = problem
                self._queue.put_marker(SatelliteLost(self.name, problem))
        elif problem.key in (BUSY, NOT_STREAMING, *_REFUSED_SOUND):
            self._tell(problem)

    def _tell(self, problem: Problem) -> None:
        """A notice, unless it is the one told last (until sound arrives, nothing is said twice)."""
        if problem != self._told:
            self._told = problem
            self._queue.put_marker(SatelliteNotice(self.name, problem))

    async def _session(self, connection: _Connection) -> Problem:
        """Until the connection ends or falls silent: why it ended."""
        reader = asyncio.ensure_future(self._read_events(connection))
        watchdog = asyncio.ensure_future(self._watch(connection))
        try:
            done, _ = await asyncio.wait({reader, watchdog}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in (reader, watchdog):
                task.cancel()
            await asyncio.gather(reader, watchdog, return_exceptions=True)
        try:
            return next(iter(done)).result()
        except Exception:  # a message that breaks its handling must not end the game: it is a lost link
            return Problem(MALFORMED)

    async def _read_events(self, connection: _Connection) -> Problem:
        while True:
            try:
                event = await read_event(connection.reader)
            except WireError as exc:
                return exc.problem
            except (OSError, EOFError):
                return Problem(BROKEN)
            if event is None:
                return Problem(CLOSED)
            if not connection.answered:
                connection.answered = True
                self._connected.set()  # it listens to us: the mouth may speak through it
            try:
                await self._handle(event, connection)
            except UnusableAudio as exc:
                return exc.problem
            except SatelliteGone:
                return Problem(BROKEN)

    async def _handle(self, event: Event, connection: _Connection) -> None:
        if event.type == "audio-chunk":
            self._heard(event, connection)
        elif event.type == "ping":
            text = event.data.get("text")
            await self._write(Pong(text=text if isinstance(text, str) else None).event())
        elif event.type == "pong":
            self._last_pong = time.monotonic()
        elif event.type == "played":
            self.sends_played = True
            with self._played:
                self._played_count += 1
                self._played.notify_all()

    async def _watch(self, connection: _Connection) -> Problem:
        """Ping now and then; the reason, once nothing has come for too long. A satellite that answers
        but streams nothing is told about and kept a while: it is ours, and its speaker can say so."""
        next_ping = time.monotonic()
        while True:
            now = time.monotonic()
            if now >= next_ping:
                next_ping = now + PING_SECONDS
                try:
                    await self._write(Ping().event())
                except SatelliteGone:
                    return Problem(BROKEN)
            silent = now - self._last_audio
            if silent > self.audio_timeout:
                if connection.streamed:
                    return Problem(SILENT, {"seconds": f"{self.audio_timeout:g}"})
                if not connection.answered:
                    return Problem(BUSY)
                self._tell(Problem(NOT_STREAMING))
                if silent > self.audio_timeout + NOT_STREAMING_HOLD_SECONDS:
                    return Problem(NOT_STREAMING)
            if self._last_pong is not None and now - self._last_pong > PONG_TIMEOUT_SECONDS:
                return Problem(NO_ANSWER, {"seconds": f"{PONG_TIMEOUT_SECONDS:g}"})
            await asyncio.sleep(TICK_SECONDS)

    def _heard(self, event: Event, connection: _Connection) -> None:
        """One chunk of the satellite's microphone, into the queue at 16 kHz; UnusableAudio when its
        format cannot be heard."""
        fmt = chunk_format(event.data)
        heard = decode(event.payload or b"", fmt)
        if not len(heard):
            return  # an empty chunk is no sound: the watchdog still waits for some
        audio = self._to_ears.to_16khz(heard, fmt.rate)
        self._last_audio = time.monotonic()
        connection.streamed = True
        self._told = None
        if self._lost:
            self._lost = False
            self._queue.put_marker(_BACK)
        if len(audio):
            self.received_samples += len(audio)
            self._queue.put_sound(audio)

    async def _write(self, event: Event) -> None:
        connection = self._connection
        if connection is None:
            raise SatelliteGone("not connected")
        try:
            await write_event(connection.writer, event, WRITE_TIMEOUT_SECONDS)
        except (TimeoutError, OSError, RuntimeError, AttributeError):
            reset(connection.writer)  # the reader then ends, and the session with it
            raise SatelliteGone("sending failed") from None

    async def _disconnect(self) -> None:
        self._connected.clear()
        connection, self._connection = self._connection, None
        if connection is not None:
            reset(connection.writer)

    async def _shutdown(self) -> None:
        task = self._task
        if task is not None:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
        await self._disconnect()
