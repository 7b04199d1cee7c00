"""The room around a test satellite: wyoming-satellite's microphone and speaker commands, with files.

    python bench/satellite_room.py mic FOLDER   # --mic-command: raw 16 kHz 16-bit mono on stdout
    python bench/satellite_room.py snd FOLDER   # --snd-command: raw PCM on stdin, one WAV per playback

mic: the room's sound in real time, 1024 samples (64 ms) at a time, as a USB microphone delivers it:
its faint hiss (the bench's HISS, the floor every other room of the bench has: a microphone never sends
digital silence), except when a player speaks. A player speaks by putting a raw PCM file in FOLDER/say/
(written elsewhere and renamed there, so it is whole); the lowest name is played next and moved to
FOLDER/said/ once every sample of it has been written, beside NAME.start: when its first chunk was
written (time.monotonic, the clock every process of the machine shares), so that the players know when
their speech ended. Each file is padded to whole chunks, so every utterance starts on a chunk boundary,
wherever the satellite's stream was joined. When the satellite that ran it is gone, the command ends
(its next write fails, or its parent changed).

snd: everything read from stdin until its end, as FOLDER/played/NNNN.wav (the rate, width and
channels given after FOLDER, as wyoming-satellite's --snd-command-* say).

Standard library only: the satellite's own Python runs it as well as the test's.
"""

from __future__ import annotations

import os
import random
import sys
import time
import wave
from array import array
from pathlib import Path

CHUNK_SAMPLES = 1024
RATE = 16000
CHUNK_BYTES = 2 * CHUNK_SAMPLES
HISS_PCM = 0.001 * 32767
"""The room's hiss as 16-bit samples' standard deviation: bench.corpus.HISS (this file imports no bench module)."""


def _hiss(rng: random.Random) -> bytes:
    """One chunk of the room's hiss, little-endian 16-bit."""
    samples = array("h", (max(-32768, min(32767, round(rng.gauss(0.0, HISS_PCM)))) for _ in range(CHUNK_SAMPLES)))
    if sys.byteorder == "big":
        samples.byteswap()
    return samples.tobytes()


def _next_utterance(say: Path) -> Path | None:
    names = sorted(say.glob("*.raw"))
    return names[0] if names else None


def mic(folder: Path) -> None:
    say, said = folder / "say", folder / "said"
    say.mkdir(parents=True, exist_ok=True)
    said.mkdir(parents=True, exist_ok=True)
    parent = os.getppid()
    out = sys.stdout.buffer
    period = CHUNK_SAMPLES / RATE
    start = time.monotonic()
    written = 0
    rng = random.Random(0)  # the same hiss every run
    current: Path | None = None
    pending = b""
    starting = False
    try:
        while os.getppid() == parent:
            if not pending:
                if current is not None:
                    current.rename(said / current.name)  # every sample of it is out
                    current = None
                current = _next_utterance(say)
                if current is not None:
                    pending = current.read_bytes()
                    pending += _hiss(rng)[: -len(pending) % CHUNK_BYTES]
                    starting = True
            chunk, pending = (pending[:CHUNK_BYTES], pending[CHUNK_BYTES:]) if pending else (_hiss(rng), b"")
            out.write(chunk)
            out.flush()
            if starting and current is not None:
                (said / f"{current.stem}.start").write_text(repr(time.monotonic()), encoding="utf-8")
                starting = False
            written += 1
            delay = start + written * period - time.monotonic()  # scheduled from the start: no drift
            if delay > 0:
                time.sleep(delay)
    except (BrokenPipeError, OSError):
        pass


def snd(folder: Path, rate: int, width: int, channels: int) -> None:
    played = folder / "played"
    played.mkdir(parents=True, exist_ok=True)
    audio = sys.stdin.buffer.read()
    number = len(list(played.glob("*.wav")))
    partial = played / f".{number:04d}.wav"
    with wave.open(str(partial), "wb") as out:
        out.setnchannels(channels)
        out.setsampwidth(width)
        out.setframerate(rate)
        out.writeframes(audio)
    partial.rename(played / f"{number:04d}.wav")


if __name__ == "__main__":
    command, where = sys.argv[1], Path(sys.argv[2])
    if command == "mic":
        mic(where)
    elif command == "snd":
        snd(where, *(int(value) for value in sys.argv[3:6]))
    else:
        sys.exit(f"unknown command {command}")
