"""The host's voice: real espeak-ng synthesis in the four languages (the same audio every time, at the
rate set), espeak-ng missing or failing, the speaker mouth with a fake loudspeaker (order, speaking
state, barge-in), the --audio-out file, and the fall back to print."""

from __future__ import annotations

import hashlib
import io
import os
import subprocess
import sys
import threading
import time
import wave
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

import voicehost.mouth.espeak
from engine.lang import Lang
from voicehost.audio.samples import SAMPLE_RATE, Audio
from voicehost.audio.wav import read_wav
from voicehost.mouth import FileMouth, Output, SpeakerMouth, SpeechError, Synthesizer
from voicehost.mouth.espeak import SPEECH_RATE_WPM, choose_voice, parse_voices
from voicehost.mouth.recording import GAP_SECONDS

SENTENCES = {
    Lang.PT_BR: ("Vez do time vermelho. Dê uma dica.", "roa/pt-BR"),
    Lang.PT_PT: ("É a vez da equipa vermelha. Deem uma pista.", "roa/pt"),
    Lang.IT: ("Tocca alla squadra rossa. Date un indizio.", "roa/it"),
    Lang.EN: ("Red team's turn. Give a clue.", "gmw/en-US"),
}
MIN_RMS = 0.02


def rms(audio: Audio) -> float:
    return float(np.sqrt(np.mean(np.square(audio, dtype=np.float64))))


@pytest.fixture(scope="module")
def synthesizers() -> dict[Lang, Synthesizer]:
    try:
        return {lang: Synthesizer(lang) for lang in Lang}
    except SpeechError as exc:
        pytest.skip(f"no espeak-ng here: {exc}")


def espeak_directly(tmp_path: Path, voice: str, text: str, rate: int = SPEECH_RATE_WPM) -> Audio:
    """What the espeak-ng program says when run by hand, read as every WAV is."""
    path = tmp_path / "direct.wav"
    subprocess.run(["espeak-ng", "-v", voice, "-s", str(rate), "-w", str(path), text], check=True)
    return read_wav(path)


# ---- real synthesis ----------------------------------------------------------------------------------


@pytest.mark.parametrize("lang", list(Lang), ids=[lang.value for lang in Lang])
def test_real_speech_in_each_language(
    synthesizers: dict[Lang, Synthesizer], lang: Lang, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    text, voice = SENTENCES[lang]
    synthesizer = synthesizers[lang]
    audio = synthesizer.synthesize(text)
    assert synthesizer.voice_id == voice
    assert audio.dtype == np.float32 and audio.ndim == 1
    assert 0.3 < len(audio) / SAMPLE_RATE < 10.0
    assert rms(audio) > MIN_RMS
    assert np.abs(audio).max() <= 1.0
    # what espeak-ng really used: the voice and rate asked for, the same audio as espeak-ng run by hand
    np.testing.assert_array_equal(audio, espeak_directly(tmp_path, voice, text))
    assert capsys.readouterr().out == ""  # stdout carries the announcements, one per line: nothing else


def test_each_language_has_its_own_voice(synthesizers: dict[Lang, Synthesizer]) -> None:
    assert len({s.voice_id for s in synthesizers.values()}) == 4


def test_languages_do_not_leak_into_each_other(synthesizers: dict[Lang, Synthesizer]) -> None:
    """Nothing said before changes what is said next: another language in between, the same audio."""
    first = synthesizers[Lang.PT_BR].synthesize("Cereja")
    synthesizers[Lang.EN].synthesize("Cereja")
    again = synthesizers[Lang.PT_BR].synthesize("Cereja")
    np.testing.assert_array_equal(again, first)
    others = [len(synthesizers[lang].synthesize("Cereja")) for lang in (Lang.PT_PT, Lang.EN)]
    assert all(abs(other - len(first)) > 0.01 * len(first) for other in others)


def test_the_same_text_is_the_same_audio_in_every_process() -> None:
    """The first announcement of a process, and every later one, at the rate set (pyttsx3 once left the
    first at its own 200 words a minute): a test run hears what every other run of it hears."""
    text = "Vez do time vermelho. Dê uma dica. Cereja, três!"
    script = (
        "import hashlib, sys\n"
        "from voicehost.mouth.espeak import Synthesizer\n"
        "synthesizer = Synthesizer('pt-BR')\n"
        "for _ in range(3):\n"
        "    print(hashlib.sha256(synthesizer.synthesize(sys.argv[1]).tobytes()).hexdigest())\n"
    )
    root = str(Path(__file__).resolve().parents[2])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")]))}
    runs = [
        subprocess.run(
            [sys.executable, "-c", script, text], capture_output=True, text=True, check=True, env=env
        ).stdout.split()
        for _ in range(2)
    ]
    assert runs[0] == runs[1] and len(set(runs[0])) == 1
    ours = Synthesizer(Lang.PT_BR).synthesize(text)
    assert hashlib.sha256(ours.tobytes()).hexdigest() == runs[0][0]


def test_the_rate_set_is_the_rate_heard() -> None:
    text = "Vez do time vermelho. Dê uma dica."
    slow = len(Synthesizer(Lang.PT_BR).synthesize(text))
    fast = len(Synthesizer(Lang.PT_BR, rate_wpm=200).synthesize(text))
    assert 1.1 < slow / fast < 1.35  # 200 / 165 = 1.21, pauses aside


def test_text_that_looks_like_an_option_is_said(synthesizers: dict[Lang, Synthesizer], tmp_path: Path) -> None:
    audio = synthesizers[Lang.IT].synthesize("-5 gradi")
    np.testing.assert_array_equal(audio, espeak_directly(tmp_path, "roa/it", "meno 5 gradi"))


def test_nothing_to_say_is_silence(synthesizers: dict[Lang, Synthesizer]) -> None:
    assert len(synthesizers[Lang.EN].synthesize("  \n ")) == 0


def test_a_language_tag_works_too() -> None:
    assert Synthesizer("pt_br").voice_id == "roa/pt-BR"


# ---- choosing the voice, and espeak-ng missing or failing (a fake espeak-ng) ---------------------------

LISTING = """\
Pty Language       Age/Gender VoiceName          File                 Other Languages
 2  en-gb           --/M      English_(Great_Britain) gmw/en               (en 2)
 2  en-us           --/M      English_(America)  gmw/en-US            (en 3)
 5  it              --/M      Italian            roa/it
 5  pt              --/M      Portuguese_(Portugal) roa/pt               (pt-pt 5)
 5  pt-br           --/M      Portuguese_(Brazil) roa/pt-BR            (pt 6)
"""


def test_each_language_finds_its_voice_in_the_listing() -> None:
    voices = parse_voices(LISTING)
    assert [voice.file for voice in voices] == ["gmw/en", "gmw/en-US", "roa/it", "roa/pt", "roa/pt-BR"]
    assert voices[3].languages == ("pt", "pt-pt")
    chosen = {lang: choose_voice(voices, lang) for lang in Lang}
    assert chosen == {Lang.PT_BR: "roa/pt-BR", Lang.PT_PT: "roa/pt", Lang.IT: "roa/it", Lang.EN: "gmw/en-US"}
    british = [voice for voice in voices if voice.file != "gmw/en-US"]
    assert choose_voice(british, Lang.EN) == "gmw/en"  # the next in VOICE_LANGUAGES' order


def fake_espeak(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, speaking: str, listing: str = LISTING) -> None:
    """An `espeak-ng` shell script first on PATH: lists `listing`, and speaks by running `speaking`."""
    folder = tmp_path / "bin"
    folder.mkdir()
    (folder / "voices.txt").write_text(listing, encoding="utf-8")
    script = folder / "espeak-ng"
    script.write_text(
        f"#!/bin/sh\nif [ \"$1\" = --voices ]; then exec cat '{folder}/voices.txt'; fi\n{speaking}\n", encoding="utf-8"
    )
    script.chmod(0o755)
    monkeypatch.setenv("PATH", f"{folder}{os.pathsep}{os.environ.get('PATH', '')}")


def test_no_espeak_ng_says_what_to_install(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(
        SpeechError, match=r"needs espeak-ng, which is not installed\. On Debian: apt install espeak-ng"
    ):
        Synthesizer(Lang.EN)


def test_no_voice_for_the_language(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake_espeak(tmp_path, monkeypatch, "exit 0", listing=LISTING.split("\n", 1)[0] + "\n")
    with pytest.raises(SpeechError, match="espeak-ng has no voice for it: reinstall espeak-ng"):
        Synthesizer(Lang.IT)


def test_espeak_ng_failing_says_why(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake_espeak(tmp_path, monkeypatch, "echo 'Error: The specified espeak-ng voice does not exist.' >&2; exit 1")
    synthesizer = Synthesizer(Lang.EN)
    with pytest.raises(SpeechError, match=r"^espeak-ng could not speak \(Error: The specified espeak-ng voice"):
        synthesizer.synthesize("Red team's turn.")


def test_espeak_ng_writing_no_audio(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake_espeak(tmp_path, monkeypatch, "echo garbage")
    with pytest.raises(SpeechError, match="espeak-ng produced unreadable audio"):
        Synthesizer(Lang.EN).synthesize("Red team's turn.")


def test_espeak_ng_hanging_is_stopped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake_espeak(tmp_path, monkeypatch, "exec sleep 30")  # exec: the process killed is the one holding stdout
    monkeypatch.setattr(voicehost.mouth.espeak, "TIMEOUT_SECONDS", 0.5)
    synthesizer = Synthesizer(Lang.EN)
    began = time.monotonic()
    with pytest.raises(SpeechError, match=r"espeak-ng took over 0\.5 s to speak and was stopped"):
        synthesizer.synthesize("Red team's turn.")
    assert time.monotonic() - began < 10


# ---- the speaker mouth, with fakes -------------------------------------------------------------------


class FakeSynthesizer:
    """Audio whose length says how long the fake loudspeaker takes: "long..." lasts 30 s."""

    def __init__(self, fail: BaseException | None = None) -> None:
        self.fail = fail
        self.texts: list[str] = []

    def synthesize(self, text: str) -> Audio:
        self.texts.append(text)
        if self.fail is not None:
            raise self.fail
        seconds = 30.0 if text.startswith("long") else 0.02
        return np.full(round(seconds * SAMPLE_RATE), 0.1, dtype=np.float32)


class FakeOutput:
    """Plays in (scaled) real time and records what it played and whether it was cut short."""

    def __init__(self) -> None:
        self.played: list[tuple[int, bool, float]] = []  # (samples, heard to the end, seconds taken)
        self.started = threading.Event()

    def play(self, audio: Audio, rate: int, cancel: threading.Event) -> bool:
        began = time.monotonic()
        self.started.set()
        stopped = cancel.wait(len(audio) / rate)
        self.played.append((len(audio), not stopped, time.monotonic() - began))
        return not stopped

    def close(self) -> None:
        pass


def make_mouth(
    synthesizer: FakeSynthesizer, output: Output, **kwargs: object
) -> tuple[SpeakerMouth, io.StringIO, io.StringIO]:
    out, err = io.StringIO(), io.StringIO()
    mouth = SpeakerMouth(synthesizer, make_output=lambda: output, out=out, err=err, **kwargs)  # type: ignore[arg-type]
    return mouth, out, err


def test_announcements_play_in_order_and_are_printed() -> None:
    synthesizer, output = FakeSynthesizer(), FakeOutput()
    mouth, out, _ = make_mouth(synthesizer, output)
    for text in ("one", "two\nlines", "three"):
        mouth.say(text)
    assert mouth.wait_idle(5)
    mouth.close()
    assert synthesizer.texts == ["one", "two\nlines", "three"]
    assert [heard for _, heard, _ in output.played] == [True, True, True]
    assert out.getvalue() == "one\ntwo lines\nthree\n"  # one announcement per line
    assert mouth.played == 3


class WatchedOutput(FakeOutput):
    """Records, as each announcement starts and ends playing, what `watch` says then (on the mouth's own
    thread, so the record does not race the hand-over from one announcement to the next)."""

    def __init__(self) -> None:
        super().__init__()
        self.watch: Callable[[], bool] = lambda: True
        self.seen: list[bool] = []

    def play(self, audio: Audio, rate: int, cancel: threading.Event) -> bool:
        self.seen.append(self.watch())
        heard = super().play(audio, rate, cancel)
        self.seen.append(self.watch())
        return heard


def test_speaking_is_true_while_anything_is_queued_then_false() -> None:
    output = WatchedOutput()
    mouth, _, _ = make_mouth(FakeSynthesizer(), output)
    output.watch = lambda: mouth.speaking
    assert not mouth.speaking
    mouth.say("one")
    assert mouth.speaking  # at once: the echo gate must know before the first sample plays
    mouth.say("two")
    assert mouth.wait_idle(10)
    assert output.seen == [True] * 4  # not flickering between two queued announcements (the start of "two")
    assert not mouth.speaking and len(output.played) == 2
    mouth.close()


def test_say_does_not_wait_for_the_speech() -> None:
    output = FakeOutput()
    mouth, _, _ = make_mouth(FakeSynthesizer(), output)
    began = time.monotonic()
    mouth.say("long announcement")
    assert time.monotonic() - began < 0.5
    mouth.close(drain=False)


def test_stop_cuts_the_announcement_short_and_drops_the_queue() -> None:
    synthesizer, output = FakeSynthesizer(), FakeOutput()
    mouth, out, _ = make_mouth(synthesizer, output)
    mouth.say("long rules explanation")
    mouth.say("queued one")
    mouth.say("queued two")
    assert output.started.wait(5)
    began = time.monotonic()
    mouth.stop()  # a player said "stop"
    assert mouth.wait_idle(2)
    assert time.monotonic() - began < 1.0
    assert len(output.played) == 1
    samples, heard_to_the_end, seconds = output.played[0]
    assert samples == 30 * SAMPLE_RATE and not heard_to_the_end and seconds < 1.0
    assert synthesizer.texts == ["long rules explanation"]  # the queued ones were never even synthesized
    assert mouth.interrupted == 1 and not mouth.speaking
    assert out.getvalue().count("\n") == 3  # all were printed: the log stays complete
    mouth.say("next")
    assert mouth.wait_idle(2) and output.played[-1][1]  # speaking works again after a stop
    mouth.close()


# ---- falling back to print ---------------------------------------------------------------------------


@pytest.mark.parametrize("failure", [SpeechError("espeak-ng could not speak."), RuntimeError("segfault-ish")])
def test_a_broken_voice_falls_back_to_printing(failure: BaseException) -> None:
    synthesizer, output = FakeSynthesizer(fail=failure), FakeOutput()
    mouth, out, err = make_mouth(synthesizer, output)
    for text in ("one", "two", "three"):
        mouth.say(text)  # never raises into the game loop
        mouth.wait_idle(2)
    mouth.close()
    assert out.getvalue() == "one\ntwo\nthree\n"
    assert err.getvalue().count("\n") == 1  # said once
    assert "The game goes on" in err.getvalue() and str(failure) in err.getvalue()
    assert mouth.silent and synthesizer.texts == ["one"] and output.played == []
    assert not mouth.speaking  # the echo gate is not left thinking the host talks


def _has_output_device() -> bool:
    try:
        import sounddevice

        sounddevice.query_devices(kind="output")
    except Exception:  # no PortAudio, or no output device
        return False
    return True


@pytest.mark.skipif(_has_output_device(), reason="this machine has a loudspeaker")
def test_no_loudspeaker_falls_back_to_printing_with_the_real_output() -> None:
    out, err = io.StringIO(), io.StringIO()
    mouth = SpeakerMouth(FakeSynthesizer(), out=out, err=err)
    mouth.say("Red team's turn.")
    assert mouth.wait_idle(5)
    mouth.say("Blue team's turn.")
    mouth.close()
    assert out.getvalue() == "Red team's turn.\nBlue team's turn.\n"
    assert "No loudspeaker found" in err.getvalue() and "--audio-out" in err.getvalue()
    assert err.getvalue().count("\n") == 1 and mouth.silent


# ---- the --audio-out file ----------------------------------------------------------------------------


def wav_frames(path: Path) -> int:
    with wave.open(str(path)) as check:
        assert (check.getnchannels(), check.getsampwidth(), check.getframerate()) == (1, 2, SAMPLE_RATE)
        return int(check.getnframes())


def test_file_mouth_writes_a_valid_wav_that_grows(tmp_path: Path, synthesizers: dict[Lang, Synthesizer]) -> None:
    path = tmp_path / "out" / "voice.wav"
    out = io.StringIO()
    mouth = FileMouth(path, synthesizers[Lang.IT], out=out)
    assert wav_frames(path) == 0  # valid before anything is said
    sizes = []
    for text in ("Tocca alla squadra rossa.", "Indizio: mare, due.", "La squadra blu vince!"):
        mouth.say(text)
        sizes.append(wav_frames(path))  # read while the mouth still has it open
        assert len(read_wav(path)) == sizes[-1]
    assert sizes[0] > 0.3 * SAMPLE_RATE and sizes[0] < sizes[1] < sizes[2]
    assert mouth.seconds == pytest.approx(sizes[-1] / SAMPLE_RATE)
    mouth.close()
    assert wav_frames(path) == sizes[-1]
    assert out.getvalue().splitlines() == ["Tocca alla squadra rossa.", "Indizio: mare, due.", "La squadra blu vince!"]
    assert rms(read_wav(path)) > MIN_RMS


def test_file_mouth_puts_a_short_silence_between_announcements(tmp_path: Path) -> None:
    path = tmp_path / "voice.wav"
    with FileMouth(path, FakeSynthesizer(), out=io.StringIO()) as mouth:
        mouth.say("a")
        mouth.say("b")
    audio = read_wav(path)
    one = round(0.02 * SAMPLE_RATE)
    assert len(audio) == 2 * one + round(GAP_SECONDS * SAMPLE_RATE)
    assert np.all(audio[one:-one] == 0.0) and np.allclose(audio[:one], 0.1, atol=1e-4)


def test_file_mouth_falls_back_to_printing(tmp_path: Path) -> None:
    path = tmp_path / "voice.wav"
    out, err = io.StringIO(), io.StringIO()
    with FileMouth(path, FakeSynthesizer(fail=SpeechError("espeak-ng could not speak.")), out=out, err=err) as mouth:
        mouth.say("one")
        mouth.say("two")
        assert mouth.silent
    assert out.getvalue() == "one\ntwo\n"
    assert err.getvalue().count("\n") == 1 and "espeak-ng could not speak" in err.getvalue()
    assert wav_frames(path) == 0  # still a valid (empty) file


def test_file_mouth_says_clearly_when_the_file_cannot_be_written(tmp_path: Path) -> None:
    (tmp_path / "taken").write_text("a file, not a folder")
    with pytest.raises(SpeechError, match="cannot write the host's voice"):
        FileMouth(tmp_path / "taken" / "voice.wav", FakeSynthesizer())
