"""The loudspeaker: announcements synthesized and played one after another by a worker thread.

sounddevice comes with the voice extras and is imported only when a loudspeaker is opened.
"""

from __future__ import annotations

import contextlib
import queue
import threading
from collections.abc import Callable
from types import TracebackType
from typing import IO, Any, Final, Protocol

import numpy as np

from voicehost.ears.audio import SAMPLE_RATE, Audio
from voicehost.ears.resample import resample
from voicehost.mouth.base import NoSpeaker, SpeechSynthesizer, _Fallback, _print_line
from voicehost.portaudio import PORTAUDIO_LOCK

PLAYBACK_GRACE_SECONDS: Final = 2.0
"""How much longer than the audio itself playback may take before the device is presumed stuck."""


class Output(Protocol):
    """Where synthesized audio is played (tests give a fake that records what it was asked)."""

    def play(self, audio: Audio, rate: int, cancel: threading.Event) -> bool:
        """Block until `audio` has been heard or `cancel` is set; True when it played to the end."""
        ...

    def close(self) -> None: ...


def _sounddevice() -> Any:
    try:
        import sounddevice
    except (ImportError, OSError) as exc:  # OSError: the PortAudio library is missing
        raise NoSpeaker(f"No loudspeaker can be used ({exc}). Write the voice to a file with --audio-out.") from None
    return sounddevice


class SoundDeviceOutput:
    """Plays through PortAudio (never aplay), one stream per announcement so a loudspeaker that was
    unplugged and plugged back between two announcements still works. `device`: a PortAudio output's
    index or name (the earpiece, --key-audio); None: the default output."""

    def __init__(self, device: int | str | None = None) -> None:
        self._sd = _sounddevice()
        self._device = device

    def play(self, audio: Audio, rate: int, cancel: threading.Event) -> bool:
        sd = self._sd
        with PORTAUDIO_LOCK:  # a microphone search (which restarts PortAudio) waits for the end
            try:
                device_rate = self._device_rate(rate)
            except (sd.PortAudioError, OSError, ValueError) as exc:
                raise _no_speaker(exc) from None
            samples = resample(np.asarray(audio, dtype=np.float32).reshape(-1), rate, device_rate)
            done = threading.Event()
            position = 0

            def callback(outdata: Any, frames: int, time_info: Any, status: Any) -> None:
                nonlocal position
                if cancel.is_set():
                    outdata.fill(0)
                    raise sd.CallbackAbort
                chunk = samples[position : position + frames]
                outdata[: len(chunk), 0] = chunk
                outdata[len(chunk) :, 0] = 0.0  # the callback must fill the whole buffer, always
                position += frames
                if position >= len(samples):
                    raise sd.CallbackStop

            try:
                stream = sd.OutputStream(
                    samplerate=device_rate,
                    channels=1,
                    dtype="float32",
                    callback=callback,
                    finished_callback=done.set,
                    device=self._device,
                )
            except (sd.PortAudioError, OSError, ValueError) as exc:
                raise _no_speaker(exc) from None
            try:
                stream.start()
                if not done.wait(len(samples) / device_rate + PLAYBACK_GRACE_SECONDS):
                    raise NoSpeaker("The loudspeaker stopped playing (the device does not respond).")
            except sd.PortAudioError as exc:
                raise _no_speaker(exc) from None
            finally:
                stream.close()  # aborts whatever is left: after a stop, or a stuck device
        return not cancel.is_set()

    def _device_rate(self, rate: int) -> int:
        """`rate` when the output device takes it, else the device's own rate."""
        sd = self._sd
        try:
            sd.check_output_settings(device=self._device, channels=1, dtype="float32", samplerate=rate)
            return rate
        except sd.PortAudioError:  # e.g. a raw ALSA device that plays 48 kHz only
            return int(sd.query_devices(self._device, kind="output")["default_samplerate"])

    def close(self) -> None:
        """Nothing stays open between announcements."""


def _no_speaker(exc: BaseException) -> NoSpeaker:
    detail = str(exc) or type(exc).__name__
    if "device -1" in detail or "Invalid device" in detail:
        detail = "there is no output device on this machine"
    return NoSpeaker(f"No loudspeaker found ({detail}). Write the voice to a file with --audio-out.")


def _make_output() -> Output:
    """The real loudspeaker (tests swap this factory for a fake)."""
    return SoundDeviceOutput()


class SpeakerMouth:
    """Speaks announcements aloud without holding up the game: `say` prints the line and queues it;
    a worker thread synthesizes and plays each in turn.

    `speaking` is true from the first queued announcement until the queue is empty: the voice loop's
    echo gate reads it, so the host never takes its own voice for a player's. `stop()` is the
    barge-in: the current announcement is cut and queued ones are dropped.
    """

    def __init__(
        self,
        synthesizer: SpeechSynthesizer,
        *,
        make_output: Callable[[], Output] | None = None,
        out: IO[str] | None = None,
        err: IO[str] | None = None,
    ) -> None:
        self._synthesizer = synthesizer
        self._make_output = make_output
        self._output: Output | None = None
        self._out = out
        self._fallback = _Fallback(err)
        self._queue: queue.Queue[tuple[str, threading.Event] | None] = queue.Queue()
        self._lock = threading.Lock()
        self._cancels: list[threading.Event] = []  # one per announcement queued or playing
        self._pending = 0
        self._speaking = threading.Event()
        self._idle = threading.Event()
        self._idle.set()
        self.played: int = 0  # announcements heard to the end
        self.interrupted: int = 0  # announcements cut short by stop()
        self._thread = threading.Thread(target=self._run, name="voicehost-mouth", daemon=True)
        self._thread.start()

    @property
    def speaking(self) -> bool:
        """True while an announcement is queued or being played."""
        return self._speaking.is_set()

    @property
    def silent(self) -> bool:
        """True once the voice broke and the mouth only prints."""
        return self._fallback.active

    def say(self, text: str) -> None:
        """Print the line now and speak it as soon as the ones before it are done."""
        _print_line(text, self._out)
        if self._fallback.active or not text.strip():
            return
        cancel = threading.Event()
        with self._lock:
            self._cancels.append(cancel)
            self._pending += 1
            if self._pending == 1:
                self._idle.clear()
                self._speaking.set()
        self._queue.put((text, cancel))

    def stop(self) -> None:
        """Cut the current announcement short and drop the queued ones (a player said "stop")."""
        with self._lock:
            for cancel in self._cancels:
                cancel.set()
            self._cancels.clear()

    def wait_idle(self, timeout: float | None = None) -> bool:
        """Block until everything queued has been spoken (or dropped); False on timeout."""
        return self._idle.wait(timeout)

    def close(self, *, drain: bool = True, timeout: float | None = 30.0) -> None:
        """Stop the worker: after the queued announcements (drain) or at once."""
        if not drain:
            self.stop()
        self._queue.put(None)
        self._thread.join(timeout)
        if self._output is not None:
            with contextlib.suppress(Exception):  # closing must not fail the game's exit
                self._output.close()

    def __enter__(self) -> SpeakerMouth:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def _run(self) -> None:
        while True:
            item = self._queue.get()
            if item is None:
                return
            text, cancel = item
            try:
                if not cancel.is_set() and not self._fallback.active:
                    self._speak(text, cancel)
            except Exception as exc:  # whatever breaks the voice, the game goes on
                self._fallback.trip(exc)
            finally:
                self._finished(cancel)

    def _speak(self, text: str, cancel: threading.Event) -> None:
        audio = self._synthesizer.synthesize(text)
        if cancel.is_set() or not len(audio):
            return
        if self._output is None:
            self._output = (self._make_output or _make_output)()  # looked up now, so tests may patch it
        if self._output.play(audio, SAMPLE_RATE, cancel):
            self.played += 1
        else:
            self.interrupted += 1

    def _finished(self, cancel: threading.Event) -> None:
        with self._lock:
            if cancel in self._cancels:
                self._cancels.remove(cancel)
            self._pending -= 1
            if self._pending == 0:
                self._speaking.clear()
                self._idle.set()
