"""The host's voice by espeak-ng (through pyttsx3), in the voice of the game's language.

pyttsx3 is an optional extra ("tts"), imported only when a voice is made.
"""

from __future__ import annotations

import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, Final

import numpy as np

from engine.lang import Lang
from voicehost.ears.audio import Audio, AudioError
from voicehost.ears.wav import read_wav
from voicehost.mouth.base import SpeechError

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
