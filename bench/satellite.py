"""A Wyoming satellite in this process, for the latency bench: it streams a room's sound to the host in
real time and notes when the host's voice comes back.

It behaves as wyoming-satellite streaming all the time does (tests/satellite_room.py, the README's
kitchen speaker): it answers `describe` as a satellite, and once told `run-satellite` sends its
microphone as `audio-chunk`s of 1024 samples (64 ms) at 16 kHz, each when its last sample has been
"recorded", silence between utterances; it answers pings, and `played` after each `audio-stop`. A
player speaks with `say`: the utterance goes out chunk by chunk from the next chunk on. The host's
voice is noted as it arrives: the time of each `audio-start` and of the first `audio-chunk` after it.
"""

from __future__ import annotations

import asyncio
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Final

import numpy as np

from voicehost.audio.samples import SAMPLE_RATE, Audio, to_pcm16

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
