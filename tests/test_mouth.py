"""The host's voice: real espeak-ng synthesis in the four languages, the speaker mouth with a fake
loudspeaker (order, speaking state, barge-in), the --audio-out file, and the fall back to print."""

from __future__ import annotations

import io
import threading
import time
import wave
from pathlib import Path

import numpy as np
import pytest

from engine.lang import Lang
from voicehost.ears.audio import SAMPLE_RATE, Audio
from voicehost.ears.wav import read_wav
from voicehost.mouth import FileMouth, Output, SpeakerMouth, SpeechError, Synthesizer
from voicehost.mouth.recording import GAP_SECONDS

pyttsx3 = pytest.importorskip("pyttsx3")

SENTENCES = {
    Lang.PT_BR: ("Vez do time vermelho. Dê uma dica.", "roa/pt-br"),
    Lang.PT_PT: ("É a vez da equipa vermelha. Deem uma pista.", "roa/pt"),
    Lang.IT: ("Tocca alla squadra rossa. Date un indizio.", "roa/it"),
    Lang.EN: ("Red team's turn. Give a clue.", "gmw/en-us"),
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


# ---- real synthesis ----------------------------------------------------------------------------------


@pytest.mark.parametrize("lang", list(Lang), ids=[lang.value for lang in Lang])
def test_real_speech_in_each_language(
    synthesizers: dict[Lang, Synthesizer], lang: Lang, capsys: pytest.CaptureFixture[str]
) -> None:
    text, voice = SENTENCES[lang]
    synthesizer = synthesizers[lang]
    audio = synthesizer.synthesize(text)
    assert synthesizer.voice_id == voice
    assert audio.dtype == np.float32 and audio.ndim == 1
    assert 0.3 < len(audio) / SAMPLE_RATE < 10.0
    assert rms(audio) > MIN_RMS
    assert np.abs(audio).max() <= 1.0
    assert pyttsx3.init(driverName="espeak").getProperty("voice") == voice  # what espeak-ng really used
    assert capsys.readouterr().out == ""  # pyttsx3's "Audio saved to ..." chatter stays off stdout


def test_each_language_has_its_own_voice(synthesizers: dict[Lang, Synthesizer]) -> None:
    assert len({s.voice_id for s in synthesizers.values()}) == 4


def test_languages_do_not_leak_into_each_other(synthesizers: dict[Lang, Synthesizer]) -> None:
    """espeak-ng has one voice per process: each synthesis must set its own again. (espeak-ng is not
    bit-exact from one run to the next: lengths vary by a few samples, so compare lengths loosely.)"""
    first = synthesizers[Lang.PT_BR].synthesize("Cereja")
    synthesizers[Lang.EN].synthesize("Cereja")
    again = synthesizers[Lang.PT_BR].synthesize("Cereja")
    assert pyttsx3.init(driverName="espeak").getProperty("voice") == "roa/pt-br"
    assert abs(len(again) - len(first)) < 0.005 * len(first)
    others = [len(synthesizers[lang].synthesize("Cereja")) for lang in (Lang.PT_PT, Lang.EN)]
    assert all(abs(other - len(first)) > 0.01 * len(first) for other in others)


def test_nothing_to_say_is_silence(synthesizers: dict[Lang, Synthesizer]) -> None:
    assert len(synthesizers[Lang.EN].synthesize("  \n ")) == 0


def test_a_language_tag_works_too() -> None:
    assert Synthesizer("pt_br").voice_id == "roa/pt-br"


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


def test_speaking_is_true_while_anything_is_queued_then_false() -> None:
    output = FakeOutput()
    mouth, _, _ = make_mouth(FakeSynthesizer(), output)
    assert not mouth.speaking
    mouth.say("one")
    assert mouth.speaking  # at once: the echo gate must know before the first sample plays
    mouth.say("two")
    seen = []
    while not mouth.wait_idle(0.001):
        seen.append(mouth.speaking)
    assert all(seen)  # not flickering between two queued announcements
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
