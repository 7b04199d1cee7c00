"""Faults injected into whole games by voice: the microphone unplugged mid-game, the speech engine
breaking mid-game.

Everything between the two libraries that touch hardware is real: `Voice.open` (the voice mode's
wiring of the microphone's loss and return to the host), the Microphone over `microphone._make_stream`,
`devices.make_mouth`'s Synthesizer and SpeakerMouth over `SoundDeviceOutput`, the VoiceLoop with its
echo gate, the Host and its sand timer. Only these are fakes:

- `sounddevice` (PortAudio): a microphone the players speak into, that can be unplugged, and a
  loudspeaker that plays instantly;
- the `espeak-ng` program (a shell script first on PATH): writes a short tone for each announcement,
  or fails as espeak-ng does once it is broken;
- the recognizer: each utterance is one 0.1 s block whose samples encode the index of the
  scripted line (the point here is the device and the game, not recognition);
- the clocks: the sand timer's (so minutes can pass in a test), and the microphone's clock and
  retry sleep (given to the Microphone where `devices` opens it).

The players (`Table`) behave as at a real table: they wait until the host has answered and has
stopped talking, leave a short silence, then say the next line.
"""

from __future__ import annotations

import functools
import json
import os
import sys
import tempfile
import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import voicehost.frontends.devices
import voicehost.frontends.voice
import voicehost.referee.host
from engine.board import Board
from engine.editions import new_game
from engine.events import EventType
from engine.lang import Lang
from engine.variants import Variants
from tests.watched import SandClock, WatchedHost, guesses
from voicehost.audio.samples import SAMPLE_RATE, Audio
from voicehost.audio.wav import write_wav
from voicehost.ears.heard import Heard, MomentSource
from voicehost.ears.microphone import RETRY_SECONDS, Microphone
from voicehost.ears.recordings import CHUNK_SECONDS
from voicehost.ears.streams import Ears, StreamingEars
from voicehost.frontends.voice import VoiceFrontend, VoiceSettings
from voicehost.prompts import Prompts
from voicehost.referee.host import Host, HostSettings
from voicehost.referee.timer import SandTimer

BOARD = Path(__file__).parents[1] / "boards" / "classic-en.json"  # blue starts; BUTTERFLY is the assassin
LINES = (
    "animal, two",
    "the reindeer",
    "llama",
    "pass",
    "job, two",
    "dentist",
    "the engineer",
    "butterfly",
    "quit",  # the game is over and saved: the host says goodbye at once
)
UNPLUG_BEFORE = LINES.index("the engineer")  # red is guessing and the sand is running
GUESSES_BEFORE_UNPLUG = 3  # REINDEER, LLAMA, DENTIST
BREAK_BEFORE = LINES.index("job, two")
AWAY_RETRIES = 2  # failed attempts to open the microphone again before it is back
THINK_SECONDS = 15  # sand that runs while red thinks, before the microphone goes
AWAY_SECONDS = 600  # sand that would run at each retry, were the timer not held
TIMER_SECONDS = 60
PAD_BLOCKS = 30  # silence before each line: the echo gate must not take it for the host's own voice
TIMEOUT = 20.0


# ---- the fake PortAudio ----------------------------------------------------------------------------


class PortAudioError(Exception):
    """What sounddevice raises when PortAudio fails."""


class CallbackStop(Exception):
    pass


class CallbackAbort(Exception):
    pass


class FakeInputStream:
    """sounddevice.InputStream: the players' speech goes through the real callback; once its device is
    gone it stops calling back and every query raises, as PortAudio's Pa_IsStreamActive then does."""

    def __init__(self, *, samplerate: float, callback: Any, finished_callback: Any, **settings: Any) -> None:
        self.samplerate = samplerate
        self.callback = callback
        self.finished_callback = finished_callback
        self.settings = settings
        self.running = False
        self.dead = False
        self.closed = False

    @property
    def active(self) -> bool:
        if self.dead:
            raise PortAudioError("Error querying stream: Unanticipated host error [PaErrorCode -9999]")
        return self.running

    def start(self) -> None:
        self.running = True

    def stop(self) -> None:
        if self.dead:
            raise PortAudioError("Error stopping stream: Unanticipated host error [PaErrorCode -9999]")
        self.running = False

    def close(self) -> None:
        self.closed = True

    def hear(self, audio: Audio) -> bool:
        """The capture thread delivering `audio` block by block; False when nothing is listening."""
        if self.dead or not self.running or self.closed:
            return False
        frames = round(self.samplerate * CHUNK_SECONDS)
        for start in range(0, len(audio), frames):
            block = audio[start : start + frames]
            self.callback(block.reshape(-1, 1), len(block), None, None)
        return True


class FakeOutputStream:
    """sounddevice.OutputStream: pulls the whole announcement through the callback at once."""

    def __init__(self, *, callback: Any, finished_callback: Any, **settings: Any) -> None:
        self.callback = callback
        self.finished_callback = finished_callback

    def start(self) -> None:
        for _ in range(10_000):
            try:
                self.callback(np.zeros((512, 1), dtype=np.float32), 512, None, None)
            except (CallbackStop, CallbackAbort):
                break
        self.finished_callback()

    def close(self) -> None:
        pass


class FakeSoundDevice:
    """Stands for the sounddevice module: one microphone, which can be unplugged and found again
    after some attempts, and one loudspeaker."""

    PortAudioError = PortAudioError
    CallbackStop = CallbackStop
    CallbackAbort = CallbackAbort

    def __init__(self, while_away: Callable[[], None]) -> None:
        self.inputs: list[FakeInputStream] = []
        self.rescans = 0
        self.open_attempts = 0
        self.away_left = 0
        self.plugged = True
        self.played = 0
        self._while_away = while_away

    # what the microphone and the mouth call
    def _terminate(self) -> None:
        self.rescans += 1

    def _initialize(self) -> None:
        pass

    def check_input_settings(self, **settings: Any) -> None:
        self.open_attempts += 1
        if self.away_left:
            self.away_left -= 1
            self.plugged = False
            self._while_away()
        else:
            self.plugged = True
        if not self.plugged:
            raise PortAudioError("Error querying device -1")

    def query_devices(self, device: Any = None, kind: str | None = None) -> dict[str, Any]:
        if kind == "input" and not self.plugged:
            raise PortAudioError("Error querying device -1")
        return {"name": "fake", "default_samplerate": float(SAMPLE_RATE)}

    def InputStream(self, **settings: Any) -> FakeInputStream:
        stream = FakeInputStream(**settings)
        self.inputs.append(stream)
        return stream

    def check_output_settings(self, **settings: Any) -> None:
        pass

    def OutputStream(self, **settings: Any) -> FakeOutputStream:
        self.played += 1
        return FakeOutputStream(**settings)

    # what the test does
    def unplug(self, retries: int) -> None:
        """The USB microphone is pulled out; it is found again at the retry after `retries` failed ones."""
        self.inputs[-1].dead = True
        self.inputs[-1].running = False
        self.away_left = retries

    def speak(self, audio: Audio) -> bool:
        return bool(self.inputs) and self.inputs[-1].hear(audio)


# ---- the fake espeak-ng ----------------------------------------------------------------------------

ESPEAK_VOICES = """\
Pty Language       Age/Gender VoiceName          File                 Other Languages
 2  en-us           --/M      English_(America)  gmw/en-US            (en 3)
 5  pt-br           --/M      Portuguese_(Brazil) roa/pt-BR            (pt 6)
"""
ESPEAK_SCRIPT = """\
#!/bin/sh
# The fake espeak-ng: lists two voices, or logs the text (standard input) and writes a short tone as
# its WAV on standard output; once broken, it logs the text as failed and exits as espeak-ng does.
cd '{folder}' || exit 2
if [ "$1" = "--voices" ]; then exec cat voices.txt; fi
text="$(cat)"
if [ -e broken ]; then
    printf '%s\\n' "$text" >>failed
    echo "espeak-ng: could not open the audio output" >&2
    exit 1
fi
printf '%s\\n' "$text" >>spoken
exec cat tone.wav
"""


class FakeEspeak:
    """The `espeak-ng` program the Synthesizer runs, as a shell script in `folder` put first on PATH: it
    speaks a short tone for every announcement until `break_voice`, then fails."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        folder.mkdir()
        script = folder / "espeak-ng"
        script.write_text(ESPEAK_SCRIPT.format(folder=folder), encoding="utf-8")
        script.chmod(0o755)
        (folder / "voices.txt").write_text(ESPEAK_VOICES, encoding="utf-8")
        seconds = np.arange(round(0.05 * SAMPLE_RATE)) / SAMPLE_RATE
        write_wav(folder / "tone.wav", (0.3 * np.sin(2 * np.pi * 220 * seconds)).astype(np.float32))

    def break_voice(self) -> None:
        (self.folder / "broken").touch()

    def _log(self, name: str) -> list[str]:
        path = self.folder / name
        return path.read_text(encoding="utf-8").splitlines() if path.exists() else []

    @property
    def spoken(self) -> list[str]:
        """What it synthesized, in order."""
        return self._log("spoken")

    @property
    def failed(self) -> list[str]:
        """What it was asked for once broken."""
        return self._log("failed")


# ---- the fake recognizer ---------------------------------------------------------------------------


def utterance(index: int) -> Audio:
    """Line `index` said: silence first, then one block whose samples encode the index."""
    silence = np.zeros(PAD_BLOCKS * round(CHUNK_SECONDS * SAMPLE_RATE), dtype=np.float32)
    speech = np.full(round(CHUNK_SECONDS * SAMPLE_RATE), (index + 1) / 64, dtype=np.float32)
    return np.concatenate([silence, speech])


class ScriptedRecognizer:
    """A streaming recognizer (vosk's shape) that hears each speech block as its scripted line."""

    def __init__(self, lines: Iterable[str]) -> None:
        self.lines = tuple(lines)
        self.heard: list[int] = []

    def listen(self, chunks: Iterable[Audio], moment: MomentSource) -> Iterator[Heard]:
        for chunk in chunks:
            if not chunk.any():
                continue  # silence
            index = round(float(chunk[0]) * 64) - 1
            self.heard.append(index)
            yield Heard(self.lines[index])


# ---- the players -----------------------------------------------------------------------------------


class Table(threading.Thread):
    """The players: each line is said once the host has answered the one before and is silent.
    Before UNPLUG_BEFORE they think (the sand runs) and, if asked, pull the microphone out; before
    BREAK_BEFORE, if asked, espeak-ng breaks."""

    def __init__(
        self,
        host: WatchedHost,
        voice: VoiceFrontend,
        device: FakeSoundDevice,
        espeak: FakeEspeak,
        sand: SandClock,
        *,
        unplug: bool,
        break_voice: bool,
    ) -> None:
        super().__init__(name="table", daemon=True)
        self.host, self.voice, self.device, self.espeak, self.sand = host, voice, device, espeak, sand
        self.unplug, self.break_voice = unplug, break_voice
        self.problem = ""
        self.at_unplug: tuple[int, int] | None = None  # (guesses, seconds of sand left)
        self.after_back: tuple[bool, int] | None = None  # (timer running, seconds of sand left)

    def run(self) -> None:
        host, mouth = self.host, self.voice.mouth
        for index in range(len(LINES)):
            if not host.wait_until(lambda index=index: host.handled >= index, TIMEOUT):
                return self._give_up(f"the host never answered {LINES[index - 1]!r}")
            if not mouth.wait_idle(TIMEOUT):
                return self._give_up("the host never stopped talking")
            if index == UNPLUG_BEFORE:
                self.sand.now += THINK_SECONDS
                if self.unplug:
                    self.at_unplug = (guesses(host), host.timer.seconds_left())
                    self.device.unplug(AWAY_RETRIES)
                    if not host.wait_until(lambda: host.back >= 1, TIMEOUT):
                        return self._give_up("the host never said the microphone was back")
                    self.after_back = (host.timer.running, host.timer.seconds_left())
                    if not mouth.wait_idle(TIMEOUT):
                        return self._give_up("the host never stopped talking")
            if index == BREAK_BEFORE and self.break_voice:
                self.espeak.break_voice()
            if not self.device.speak(utterance(index)):
                return self._give_up(f"nobody listened to {LINES[index]!r}")
        if not host.wait_until(lambda: host.finished, TIMEOUT):
            self._give_up("the game did not end")
        return None

    def _give_up(self, problem: str) -> None:
        self.problem = problem
        assert self.voice.microphone is not None
        self.voice.microphone.close()  # ends the voice loop, so the test fails instead of hanging


@dataclass
class Away:
    """The game at one failed attempt to open the microphone again."""

    timer_paused: bool
    seconds_left: int
    guesses: int


@dataclass
class Played:
    """What one game left behind."""

    events: list[dict[str, Any]]  # without the timer's, and without seq (a timer event shifts them)
    timer: list[dict[str, Any]]
    printed: list[str]  # stdout: one announcement a line
    errors: list[str]  # stderr
    heard: list[int]  # the lines the recognizer heard, in order
    spoken: list[str]  # what espeak-ng synthesized
    failed: list[str]  # what it failed to synthesize
    played: int  # announcements played on the loudspeaker
    silent: bool  # the mouth fell back to printing
    table: Table
    away: list[Away]
    slept: list[float]  # the microphone's waits between attempts
    rescans: int  # PortAudio device lists rebuilt


def play(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    *,
    unplug: bool = False,
    break_voice: bool = False,
) -> Played:
    """One whole game by voice, as `voicehost play --engine vosk --model DIR` runs it (cli/play.py: VoiceFrontend,
    Host, VoiceFrontend.run, then closing), with the faults asked for."""
    capsys.readouterr()
    sand = SandClock()
    away: list[Away] = []
    hosts: list[Host] = []

    def while_away() -> None:  # each failed attempt to open the microphone
        host = hosts[0]
        away.append(Away(host.timer.paused, host.timer.seconds_left(), guesses(host)))
        sand.now += AWAY_SECONDS  # minutes go by without a microphone

    device = FakeSoundDevice(while_away)
    espeak = FakeEspeak(Path(tempfile.mkdtemp(prefix="espeak-", dir=tmp_path)) / "bin")
    monkeypatch.setitem(sys.modules, "sounddevice", device)
    monkeypatch.setenv("PATH", f"{espeak.folder}{os.pathsep}{os.environ.get('PATH', '')}")
    recognizer = ScriptedRecognizer(LINES)

    def make_ears(engine: str, model_dir: Path) -> Ears:
        assert engine == "vosk" and model_dir == tmp_path
        return StreamingEars(recognizer)

    slept: list[float] = []

    def open_microphone() -> Microphone:
        """microphone.open_microphone, with the waits between attempts recorded instead of slept, and a
        clock that stands still (the fake stream calls back only when a player speaks: no stalls)."""
        microphone = Microphone(sleep=slept.append, clock=lambda: 0.0, poll_seconds=0.01)
        microphone.open()
        return microphone

    monkeypatch.setattr(voicehost.frontends.voice, "make_ears", make_ears)
    monkeypatch.setattr(voicehost.frontends.devices, "open_microphone", open_microphone)
    monkeypatch.setattr(voicehost.referee.host, "SandTimer", functools.partial(SandTimer, clock=sand))

    game = new_game(Board.from_dict(json.loads(BOARD.read_text(encoding="utf-8"))), Variants())
    prompts = Prompts.load(game.board.lang)
    voice = VoiceFrontend(VoiceSettings(lang=game.board.lang, engine="vosk", model=tmp_path), prompts)
    host = WatchedHost(game, prompts, voice.mouth, settings=HostSettings(timer_seconds=TIMER_SECONDS))
    hosts.append(host)
    table = Table(host, voice, device, espeak, sand, unplug=unplug, break_voice=break_voice)
    host.start()
    table.start()
    try:
        voice.run(host)
    finally:
        table.join(TIMEOUT)
        host.close()
        voice.close()
    output = capsys.readouterr()
    last_said = " / ".join(output.out.splitlines()[-4:])
    assert not table.problem, f"{table.problem}; the host's last words: {last_said}"
    assert host.finished
    events = [event.to_dict() for event in game.events if event.type is not EventType.TIMER]
    for event in events:
        del event["seq"]
    return Played(
        events=events,
        timer=[dict(event.fields) for event in game.events if event.type is EventType.TIMER],
        printed=output.out.splitlines(),
        errors=output.err.splitlines(),
        heard=recognizer.heard,
        spoken=espeak.spoken,
        failed=espeak.failed,
        played=device.played,
        silent=voice.mouth.silent,
        table=table,
        away=away,
        slept=slept,
        rescans=device.rescans,
    )


# ---- the tests -------------------------------------------------------------------------------------

EN = Prompts.load(Lang.EN)


def test_an_undisturbed_game_by_voice(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """The reference the faults are compared with: every line heard once, every announcement printed
    and spoken, the game won by blue when red finds the assassin."""
    game = play(monkeypatch, capsys, tmp_path)
    assert game.heard == list(range(len(LINES)))
    assert game.events[-1] == {"type": "game_over", "winner": "blue", "reason": "assassin"}
    assert game.spoken == game.printed and game.played == len(game.printed) and not game.silent
    assert game.errors == [] and game.away == [] and game.slept == []
    assert {event["event"] for event in game.timer} == {"started"}


def test_the_microphone_unplugged_mid_game(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    reference = play(monkeypatch, capsys, tmp_path)
    game = play(monkeypatch, capsys, tmp_path, unplug=True)
    lost, back = EN.text("error.microphone_lost"), EN.text("error.microphone_back")

    # the host says so once, holds the sand, and says once that it is back; nothing else changes
    answered = next(i for i, line in enumerate(reference.printed) if line.startswith("DENTIST:")) + 1
    inserted = [EN.text("timer.paused"), lost, EN.text("timer.resumed"), back]
    assert game.printed == reference.printed[:answered] + inserted + reference.printed[answered:]
    assert game.spoken == game.printed  # the voice said it too
    stopped = [line for line in game.errors if "microphone stopped working" in line]
    assert len(stopped) == 1 and game.errors == stopped

    # while it was away (minutes of sand went by at each attempt), the sand held and nothing was revealed
    held = TIMER_SECONDS - THINK_SECONDS
    assert game.table.at_unplug == (GUESSES_BEFORE_UNPLUG, held)
    assert game.away == [Away(timer_paused=True, seconds_left=held, guesses=GUESSES_BEFORE_UNPLUG)] * AWAY_RETRIES
    assert game.slept == [RETRY_SECONDS] * AWAY_RETRIES and game.rescans == AWAY_RETRIES
    assert game.table.after_back == (True, held)  # the sand runs again from where it stopped

    # then the game plays to the same end: every line heard once, the same events
    assert game.heard == list(range(len(LINES)))
    assert game.events == reference.events
    assert [t for t in game.timer if t["event"] != "paused"] == reference.timer
    assert [t for t in game.timer if t["event"] == "paused"] == [{"event": "paused", "seconds_left": held}]


def test_the_speech_engine_breaking_mid_game(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    reference = play(monkeypatch, capsys, tmp_path)
    game = play(monkeypatch, capsys, tmp_path, break_voice=True)

    # every announcement is still printed, and the game ends as it would have
    assert game.printed == reference.printed
    assert game.heard == list(range(len(LINES)))
    assert game.events == reference.events and game.timer == reference.timer

    # the voice broke at the answer to "job, two": tried once, then only printing
    broke = len(game.spoken)
    assert game.printed[broke].startswith("Clue: job, 2.")
    assert game.spoken == game.printed[:broke] and game.played == broke
    assert game.failed == [game.printed[broke]] and game.silent
    assert len(game.printed) - broke > 5  # mid-game: many announcements were only printed

    # said once, in words a player understands
    assert len(game.errors) == 1
    note = game.errors[0]
    assert note.startswith("voicehost: espeak-ng could not speak")
    assert note.endswith("The game goes on: announcements are printed, not spoken.")
