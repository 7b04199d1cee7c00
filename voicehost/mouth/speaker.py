"""The loudspeaker: announcements synthesized and played one after another by a worker thread.

sounddevice comes with the voice extras and is imported only when a loudspeaker is opened.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable
from typing import IO, Any, Final, Protocol

import numpy as np

from voicehost.audio.resample import resample
from voicehost.audio.samples import SAMPLE_RATE, Audio
from voicehost.mouth.base import NoSpeaker, SpeechSynthesizer
from voicehost.mouth.queued import QueuedMouth
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


class SpeakerMouth(QueuedMouth):
    """Speaks announcements aloud without holding up the game: `say` prints the line and queues it;
    a worker thread synthesizes and plays each in turn (`QueuedMouth`: the queue, `speaking`, `stop`).
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
        super().__init__(out=out, err=err, thread_name="voicehost-mouth")

    def close(self, *, drain: bool = True, timeout: float | None = 30.0) -> None:
        """Stop the worker: after the queued announcements (drain) or at once; then the output."""
        super().close(drain=drain, timeout=timeout)
        if self._output is not None:
            with contextlib.suppress(Exception):  # closing must not fail the game's exit
                self._output.close()

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
