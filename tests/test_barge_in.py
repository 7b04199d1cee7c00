"""Barge-in with real parts: the host reads the board aloud, its own voice comes back into the
microphone as an echo, and a player cuts it short with "stop" ("para", "basta").

Everything that hears and speaks is real: the Host, the SpeakerMouth with the espeak-ng Synthesizer,
the VoiceLoop with its echo gate, the Silero VAD and the Whisper base model (as `make_ears` builds
them). Only the room is simulated, on the wall clock: a loudspeaker that plays in real time and can
be cut short, and a microphone that delivers a 0.1 s chunk every 0.1 s, carrying what the
loudspeaker was playing at that moment (attenuated, as a speaker-to-microphone path does) plus the
player's espeak-ng voice.

The promise checked: the host never hears itself (nothing of its echo becomes a move), a player's
"stop" said over its voice cuts the announcement short, and listening resumes at once after the
short echo tail: a card said then reaches the host.

With the echo at a realistic -20 dB, the VAD alone hears the echo as one long utterance that ends
with the announcement; the ears therefore slice the stream finely while the host talks, the
recognizer listens only for a stop phrase then, and the loop takes a stop only when the microphone
hears it clearly louder than the echo (voicehost/voice.py EchoGate.louder_than_echo). The same test
without echo (a headset, or echo cancelled before the microphone) passes too, and fails if the echo
gate's stop handling is removed.
"""

from __future__ import annotations

import io
import json
import queue
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from engine.board import Board
from engine.competitive import CompetitiveGame
from engine.editions import new_game
from engine.events import EventType
from engine.variants import Variants
from tests.speech_models import whisper_base_dir
from tests.table import Voice, speak
from voicehost.ears.audio import SAMPLE_RATE, Audio
from voicehost.ears.loop import ECHO_TAIL_SECONDS, VoiceLoop
from voicehost.ears.recognizers import make_ears
from voicehost.ears.recordings import CHUNK_SECONDS
from voicehost.ears.streams import Ears
from voicehost.mouth import SpeakerMouth, SpeechError, Synthesizer
from voicehost.prompts import Prompts
from voicehost.referee.host import Host
from voicehost.referee.questions import ConfirmGuess, Question

BOARDS = Path(__file__).resolve().parent / "boards"
ECHO_DB = -20.0
"""The host's voice at the microphone, relative to the player's: a loudspeaker across the table."""
NOISE_RMS = 0.002
"""The room's own hiss (about -54 dB full scale), so the microphone is never digitally silent."""
STOP_AFTER_S = 1.5
"""The player cuts in this long after the announcement starts playing."""
CARD_AFTER_S = ECHO_TAIL_SECONDS + 0.6
"""...and names a card this long after the host went quiet: past the echo tail, as a player would."""
AFTER_CARD_S = 2.5
"""Silence recorded after the card, for the VAD to close it and the host to answer."""
DEADLINE_S = 60.0
"""The microphone is unplugged after this long whatever happened, so a failing run still ends."""


@pytest.fixture(scope="module")
def ears() -> Ears:
    return make_ears("whisper", whisper_base_dir())


# ---- the room ----------------------------------------------------------------------------------------


@dataclass
class Sound:
    """Something heard in the room: it began at `start` (time.monotonic) and, if cut, ended at `end`."""

    audio: Audio
    start: float
    gain: float = 1.0
    end: float | None = None


class Room:
    """One time line shared by the loudspeaker and the microphone."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.sounds: list[Sound] = []

    def add(self, sound: Sound) -> Sound:
        with self.lock:
            self.sounds.append(sound)
        return sound

    def record(self, start: float, samples: int, rng: np.random.Generator) -> Audio:
        """What the microphone picked up from `start` for `samples` samples."""
        chunk = rng.normal(0.0, NOISE_RMS, samples).astype(np.float32)
        with self.lock:
            sounds = list(self.sounds)
        for sound in sounds:
            heard = len(sound.audio)
            if sound.end is not None:
                heard = min(heard, round((sound.end - sound.start) * SAMPLE_RATE))
            offset = round((start - sound.start) * SAMPLE_RATE)  # where in the sound this chunk begins
            first, last = max(0, offset), min(heard, offset + samples)
            if first < last:
                chunk[first - offset : last - offset] += sound.gain * sound.audio[first:last]
        return np.clip(chunk, -1.0, 1.0)


class RoomSpeaker:
    """The loudspeaker (mouth.Output): plays in real time into the room, stops when cancelled, and
    records (samples, played to the end, seconds it played) as tests/test_mouth.py's FakeOutput does."""

    def __init__(self, room: Room, gain: float) -> None:
        self.room = room
        self.gain = gain
        self.played: list[tuple[int, bool, float]] = []
        self.playing: list[Sound] = []

    def play(self, audio: Audio, rate: int, cancel: threading.Event) -> bool:
        assert rate == SAMPLE_RATE
        sound = self.room.add(Sound(np.asarray(audio, dtype=np.float32), time.monotonic(), self.gain))
        self.playing.append(sound)
        stopped = cancel.wait(len(audio) / rate)
        sound.end = time.monotonic()
        self.played.append((len(audio), not stopped, sound.end - sound.start))
        return not stopped

    def close(self) -> None:
        pass


@dataclass
class Player:
    """Cuts in over the announcement, then waits for silence and names a card, like a player would.

    Runs in the microphone's thread, so the microphone (a chunk every 0.1 s of wall time, never
    waiting for the loop) is the one clock."""

    host: Host
    mouth: SpeakerMouth
    speaker: RoomSpeaker
    room: Room
    stop_word: Audio
    card: Audio
    ask: str
    lines: Lines
    said: dict[str, float] = field(default_factory=dict)  # what the player did, when (monotonic)
    lines_at_card: int = 0
    _quiet_since: float | None = None

    def act(self, now: float) -> bool:
        """Called once per chunk; False once the player is done and the recording may end."""
        if "ask" not in self.said:
            self.said["ask"] = now
            self.host.hear(self.ask)  # typed, as if at the console: the host starts a long announcement
            return True
        if "stop" not in self.said:
            if self.speaker.playing and now >= self.speaker.playing[0].start + STOP_AFTER_S:
                self.said["stop"] = self.room.add(Sound(self.stop_word, now)).start
            return True
        if "card" not in self.said:
            if self.mouth.speaking or now < self.said["stop"] + len(self.stop_word) / SAMPLE_RATE:
                self._quiet_since = None
                return True
            self._quiet_since = self._quiet_since or now
            if now >= self._quiet_since + CARD_AFTER_S:
                self.said["card"] = self.room.add(Sound(self.card, now)).start
                self.lines_at_card = len(self.lines.said)
            return True
        return now < self.said["card"] + len(self.card) / SAMPLE_RATE + AFTER_CARD_S


def microphone(room: Room, player: Player, out: queue.Queue[Audio | None]) -> None:
    """A chunk every CHUNK_SECONDS of wall time, whether or not the loop has read the last one."""
    rng = np.random.default_rng(0)
    size = round(CHUNK_SECONDS * SAMPLE_RATE)
    began = time.monotonic()
    index = 0
    try:
        while time.monotonic() - began < DEADLINE_S:
            start = began + index * CHUNK_SECONDS
            delay = start + CHUNK_SECONDS - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            out.put(room.record(start, size, rng))
            index += 1
            if not player.act(time.monotonic()):
                break
    finally:
        out.put(None)


def chunks_of(source: queue.Queue[Audio | None]) -> Iterator[Audio]:
    while (chunk := source.get()) is not None:
        yield chunk


# ---- the test ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    lang: str
    voice: Voice
    stop: str  # what the player says to cut the host short
    card: str  # a hidden card named after the stop
    ask: str  # what makes the host talk for long
    echo_db: float | None = ECHO_DB  # None: no echo at all (a headset, or echo cancelled upstream)


CASES = [
    pytest.param(Case("en", Voice("en-us", 150), "stop", "BROCCOLI", "read the board"), id="en-stop"),
    pytest.param(Case("pt-BR", Voice("pt-br", 150), "para", "BATATA", "ler o tabuleiro"), id="pt-BR-para"),
    # the same with no echo at all (a headset, or echo cancelled before the microphone): this one works
    pytest.param(Case("en", Voice("en-us", 150), "stop", "BROCCOLI", "read the board", None), id="en-stop-no-echo"),
]
CUT_WITHIN_S = 4.0
"""From the first sound of "stop" to the loudspeaker falling silent: the word, the VAD's end of
speech (0.32 s), one Whisper decode on a busy 2-core machine, and the output's reaction."""


@pytest.mark.parametrize("case", CASES)
def test_stop_over_the_hosts_own_voice(case: Case, ears: Ears) -> None:
    board = Board.from_dict(json.loads((BOARDS / f"classic-{case.lang}.json").read_text(encoding="utf-8")))
    assert case.card in board.cards
    game = new_game(board, Variants())
    assert isinstance(game, CompetitiveGame)
    game.give_clue("music", 2)  # the spymaster has spoken: the operatives are guessing
    try:
        synthesizer = Synthesizer(board.lang)
    except SpeechError as exc:
        pytest.skip(f"no espeak-ng here: {exc}")
    room = Room()
    speaker = RoomSpeaker(room, gain=0.0 if case.echo_db is None else 10 ** (case.echo_db / 20))
    lines, errors = Lines(), io.StringIO()
    mouth = SpeakerMouth(synthesizer, make_output=lambda: speaker, out=lines, err=errors)
    host = Host(game, Prompts.load(board.lang), mouth)
    rng = np.random.default_rng(1)
    stop, card = speak(case.stop, case.voice, rng), speak(case.card.lower(), case.voice, rng)
    player = Player(host, mouth, speaker, room, stop, card, case.ask, lines)
    before = len(game.events)
    loop = VoiceLoop(host, ears, mouth=mouth)
    handled = _watch_hearing(host)
    chunks: queue.Queue[Audio | None] = queue.Queue()
    recorder = threading.Thread(target=microphone, args=(room, player, chunks), daemon=True)
    began = time.monotonic()
    recorder.start()
    try:
        loop.run(chunks_of(chunks))
        interrupted = mouth.interrupted  # before closing, which cuts the host's last answer short
    finally:
        mouth.close(drain=False, timeout=10)
        recorder.join(10)
    print(_report(case, began, player, speaker, loop, lines))

    assert not mouth.silent, errors.getvalue()
    assert "stop" in player.said and "card" in player.said, "the player never got to speak"
    samples, to_the_end, seconds = speaker.played[0]
    length = samples / SAMPLE_RATE
    stop_at = player.said["stop"] - speaker.playing[0].start  # into the announcement
    assert length > stop_at + 2 * CUT_WITHIN_S, "the announcement is too short for this test"
    # the player's stop cut the announcement short, soon after it was said
    assert interrupted == 1 and not to_the_end, f"not cut short: {seconds:.1f} s of {length:.1f} s played"
    assert seconds < stop_at + CUT_WITHIN_S, (
        f"cut late: {seconds:.1f} s of {length:.1f} s, stop said at {stop_at:.1f} s"
    )
    # nothing of the host's own voice was taken as a move: until the card, no event, no question, no answer
    until_card = [(events, state) for at, events, state in handled if at < player.said["card"]]
    assert all(events == before and question is None for events, question in until_card), until_card
    assert lines.said[: player.lines_at_card] == lines.said[:1], "the host answered its own echo"
    # listening resumed at once: the card said after the tail reached the host, and nothing else did
    guesses = [event["card"] for event in game.events[before:] if event.type is EventType.GUESS]
    others = [event.type.value for event in game.events[before:] if event.type is not EventType.GUESS]
    assert guesses in ([], [case.card]), f"a card nobody named was revealed: {guesses}"
    asked = isinstance(host.question, ConfirmGuess) and case.card in host.pending_candidates
    assert guesses == [case.card] or asked, f"the card never reached the host: {lines.said[1:]}"
    assert set(others) <= {"turn_ended"}, others
    assert guesses or not others, "the turn ended with no guess"


class Lines(io.StringIO):
    """The mouth's printed lines (one per announcement), kept in order."""

    @property
    def said(self) -> list[str]:
        return self.getvalue().splitlines()


def _watch_hearing(host: Host) -> list[tuple[float, int, Question | None]]:
    """(when, events in the game, host state) after each utterance the host is given."""
    handled: list[tuple[float, int, Question | None]] = []
    hear = host.hear

    def noted(*args: Any, **kwargs: Any) -> None:
        hear(*args, **kwargs)
        handled.append((time.monotonic(), len(host.game.events), host.question))

    host.hear = noted  # type: ignore[method-assign]
    return handled


def _report(case: Case, began: float, player: Player, speaker: RoomSpeaker, loop: VoiceLoop, lines: Lines) -> str:
    """What happened, for -s: when the player spoke, what the loudspeaker played, what the ears heard."""
    said = ", ".join(f"{name} at {at - began:.1f} s" for name, at in player.said.items())
    played = ", ".join(
        f"{n / SAMPLE_RATE:.1f} s {'whole' if whole else 'cut'} after {s:.1f} s" for n, whole, s in speaker.played
    )
    rows = [f"\n{case.lang} echo {case.echo_db} dB, {time.monotonic() - began:.1f} s: player {said}; played {played}"]
    for heard in loop.heard:
        if heard.start_s is not None and heard.end_s is not None:
            kind = "while talking" if loop.gate.overlaps(heard) else "to the host"
            rows.append(
                f"  heard {heard.start_s:5.1f}-{heard.end_s:5.1f} s {kind}: {heard.text!r} ({heard.decode_ms:.0f} ms)"
            )
    rows += [f"  host: {line[:100]}" for line in lines.said]
    return "\n".join(rows)
