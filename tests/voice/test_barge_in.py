"""Barge-in with real parts: the host reads the board aloud, its own voice comes back into the
microphone as an echo, and a player cuts it short with "stop" ("para", "basta").

Everything that hears and speaks is real: the Host, the SpeakerMouth with the espeak-ng Synthesizer,
the VoiceLoop with its echo gate, the Silero VAD and the Whisper base model (as `make_ears` builds
them). Only the room is simulated, and on a clock of its own, not the wall clock, so that how fast
(or how busy) the machine is changes nothing in what is heard: the room's time is the audio the
microphone has delivered. The loop pulls each chunk; the microphone hands it over once the
mouth has settled (nothing left to say, or the loudspeaker playing), carrying what the loudspeaker
played then (attenuated, as a speaker-to-microphone path does) plus the player's espeak-ng voice.
An announcement plays for its length in chunks and a cut is heard at the next chunk; synthesizing
and recognizing take no time in the room, as if the machine were infinitely fast. The synthesizer is
pinned down too: every announcement is its own run of the espeak-ng program, at the rate set, so the
same text is the same audio (and the same echo) on every run (tests/mouth/test_mouth.py checks it).

The promise checked: the host never hears itself (nothing of its echo becomes a move), a player's
"stop" said over its voice cuts the announcement short, and listening resumes at once after the
short echo tail: a card said then reaches the host.

With the echo at a realistic -20 dB, the VAD alone hears the echo as one long utterance that ends
with the announcement; the ears therefore slice the stream finely while the host talks, the
recognizer listens only for a stop phrase then, and the loop takes a stop only when the microphone
hears it clearly louder than the echo (voicehost/frontends/voice_loop.py EchoGate.louder_than_echo). The same
test without echo (a headset, or echo cancelled before the microphone) passes too, and fails if the
echo gate's stop handling is removed.
"""

from __future__ import annotations

import io
import json
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from bench.corpus import default_cache
from bench.lines import find_voice
from bench.voices import TestVoice, synthesize
from engine.board import Board
from engine.competitive import CompetitiveGame
from engine.editions import new_game
from engine.events import EventType
from engine.variants import Variants
from tests.speech_models import whisper_base_dir
from voicehost.audio.samples import SAMPLE_RATE, Audio
from voicehost.ears.recognizers import make_ears
from voicehost.ears.recordings import CHUNK_SECONDS
from voicehost.ears.streams import Ears
from voicehost.ears.vad import TALKING_OVERLAP_S, TALKING_SLICE_S
from voicehost.frontends.voice_loop import ECHO_TAIL_SECONDS, VoiceLoop
from voicehost.mouth import SpeakerMouth, SpeechError, SpeechSynthesizer, Synthesizer
from voicehost.prompts import Prompts
from voicehost.referee.host import Host
from voicehost.referee.questions import ConfirmGuess, Question

BOARDS = Path(__file__).resolve().parents[1] / "boards"
ECHO_DB = -20.0
"""The host's voice at the microphone, relative to the player's: a loudspeaker across the table."""
NOISE_RMS = 0.002
"""The room's own hiss (about -54 dB full scale), so the microphone is never digitally silent."""
CHUNK = round(CHUNK_SECONDS * SAMPLE_RATE)
"""Samples per microphone chunk: the room's clock ticks by this much."""
STOP_AFTER_S = 1.5
"""The player cuts in this long after the announcement starts playing."""
CARD_AFTER_S = ECHO_TAIL_SECONDS + 0.6
"""...and names a card this long after the host went quiet: past the echo tail, as a player would."""
AFTER_CARD_S = 2.5
"""Silence recorded after the card, for the VAD to close it and the host to answer."""
DEADLINE_S = 60.0
"""The microphone is unplugged after this much audio whatever happened, so a failing run still ends."""
SETTLE_TIMEOUT_S = 120.0
"""Wall time the microphone waits for the mouth to settle (synthesis) before the test fails: a hang
guard only, far beyond espeak-ng on the busiest machine, and no part of what is heard."""


@pytest.fixture(scope="module")
def ears() -> Ears:
    return make_ears("whisper", whisper_base_dir())


# ---- the room ----------------------------------------------------------------------------------------


def _seconds(samples: int) -> float:
    return samples / SAMPLE_RATE


def _samples(seconds: float) -> int:
    return round(seconds * SAMPLE_RATE)


@dataclass
class Sound:
    """Something heard in the room: it began at sample `start` of the room's time line and, if cut,
    ended at `end`."""

    audio: Audio
    start: int
    gain: float = 1.0
    end: int | None = None


class Room:
    """One time line shared by the loudspeaker, the microphone and the player, counted in samples.

    It moves only when the microphone starts its next chunk (`advance`), and the mouth's worker does
    anything the loop could see (start or end an announcement) only while the microphone waits for
    it (`settling`): what the loop hears depends on nothing but the order of chunks."""

    def __init__(self) -> None:
        self.changed = threading.Condition()
        self.sounds: list[Sound] = []
        self.now = 0  # where the chunk being recorded begins
        self.tick = 0  # chunks begun so far
        self.settling = False  # the microphone waits for the mouth: its worker may go on
        self.closed = False

    def add(self, sound: Sound) -> Sound:
        with self.changed:
            self.sounds.append(sound)
        return sound

    def advance(self, now: int) -> None:
        """The microphone begins the chunk at `now`: a playing loudspeaker looks at its clock."""
        with self.changed:
            self.now = now
            self.tick += 1
            self.changed.notify_all()

    def wait_turn(self) -> None:
        """Block the mouth's worker until the microphone waits for it (or the room is gone)."""
        with self.changed:
            self.changed.wait_for(lambda: self.settling or self.closed)

    def close(self) -> None:
        """The recording is over: a loudspeaker still playing or a worker still waiting lets go."""
        with self.changed:
            self.closed = True
            self.changed.notify_all()

    def record(self, samples: int, rng: np.random.Generator) -> Audio:
        """What the microphone picked up from `now` for `samples` samples."""
        chunk = rng.normal(0.0, NOISE_RMS, samples).astype(np.float32)
        with self.changed:
            sounds = list(self.sounds)
        for sound in sounds:
            heard = len(sound.audio) if sound.end is None else min(len(sound.audio), sound.end - sound.start)
            offset = self.now - sound.start  # where in the sound this chunk begins
            first, last = max(0, offset), min(heard, offset + samples)
            if first < last:
                chunk[first - offset : last - offset] += sound.gain * sound.audio[first:last]
        return np.clip(chunk, -1.0, 1.0)


class RoomSpeaker:
    """The loudspeaker (mouth.Output): plays on the room's clock into the room, sees a cancel at the
    next chunk, and records (samples, played to the end, seconds it played) as tests/mouth/test_mouth.py's
    FakeOutput does."""

    def __init__(self, room: Room, gain: float) -> None:
        self.room = room
        self.gain = gain
        self.played: list[tuple[int, bool, float]] = []
        self.playing: list[Sound] = []
        self.busy = False  # inside play()
        self.seen = 0  # the last tick play() looked at

    def play(self, audio: Audio, rate: int, cancel: threading.Event) -> bool:
        assert rate == SAMPLE_RATE
        room = self.room
        with room.changed:
            sound = Sound(np.asarray(audio, dtype=np.float32), room.now, self.gain)
            room.sounds.append(sound)
            self.playing.append(sound)
            done = sound.start + len(sound.audio)
            self.busy, self.seen = True, room.tick
            room.changed.notify_all()
            while not room.closed and not cancel.is_set() and room.now < done:
                room.changed.wait_for(lambda: room.tick != self.seen or room.closed)
                self.seen = room.tick
                room.changed.notify_all()
            sound.end = min(room.now, done)
            whole = sound.end == done and not cancel.is_set()
            self.played.append((len(sound.audio), whole, _seconds(sound.end - sound.start)))
            self.busy = False
        return whole

    def caught_up(self) -> bool:
        """Playing, and still playing at the chunk the microphone is about to record."""
        with self.room.changed:
            return self.busy and self.seen == self.room.tick

    def close(self) -> None:
        pass


class RoomSynthesizer:
    """The real synthesizer, whose audio reaches the loudspeaker only while the microphone waits for
    the mouth: an announcement starts (or is dropped, when cut before it played) between two chunks,
    never while the loop is reading one."""

    def __init__(self, synthesizer: SpeechSynthesizer, room: Room) -> None:
        self.synthesizer = synthesizer
        self.room = room

    def synthesize(self, text: str) -> Audio:
        try:
            return self.synthesizer.synthesize(text)
        finally:
            self.room.wait_turn()


@dataclass
class Player:
    """Cuts in over the announcement, then waits for silence and names a card, like a player would.

    Acts at the start of each chunk, on the room's clock (samples)."""

    host: Host
    mouth: SpeakerMouth
    speaker: RoomSpeaker
    room: Room
    stop_word: Audio
    card: Audio
    ask: str
    lines: Lines
    said: dict[str, int] = field(default_factory=dict)  # what the player did, when (the room's samples)
    lines_at_card: int = 0
    _quiet_since: int | None = None

    def act(self, now: int) -> bool:
        """Called once per chunk; False once the player is done and the recording may end."""
        if "ask" not in self.said:
            self.said["ask"] = now
            self.host.hear(self.ask)  # typed, as if at the console: the host starts a long announcement
            return True
        if "stop" not in self.said:
            if self.speaker.playing and now >= self.speaker.playing[0].start + _samples(STOP_AFTER_S):
                self.said["stop"] = self.room.add(Sound(self.stop_word, now)).start
            return True
        if "card" not in self.said:
            if self.mouth.speaking or now < self.said["stop"] + len(self.stop_word):
                self._quiet_since = None
                return True
            self._quiet_since = now if self._quiet_since is None else self._quiet_since
            if now >= self._quiet_since + _samples(CARD_AFTER_S):
                self.said["card"] = self.room.add(Sound(self.card, now)).start
                self.lines_at_card = len(self.lines.said)
            return True
        return now < self.said["card"] + len(self.card) + _samples(AFTER_CARD_S)


def _settle(room: Room, speaker: RoomSpeaker, mouth: SpeakerMouth) -> None:
    """Wait until the mouth's worker can change nothing the loop sees before the next chunk: it has
    nothing left to say, or the loudspeaker plays on past `room.now`."""
    deadline = time.monotonic() + SETTLE_TIMEOUT_S
    with room.changed:
        room.settling = True
        room.changed.notify_all()
    try:
        while not (speaker.caught_up() or mouth.wait_idle(0)):
            assert time.monotonic() < deadline, "the mouth never settled: synthesis or playback hangs"
            with room.changed:
                room.changed.wait(0.005)
    finally:
        with room.changed:
            room.settling = False


def microphone(room: Room, speaker: RoomSpeaker, mouth: SpeakerMouth, player: Player) -> Iterator[Audio]:
    """A chunk each time the loop asks for one (it has handled the last, recognition included),
    recorded once the loudspeaker has caught up with the room's clock and the player has acted."""
    rng = np.random.default_rng(0)
    for index in range(round(DEADLINE_S / CHUNK_SECONDS)):
        room.advance(index * CHUNK)
        _settle(room, speaker, mouth)  # an announcement ended or was cut; a queued one starts now
        if not player.act(room.now):
            return
        _settle(room, speaker, mouth)  # what the player's typing made the host say starts now
        yield room.record(CHUNK, rng)


# ---- the test ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    lang: str
    voice: TestVoice
    stop: str  # what the player says to cut the host short
    card: str  # a hidden card named after the stop
    ask: str  # what makes the host talk for long
    echo_db: float | None = ECHO_DB  # None: no echo at all (a headset, or echo cancelled upstream)


CASES = [
    pytest.param(Case("en", find_voice("espeak:en-us"), "stop", "BROCCOLI", "read the board"), id="en-stop"),
    pytest.param(Case("pt-BR", find_voice("espeak:pt-br"), "para", "BATATA", "ler o tabuleiro"), id="pt-BR-para"),
    # the same with no echo at all (a headset, or echo cancelled before the microphone): this one works
    pytest.param(
        Case("en", find_voice("espeak:en-us"), "stop", "BROCCOLI", "read the board", None), id="en-stop-no-echo"
    ),
]
CUT_WITHIN_S = 2 * TALKING_SLICE_S - TALKING_OVERLAP_S + 2 * CHUNK_SECONDS
"""From the first sound of "stop" to the loudspeaker falling silent, on the room's clock: the slice of
the host's talk that holds the whole word closes at most TALKING_SLICE_S after the word began (each
slice starts less than half a slice after the one before), and the next one, which holds the word's end,
TALKING_SLICE_S - TALKING_OVERLAP_S later; the loudspeaker stops at the next chunk. Whisper may hear the
stop only in that next one: espeak-ng's "stop" over the echo, written "Like his top", is 2.5 nats from the
stop phrase (`stops.STOP_GAP` is 2, set by hand, not yet chosen on data), the slice after it 0.5 nats.
Recognition takes no time on this clock, so this is a bound on the ears, not on the machine."""


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
    mouth = SpeakerMouth(RoomSynthesizer(synthesizer, room), make_output=lambda: speaker, out=lines, err=errors)
    host = Host(game, Prompts.load(board.lang), mouth)
    stop = synthesize(case.voice, case.stop, cache_dir=default_cache())
    card = synthesize(case.voice, case.card.lower(), cache_dir=default_cache())
    player = Player(host, mouth, speaker, room, stop, card, case.ask, lines)
    before = len(game.events)
    loop = VoiceLoop(host, ears, mouth=mouth)
    handled = _watch_hearing(host, room)
    try:
        loop.run(microphone(room, speaker, mouth, player))
        interrupted = mouth.interrupted  # before closing the room, which cuts the host's last answer short
    finally:
        room.close()
        mouth.close(drain=False, timeout=10)
    print(_report(case, room, player, speaker, loop, lines))

    assert not mouth.silent, errors.getvalue()
    assert "stop" in player.said and "card" in player.said, "the player never got to speak"
    samples, to_the_end, seconds = speaker.played[0]
    length = samples / SAMPLE_RATE
    stop_at = _seconds(player.said["stop"] - speaker.playing[0].start)  # into the announcement
    assert length > stop_at + 2 * CUT_WITHIN_S, "the announcement is too short for this test"
    # the player's stop cut the announcement short, soon after it was said
    assert interrupted == 1 and not to_the_end, f"not cut short: {seconds:.1f} s of {length:.1f} s played"
    assert seconds <= stop_at + CUT_WITHIN_S, (
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


def _watch_hearing(host: Host, room: Room) -> list[tuple[int, int, Question | None]]:
    """(when on the room's clock, events in the game, host state) after each utterance the host is given."""
    handled: list[tuple[int, int, Question | None]] = []
    hear = host.hear

    def noted(*args: Any, **kwargs: Any) -> None:
        hear(*args, **kwargs)
        handled.append((room.now, len(host.game.events), host.question))

    host.hear = noted  # type: ignore[method-assign]
    return handled


def _report(case: Case, room: Room, player: Player, speaker: RoomSpeaker, loop: VoiceLoop, lines: Lines) -> str:
    """What happened, for -s, on the room's clock (the same on every run; how long decoding took is
    left out, as the only thing that changes): when the player spoke, what the loudspeaker played,
    what the ears heard."""
    said = ", ".join(f"{name} at {_seconds(at):.1f} s" for name, at in player.said.items())
    played = ", ".join(
        f"{n / SAMPLE_RATE:.1f} s {'whole' if whole else 'cut'} after {s:.1f} s" for n, whole, s in speaker.played
    )
    rows = [f"\n{case.lang} echo {case.echo_db} dB, {_seconds(room.now):.1f} s: player {said}; played {played}"]
    for heard in loop.heard:
        if heard.start_s is not None and heard.end_s is not None:
            kind = "while talking" if loop.gate.overlaps(heard) else "to the host"
            rows.append(f"  heard {heard.start_s:5.2f}-{heard.end_s:5.2f} s {kind}: {heard.text!r}")
    rows += [f"  host: {line[:100]}" for line in lines.said]
    return "\n".join(rows)
