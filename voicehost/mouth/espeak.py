"""The host's voice by espeak-ng, in the voice of the game's language.

Each announcement is one run of the `espeak-ng` program, its voice and rate given on the command line.
It used to go through pyttsx3, which drives one espeak-ng inside the process asynchronously: now and
then a new rate was not yet in effect when the next synthesis ran (the first announcement of a process
came out at pyttsx3's 200 words a minute instead of SPEECH_RATE_WPM), and the audio depended on what had
been said before. A process per synthesis has nothing left over from the last one: the same text gives
the same audio, at the rate asked for, every time.
"""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import time
import wave
from dataclasses import dataclass
from typing import Final

import numpy as np

from engine.lang import Lang
from voicehost.audio.resample import resample
from voicehost.audio.samples import SAMPLE_RATE, Audio, from_pcm
from voicehost.mouth.base import SpeechError

PROGRAM: Final = "espeak-ng"
VOICE_LANGUAGES: Final[dict[Lang, tuple[str, ...]]] = {
    Lang.PT_BR: ("pt-br",),
    Lang.PT_PT: ("pt-pt", "pt"),  # espeak-ng's "pt" voice is European Portuguese
    Lang.IT: ("it",),
    Lang.EN: ("en-us", "en-gb", "en"),
}
"""espeak-ng language codes to look for, best first, for each game language."""
SPEECH_RATE_WPM: Final = 165
"""A little slower than espeak's 175: card names must be understood the first time, across a table."""
TIMEOUT_SECONDS: Final = 30.0
"""espeak-ng says a long announcement in well under a second: one that takes this long is stuck."""
INSTALL_ADVICE: Final = "On Debian: apt install espeak-ng."


@dataclass(frozen=True)
class Voice:
    """One line of `espeak-ng --voices`: the voice file (what -v takes) and the languages it speaks."""

    file: str
    languages: tuple[str, ...]


def parse_voices(listing: str) -> list[Voice]:
    """The voices of `espeak-ng --voices`, in its order. Its columns are separated by spaces (names have
    underscores instead): priority, language, age/gender, name, file, then "(language priority)" pairs."""
    voices = []
    for line in listing.splitlines():
        fields = line.split()
        if len(fields) < 5 or not fields[0].isdigit():
            continue  # the header, or a line this parser does not know
        others = [field.lstrip("(").lower() for field in fields[5:] if field.startswith("(")]
        voices.append(Voice(fields[4], (fields[1].lower(), *others)))
    return voices


def choose_voice(voices: list[Voice], lang: Lang) -> str:
    """The espeak-ng voice file (e.g. "roa/pt-BR") that speaks `lang`, by VOICE_LANGUAGES' preference."""
    for code in VOICE_LANGUAGES[lang]:
        for voice in voices:
            if code in voice.languages or voice.file.lower().rsplit("/", 1)[-1] == code:
                return voice.file
    raise SpeechError(f"espeak-ng has no voice for {lang.value}: reinstall espeak-ng (its data has every language).")


def _environment() -> dict[str, str]:
    """A UTF-8 locale: espeak-ng may decode its text by the locale's charset, and garble accents under LC_ALL=C."""
    return {**os.environ, "LC_ALL": "C.UTF-8"}


def _run(args: list[str], text: str, what: str) -> bytes:
    """espeak-ng's standard output; SpeechError when it fails or hangs, with what it said on stderr."""
    try:
        done = subprocess.run(
            args,
            input=text.encode("utf-8"),
            capture_output=True,
            env=_environment(),
            timeout=TIMEOUT_SECONDS,
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise SpeechError(f"espeak-ng took over {TIMEOUT_SECONDS:g} s to {what} and was stopped.") from None
    except OSError as exc:
        raise SpeechError(f"espeak-ng cannot be started ({exc.strerror or exc}). {INSTALL_ADVICE}") from None
    if done.returncode != 0:
        said = done.stderr.decode("utf-8", "replace").strip().splitlines()
        reason = said[-1] if said else f"exit status {done.returncode}"
        raise SpeechError(f"espeak-ng could not {what} ({reason}).")
    return done.stdout


def decode_wav(data: bytes) -> Audio:
    """espeak-ng's --stdout WAV (16-bit mono PCM, a streaming header without the real length) as 16 kHz
    float32; SpeechError when it is not one."""
    try:
        with wave.open(io.BytesIO(data)) as wav:
            if wav.getsampwidth() != 2 or wav.getnchannels() != 1:
                raise SpeechError(
                    f"espeak-ng produced unexpected audio ({wav.getnchannels()} channels, "
                    f"{8 * wav.getsampwidth()}-bit): reinstall espeak-ng."
                )
            rate = wav.getframerate()
            pcm = wav.readframes(wav.getnframes())  # the header's length is a placeholder: read to the end
    except (wave.Error, EOFError) as exc:
        raise SpeechError(f"espeak-ng produced unreadable audio ({exc}).") from None
    return resample(from_pcm(pcm), rate, SAMPLE_RATE)


class Synthesizer:
    """espeak-ng, in the voice of the game's language: one `espeak-ng` run per announcement."""

    def __init__(self, lang: Lang | str, *, rate_wpm: int = SPEECH_RATE_WPM) -> None:
        self.lang = lang if isinstance(lang, Lang) else Lang.parse(lang)
        self.rate_wpm = rate_wpm
        program = shutil.which(PROGRAM)
        if program is None:
            raise SpeechError(f"The host's voice needs espeak-ng, which is not installed. {INSTALL_ADVICE}")
        self._program = program
        listing = _run([program, "--voices"], "", "list its voices").decode("utf-8", "replace")
        self.voice_id = choose_voice(parse_voices(listing), self.lang)
        self.last_seconds = 0.0  # how long the last synthesis took, for logs and benchmarks

    def synthesize(self, text: str) -> Audio:
        """`text` spoken, as 16 kHz mono float32; SpeechError when espeak-ng fails.

        The text goes on standard input, never on the command line: one starting with "-" is no option."""
        text = " ".join(text.split())
        if not text:
            return np.zeros(0, dtype=np.float32)
        started = time.perf_counter()
        args = [self._program, "-v", self.voice_id, "-s", str(self.rate_wpm), "-b", "1", "--stdout", "--stdin"]
        audio = decode_wav(_run(args, text, "speak"))
        self.last_seconds = time.perf_counter() - started
        return audio
