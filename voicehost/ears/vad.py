"""Where utterances start and end: the Silero voice activity detector that faster-whisper ships,
run window by window on a live stream, with a short silence to close an utterance."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import numpy as np

from voicehost.audio.samples import SAMPLE_RATE, Audio
from voicehost.ears.loudness import SUSTAIN_WINDOWS, Background

WINDOW: Final = 512
"""Samples per VAD step (32 ms at 16 kHz), as the Silero model expects."""
CONTEXT: Final = 64
START_PROBABILITY: Final = 0.5
"""Speech begins when a window is this likely to be speech..."""
END_PROBABILITY: Final = 0.35
"""...and ends after END_SILENCE_MS of windows below this."""
END_SILENCE_MS: Final = 320
"""How long a silence closes an utterance: shorter cuts slow speakers between words."""
PAUSE_MS: Final = 96
"""A silence this long may be the end: the utterance as it stands is handed out at once (`on_pause`), so
it can be heard while the silence goes on, and kept if the speech does not resume. An utterance keeps
this much of its closing silence, whether it was heard then or at its close: the same audio either way."""
PRE_ROLL_MS: Final = 160
"""Audio kept from before the detected start, so first consonants are not clipped."""
MIN_SPEECH_MS: Final = 150
"""Shorter bursts (a cough, a click) are not utterances."""
WHOLE_MS: Final = 160
"""The silence after which an utterance heard as a whole move the host acts on at once (`whole`) closes:
"cereja", "music, two", "yes" need no more. A move asked back, or anything else, still waits END_SILENCE_MS,
as a speaker may go on ("I think it's ... the cherry")."""
HOLD_MS: Final = 800
"""How much longer the silence must last to close an utterance that `hold` says is unfinished (a clue's
word said without its number, "frutta ... tre"): a number said within about a second is the same clue."""
START_ABOVE_DB: Final = 9.0
"""Speech begins only where the window also stands this far above the room's background (`loudness`): the
other players' talk is speech to the detector, but quieter than the player speaking to the host..."""
KEEP_ABOVE_DB: Final = 7.5
"""...and goes on only while it stands this far above it: in a room that never falls silent, the end of the
player's speech is where the level falls back to the room's. Both chosen on the tuning voices said into
continuous babble (`python -m bench.calibrate_segmenter`), with the level that goes on averaged over
`loudness.SUSTAIN_WINDOWS`: the most lines caught whole (one utterance, from at most 0.6 s before the speech,
closed at most 0.8 s after it) in babble at 5, 10 and 20 dB, 82 % against 1 % without the margins, none lost
in a quiet room, at most one stray utterance of the table's talk a minute."""
MAX_UTTERANCE_S: Final = 12.0
TALKING_SLICE_S: Final = 1.6
"""While the host talks, the VAD hears its echo as one long utterance, so a player's "stop" over it
would wait for the announcement's end: the stream is cut into slices this long instead..."""
TALKING_OVERLAP_S: Final = 0.8
"""...each starting this far back into the one before, so a word on a cut is whole in one of them."""


class VadError(RuntimeError):
    """The voice activity detector cannot run (onnxruntime or the model file is missing)."""


def _silero_path() -> Path:
    try:
        import faster_whisper
    except ImportError:
        hint = "pip install 'voicehost[whisper]'"
        raise VadError(f"the voice activity detector comes with faster-whisper: {hint}") from None
    assets = Path(faster_whisper.__file__).parent / "assets"
    found = sorted(assets.glob("silero_vad*.onnx"))
    if not found:
        raise VadError(f"no Silero VAD model in {assets}: reinstall faster-whisper")
    return found[-1]


class SileroVad:
    """Speech probability of each 32 ms window, keeping the model's state across calls."""

    def __init__(self, path: Path | None = None) -> None:
        try:
            import onnxruntime
        except ImportError:
            raise VadError("the voice activity detector needs onnxruntime: pip install 'voicehost[whisper]'") from None
        options = onnxruntime.SessionOptions()
        options.inter_op_num_threads = 1
        options.intra_op_num_threads = 1
        options.log_severity_level = 4
        self._session: Any = onnxruntime.InferenceSession(
            str(path or _silero_path()), providers=["CPUExecutionProvider"], sess_options=options
        )
        self.reset()

    def reset(self) -> None:
        self._h = np.zeros((1, 1, 128), dtype=np.float32)
        self._c = np.zeros((1, 1, 128), dtype=np.float32)
        self._context = np.zeros(CONTEXT, dtype=np.float32)

    def probability(self, window: Audio) -> float:
        batch = np.concatenate([self._context, window.astype(np.float32)])[None, :]
        output, self._h, self._c = self._session.run(None, {"input": batch, "h": self._h, "c": self._c})
        self._context = window[-CONTEXT:].astype(np.float32)
        return float(np.asarray(output).reshape(-1)[0])


@dataclass(frozen=True)
class Utterance:
    audio: Audio
    start_s: float  # position in the stream
    end_s: float  # when the speech ended (before the closing silence)
    detected_s: float  # when the segmenter knew it had ended: end_s plus the end-of-speech delay


class Segmenter:
    """Cuts a stream of chunks into utterances.

    The detector's state is cleared once an utterance closes, so each one starts from the state a fresh
    stream has: carried over a game's minutes, it had drifted so that a short word after a few moves
    ("passo" by MBROLA's pt1) peaked for under MIN_SPEECH_MS and was dropped, heard only when said again.
    On whole games of the bench's table, the lines found went from 68 to 70 of 70 (pt-PT, quiet room) and
    from 72 to 75 of 75 (English, babble at 10 dB with reverb)."""

    def __init__(
        self,
        vad: SileroVad | None = None,
        *,
        start_above_db: float = START_ABOVE_DB,
        keep_above_db: float = KEEP_ABOVE_DB,
        sustain_windows: int = SUSTAIN_WINDOWS,
    ) -> None:
        self.vad = vad or SileroVad()
        self.start_above_db = start_above_db
        self.keep_above_db = keep_above_db
        self.sustain_windows = sustain_windows

    def utterances(
        self,
        chunks: Iterable[Audio],
        talking: Callable[[], bool] | None = None,
        on_pause: Callable[[Utterance], None] | None = None,
        hold: Callable[[Utterance], bool] | None = None,
        whole: Callable[[Utterance], bool] | None = None,
    ) -> Iterator[Utterance]:
        """Utterances as they end; while `talking()` (the host's voice is in the room), overlapping
        slices of TALKING_SLICE_S, so that what a player says over it is heard at once. `on_pause` gets
        the utterance as it stands when a silence of PAUSE_MS begins that may end it: if the speech
        does not resume, the utterance yielded later holds the very same audio. `hold` is asked, when the
        closing silence is reached, whether the utterance as it stands is unfinished: the silence must
        then last HOLD_MS more to close it, and speech resumed before that goes on in the same utterance.
        `whole` is asked, after WHOLE_MS of silence, whether the utterance as it stands is a whole move:
        it then closes at once, with the very same audio it would have closed with later."""
        window_s = WINDOW / SAMPLE_RATE
        slice_windows = round(TALKING_SLICE_S / window_s)
        overlap_windows = round(TALKING_OVERLAP_S / window_s)
        end_windows = max(1, round(END_SILENCE_MS / 1000 / window_s))
        hold_windows = round(HOLD_MS / 1000 / window_s)
        whole_windows = max(1, min(end_windows, round(WHOLE_MS / 1000 / window_s)))
        pause_windows = max(1, min(end_windows, round(PAUSE_MS / 1000 / window_s)))
        pre_windows = round(PRE_ROLL_MS / 1000 / window_s)
        min_windows = max(1, round(MIN_SPEECH_MS / 1000 / window_s))
        max_windows = round(MAX_UTTERANCE_S / window_s)
        pending = np.zeros(0, dtype=np.float32)
        history: list[Audio] = []
        speech: list[Audio] = []
        voiced = silent = 0
        position = 0
        start = 0
        closing = end_windows  # the silence that closes the utterance now: longer once held
        # the room behind the player: the talk around the table, or the hiss
        background = Background(self.sustain_windows)

        def as_at_pause() -> Utterance:
            """The utterance as it stands, keeping PAUSE_MS of its silence: the audio heard from the pause on."""
            kept = len(speech) - max(0, silent - pause_windows)
            return Utterance(
                np.concatenate(speech[:kept]), start * window_s, (position - silent) * window_s, position * window_s
            )

        self.vad.reset()
        for chunk in chunks:
            pending = np.concatenate([pending, np.asarray(chunk, dtype=np.float32).reshape(-1)])
            host_talking = talking is not None and talking()  # its voice in the room is no background
            while len(pending) >= WINDOW:
                window, pending = pending[:WINDOW], pending[WINDOW:]
                position += 1
                probability = self.vad.probability(window)
                above = background.above(window, learn=not host_talking)
                if not speech:
                    history = [*history[-pre_windows:], window] if pre_windows else []
                    if probability >= START_PROBABILITY and above.onset >= self.start_above_db:
                        speech = list(history) if history else [window]
                        start = position - len(speech)
                        voiced, silent = 1, 0
                    continue
                speech.append(window)
                if probability >= END_PROBABILITY and above.sustained >= self.keep_above_db:
                    voiced += 1
                    silent = 0
                    closing = end_windows
                else:
                    silent += 1
                if on_pause is not None and silent == pause_windows and voiced >= min_windows:
                    on_pause(as_at_pause())  # all of it: the pause is just reached
                sliced = talking is not None and len(speech) >= slice_windows and talking()
                asked = voiced >= min_windows and not sliced and closing == end_windows

                if silent == whole_windows < end_windows and whole is not None and asked and whole(as_at_pause()):
                    closing = silent
                elif silent == end_windows and hold is not None and asked and hold(as_at_pause()):
                    closing = end_windows + hold_windows
                if silent >= closing or len(speech) >= max_windows or sliced:
                    if voiced >= min_windows:
                        yield as_at_pause()
                    if sliced and silent < end_windows:  # still sounding: go on from inside this slice
                        speech = speech[-overlap_windows:]
                        start, voiced, silent, closing = position - len(speech), 1, 0, end_windows
                        continue
                    speech, history, voiced, silent = [], [], 0, 0
                    closing = end_windows
                    self.vad.reset()  # each utterance heard afresh (see `Segmenter`)
        if speech and voiced >= min_windows:
            yield Utterance(np.concatenate(speech), start * window_s, position * window_s, position * window_s)
