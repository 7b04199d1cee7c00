"""The ears' raw audio: WAV files in and out, recordings played back as a stream, and the microphone.

Everything leaves this module as `Audio` at `SAMPLE_RATE` (16 kHz mono float32 in [-1, 1]), the one
format every recognizer here hears. sounddevice (PortAudio) is imported only when a microphone is
opened, so text mode and recordings (--audio-in) work on machines without a sound card or PortAudio.
"""

from __future__ import annotations

import contextlib
import math
import os
import queue
import struct
import threading
import time
import wave
from collections.abc import Callable, Iterator
from pathlib import Path
from types import TracebackType
from typing import Any, Final, Protocol

import numpy as np
import numpy.typing as npt

from voicehost.asr import SAMPLE_RATE, Audio

CHUNK_SECONDS: Final = 0.1
"""Audio handed to the recognizer at a time: short enough for a snappy end of speech, long enough
that Python's per-chunk overhead stays negligible."""
PAUSE_TAIL_SECONDS: Final = 0.3
"""Audio still dropped after the host stops speaking: the output's buffers and the room's echo
outlast the last sample written, and the host must never hear itself."""
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

RESAMPLE_ZERO_CROSSINGS: Final = 16
"""Half-length of the windowed-sinc filter, in zero crossings: 16 gives a ~70 dB stop band."""
RESAMPLE_KAISER_BETA: Final = 8.6
RESAMPLE_ROLLOFF: Final = 0.95
"""The filter's cutoff as a fraction of the lower Nyquist frequency: a little below it, so what
would alias is attenuated before it gets there."""
RESAMPLE_MAX_PHASES: Final = 4096
"""Odd rate pairs (44101 Hz) would need a huge filter table; past this many phases the sub-sample
position is rounded to 1/4096 of a sample, an error far below 16-bit noise."""
RESAMPLE_BLOCK: Final = 8192

WAVE_FORMAT_PCM: Final = 0x0001
WAVE_FORMAT_IEEE_FLOAT: Final = 0x0003
WAVE_FORMAT_EXTENSIBLE: Final = 0xFFFE

NO_MICROPHONE_ADVICE: Final = "Play with --text, or give a recording with --audio-in."


class AudioError(Exception):
    """A recording or an audio device cannot be used; the message is meant for the player."""


class NoMicrophone(AudioError):
    """No way to listen: sounddevice/PortAudio is missing, or there is no input device."""


class MicrophoneLost(AudioError):
    """The microphone stopped delivering audio (unplugged, driver error): the game pauses until it is back."""


# ---- WAV files --------------------------------------------------------------------------------------


def read_wav(path: str | os.PathLike[str]) -> Audio:
    """A WAV file as 16 kHz mono float32: any rate, any channel count, 8/16/24/32-bit PCM or 32/64-bit float.

    Python's `wave` module reads integer PCM only, and recorders (sox, Audacity, browsers) often write
    float or WAVE_FORMAT_EXTENSIBLE files, so the RIFF chunks are parsed here.
    """
    path = Path(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise AudioError(f"no recording at {path}") from None
    except IsADirectoryError:
        raise AudioError(f"{path} is a folder, not a recording") from None
    except OSError as exc:
        raise AudioError(f"cannot read the recording {path}: {exc.strerror or exc}") from None
    samples, rate = _decode_wav(data, path)
    return resample(samples, rate, SAMPLE_RATE)


def _decode_wav(data: bytes, path: Path) -> tuple[Audio, int]:
    """The mono samples and the rate of a RIFF/WAVE file's bytes."""
    if len(data) < 12 or data[:4] != b"RIFF" or data[8:12] != b"WAVE":
        kind = "an RF64 file (too large for plain WAV)" if data[:4] == b"RF64" else "not a WAV file"
        raise AudioError(f"{path} is {kind}: convert it with `sox {path.name} -r 16000 -c 1 out.wav`")
    fmt: bytes | None = None
    pcm: bytes | None = None
    pos = 12
    while pos + 8 <= len(data):
        chunk_id = data[pos : pos + 4]
        size = struct.unpack_from("<I", data, pos + 4)[0]
        body = data[pos + 8 : pos + 8 + size]  # streaming writers leave the size at 0 or 2**32-1: take what is there
        if chunk_id == b"fmt ":
            fmt = body
        elif chunk_id == b"data":
            pcm = body if size not in (0, 0xFFFFFFFF) else data[pos + 8 :]
            break
        pos += 8 + size + (size & 1)
    if fmt is None or len(fmt) < 16 or pcm is None:
        raise AudioError(f"{path} is a damaged WAV file (no format or no audio data)")
    tag, channels, rate, _byte_rate, block_align, bits = struct.unpack_from("<HHIIHH", fmt)
    if tag == WAVE_FORMAT_EXTENSIBLE and len(fmt) >= 26:
        tag = struct.unpack_from("<H", fmt, 24)[0]  # the sub-format GUID starts with the plain format tag
    if channels < 1 or rate < 1 or bits not in (8, 16, 24, 32, 64):
        raise AudioError(f"{path} has an impossible format ({channels} channels, {rate} Hz, {bits} bits)")
    width = bits // 8
    frame = max(block_align, width * channels)
    usable = len(pcm) - len(pcm) % frame
    raw = np.frombuffer(pcm[:usable], dtype=np.uint8).reshape(-1, frame)[:, : width * channels]
    flat = np.ascontiguousarray(raw).reshape(-1)
    samples: npt.NDArray[np.float64]
    if tag == WAVE_FORMAT_IEEE_FLOAT and bits in (32, 64):
        samples = flat.view("<f4" if bits == 32 else "<f8").astype(np.float64)
    elif tag == WAVE_FORMAT_PCM and bits == 8:
        samples = (flat.astype(np.float64) - 128.0) / 128.0
    elif tag == WAVE_FORMAT_PCM and bits == 16:
        samples = flat.view("<i2") / 32768.0
    elif tag == WAVE_FORMAT_PCM and bits == 24:
        triples = flat.reshape(-1, 3).astype(np.int32)
        ints = triples[:, 0] | (triples[:, 1] << 8) | (triples[:, 2] << 16)
        samples = np.where(ints >= 1 << 23, ints - (1 << 24), ints) / float(1 << 23)
    elif tag == WAVE_FORMAT_PCM and bits == 32:
        samples = flat.view("<i4") / float(1 << 31)
    else:
        raise AudioError(
            f"{path} uses WAV format 0x{tag:04x} with {bits}-bit samples, which cannot be read: "
            f"convert it with `sox {path.name} -b 16 -r 16000 -c 1 out.wav`"
        )
    mono = samples.reshape(-1, channels).mean(axis=1)
    return np.clip(mono, -1.0, 1.0).astype(np.float32), rate


def write_wav(path: str | os.PathLike[str], audio: Audio, rate: int = SAMPLE_RATE) -> None:
    """Mono 16-bit PCM, the format every player and recognizer opens."""
    samples = np.asarray(audio, dtype=np.float32).reshape(-1)
    try:
        with wave.open(str(path), "wb") as out:
            out.setnchannels(1)
            out.setsampwidth(2)
            out.setframerate(int(rate))
            out.writeframes(to_pcm16(samples))
    except OSError as exc:
        raise AudioError(f"cannot write the recording {path}: {exc.strerror or exc}") from None


def to_pcm16(audio: Audio) -> bytes:
    """Little-endian 16-bit samples, clipped rather than wrapped around."""
    scaled = np.clip(np.asarray(audio, dtype=np.float32), -1.0, 1.0) * 32767.0
    return np.round(scaled).astype("<i2").tobytes()


def file_chunks(
    path: str | os.PathLike[str],
    chunk_seconds: float = CHUNK_SECONDS,
    realtime: bool = False,
    *,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
) -> Iterator[Audio]:
    """A recording cut into chunks, as a microphone would deliver it (--audio-in).

    realtime=True hands each chunk over when it would have finished being recorded, so timers and
    end-of-speech delays behave as at a table; False is as fast as possible (tests, benchmarks).
    """
    audio = read_wav(path)
    size = max(1, round(chunk_seconds * SAMPLE_RATE))
    start = clock()
    for index, offset in enumerate(range(0, len(audio), size)):
        chunk = audio[offset : offset + size]
        if realtime:
            due = start + (index * size + len(chunk)) / SAMPLE_RATE  # scheduled from the start: no drift
            delay = due - clock()
            if delay > 0:
                sleep(delay)
        yield chunk


# ---- resampling -------------------------------------------------------------------------------------


class Resampler:
    """Band-limited rate conversion with numpy alone: a Kaiser-windowed sinc evaluated at each output
    sample's position, the weights tabled per sub-sample phase (a polyphase filter).

    Works on a stream: `process` may be fed any chunk sizes and gives what is fully determined so
    far; `flush` gives the rest. Quality: ~70 dB stop band, flat to 0.95 × the lower Nyquist
    frequency; linear interpolation would fold 8–11 kHz of 22 kHz speech back into the speech band.
    """

    def __init__(self, src_rate: int, dst_rate: int) -> None:
        if src_rate <= 0 or dst_rate <= 0:
            raise ValueError(f"sample rates must be positive, not {src_rate} and {dst_rate}")
        common = math.gcd(int(src_rate), int(dst_rate))
        self._up = int(dst_rate) // common
        self._down = int(src_rate) // common
        cutoff = min(1.0, dst_rate / src_rate) * RESAMPLE_ROLLOFF
        self._half = math.ceil(RESAMPLE_ZERO_CROSSINGS / cutoff)
        self._phases = min(self._up, RESAMPLE_MAX_PHASES)
        self._offsets = np.arange(-self._half + 1, self._half + 1, dtype=np.int64)
        distance = self._offsets[None, :] - (np.arange(self._phases) / self._phases)[:, None]
        ratio = np.clip(1.0 - (distance / self._half) ** 2, 0.0, None)
        window = np.i0(RESAMPLE_KAISER_BETA * np.sqrt(ratio)) / np.i0(RESAMPLE_KAISER_BETA)
        table = cutoff * np.sinc(cutoff * distance) * window
        self._table = (table / table.sum(axis=1, keepdims=True)).astype(np.float32)  # unit gain at DC
        self._buffer = np.zeros(self._half, dtype=np.float32)  # silence before the first sample
        self._buffer_start = -self._half  # absolute input index of _buffer[0]
        self._next = 0  # next output sample
        self._received = 0

    def process(self, chunk: Audio) -> Audio:
        """The output samples whose whole filter window has arrived."""
        chunk = np.asarray(chunk, dtype=np.float32).reshape(-1)
        self._received += len(chunk)
        self._buffer = np.concatenate([self._buffer, chunk])
        last = self._buffer_start + len(self._buffer) - 1
        return self._produce(self._ready_until(last))

    def flush(self) -> Audio:
        """The remaining output, the input taken as silent after its end."""
        total = -(-self._received * self._up // self._down)
        self._buffer = np.concatenate([self._buffer, np.zeros(self._half + 2, dtype=np.float32)])
        last = self._buffer_start + len(self._buffer) - 1
        return self._produce(min(total, self._ready_until(last)))

    def _ready_until(self, last: int) -> int:
        # Output n needs inputs up to base(n) + half; rounding a phase may add one to base.
        limit = last - self._half
        return max(self._next, -(-limit * self._up // self._down)) if limit > 0 else self._next

    def _produce(self, end: int) -> Audio:
        pieces: list[Audio] = []
        for first in range(self._next, end, RESAMPLE_BLOCK):
            n = np.arange(first, min(end, first + RESAMPLE_BLOCK), dtype=np.int64)
            base, remainder = np.divmod(n * self._down, self._up)
            if self._phases == self._up:
                phase = remainder
            else:
                phase = (remainder * self._phases + self._up // 2) // self._up
                carry = phase == self._phases
                base = base + carry
                phase = np.where(carry, 0, phase)
            index = (base - self._buffer_start)[:, None] + self._offsets[None, :]
            pieces.append(np.einsum("ij,ij->i", self._buffer[index], self._table[phase]).astype(np.float32))
        self._next = max(self._next, end)
        needed_from = (self._next * self._down) // self._up - self._half + 1
        drop = max(0, min(needed_from - self._buffer_start, len(self._buffer)))
        self._buffer = self._buffer[drop:]
        self._buffer_start += drop
        return np.concatenate(pieces) if pieces else np.zeros(0, dtype=np.float32)


def resample(audio: Audio, src_rate: int, dst_rate: int) -> Audio:
    """`audio` converted from `src_rate` to `dst_rate` (see `Resampler` for the quality)."""
    audio = np.asarray(audio, dtype=np.float32).reshape(-1)
    if src_rate == dst_rate:
        return audio
    resampler = Resampler(src_rate, dst_rate)
    return np.concatenate([resampler.process(audio), resampler.flush()])


# ---- the microphone ---------------------------------------------------------------------------------

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


PORTAUDIO_LOCK: Final = threading.RLock()
"""Held while PortAudio's device list is rebuilt (which ends every open stream) and while the host's
voice plays, so a microphone search never cuts an announcement off."""


def _sounddevice() -> Any:
    """sounddevice, or NoMicrophone saying why it cannot be used."""
    try:
        import sounddevice
    except ImportError:
        raise NoMicrophone(
            f"No microphone support is installed (pip install 'voicehost[vosk]'). {NO_MICROPHONE_ADVICE}"
        ) from None
    except OSError as exc:  # sounddevice raises OSError when the PortAudio library is missing
        raise NoMicrophone(
            f"No microphone can be used: the PortAudio library is missing ({exc}; on Debian: apt install "
            f"libportaudio2). {NO_MICROPHONE_ADVICE}"
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

    While `paused` (the host speaking) and for PAUSE_TAIL_SECONDS after, captured audio is dropped,
    so the host never hears itself. A device that fails or falls silent makes `chunks()` raise
    MicrophoneLost; `reconnect()` then looks for it every second.
    """

    def __init__(
        self,
        device: int | str | None = None,
        *,
        chunk_seconds: float = CHUNK_SECONDS,
        tail_seconds: float = PAUSE_TAIL_SECONDS,
        make_stream: StreamFactory | None = None,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
        poll_seconds: float = POLL_SECONDS,
    ) -> None:
        self.device = device
        self.chunk_seconds = chunk_seconds
        self.tail_seconds = tail_seconds
        self._make_stream = make_stream
        self._clock = clock
        self._sleep = sleep
        self._poll = poll_seconds
        self._queue: queue.Queue[object] = queue.Queue(maxsize=max(1, round(MAX_QUEUED_SECONDS / chunk_seconds)))
        self._stream: InputStream | None = None
        self._resampler: Resampler | None = None
        self._paused = False
        self._resume_at = 0.0
        self._last_callback = 0.0
        self._finished = threading.Event()
        self._closing = False
        self.dropped_while_paused = 0  # blocks, for logs and tests
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

    # ---- pausing while the host speaks ----

    @property
    def paused(self) -> bool:
        return self._paused

    @paused.setter
    def paused(self, value: bool) -> None:
        if value:
            self._paused = True
        else:
            self._resume_at = self._clock() + self.tail_seconds  # set before unpausing: no gap to slip through
            self._paused = False

    def set_paused(self, value: bool) -> None:
        """The same as setting `paused`: handy as a mouth's on_speaking hook."""
        self.paused = value

    # ---- capture thread ----

    def _callback(self, indata: npt.NDArray[np.float32], frames: int, time_info: Any, status: Any) -> None:
        """Runs on PortAudio's thread: only copy and queue, never block."""
        now = self._clock()
        self._last_callback = now
        if status:
            self.status_flags += 1
        if self._paused or now < self._resume_at:
            self.dropped_while_paused += 1
            return
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
