"""A Wyoming satellite reached over TCP with the `wyoming` library: its microphone as a stream of 16 kHz
chunks, its speaker as a place to send the host's voice.

The satellite (wyoming-satellite on a Raspberry Pi, a kitchen smart speaker) is the server; voicehost
connects to it as Home Assistant does: `describe`, then `run-satellite`, after which a satellite that
streams all the time (no wake word, no local VAD) sends `audio-chunk` events without end. The host's
speech goes back as `audio-start`, `audio-chunk`s and `audio-stop`; satellites from 1.4 answer with
`played` once their speaker is done, and ping the client once it has pinged them.

A satellite that is killed closes the connection; one that freezes, or whose network goes, falls
silent: nothing arrives for AUDIO_TIMEOUT_SECONDS (or, from one that answers pings, no pong for
PONG_TIMEOUT_SECONDS). Either way the voice loop is told once (`on_lost`), the satellite is looked
for again every second, backing off to a few seconds, and the loop is told again when its first
sound arrives (`on_back`). The asyncio loop runs on a thread of its own; the voice loop and the mouth
call in from theirs.

wyoming is an optional extra (`pip install 'voicehost[satellite]'`).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import queue
import threading
import time
from collections.abc import Callable, Coroutine, Iterator
from typing import Any, Final, TypeVar

import numpy as np
from wyoming.audio import AudioChunk, AudioStart, AudioStop
from wyoming.client import AsyncTcpClient
from wyoming.event import Event
from wyoming.info import Describe, Info
from wyoming.ping import Ping, Pong
from wyoming.satellite import RunSatellite
from wyoming.snd import Played

from voicehost.audio.resample import Resampler
from voicehost.audio.samples import SAMPLE_RATE, Audio, AudioError
from voicehost.frontends.devices import DeviceError

CONNECT_TIMEOUT_SECONDS: Final = 5.0
"""A satellite that does not answer the connection and `describe` within this is not there."""
AUDIO_TIMEOUT_SECONDS: Final = 5.0
"""An always-streaming satellite sends about 16 chunks a second: none for this long means it is gone
(frozen, or its network lost). Generous: a loaded machine must not pause the game for nothing."""
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
TICK_SECONDS: Final = 0.25
POLL_SECONDS: Final = 0.1
MAX_QUEUED_SECONDS: Final = 30.0
"""Sound kept while the voice loop is busy (a slow decode); beyond it the oldest is dropped."""
CHUNK_SAMPLES: Final = 1024
"""Samples per audio-chunk sent to the speaker (what Home Assistant sends)."""


class SatelliteUnreachable(DeviceError):
    """The satellite cannot be reached when the game starts; the message says what to check."""


class SatelliteGone(ConnectionError):
    """The satellite is not connected now (the speaker's audio cannot be sent)."""


class SatelliteLost(AudioError):
    """The satellite stopped sending sound or went away: the game pauses until it is back."""


class _Back:
    """Marks, in the sound queue, the moment a lost satellite sent sound again."""


_BACK: Final = _Back()
_CLOSED: Final = object()
_T = TypeVar("_T")


class _Client(AsyncTcpClient):
    """wyoming's TCP client, with a way to drop a connection that no longer reads (a frozen satellite
    never lets a graceful close finish)."""

    def abort(self) -> None:
        writer = self._writer
        if writer is not None:
            writer.transport.abort()


def _pcm_to_audio(chunk: AudioChunk) -> Audio:
    """A chunk's PCM as mono float32 in [-1, 1] at the chunk's own rate (Wyoming audio is signed)."""
    dtype = {1: "<i1", 2: "<i2", 4: "<i4"}.get(chunk.width)
    if dtype is None:
        raise ValueError(f"{chunk.width}-byte samples")
    frame = chunk.width * max(1, chunk.channels)
    usable = len(chunk.audio) - len(chunk.audio) % frame
    samples = np.frombuffer(chunk.audio[:usable], dtype=dtype).astype(np.float32) / float(2 ** (8 * chunk.width - 1))
    if chunk.channels > 1:
        samples = samples.reshape(-1, chunk.channels).mean(axis=1)
    return samples.astype(np.float32)


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
        self.info: Info | None = None
        self.received_samples = 0  # 16 kHz samples that arrived (the satellite's stream position)
        self.delivered_samples = 0  # of those, the samples handed to the voice loop
        self.dropped_samples = 0  # sound dropped because the voice loop fell MAX_QUEUED_SECONDS behind
        self.connections = 0  # successful connections, the first one included
        self.failed_attempts = 0  # attempts to reach a lost satellite that failed
        self.sends_played = False  # the satellite reports `played` when its speaker is done (1.4 and later)
        self._queue: queue.Queue[object] = queue.Queue(maxsize=round(MAX_QUEUED_SECONDS * SAMPLE_RATE / CHUNK_SAMPLES))
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="voicehost-satellite", daemon=True)
        self._client: _Client | None = None
        self._connected = threading.Event()
        self._closing = False
        self._lost = False
        self._task: asyncio.Task[Any] | None = None  # the supervisor, on the link's thread
        self._played = threading.Condition()
        self._played_count = 0
        self._resampler: tuple[int, Resampler] | None = None
        self._last_audio = 0.0
        self._last_pong: float | None = None

    @property
    def address(self) -> str:
        return f"[{self.host}]:{self.port}" if ":" in self.host else f"{self.host}:{self.port}"

    @property
    def name(self) -> str:
        satellite = self.info.satellite if self.info is not None else None
        return satellite.name if satellite is not None and satellite.name else self.address

    # ---- life cycle (the game's thread) ------------------------------------------------------------

    def open(self) -> None:
        """Connect and start the satellite streaming; SatelliteUnreachable when it cannot be."""
        self._thread.start()
        try:
            self._call(self._connect(), CONNECT_TIMEOUT_SECONDS * 2 + 1)
        except (OSError, TimeoutError, concurrent.futures.TimeoutError, EOFError, ValueError) as exc:
            self.close()
            detail = str(exc) or type(exc).__name__
            raise SatelliteUnreachable(
                f"cannot reach the satellite at {self.address} ({detail}). Is wyoming-satellite running there, "
                f"listening with --uri tcp://0.0.0.0:{self.port}, and reachable from this machine?"
            ) from None
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
        self._put(_CLOSED)
        with self._played:
            self._played.notify_all()

    # ---- the microphone (the voice loop's thread) --------------------------------------------------

    def chunks(
        self,
        on_lost: Callable[[SatelliteLost], None],
        on_back: Callable[[], None],
        stop: threading.Event | None = None,
    ) -> Iterator[Audio]:
        """16 kHz chunks as the satellite hears them, until `close()` or `stop`. A lost satellite is
        reported to `on_lost` once, and to `on_back` once its sound arrives again, both on this thread."""
        while not (stop is not None and stop.is_set()):
            try:
                item = self._queue.get(timeout=POLL_SECONDS)
            except queue.Empty:
                continue
            if item is _CLOSED:
                return
            if isinstance(item, SatelliteLost):
                on_lost(item)
            elif item is _BACK:
                on_back()
            else:
                assert isinstance(item, np.ndarray)
                self.delivered_samples += len(item)
                yield item

    # ---- the speaker (the mouth's thread) ------------------------------------------------------------

    @property
    def connected(self) -> bool:
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
            raise SatelliteGone(f"the satellite {self.name} is not connected")
        try:
            self._call(self._write(event), WRITE_TIMEOUT_SECONDS + 1)
        except (OSError, TimeoutError, concurrent.futures.TimeoutError, RuntimeError) as exc:
            raise SatelliteGone(f"the satellite {self.name} did not take the sound ({exc})") from None

    def _call(self, coroutine: Coroutine[Any, Any, _T], timeout: float) -> _T:
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop).result(timeout)

    def _put(self, item: object) -> None:
        """Queue sound or a marker; when the voice loop is far behind, the oldest sound goes."""
        while True:
            try:
                self._queue.put_nowait(item)
                return
            except queue.Full:
                with contextlib.suppress(queue.Empty):
                    old = self._queue.get_nowait()
                    if isinstance(old, np.ndarray):
                        self.dropped_samples += len(old)
                    else:  # a marker is never dropped: it goes back at the end
                        self._queue.put_nowait(old)

    # ---- the connection (the link's own thread) ------------------------------------------------------

    async def _connect(self) -> None:
        """Connect, `describe` (the answer must be a satellite's), then `run-satellite`."""
        client = _Client(self.host, self.port, connect_timeout=CONNECT_TIMEOUT_SECONDS)
        await client.connect()
        try:
            await asyncio.wait_for(client.write_event(Describe().event()), WRITE_TIMEOUT_SECONDS)
            info = await asyncio.wait_for(self._read_info(client), CONNECT_TIMEOUT_SECONDS)
            if info.satellite is None:
                raise ValueError(f"{self.address} is a Wyoming service, but not a satellite")
            await asyncio.wait_for(client.write_event(RunSatellite().event()), WRITE_TIMEOUT_SECONDS)
        except BaseException:
            client.abort()
            with contextlib.suppress(Exception):
                await client.disconnect()
            raise
        self.info = info
        self._client = client
        self._resampler = None
        self._last_audio = time.monotonic()
        self._last_pong = None
        self.connections += 1
        self._connected.set()

    @staticmethod
    async def _read_info(client: _Client) -> Info:
        while True:
            event = await client.read_event()
            if event is None:
                raise EOFError("the connection closed before the satellite described itself")
            if Info.is_type(event.type):
                return Info.from_event(event)

    async def _supervise(self) -> None:
        """Run the connection; when it is lost, report it once and reconnect with backoff."""
        self._task = asyncio.current_task()
        delay = self.retry_seconds
        while not self._closing:
            if self._client is None:
                try:
                    await self._connect()
                    delay = self.retry_seconds
                except (OSError, TimeoutError, EOFError, ValueError):
                    self.failed_attempts += 1
                    await asyncio.sleep(delay)
                    delay = min(delay * RETRY_BACKOFF, self.max_retry_seconds)
                    continue
            reason = await self._session()
            await self._disconnect()
            if self._closing:
                return
            if not self._lost:
                self._lost = True
                lost = f"The satellite {self.name} stopped ({reason}). The game waits until it is back."
                self._put(SatelliteLost(lost))
            await asyncio.sleep(delay)

    async def _session(self) -> str:
        """Until the connection ends or falls silent: why it ended."""
        reader = asyncio.ensure_future(self._read_events())
        watchdog = asyncio.ensure_future(self._watch())
        try:
            done, _ = await asyncio.wait({reader, watchdog}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in (reader, watchdog):
                task.cancel()
            await asyncio.gather(reader, watchdog, return_exceptions=True)
        try:
            return str(next(iter(done)).result())
        except Exception as exc:  # a bug in handling one event must not end the game: it is a lost link
            return f"{type(exc).__name__}: {exc}"

    async def _read_events(self) -> str:
        client = self._client
        assert client is not None
        while True:
            try:
                event = await client.read_event()
            except (OSError, EOFError, ValueError) as exc:
                return f"the connection broke: {exc or type(exc).__name__}"
            if event is None:
                return "it closed the connection"
            if AudioChunk.is_type(event.type):
                self._heard(AudioChunk.from_event(event))
            elif Ping.is_type(event.type):
                await self._write(Pong(text=Ping.from_event(event).text).event())
            elif Pong.is_type(event.type):
                self._last_pong = time.monotonic()
            elif Played.is_type(event.type):
                self.sends_played = True
                with self._played:
                    self._played_count += 1
                    self._played.notify_all()

    async def _watch(self) -> str:
        """Ping now and then; the reason, once nothing has come for too long."""
        next_ping = time.monotonic()
        while True:
            now = time.monotonic()
            if now >= next_ping:
                next_ping = now + PING_SECONDS
                await self._write(Ping().event())
            if now - self._last_audio > self.audio_timeout:
                return f"no sound arrived for {self.audio_timeout:g} seconds"
            if self._last_pong is not None and now - self._last_pong > PONG_TIMEOUT_SECONDS:
                return f"it did not answer for {PONG_TIMEOUT_SECONDS:g} seconds"
            await asyncio.sleep(TICK_SECONDS)

    def _heard(self, chunk: AudioChunk) -> None:
        self._last_audio = time.monotonic()
        try:
            audio = _pcm_to_audio(chunk)
        except ValueError:
            return  # a format no satellite sends: ignored, and the watchdog sees no sound
        if chunk.rate != SAMPLE_RATE:
            if self._resampler is None or self._resampler[0] != chunk.rate:
                self._resampler = (chunk.rate, Resampler(chunk.rate, SAMPLE_RATE))
            audio = self._resampler[1].process(audio)
        if not len(audio):
            return
        if self._lost:
            self._lost = False
            self._put(_BACK)
        self.received_samples += len(audio)
        self._put(audio)

    async def _write(self, event: Event) -> None:
        client = self._client
        if client is None:
            raise SatelliteGone("not connected")
        try:
            await asyncio.wait_for(client.write_event(event), WRITE_TIMEOUT_SECONDS)
        except (TimeoutError, OSError, RuntimeError, AttributeError) as exc:
            client.abort()  # the reader then ends, and the session with it
            raise SatelliteGone(f"sending failed: {exc or type(exc).__name__}") from None

    async def _disconnect(self) -> None:
        self._connected.clear()
        client, self._client = self._client, None
        if client is not None:
            client.abort()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(client.disconnect(), 1.0)

    async def _shutdown(self) -> None:
        task = self._task
        if task is not None:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
        await self._disconnect()
