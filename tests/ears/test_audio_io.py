"""The ears' raw audio: WAV files of any common format, recordings as streams, and the microphone
driven by a fake PortAudio stream (no sound card here), plus the real "no microphone" message."""

from __future__ import annotations

import shutil
import struct
import subprocess
import threading
import wave
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from voicehost.audio.resample import Resampler, resample
from voicehost.audio.samples import SAMPLE_RATE, Audio, AudioError, from_pcm, to_pcm16
from voicehost.audio.wav import read_wav, write_wav
from voicehost.ears.microphone import (
    RETRY_SECONDS,
    STALL_SECONDS,
    InputCallback,
    InputStream,
    Microphone,
    MicrophoneLost,
    NoMicrophone,
    open_microphone,
)
from voicehost.ears.recordings import file_chunks


def tone(freq: float, rate: int, seconds: float = 0.5, amplitude: float = 0.5) -> Audio:
    t = np.arange(round(rate * seconds)) / rate
    return (amplitude * np.sin(2 * np.pi * freq * t)).astype(np.float32)


def peak_hz(audio: Audio, rate: int = SAMPLE_RATE) -> float:
    spectrum = np.abs(np.fft.rfft(audio * np.hanning(len(audio))))
    return float(np.fft.rfftfreq(len(audio), 1 / rate)[int(np.argmax(spectrum))])


def rms(audio: Audio) -> float:
    return float(np.sqrt(np.mean(np.square(audio, dtype=np.float64))))


def raw_wav(path: Path, frames: bytes, *, tag: int, channels: int, rate: int, bits: int) -> Path:
    """A WAV written byte by byte, for the formats Python's wave module cannot write."""
    align = channels * bits // 8
    fmt = struct.pack("<HHIIHH", tag, channels, rate, rate * align, align, bits)
    body = b"WAVE" + b"fmt " + struct.pack("<I", len(fmt)) + fmt + b"data" + struct.pack("<I", len(frames)) + frames
    path.write_bytes(b"RIFF" + struct.pack("<I", len(body)) + body)
    return path


# ---- WAV files --------------------------------------------------------------------------------------


def test_write_then_read_is_lossless_to_16_bits(tmp_path: Path) -> None:
    audio = tone(440, SAMPLE_RATE)
    write_wav(tmp_path / "a.wav", audio)
    with wave.open(str(tmp_path / "a.wav")) as check:
        assert (check.getnchannels(), check.getsampwidth(), check.getframerate()) == (1, 2, SAMPLE_RATE)
    back = read_wav(tmp_path / "a.wav")
    assert back.dtype == np.float32 and back.shape == audio.shape
    assert np.abs(back - audio).max() < 1 / 32767 + 1e-6


def test_other_rates_and_channels_are_downmixed_and_resampled(tmp_path: Path) -> None:
    left, right = tone(1000, 44100), np.zeros(22050, dtype=np.float32)
    stereo = np.stack([left, right], axis=1)
    with wave.open(str(tmp_path / "s.wav"), "wb") as out:
        out.setnchannels(2)
        out.setsampwidth(2)
        out.setframerate(44100)
        out.writeframes((stereo * 32767).astype("<i2").tobytes())
    audio = read_wav(tmp_path / "s.wav")
    assert len(audio) == 8000  # 0.5 s at 16 kHz
    assert abs(peak_hz(audio) - 1000) < 5
    assert rms(audio[400:-400]) == pytest.approx(0.25 / np.sqrt(2), rel=0.02)  # the mean of the two channels


@pytest.mark.parametrize(
    ("tag", "bits", "encode"),
    [
        (3, 32, lambda x: x.astype("<f4").tobytes()),
        (3, 64, lambda x: x.astype("<f8").tobytes()),
        (1, 8, lambda x: np.round(x * 127 + 128).astype(np.uint8).tobytes()),
        (1, 24, lambda x: b"".join(int(v).to_bytes(3, "little", signed=True) for v in np.round(x * 8388607))),
        (1, 32, lambda x: np.round(x * 2147483647).astype("<i4").tobytes()),
    ],
    ids=["float32", "float64", "pcm8", "pcm24", "pcm32"],
)
def test_float_and_other_sample_widths(tmp_path: Path, tag: int, bits: int, encode: Callable[[Audio], bytes]) -> None:
    audio = tone(500, 48000, seconds=0.25)
    path = raw_wav(tmp_path / "x.wav", encode(audio), tag=tag, channels=1, rate=48000, bits=bits)
    back = read_wav(path)
    assert len(back) == 4000
    expected = resample(audio, 48000, SAMPLE_RATE)
    tolerance = 0.02 if bits == 8 else 1e-3
    assert np.abs(back - expected).max() < tolerance


@pytest.mark.skipif(shutil.which("sox") is None, reason="sox is not installed")
@pytest.mark.parametrize(
    "encoding", [["-b", "32", "-e", "floating-point"], ["-b", "24"], ["-b", "16"], ["-b", "8", "-e", "unsigned"]]
)
def test_wavs_written_by_sox(tmp_path: Path, encoding: list[str]) -> None:
    """An independent writer: sox uses WAVE_FORMAT_EXTENSIBLE for wide samples and many channels."""
    path = tmp_path / "sox.wav"
    command = ["sox", "-n", "-r", "22050", "-c", "3", *encoding, str(path), "synth", "0.4", "sine", "660", "vol", "0.5"]
    subprocess.run(command, check=True, capture_output=True)
    audio = read_wav(path)
    assert len(audio) == pytest.approx(0.4 * SAMPLE_RATE, abs=2)
    assert abs(peak_hz(audio) - 660) < 5
    assert rms(audio[400:-400]) == pytest.approx(0.5 / np.sqrt(2), rel=0.05)


def test_clear_errors_for_unusable_files(tmp_path: Path) -> None:
    with pytest.raises(AudioError, match="no recording at"):
        read_wav(tmp_path / "missing.wav")
    with pytest.raises(AudioError, match="is a folder"):
        read_wav(tmp_path)
    (tmp_path / "song.mp3").write_bytes(b"ID3\x04" + bytes(100))
    with pytest.raises(AudioError, match=r"not a WAV file.*sox"):
        read_wav(tmp_path / "song.mp3")
    (tmp_path / "cut.wav").write_bytes(b"RIFF\x00\x00\x00\x00WAVEfmt ")
    with pytest.raises(AudioError, match="damaged"):
        read_wav(tmp_path / "cut.wav")
    unknown = raw_wav(tmp_path / "unknown.wav", bytes(400), tag=0x1234, channels=1, rate=8000, bits=16)
    with pytest.raises(AudioError, match=r"format cannot be read.*sox"):
        read_wav(unknown)
    assert issubclass(NoMicrophone, AudioError) and issubclass(MicrophoneLost, AudioError)


@pytest.mark.skipif(shutil.which("sox") is None, reason="sox is not installed")
def test_mu_law_and_a_header_without_its_length_are_read(tmp_path: Path) -> None:
    """libsndfile reads what the old hand-written parser could not (µ-law, as a telephone recorder writes
    it) and a streaming writer's unset data length, read to the end of the file."""
    ulaw = tmp_path / "ulaw.wav"
    command = ["sox", "-n", "-r", "8000", "-c", "1", "-e", "u-law", str(ulaw), "synth", "0.25", "sine", "440"]
    subprocess.run(command, check=True, capture_output=True)
    back = read_wav(ulaw)
    assert len(back) == 4000 and abs(peak_hz(back) - 440) < 5
    pcm = np.round(tone(440, SAMPLE_RATE, 0.25) * 32767).astype("<i2").tobytes()
    unset = bytearray(raw_wav(tmp_path / "unset.wav", pcm, tag=1, channels=1, rate=SAMPLE_RATE, bits=16).read_bytes())
    unset[40:44] = b"\xff\xff\xff\xff"  # the data chunk's size, as a writer to a pipe leaves it
    (tmp_path / "unset.wav").write_bytes(bytes(unset))
    assert len(read_wav(tmp_path / "unset.wav")) == 4000


@pytest.mark.parametrize("rate", [1, 7999, 192_001, 767_999, 2_000_000_000])
def test_a_header_with_an_impossible_rate_is_refused_before_any_work(tmp_path: Path, rate: int) -> None:
    """Unbounded (issue: no game lost): a header saying 1 Hz would cost minutes of resampling for a second
    of samples, 767,999 Hz about 950 MB; rates outside 8-192 kHz are refused with the reason, at once."""
    path = raw_wav(tmp_path / "odd.wav", bytes(32000), tag=1, channels=1, rate=rate, bits=16)
    with pytest.raises(AudioError, match=r"sample rate is \d+ Hz.*8 to 192 kHz.*sox"):
        read_wav(path)
    with pytest.raises(AudioError, match="8 to 192 kHz"):
        list(file_chunks(path))


@pytest.mark.parametrize("rate", [8000, 192_000])
def test_the_rates_at_the_bounds_are_read(tmp_path: Path, rate: int) -> None:
    path = raw_wav(tmp_path / "edge.wav", np.round(tone(1000, rate) * 32767).astype("<i2").tobytes(), tag=1,
                   channels=1, rate=rate, bits=16)  # fmt: skip
    audio = read_wav(path)
    assert len(audio) == 8000 and abs(peak_hz(audio) - 1000) < 5


def test_the_audio_package_sits_below_the_ears_and_the_mouth() -> None:
    """Issue 22: sample rate, WAV files and resampling are primitives: no module of voicehost.audio imports
    the ears, the mouth, the referee or the decision (they import it)."""
    import ast

    import voicehost.audio

    above = ("voicehost.ears", "voicehost.mouth", "voicehost.referee", "voicehost.decision", "voicehost.frontends")
    folder = Path(voicehost.audio.__file__).parent
    for module in sorted(folder.glob("*.py")):
        tree = ast.parse(module.read_text(encoding="utf-8"))
        names = [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
        names += [n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
        assert not [name for name in names if name.startswith(above)], module.name


def test_one_16_bit_conversion_everywhere(tmp_path: Path) -> None:
    """Files, vosk and satellites get the same samples: clipped, scaled by 32767 and rounded."""
    audio = np.array([0.0, 0.5, 1.0, -1.0, 2.0, -3.0, 0.49999 / 32767, 1.5 / 32767], dtype=np.float32)
    expected = [0, 16384, 32767, -32767, 32767, -32767, 0, 2]
    assert np.frombuffer(to_pcm16(audio), dtype="<i2").tolist() == expected
    write_wav(tmp_path / "p.wav", audio)
    with wave.open(str(tmp_path / "p.wav")) as written:
        assert np.frombuffer(written.readframes(8), dtype="<i2").tolist() == expected
    assert from_pcm(to_pcm16(audio)).tolist() == pytest.approx([v / 32768 for v in expected])


# ---- resampling -------------------------------------------------------------------------------------


@pytest.mark.parametrize("rate", [8000, 11025, 22050, 32000, 44100, 48000, 44101])
def test_resampling_keeps_a_tone(rate: int) -> None:
    out = resample(tone(1000, rate, seconds=1.0), rate, SAMPLE_RATE)
    assert len(out) == SAMPLE_RATE
    assert np.abs(out[300:-300] - tone(1000, SAMPLE_RATE, seconds=1.0)[300:-300]).max() < 1e-3


def test_resampling_removes_what_would_alias() -> None:
    """Polyphase windowed sinc, not linear interpolation: 10 kHz at 44.1 kHz must not fold to 6 kHz."""
    out = resample(tone(10000, 44100, seconds=1.0), 44100, SAMPLE_RATE)
    assert 20 * np.log10(rms(out[500:-500]) / (0.5 / np.sqrt(2))) < -60


def test_streaming_resampler_matches_the_whole_file() -> None:
    audio = (np.random.default_rng(1).standard_normal(30000) * 0.1).astype(np.float32)
    rng = np.random.default_rng(2)
    resampler, pieces, start = Resampler(48000, SAMPLE_RATE), [], 0
    while start < len(audio):
        size = int(rng.integers(1, 2500))
        pieces.append(resampler.process(audio[start : start + size]))
        start += size
    pieces.append(resampler.flush())
    assert np.array_equal(np.concatenate(pieces), resample(audio, 48000, SAMPLE_RATE))


# ---- recordings as a stream -------------------------------------------------------------------------


def test_file_chunks_cut_a_recording(tmp_path: Path) -> None:
    audio = tone(300, SAMPLE_RATE, seconds=0.55)
    write_wav(tmp_path / "r.wav", audio)
    chunks = list(file_chunks(tmp_path / "r.wav", chunk_seconds=0.1))
    assert [len(c) for c in chunks] == [1600] * 5 + [800]
    assert np.array_equal(np.concatenate(chunks), read_wav(tmp_path / "r.wav"))


def test_file_chunks_in_real_time_are_paced_like_a_microphone(tmp_path: Path) -> None:
    write_wav(tmp_path / "r.wav", tone(300, SAMPLE_RATE, seconds=1.0))
    now = [0.0]
    slept: list[float] = []

    def sleep(seconds: float) -> None:
        slept.append(seconds)
        now[0] += seconds

    delivered = []
    for _ in file_chunks(tmp_path / "r.wav", 0.25, realtime=True, clock=lambda: now[0], sleep=sleep):
        delivered.append(now[0])
        now[0] += 0.01  # the consumer's own work must not make the stream drift
    assert delivered == pytest.approx([0.25, 0.5, 0.75, 1.0])
    assert list(file_chunks(tmp_path / "r.wav", 0.25, clock=lambda: now[0], sleep=sleep)) and len(slept) == 4


# ---- the microphone with a fake stream --------------------------------------------------------------


class FakeStream:
    """Stands for sounddevice.InputStream: the test pushes blocks through the real callback."""

    def __init__(self, callback: InputCallback, finished: Callable[[], None], rate: float, on_start: list[Audio]):
        self.callback, self.finished, self.samplerate = callback, finished, rate
        self.active = False
        self.closed = False
        self._on_start = on_start

    def start(self) -> None:
        self.active = True
        for block in self._on_start:
            self.feed(block)

    def stop(self) -> None:
        self.active = False

    def close(self) -> None:
        self.closed = True

    def feed(self, block: Audio, status: Any = None) -> None:
        self.callback(block.reshape(-1, 1), len(block), None, status)

    def unplug(self) -> None:
        """What PortAudio does when the device fails: the stream goes inactive and says it finished."""
        self.active = False
        self.finished()


class FakeDevice:
    """A StreamFactory: fails while `failures` lasts, as PortAudio does with the device gone."""

    def __init__(self, rate: float = SAMPLE_RATE, failures: int = 0) -> None:
        self.rate, self.failures = rate, failures
        self.streams: list[FakeStream] = []
        self.rescans: list[bool] = []
        self.on_start: list[Audio] = []

    def __call__(
        self,
        callback: InputCallback,
        finished: Callable[[], None],
        *,
        device: int | str | None,
        chunk_seconds: float,
        rescan: bool,
    ) -> InputStream:
        self.rescans.append(rescan)
        if self.failures:
            self.failures -= 1
            raise NoMicrophone("No microphone found (unplugged).")
        stream = FakeStream(callback, finished, self.rate, list(self.on_start))
        self.streams.append(stream)
        stream.start()
        return stream

    @property
    def stream(self) -> FakeStream:
        return self.streams[-1]


class Clock:
    def __init__(self) -> None:
        self.now = 100.0
        self.slept: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds


def block(value: float, size: int = 1600) -> Audio:
    return np.full(size, value, dtype=np.float32)


@pytest.fixture
def clock() -> Clock:
    return Clock()


def make_mic(device: FakeDevice, clock: Clock) -> Microphone:
    return Microphone(make_stream=device, clock=clock, sleep=clock.sleep, poll_seconds=0.01)


def test_chunks_flow_from_the_capture_callback(clock: Clock) -> None:
    device = FakeDevice()
    with make_mic(device, clock) as mic:
        chunks = mic.chunks()
        for value in (0.1, 0.2, 0.3):
            device.stream.feed(block(value))
        assert [float(next(chunks)[0]) for _ in range(3)] == pytest.approx([0.1, 0.2, 0.3])
        device.stream.feed(block(0.4))
        delivered = next(chunks)
        assert delivered.dtype == np.float32 and delivered.shape == (1600,)
    assert device.stream.closed and not device.stream.active


def test_the_consumer_gets_its_own_copy_of_each_block(clock: Clock) -> None:
    """PortAudio reuses its buffer for the next callback."""
    device = FakeDevice()
    with make_mic(device, clock) as mic:
        buffer = block(0.5)
        device.stream.feed(buffer)
        buffer[:] = 0.0
        assert float(next(mic.chunks())[0]) == 0.5


def test_a_slow_consumer_loses_the_oldest_audio_not_memory(clock: Clock) -> None:
    device = FakeDevice()
    mic = make_mic(device, clock)
    mic.open()
    capacity = mic._queue.maxsize
    for index in range(capacity + 5):
        device.stream.feed(block(float(index), 16))
    mic.close()
    kept = [float(c[0]) for c in mic.chunks()]
    assert mic.dropped_overflow == 5
    assert kept[0] == 5.0 and kept[-1] == capacity + 4


@pytest.mark.parametrize("how", ["finished", "inactive", "silent"])
def test_a_lost_device_is_reported(clock: Clock, how: str) -> None:
    device = FakeDevice()
    mic = make_mic(device, clock)
    mic.open()
    chunks = mic.chunks()
    device.stream.feed(block(0.1))
    assert float(next(chunks)[0]) == pytest.approx(0.1)
    if how == "finished":
        device.stream.unplug()
    elif how == "inactive":
        device.stream.active = False
    else:
        clock.now += STALL_SECONDS + 0.5  # no callback at all: ALSA often just goes quiet
    with pytest.raises(MicrophoneLost, match=r"stopped working.*waits until it is back"):
        next(chunks)


def test_reconnect_retries_every_second_until_the_device_is_back(clock: Clock) -> None:
    device = FakeDevice()
    mic = make_mic(device, clock)
    mic.open()
    chunks = mic.chunks()
    device.stream.unplug()
    with pytest.raises(MicrophoneLost):
        next(chunks)
    lost = device.stream
    device.failures = 3
    assert mic.reconnect()
    assert lost.closed
    assert clock.slept == [RETRY_SECONDS] * 3
    assert device.rescans == [False, False, True, True, True]  # the device list is rebuilt on retries
    device.stream.feed(block(0.7))
    assert float(next(mic.chunks())[0]) == pytest.approx(0.7)


def test_reconnect_gives_up_when_asked(clock: Clock) -> None:
    device = FakeDevice()
    mic = make_mic(device, clock)
    mic.open()
    device.failures = 10**6
    stop = threading.Event()
    clock.sleep = lambda seconds: stop.set()  # type: ignore[method-assign]
    mic._sleep = clock.sleep
    assert not mic.reconnect(stop)


def test_resilient_chunks_report_the_loss_and_the_return(clock: Clock) -> None:
    device = FakeDevice()
    mic = make_mic(device, clock)
    mic.open()
    events: list[str] = []
    stream: Iterator[Audio] = mic.resilient_chunks(
        on_lost=lambda lost: events.append("lost"), on_back=lambda: events.append("back")
    )
    device.stream.feed(block(0.1))
    assert float(next(stream)[0]) == pytest.approx(0.1)
    device.failures = 2
    device.on_start = [block(0.9)]  # the microphone speaks as soon as it is back
    device.stream.unplug()
    assert float(next(stream)[0]) == pytest.approx(0.9)
    assert events == ["lost", "back"] and clock.slept == [RETRY_SECONDS] * 2
    mic.close()
    assert list(stream) == []


def test_close_from_another_thread_ends_chunks(clock: Clock) -> None:
    device = FakeDevice()
    mic = make_mic(device, clock)
    mic.open()
    got: list[Audio] = []
    reader = threading.Thread(target=lambda: got.extend(mic.chunks()))
    reader.start()
    device.stream.feed(block(0.1))
    threading.Timer(0.05, mic.close).start()
    reader.join(2)
    assert not reader.is_alive() and len(got) == 1


def test_a_stop_event_ends_chunks(clock: Clock) -> None:
    device = FakeDevice()
    with make_mic(device, clock) as mic:
        stop = threading.Event()
        stop.set()
        device.stream.feed(block(0.1))
        assert list(mic.chunks(stop)) == []


def test_a_device_that_records_at_48_khz_is_resampled(clock: Clock) -> None:
    device = FakeDevice(rate=48000)
    with make_mic(device, clock) as mic:
        audio = tone(440, 48000, seconds=1.0)
        for start in range(0, len(audio), 4800):
            device.stream.feed(audio[start : start + 4800])
        chunks = mic.chunks()
        heard = np.concatenate([next(chunks) for _ in range(9)])
    assert 0 <= 9 * 1600 - len(heard) < 0.025 * SAMPLE_RATE  # libsoxr holds back at most ~22 ms, its filter's
    assert abs(peak_hz(heard) - 440) < 3


def test_open_microphone_uses_the_factory(clock: Clock) -> None:
    device = FakeDevice()
    mic = open_microphone(make_stream=device)
    assert device.stream.active
    mic.close()
    with pytest.raises(NoMicrophone):
        open_microphone(make_stream=FakeDevice(failures=1))


# ---- the real thing, on a machine without a sound card -----------------------------------------------


def _has_input_device() -> bool:
    try:
        import sounddevice

        sounddevice.query_devices(kind="input")
    except Exception:  # no PortAudio, or no input device
        return False
    return True


@pytest.mark.skipif(_has_input_device(), reason="this machine has a microphone")
def test_no_microphone_says_what_to_do_instead() -> None:
    with pytest.raises(NoMicrophone) as caught:
        open_microphone()
    message = str(caught.value)
    assert message.startswith("No microphone")
    assert "--text" in message and "--audio-in" in message
    assert "Traceback" not in message and "-1" not in message
