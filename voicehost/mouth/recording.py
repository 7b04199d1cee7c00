"""--audio-out: the host's speech appended to one WAV file, valid after every announcement."""

from __future__ import annotations

import contextlib
import os
import threading
import wave
from pathlib import Path
from types import TracebackType
from typing import IO, Final

import numpy as np

from voicehost.audio.samples import SAMPLE_RATE, Audio, to_pcm16
from voicehost.mouth.base import SpeechError, SpeechSynthesizer, _Fallback, _print_line

GAP_SECONDS: Final = 0.3
"""Silence between two announcements in an --audio-out file, as a speaker would pause."""


class FileMouth:
    """--audio-out: every announcement is printed and appended to one 16 kHz mono WAV file.

    The file is valid after every announcement: Python's `wave` writer rewrites the header's two size
    fields after each block of samples on a seekable file (two 4-byte writes, not the whole file); a
    crash between them leaves at worst a header that counts fewer samples than there are, which every
    reader accepts.
    """

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
        self._fallback = _Fallback(err, getattr(getattr(self, "_synthesizer", None), "lang", None))
        self._samples = 0
        self._lock = threading.Lock()  # the host's timer thread may announce too
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._file: IO[bytes] | None = open(self.path, "w+b")  # noqa: SIM115 - kept open for the game
            self._wav: wave.Wave_write | None = wave.open(self._file, "wb")  # noqa: SIM115 - kept open too
            self._wav.setnchannels(1)
            self._wav.setsampwidth(2)
            self._wav.setframerate(SAMPLE_RATE)
            self._wav.writeframes(b"")  # the header now: an empty game is a valid, empty recording
            self._file.flush()
        except OSError as exc:
            raise SpeechError(f"cannot write the host's voice to {self.path}: {exc.strerror or exc}") from None

    @property
    def seconds(self) -> float:
        """Audio written so far."""
        return self._samples / SAMPLE_RATE

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
            if self._wav is None or self._file is None:
                raise SpeechError(f"the voice file {self.path} is already closed.")
            samples = np.concatenate([self._gap, audio]) if self._samples else audio
            try:
                self._wav.writeframes(to_pcm16(samples))
                self._file.flush()  # readers (and a crash) see a whole file; fsync would add no validity
            except OSError as exc:
                raise SpeechError(f"cannot write the host's voice to {self.path}: {exc.strerror or exc}") from None
            self._samples += len(samples)

    def close(self) -> None:
        with self._lock:
            wav, self._wav = self._wav, None
            file, self._file = self._file, None
            with contextlib.suppress(OSError):  # a full disk at the very end: what was written stays readable
                if wav is not None:
                    wav.close()
            if file is not None:
                file.close()

    def __enter__(self) -> FileMouth:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()
