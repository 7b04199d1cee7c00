"""The microphone: PortAudio's capture thread fills a queue, a generator empties it, a lost device is looked for again.

sounddevice (PortAudio) is imported only when a microphone is opened, so text mode and recordings
work on machines without a sound card or PortAudio.
"""

from __future__ import annotations

import contextlib
import queue
import threading
import time
from collections.abc import Callable, Iterator
from types import TracebackType
from typing import Any, Final, Protocol

import numpy as np
import numpy.typing as npt

from voicehost.audio.resample import Resampler
from voicehost.audio.samples import SAMPLE_RATE, Audio, AudioError
from voicehost.ears.recordings import CHUNK_SECONDS
from voicehost.portaudio import PORTAUDIO_LOCK

STALL_SECONDS: Final = 2.0
"""A live stream calls back every chunk; this long without a callback means the device is gone
(ALSA may simply stop calling back when a USB microphone is pulled, without any error)."""
RETRY_SECONDS: Final = 1.0
"""How often a lost microphone is looked for again."""
POLL_SECONDS: Final = 0.1
"""How often a waiting `chunks()` checks that the stream is still alive."""
MAX_QUEUED_SECONDS: Final = 30.0
"""Captured audio kept while the consumer is busy (a slow decode); beyond it the oldest is dropped
rather than letting memory grow for ever."""
NO_MICROPHONE_ADVICE: Final = "Play with --text, or give a recording with --audio-in."


class NoMicrophone(AudioError):
    """No way to listen: sounddevice/PortAudio is missing, or there is no input device."""


class NoSoundLibrary(NoMicrophone):
    """sounddevice or the PortAudio library it loads is missing: `fix` is the command that installs it."""

    def __init__(self, message: str, fix: str) -> None:
        super().__init__(message)
        self.fix = fix


class MicrophoneLost(AudioError):
    """The microphone stopped delivering audio (unplugged, driver error): the game pauses until it is back."""


InputCallback = Callable[[npt.NDArray[np.float32], int, Any, Any], None]
"""sounddevice's stream callback: (indata[frames, channels], frames, time, status)."""


class InputStream(Protocol):
    """What Microphone needs of a sounddevice.InputStream (tests give a fake)."""

    @property
    def samplerate(self) -> float: ...

    @property
    def active(self) -> bool: ...

    def start(self) -> None: ...

    def stop(self) -> None: ...

    def close(self) -> None: ...


class StreamFactory(Protocol):
    def __call__(
        self,
        callback: InputCallback,
        finished: Callable[[], None],
        *,
        device: int | str | None,
        chunk_seconds: float,
        rescan: bool,
    ) -> InputStream: ...


def _sounddevice() -> Any:
    """sounddevice, or NoMicrophone saying why it cannot be used."""
    try:
        import sounddevice
    except ImportError:
        fix = "pip install 'voicehost[player]'"
        raise NoSoundLibrary(f"No microphone support is installed ({fix}). {NO_MICROPHONE_ADVICE}", fix) from None
    except OSError as exc:  # sounddevice raises OSError when the PortAudio library is missing
        fix = "sudo apt-get install libportaudio2"
        raise NoSoundLibrary(
            f"No microphone can be used: the PortAudio library is missing ({exc}; on Debian: {fix}). "
            f"{NO_MICROPHONE_ADVICE}",
            fix,
        ) from None
    return sounddevice


def _make_stream(
    callback: InputCallback,
    finished: Callable[[], None],
    *,
    device: int | str | None,
    chunk_seconds: float,
    rescan: bool,
) -> InputStream:
    """A started sounddevice.InputStream, mono float32, at 16 kHz when the device allows it, else at
    the device's own rate (Microphone resamples). rescan=True rebuilds PortAudio's device list first:
    PortAudio lists devices once, so a microphone plugged back in is invisible until then."""
    sd = _sounddevice()
    try:
        if rescan:  # the maintainers' advice (python-sounddevice issue #125); it ends every open stream
            with PORTAUDIO_LOCK:
                try:
                    sd._terminate()
                finally:
                    sd._initialize()
        try:
            sd.check_input_settings(device=device, channels=1, dtype="float32", samplerate=SAMPLE_RATE)
            rate = float(SAMPLE_RATE)
        except sd.PortAudioError:  # e.g. a raw ALSA hw device that records at 48 kHz only
            info = sd.query_devices(device, kind="input")
            rate = float(info["default_samplerate"])
        stream = sd.InputStream(
            samplerate=rate,
            blocksize=max(1, round(rate * chunk_seconds)),
            device=device,
            channels=1,
            dtype="float32",
            callback=callback,
            finished_callback=finished,
        )
        try:
            stream.start()
        except BaseException:
            stream.close()
            raise
    except (sd.PortAudioError, OSError, ValueError) as exc:
        detail = str(exc) or type(exc).__name__
        if "device -1" in detail or "Invalid device" in detail or "No input" in detail:
            detail = "there is no input device on this machine"
        raise NoMicrophone(f"No microphone found ({detail}). {NO_MICROPHONE_ADVICE}") from None
    return stream  # type: ignore[no-any-return]


_CLOSED: Final = object()


class Microphone:
    """A live 16 kHz mono stream: PortAudio's capture thread fills a queue, `chunks()` empties it.

    The microphone stays open while the host talks (the voice loop's echo gate tells its voice from a
    player's "stop"). A device that fails or falls silent makes `chunks()` raise MicrophoneLost;
    `reconnect()` then looks for it every second.
    """

    def __init__(
        self,
        device: int | str | None = None,
        *,
        chunk_seconds: float = CHUNK_SECONDS,
        make_stream: StreamFactory | None = None,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
        poll_seconds: float = POLL_SECONDS,
    ) -> None:
        self.device = device
        self.chunk_seconds = chunk_seconds
        self._make_stream = make_stream
        self._clock = clock
        self._sleep = sleep
        self._poll = poll_seconds
        self._queue: queue.Queue[object] = queue.Queue(maxsize=max(1, round(MAX_QUEUED_SECONDS / chunk_seconds)))
        self._stream: InputStream | None = None
        self._resampler: Resampler | None = None
        self._last_callback = 0.0
        self._finished = threading.Event()
        self._closing = False
        self.dropped_overflow = 0  # blocks dropped because the consumer fell MAX_QUEUED_SECONDS behind
        self.status_flags = 0  # callbacks that reported an input overflow or similar

    # ---- life cycle ----

    def open(self, *, rescan: bool = False) -> None:
        """Start capturing; NoMicrophone if there is nothing to capture from."""
        if self._stream is not None:
            return
        factory = self._make_stream or _make_stream  # looked up now, so tests may patch the module's
        while self._queue.qsize():
            self._discard_oldest()  # stale audio, or the end marker of an earlier close()
        self._finished.clear()
        self._closing = False
        self._last_callback = self._clock()
        stream = factory(
            self._callback, self._on_finished, device=self.device, chunk_seconds=self.chunk_seconds, rescan=rescan
        )
        rate = round(stream.samplerate)
        self._resampler = Resampler(rate, SAMPLE_RATE) if rate != SAMPLE_RATE else None
        self._last_callback = self._clock()
        self._stream = stream

    def close(self) -> None:
        """Stop capturing; a `chunks()` waiting in another thread returns."""
        self._closing = True
        self._release_stream()
        with contextlib.suppress(queue.Full):  # wakes a waiting chunks(); a full queue ends it once drained
            self._queue.put_nowait(_CLOSED)

    def __enter__(self) -> Microphone:
        self.open()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def _release_stream(self) -> None:
        stream, self._stream = self._stream, None
        if stream is None:
            return
        for action in (stream.stop, stream.close):
            with contextlib.suppress(Exception):  # a dead device may fail to stop; it is being dropped anyway
                action()

    # ---- capture thread ----

    def _callback(self, indata: npt.NDArray[np.float32], frames: int, time_info: Any, status: Any) -> None:
        """Runs on PortAudio's thread: only copy and queue, never block."""
        now = self._clock()
        self._last_callback = now
        if status:
            self.status_flags += 1
        block = np.array(indata[:, 0] if indata.ndim == 2 else indata, dtype=np.float32)  # PortAudio reuses indata
        try:
            self._queue.put_nowait(block)
        except queue.Full:
            self._discard_oldest()
            self.dropped_overflow += 1
            self._queue.put_nowait(block)

    def _on_finished(self) -> None:
        if not self._closing:
            self._finished.set()

    def _discard_oldest(self) -> None:
        with contextlib.suppress(queue.Empty):
            self._queue.get_nowait()

    # ---- consumer ----

    def chunks(self, stop: threading.Event | None = None) -> Iterator[Audio]:
        """16 kHz chunks as they are captured, until `close()` or `stop` is set.

        Raises MicrophoneLost when the stream ends on its own, reports inactive, or falls silent.
        """
        if self._stream is None and not self._closing:
            self.open()
        while not (self._closing and self._queue.empty()) and not (stop is not None and stop.is_set()):
            try:
                item = self._queue.get(timeout=self._poll)
            except queue.Empty:
                self._check_alive()
                continue
            if item is _CLOSED:
                return
            assert isinstance(item, np.ndarray)
            chunk = self._resampler.process(item) if self._resampler is not None else item
            if len(chunk):
                yield chunk

    def _check_alive(self) -> None:
        if self._closing:
            return
        stream = self._stream
        reason = ""
        if stream is None:
            reason = "it is not open"
        elif self._finished.is_set():
            reason = "the audio stream ended"
        elif not _is_active(stream):
            reason = "the audio stream stopped"
        elif self._clock() - self._last_callback > STALL_SECONDS:
            reason = f"no sound arrived for {STALL_SECONDS:g} seconds"
        if reason:
            raise MicrophoneLost(f"The microphone stopped working ({reason}). The game waits until it is back.")

    def reconnect(self, stop: threading.Event | None = None, interval: float = RETRY_SECONDS) -> bool:
        """Close the lost stream and try to open one every `interval` seconds until it works.

        Returns True when the microphone is back, False when `stop` was set first.
        """
        self._release_stream()
        attempt = 0
        while not self._closing and not (stop is not None and stop.is_set()):
            try:
                self.open(rescan=attempt > 0)
                return True
            except NoMicrophone:
                attempt += 1
                self._sleep(interval)
        return False

    def resilient_chunks(
        self,
        on_lost: Callable[[MicrophoneLost], None],
        on_back: Callable[[], None],
        stop: threading.Event | None = None,
    ) -> Iterator[Audio]:
        """Like `chunks()`, but a lost microphone is reported to `on_lost` (the host says so and
        pauses the game), looked for every second, and reported to `on_back` once it is there."""
        while not (stop is not None and stop.is_set()):
            try:
                yield from self.chunks(stop)
                return
            except MicrophoneLost as lost:
                on_lost(lost)
                if not self.reconnect(stop):
                    return
                on_back()


def _is_active(stream: InputStream) -> bool:
    try:
        return bool(stream.active)
    except Exception:  # a stream whose device vanished may fail even to answer
        return False


def open_microphone(
    device: int | str | None = None,
    *,
    chunk_seconds: float = CHUNK_SECONDS,
    make_stream: StreamFactory | None = None,
) -> Microphone:
    """An open Microphone, or NoMicrophone with a message that points the player to --text and --audio-in."""
    microphone = Microphone(device, chunk_seconds=chunk_seconds, make_stream=make_stream)
    microphone.open()
    return microphone
