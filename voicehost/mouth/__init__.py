"""The host's voice: espeak-ng (through pyttsx3) speaks each announcement, to the loudspeaker or to a WAV file.

Every announcement is also printed, one per line, for players who read better than they hear and for
logs. A voice that breaks mid-game never stops the game: the mouth says so once on stderr and goes
on printing. pyttsx3 is an optional extra ("tts") and sounddevice comes with the voice extras; both
are imported only when a voice is made.
"""

from __future__ import annotations

import contextlib
import os
import queue
import struct
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from typing import IO, Any, Final, Protocol

import numpy as np

from engine.lang import Lang
from voicehost.ears.audio import SAMPLE_RATE, Audio, AudioError
from voicehost.ears.resample import resample
from voicehost.ears.wav import read_wav, to_pcm16
from voicehost.portaudio import PORTAUDIO_LOCK

VOICE_LANGUAGES: Final[dict[Lang, tuple[str, ...]]] = {
    Lang.PT_BR: ("pt-br",),
    Lang.PT_PT: ("pt-pt", "pt"),  # espeak-ng's "pt" voice is European Portuguese
    Lang.IT: ("it",),
    Lang.EN: ("en-us", "en-gb", "en"),
}
"""espeak-ng language codes to look for, best first, for each game language."""
SPEECH_RATE_WPM: Final = 165
"""A little slower than espeak's 175: card names must be understood the first time, across a table."""
FILE_WAIT_SECONDS: Final = 3.0
GAP_SECONDS: Final = 0.3
"""Silence between two announcements in an --audio-out file, as a speaker would pause."""
PLAYBACK_GRACE_SECONDS: Final = 2.0
"""How much longer than the audio itself playback may take before the device is presumed stuck."""


class SpeechError(Exception):
    """The host cannot speak (no pyttsx3, no espeak-ng, no voice for the language); meant for the player."""


class NoSpeaker(SpeechError):
    """There is no loudspeaker to play the voice on."""


class SpeechSynthesizer(Protocol):
    """Text to 16 kHz mono audio (tests give a fake)."""

    def synthesize(self, text: str) -> Audio: ...


class Output(Protocol):
    """Where synthesized audio is played (tests give a fake that records what it was asked)."""

    def play(self, audio: Audio, rate: int, cancel: threading.Event) -> bool:
        """Block until `audio` has been heard or `cancel` is set; True when it played to the end."""
        ...

    def close(self) -> None: ...


# ---- synthesis ---------------------------------------------------------------------------------------

_ENGINE_LOCK: Final = threading.Lock()
"""pyttsx3 keeps one engine per driver and espeak-ng one voice per process: one synthesis at a time."""


def _pyttsx3_engine() -> Any:
    """pyttsx3's espeak engine, or SpeechError saying what to install."""
    try:
        import pyttsx3
    except ImportError:
        raise SpeechError("The host's voice needs pyttsx3: pip install 'voicehost[tts]'.") from None
    try:
        engine = pyttsx3.init(driverName="espeak")
    except Exception as exc:  # ctypes, RuntimeError, OSError: all mean espeak-ng is unusable
        raise SpeechError(
            f"The host's voice cannot start: espeak-ng is missing or broken ({exc}). On Debian: apt install espeak-ng."
        ) from None
    driver = sys.modules.get("pyttsx3.drivers.espeak")
    if driver is not None:
        # pyttsx3 2.9x prints "Audio saved to ..." on stdout after every save_to_file; stdout carries the
        # announcements, one per line. Shadowing print in that module only is thread-safe, unlike
        # redirecting sys.stdout while the game thread may be printing.
        driver.print = _quiet  # type: ignore[attr-defined]
    return engine


def _wait_for_file(path: Path, timeout: float = FILE_WAIT_SECONDS) -> None:
    """pyttsx3 2.99's runAndWait sometimes returns before espeak-ng's last callback has written the
    file: wait for it to appear and stop growing, so the next synthesis cannot take its place."""
    deadline = time.monotonic() + timeout
    size = -1
    while time.monotonic() < deadline:
        current = path.stat().st_size if path.exists() else -1
        if current > 44 and current == size:
            return
        size = current
        time.sleep(0.01)


def _quiet(*args: object, **kwargs: object) -> None:
    """Swallows pyttsx3's chatter."""


def choose_voice(voices: list[Any], lang: Lang) -> str:
    """The pyttsx3 voice id (espeak-ng identifier, e.g. "roa/pt-br") that speaks `lang`."""
    for code in VOICE_LANGUAGES[lang]:
        for voice in voices:
            languages = [str(name).lower() for name in (getattr(voice, "languages", None) or [])]
            voice_id = str(voice.id).lower()
            if code in languages or voice_id.rsplit("/", 1)[-1] == code:
                return str(voice.id)
    raise SpeechError(f"espeak-ng has no voice for {lang.value}: reinstall espeak-ng (its data has every language).")


class Synthesizer:
    """pyttsx3 over espeak-ng, in the voice of the game's language.

    Speech is saved to a temporary WAV and read back, never spoken by pyttsx3 itself: on Linux its
    say() plays through aplay and fails silently without it, while save_to_file works headless.
    """

    def __init__(self, lang: Lang | str, *, rate_wpm: int = SPEECH_RATE_WPM) -> None:
        self.lang = lang if isinstance(lang, Lang) else Lang.parse(lang)
        self.rate_wpm = rate_wpm
        self._engine = _pyttsx3_engine()
        with _ENGINE_LOCK:
            try:
                voices = list(self._engine.getProperty("voices"))
            except Exception as exc:  # a broken espeak-ng data folder fails in many ways
                raise SpeechError(f"espeak-ng cannot list its voices ({exc}): reinstall espeak-ng.") from None
        self.voice_id = choose_voice(voices, self.lang)
        self.last_seconds = 0.0  # how long the last synthesis took, for logs and benchmarks

    def synthesize(self, text: str, *, _retried: bool = False) -> Audio:
        """`text` spoken, as 16 kHz mono float32; SpeechError when espeak-ng fails."""
        text = " ".join(text.split())
        if not text:
            return np.zeros(0, dtype=np.float32)
        started = time.perf_counter()
        with _ENGINE_LOCK, tempfile.TemporaryDirectory(prefix="voicehost-tts-") as folder:
            path = Path(folder) / "speech.wav"
            try:
                # Set every time: other Synthesizers (another language) share the one espeak-ng.
                self._engine.setProperty("voice", self.voice_id)
                self._engine.setProperty("rate", self.rate_wpm)
                self._engine.save_to_file(text, str(path))
                self._engine.runAndWait()
                current = self._engine.getProperty("voice")
            except Exception as exc:  # pyttsx3 surfaces espeak failures as anything
                raise SpeechError(f"espeak-ng could not speak ({type(exc).__name__}: {exc}).") from None
            _wait_for_file(path)
            if str(current).lower() != self.voice_id.lower():
                raise SpeechError(f"espeak-ng refused the voice {self.voice_id} (it speaks {current}).")
            if not path.exists():
                raise SpeechError("espeak-ng produced no audio (pyttsx3 reported no error).")
            try:
                audio = read_wav(path)
            except AudioError as exc:
                raise SpeechError(f"espeak-ng produced unreadable audio: {exc}") from None
        if len(audio) == 0 and not _retried:
            # pyttsx3 2.99 now and then closes the file before espeak-ng's first callback: once more is enough
            return self.synthesize(text, _retried=True)
        self.last_seconds = time.perf_counter() - started
        return audio


# ---- playing -----------------------------------------------------------------------------------------


def _sounddevice() -> Any:
    try:
        import sounddevice
    except (ImportError, OSError) as exc:  # OSError: the PortAudio library is missing
        raise NoSpeaker(f"No loudspeaker can be used ({exc}). Write the voice to a file with --audio-out.") from None
    return sounddevice


class SoundDeviceOutput:
    """Plays through PortAudio (never aplay), one stream per announcement so a loudspeaker that was
    unplugged and plugged back between two announcements still works."""

    def __init__(self) -> None:
        self._sd = _sounddevice()

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
                    samplerate=device_rate, channels=1, dtype="float32", callback=callback, finished_callback=done.set
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
            sd.check_output_settings(channels=1, dtype="float32", samplerate=rate)
            return rate
        except sd.PortAudioError:  # e.g. a raw ALSA device that plays 48 kHz only
            return int(sd.query_devices(kind="output")["default_samplerate"])

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


# ---- mouths ------------------------------------------------------------------------------------------


class _Fallback:
    """Remembers that the voice broke, and tells the players once."""

    def __init__(self, err: IO[str] | None) -> None:
        self.active = False
        self._err = err

    def trip(self, exc: BaseException) -> None:
        if self.active:
            return
        self.active = True
        reason = str(exc) if isinstance(exc, SpeechError) else f"The host's voice failed ({type(exc).__name__}: {exc})."
        print(
            f"voicehost: {reason} The game goes on: announcements are printed, not spoken.",
            file=self._err or sys.stderr,
            flush=True,
        )


def _print_line(text: str, out: IO[str] | None) -> None:
    print(" ".join(text.split()), file=out or sys.stdout, flush=True)


class SpeakerMouth:
    """Speaks announcements aloud without holding up the game: `say` prints the line and queues it;
    a worker thread synthesizes and plays each in turn.

    `speaking` is true from the first queued announcement until the queue is empty, and every change
    is passed to `on_speaking` (e.g. `Microphone.set_paused`), in order, so the host never hears
    itself. `stop()` is the barge-in: the current announcement is cut and queued ones are dropped.
    """

    def __init__(
        self,
        synthesizer: SpeechSynthesizer,
        *,
        make_output: Callable[[], Output] | None = None,
        on_speaking: Callable[[bool], None] | None = None,
        out: IO[str] | None = None,
        err: IO[str] | None = None,
    ) -> None:
        self._synthesizer = synthesizer
        self._make_output = make_output
        self._output: Output | None = None
        self._on_speaking = on_speaking
        self._out = out
        self._fallback = _Fallback(err)
        self._queue: queue.Queue[tuple[str, threading.Event] | None] = queue.Queue()
        self._lock = threading.Lock()  # also orders the on_speaking calls: keep that hook quick
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
                if self._on_speaking is not None:
                    self._on_speaking(True)
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
                if self._on_speaking is not None:
                    self._on_speaking(False)
                self._idle.set()


class FileMouth:
    """--audio-out: every announcement is printed and appended to one 16 kHz mono WAV file.

    The file is valid after every announcement: samples are appended and then the two size fields
    of the header are rewritten in place. Rewriting the whole file atomically instead would cost
    O(length) per announcement (quadratic over a long game, for 30 KB per second of speech), while
    patching costs two 4-byte writes; a crash between them leaves at worst a header that counts
    fewer samples than there are, which every reader accepts.
    """

    HEADER_BYTES: Final = 44

    def __init__(
        self,
        path: str | os.PathLike[str],
        synthesizer: SpeechSynthesizer,
        *,
        gap_seconds: float = GAP_SECONDS,
        out: IO[str] | None = None,
        err: IO[str] | None = None,
    ) -> None:
        self.path = Path(path)
        self._synthesizer = synthesizer
        self._gap = np.zeros(round(gap_seconds * SAMPLE_RATE), dtype=np.float32)
        self._out = out
        self._fallback = _Fallback(err)
        self._data_bytes = 0
        self._lock = threading.Lock()  # the host's timer thread may announce too
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._file: IO[bytes] | None = open(self.path, "w+b")  # noqa: SIM115 - kept open for the game
            self._file.write(self._header(0))
            self._file.flush()
        except OSError as exc:
            raise SpeechError(f"cannot write the host's voice to {self.path}: {exc.strerror or exc}") from None

    @property
    def seconds(self) -> float:
        """Audio written so far."""
        return self._data_bytes / 2 / SAMPLE_RATE

    @property
    def silent(self) -> bool:
        return self._fallback.active

    def say(self, text: str) -> None:
        """Print the line, then append it spoken; never raises into the game loop."""
        _print_line(text, self._out)
        if self._fallback.active or not text.strip():
            return
        try:
            audio = self._synthesizer.synthesize(text)
            if len(audio):
                self._append(audio)
        except Exception as exc:  # whatever breaks the voice, the game goes on
            self._fallback.trip(exc)

    def _append(self, audio: Audio) -> None:
        with self._lock:
            if self._file is None:
                raise SpeechError(f"the voice file {self.path} is already closed.")
            pcm = to_pcm16(np.concatenate([self._gap, audio]) if self._data_bytes else audio)
            try:
                self._file.seek(0, os.SEEK_END)
                self._file.write(pcm)
                self._data_bytes += len(pcm)
                self._file.seek(4)
                self._file.write(struct.pack("<I", 36 + self._data_bytes))
                self._file.seek(40)
                self._file.write(struct.pack("<I", self._data_bytes))
                self._file.flush()  # readers (and a crash) see a whole file; fsync would add no validity
            except OSError as exc:
                raise SpeechError(f"cannot write the host's voice to {self.path}: {exc.strerror or exc}") from None

    @staticmethod
    def _header(data_bytes: int) -> bytes:
        """The canonical 44-byte header of 16-bit mono PCM at SAMPLE_RATE."""
        return (
            b"RIFF"
            + struct.pack("<I", 36 + data_bytes)
            + b"WAVE"
            + b"fmt "
            + struct.pack("<IHHIIHH", 16, 1, 1, SAMPLE_RATE, SAMPLE_RATE * 2, 2, 16)
            + b"data"
            + struct.pack("<I", data_bytes)
        )

    def close(self) -> None:
        with self._lock:
            file, self._file = self._file, None
            if file is not None:
                file.close()

    def __enter__(self) -> FileMouth:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()
