"""vosk (Kaldi) as a small, streaming recognizer: a closed grammar while guessing, free words for clues.

vosk does its own end-of-speech detection, so it is the engine for a live microphone on small
machines. Five facts about it (vosk 0.3.45, read in its recognizer.cc and measured here) shape
this adapter:

- A grammar is a JSON array of phrases, parsed by vosk's own JSON reader, which does not decode
  `\\uXXXX` escapes: it must be written with `ensure_ascii=False`, or every accented or Hangul word
  becomes an unknown word. Unknown words are dropped with a warning, so the phrases are checked
  against the model's vocabulary here first (`Model.vosk_model_find_word`) and a phrase with an
  unknown word is left out whole, rather than being cut down to its known words.
- `SetGrammar` on a recognizer that is in the middle of an utterance is a fatal Kaldi error that
  aborts the whole process; it is only ever called after `Reset()` or a result.
- A grammar cannot be removed again (only models with a static graph ignore it), so the free
  vocabulary lives in a second recognizer sharing the same `Model`.
- A damaged graph or a missing i-vector extractor does not stop `vosk.Model` from loading (Kaldi
  only logs an error); making a recognizer is what fails. Both recognizers are made at load time,
  so such a model is a `ModelError` before a game starts, not a crash at the first word.
- A closed grammar has to put whatever it hears somewhere: loud noise comes out as a card with a
  word posterior near 1.0, because the posterior only compares the grammar's phrases with each
  other. So the audio under the words is checked for a voice (`speech_evidence`), and words heard
  over noise keep at most `NOT_SPEECH_CONFIDENCE`, which makes the host ask back instead of acting.
"""

from __future__ import annotations

import json
import logging
import re
import time
from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from voicehost.asr import SAMPLE_RATE, Audio, Context, ContextSource, Heard
from voicehost.models import ModelError

logger = logging.getLogger(__name__)

UNKNOWN_SYMBOLS: Final = ("[unk]", "<unk>", "<UNK>")
"""How models spell "some word I do not know": most vosk models say [unk], the Korean one <UNK>.
One of them goes into every grammar so that speech outside it has somewhere to go besides a card."""
SPLIT_INSIDE_WORD: Final = re.compile(r"[-'’]")
"""A card the model does not know as one word ("guarda-chuva", "dell'acqua") may be known as its parts."""
INSTALL_HINT: Final = "voicehost models install <your language: pt-BR, pt-PT, it or en> --engine vosk"
IVECTOR_FILES: Final = ("final.ie", "final.dubm", "final.mat", "global_cmvn.stats", "online_cmvn.conf", "splice.conf")
"""What vosk reads from ivector/ once final.ie is there (model.cc); small models all use i-vectors."""
IVECTOR_INPUT: Final = b"input-node name=ivector"
"""How an acoustic model that needs i-vectors says so: its nnet3 config, stored as text in final.mdl."""
CONFIG_SEARCH_BYTES: Final = 16 << 20
"""The nnet3 config follows the transition model, 170 KB into the Korean final.mdl; big models have more."""

SPEECH_BAND_HZ: Final = (100.0, 4000.0)
"""Where a voice has its pitch harmonics and formants; above it, fricatives look like hiss."""
ANALYSIS_WINDOW: Final = 512
"""32 ms frames (16 kHz) for the speech check: long enough to resolve pitch harmonics."""
ANALYSIS_HOP: Final = 160
"""10 ms between frames."""
MODULATION_BANDS: Final = 16
"""Mel-spaced bands between SPEECH_BAND_HZ: each is 3 to 15 FFT bins wide, which averages away most
of a noise's frame-to-frame scatter while keeping a syllable's rise and fall."""
FLATNESS_SMOOTHING_FRAMES: Final = 5
"""Frames averaged before the flatness is taken (Welch): a noise's raw periodogram is spiky (flatness
~0.56), averaged it is flat (~0.87), while a voice's harmonics and formants stay."""
MIN_SPEECH_SPAN_S: Final = 0.3
"""Shorter words are judged with the audio around them: vosk's word times come in 30 ms steps and a
short word gives too few frames for a spread."""
MAX_SPEECH_SPAN_S: Final = 6.0
"""Only this much of the words' audio is analysed: a card name is short, and the cost stays bounded."""
TAPE_SECONDS: Final = 20.0
"""Audio kept per recognizer to find the words in (longer utterances are judged on what is left)."""
SPEECH_MAX_FLATNESS: Final = 0.5
"""A voice's smoothed spectral flatness is at most this (geometric over arithmetic mean, 0..1).

Tuned on the spans of the words vosk-ko heard (154 in tests/test_fuzz.py's noises, alone and with
quiet around them; 221 in espeak-ng ko speech: card words in four voices, clean, trimmed tight and
in white noise at 20, 10 and 5 dB SNR, and five sentences): white, Gaussian and rail-to-rail noise
0.86-0.89 at any level; speech 0.00-0.17 clean or at 20 dB SNR, up to 0.31 at 10 dB and 0.80 at
5 dB (where vosk mostly mishears the word anyway)."""
SPEECH_MIN_MODULATION_DB: Final = 3.5
"""A voice's band energies move at least this much (median over bands of the interquartile range in
dB over the frames): syllables rise and fall, a steady sound does not.

Tuned on the same spans: square and clipped tones 0.0-0.1 dB; speech 6.1 dB or more clean or at
20 dB SNR, 4.5 at 10 dB. White noise reaches 3.8 dB; flatness is what rejects it. Known gaps: a
short beep with quiet around it is all onset and offset (5.8 dB for 0.5 s of a square wave), and
so is a word far shorter than MIN_SPEECH_SPAN_S sitting on a tone's onset: both pass as a voice."""
NOT_SPEECH_CONFIDENCE: Final = 0.3
"""The most a word heard over noise is worth: below the host's LOW_ASR_CONFIDENCE (0.6), so it asks
back ("did you say ...?") instead of acting; kept above 0 because a voice in odd noise may fail the
check, and then the player only has to say yes."""


@dataclass(frozen=True)
class Grammar:
    """The phrases vosk may hear while guessing, and those it cannot (a word outside the model)."""

    phrases: tuple[str, ...]
    unknown: tuple[str, ...] = ()

    def to_json(self) -> str:
        """vosk's grammar argument; raw UTF-8 because vosk's JSON reader ignores \\u escapes."""
        return json.dumps(list(self.phrases), ensure_ascii=False)


class _Tape:
    """The last seconds of audio one recognizer was fed, on vosk's clock.

    vosk times words in seconds of audio fed since the recognizer was made: Reset, FinalResult and
    SetGrammar do not restart that clock, so counting the samples fed finds a word's audio again."""

    def __init__(self, sample_rate: int) -> None:
        self.rate = sample_rate
        self._keep = int(TAPE_SECONDS * sample_rate)
        self._chunks: deque[Audio] = deque()
        self._start = 0  # sample number of the first sample kept
        self._end = 0  # samples fed so far

    def append(self, audio: Audio) -> None:
        self._chunks.append(audio)
        self._end += len(audio)
        while len(self._chunks) > 1 and self._end - self._start - len(self._chunks[0]) >= self._keep:
            self._start += len(self._chunks.popleft())

    def around(self, start_s: float, end_s: float) -> Audio:
        """The audio from start_s to end_s, widened to MIN_SPEECH_SPAN_S and cut to MAX_SPEECH_SPAN_S."""
        middle = (start_s + end_s) / 2
        start_s, end_s = min(start_s, middle - MIN_SPEECH_SPAN_S / 2), max(end_s, middle + MIN_SPEECH_SPAN_S / 2)
        first = max(self._start, round(start_s * self.rate))
        last = min(self._end, round(end_s * self.rate), first + int(MAX_SPEECH_SPAN_S * self.rate))
        if last <= first:
            return np.zeros(0, dtype=np.float32)
        parts: list[Audio] = []
        position = self._start
        for chunk in self._chunks:
            if position + len(chunk) > first and position < last:
                parts.append(chunk[max(0, first - position) : last - position])
            position += len(chunk)
        return np.concatenate(parts).astype(np.float32, copy=False)


@dataclass(frozen=True)
class _Decoder:
    """One KaldiRecognizer and the tape of what it heard."""

    kaldi: Any
    tape: _Tape

    def accept(self, audio: Audio) -> bool:
        """Feed audio; True when vosk's endpointer closed the utterance."""
        samples = np.array(audio, dtype=np.float32).reshape(-1)  # a copy: the caller may reuse its buffer
        self.tape.append(samples)
        return bool(self.kaldi.AcceptWaveform(to_pcm16(samples)))


class VoskRecognizer:
    """`Recognizer` and `StreamingRecognizer` over one vosk model. Not thread-safe: one listener at a time."""

    def __init__(self, model_dir: Path, *, lang: str | None = None, sample_rate: int = SAMPLE_RATE) -> None:
        install = f"voicehost models install {lang} --engine vosk" if lang else INSTALL_HINT
        try:
            import vosk
        except ImportError:
            raise ModelError("the vosk engine needs the vosk package: pip install 'voicehost[vosk]'") from None
        vosk.SetLogLevel(-1)  # Kaldi logs every model file and grammar it reads; keep warnings and errors only
        _check_model_files(Path(model_dir), install)
        try:
            self.model: Any = vosk.Model(str(model_dir))  # shared by the free and the closed recognizer
        except Exception as exc:  # vosk raises a bare Exception("Failed to create a model")
            raise ModelError(
                f"the vosk model in {model_dir} cannot be loaded ({exc}): it is damaged or incomplete. "
                f"Reinstall it with: {install}"
            ) from None
        self._vosk: Any = vosk
        self.model_dir = Path(model_dir)
        self.sample_rate = sample_rate
        # Big models ship one static graph (HCLG.fst): vosk ignores grammars there, so guesses are free too.
        self.supports_grammar = (self.model_dir / "graph" / "HCLr.fst").exists()
        self._known: dict[str, bool] = {}
        self.unknown_symbol: str | None = next((s for s in UNKNOWN_SYMBOLS if self.knows(s)), None)
        self._grammars: dict[Context, Grammar] = {}
        self._closed_json: str | None = None  # the grammar of the last guessing context
        # The free recognizer first: with a broken graph it fails cleanly, where a grammar one would not.
        self._closed_holds = json.dumps([self.unknown_symbol or UNKNOWN_SYMBOLS[0]], ensure_ascii=False)
        try:
            self._free = self._new_decoder(None)
            self._closed = self._new_decoder(self._closed_holds) if self.supports_grammar else None
        except Exception as exc:  # vosk raises a bare Exception("Failed to create a recognizer")
            raise ModelError(
                f"the vosk model in {model_dir} loads but cannot recognize speech ({exc}): a file in it is "
                f"damaged or incomplete. Reinstall it with: {install}"
            ) from None

    # ---- the interface ---------------------------------------------------------------------

    def recognize(self, audio: Audio, context: Context) -> Heard:
        """One whole utterance: fed at once, then finalized (no endpointing needed)."""
        started = time.perf_counter()
        decoder = self._recognizer_for(context)
        decoder.accept(audio)
        result = decoder.kaldi.FinalResult()
        heard = self._heard(result, decoder.tape, started)
        return heard or Heard("", 0.0, _ms(started))

    def listen(self, chunks: Iterable[Audio], context: ContextSource) -> Iterator[Heard]:
        """Yields a Heard each time vosk's endpointer closes an utterance that had words in it.

        The context is read again before every chunk until the decoder has heard a word of the
        new utterance: the phase often changes while the microphone hears only silence (the host
        was speaking), and that silence already belongs to vosk's next utterance. Once a word is
        heard, the utterance keeps its grammar to its end. Keep the context source cheap."""
        current = context()
        decoder = self._recognizer_for(current)
        spent_ms = 0.0  # time spent inside vosk on this utterance's audio: its decode cost
        for chunk in chunks:
            if len(chunk) == 0:
                continue
            wanted = context()
            if wanted != current and not _partial(decoder.kaldi):
                current, decoder = wanted, self._recognizer_for(wanted)
                spent_ms = 0.0
            started = time.perf_counter()
            ended = decoder.accept(chunk)
            if not ended:
                spent_ms += _ms(started)
                continue
            heard = self._heard(decoder.kaldi.Result(), decoder.tape, started, spent_ms)
            spent_ms = 0.0
            if heard is not None:
                yield heard  # the next chunk starts a new utterance, and reads the context again
        started = time.perf_counter()
        heard = self._heard(decoder.kaldi.FinalResult(), decoder.tape, started, spent_ms)
        if heard is not None:
            yield heard

    # ---- grammar ---------------------------------------------------------------------------

    def knows(self, word: str) -> bool:
        """Whether the model's vocabulary has this exact word (vosk drops the others from a grammar)."""
        if word not in self._known:
            self._known[word] = int(self.model.vosk_model_find_word(word)) > 0  # 0 is <eps>, -1 unknown
        return self._known[word]

    def grammar_for(self, context: Context) -> Grammar | None:
        """The closed set for a guessing context: the cards (lowercase), the phrases, the unknown word.

        None means free vocabulary: a clue, a model without runtime grammars, or nothing in the
        context the model can hear."""
        if not context.guessing or not self.supports_grammar:
            return None
        if context not in self._grammars:
            kept: list[str] = []
            unknown: list[str] = []
            for phrase in (*context.cards, *context.phrases):
                text = " ".join(phrase.lower().split())
                if not text:
                    continue
                spelled = self._spell(text)
                if spelled is None:
                    unknown.append(text)
                elif spelled not in kept:
                    kept.append(spelled)
            if unknown:
                logger.info("the vosk model cannot hear these words, they are left out: %s", ", ".join(unknown))
            if len(self._grammars) > 32:
                self._grammars.pop(next(iter(self._grammars)))
            if kept and self.unknown_symbol:
                kept.append(self.unknown_symbol)
            self._grammars[context] = Grammar(tuple(kept), tuple(unknown))
        grammar = self._grammars[context]
        return grammar if grammar.phrases else None

    def _spell(self, phrase: str) -> str | None:
        """The phrase as words the model knows, or None when one of them is outside its vocabulary."""
        words: list[str] = []
        for word in phrase.split():
            if self.knows(word):
                words.append(word)
                continue
            parts = [part for part in SPLIT_INSIDE_WORD.split(word) if part]
            if len(parts) < 2 or not all(self.knows(part) for part in parts):
                return None
            words.extend(parts)
        return " ".join(words)

    @property
    def active_grammar(self) -> str | None:
        """The grammar JSON the closed recognizer holds now (None before the first guessing context)."""
        return self._closed_json

    def _recognizer_for(self, context: Context) -> _Decoder:
        """The recognizer for this context, reset to the start of an utterance, its grammar switched."""
        grammar = self.grammar_for(context)
        if grammar is None or self._closed is None:
            self._free.kaldi.Reset()
            return self._free
        wanted = grammar.to_json()
        self._closed.kaldi.Reset()  # SetGrammar on a running recognizer aborts the process
        if wanted != self._closed_holds:
            self._closed.kaldi.SetGrammar(wanted)
            self._closed_holds = wanted
        self._closed_json = wanted
        return self._closed

    def _new_decoder(self, grammar_json: str | None) -> _Decoder:
        """A KaldiRecognizer sharing the one Model, with per-word confidences and times."""
        if grammar_json is None:
            recognizer = self._vosk.KaldiRecognizer(self.model, self.sample_rate)
        else:
            recognizer = self._vosk.KaldiRecognizer(self.model, self.sample_rate, grammar_json)
        recognizer.SetWords(True)
        return _Decoder(recognizer, _Tape(self.sample_rate))

    # ---- results ---------------------------------------------------------------------------

    def _heard(self, result_json: str, tape: _Tape, started: float, spent_ms: float = 0.0) -> Heard | None:
        """A Heard from vosk's result; None when nothing was said at all (silence, a pause).

        Confidence is the minimum of the words' posteriors, not their mean: the host acts on the
        whole utterance (a card, a clue word and its number), and one doubtful word makes the whole
        action doubtful; a mean would let a confident "two" hide a misheard clue. Unknown-word
        symbols and other non-words leave the text; an utterance of only those is text "" at confidence 0.
        Words whose audio does not sound like a voice keep at most NOT_SPEECH_CONFIDENCE.
        decode_ms counts from `started` (the last chunk or the whole utterance) plus `spent_ms` before it."""
        result = json.loads(result_json)
        words: Sequence[dict[str, Any]] = result.get("result", [])
        if not words and not result.get("text"):
            return None
        kept = [word for word in words if not self._is_marker(str(word.get("word", "")))]
        if not kept:
            return Heard("", 0.0, spent_ms + _ms(started))
        text = " ".join(str(word["word"]) for word in kept)
        confidence = max(0.0, min(1.0, min(float(word.get("conf", 0.0)) for word in kept)))
        start, end = min(float(word["start"]) for word in kept), max(float(word["end"]) for word in kept)
        evidence = speech_evidence(tape.around(start, end), tape.rate)
        if not sounds_like_a_voice(*evidence):
            logger.debug("%r over audio that is no voice: flatness %.2f, modulation %.1f dB", text, *evidence)
            confidence = min(confidence, NOT_SPEECH_CONFIDENCE)
        return Heard(text, confidence, spent_ms + _ms(started))

    def _is_marker(self, word: str) -> bool:
        """Kaldi vocabularies mark non-words in brackets: [unk], <SPOKEN_NOISE>, and the Korean model's [1]."""
        return word == self.unknown_symbol or (len(word) > 2 and word[0] + word[-1] in ("[]", "<>"))


def to_pcm16(audio: Audio) -> bytes:
    """float32 in [-1, 1] as the 16-bit little-endian PCM vosk reads."""
    samples = np.asarray(audio, dtype=np.float32).reshape(-1)
    return (np.clip(samples, -1.0, 1.0) * 32767).astype("<i2").tobytes()


def speech_evidence(audio: Audio, rate: int = SAMPLE_RATE) -> tuple[float, float]:
    """(spectral flatness, modulation depth in dB) of some audio: the two ways a voice differs from noise.

    A voice puts its energy into harmonics and formants (a flat spectrum is hiss, a fan, static) and
    changes from one syllable to the next (a spectrum that holds still is a hum, a tone, an engine).
    Pure numpy, about a millisecond for a word: vosk must work without faster-whisper's VAD."""
    samples = np.nan_to_num(np.asarray(audio, dtype=np.float64).reshape(-1))
    if len(samples) < ANALYSIS_WINDOW:
        samples = np.pad(samples, (0, ANALYSIS_WINDOW - len(samples)))
    frames = np.lib.stride_tricks.sliding_window_view(samples, ANALYSIS_WINDOW)[::ANALYSIS_HOP]
    power = np.abs(np.fft.rfft(frames * np.hanning(ANALYSIS_WINDOW), axis=1)) ** 2
    in_band, bands = _speech_bands(rate)
    tiny = 1e-20
    spectrum = power[:, in_band]
    count = min(FLATNESS_SMOOTHING_FRAMES, len(spectrum))
    running = np.cumsum(np.vstack([np.zeros((1, spectrum.shape[1])), spectrum]), axis=0)
    smoothed = (running[count:] - running[:-count]) / count + tiny
    flatness = np.exp(np.mean(np.log(smoothed), axis=1)) / np.mean(smoothed, axis=1)
    energies = power @ bands
    # At most 50 dB below the loudest band: FFT leakage between a tone's harmonics is no modulation.
    energies = np.maximum(energies, energies.mean(axis=0).max() * 1e-5 + tiny)
    decibels = 10 * np.log10(energies)
    low, high = np.percentile(decibels, [25, 75], axis=0)
    return float(np.median(flatness)), float(np.median(high - low))


def sounds_like_a_voice(flatness: float, modulation_db: float) -> bool:
    """The verdict on `speech_evidence`: shaped like a voice, and moving like one."""
    return flatness <= SPEECH_MAX_FLATNESS and modulation_db >= SPEECH_MIN_MODULATION_DB


@cache
def _speech_bands(rate: int) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.float64]]:
    """The FFT bins inside SPEECH_BAND_HZ, and a bins-by-bands matrix summing them into mel bands."""
    frequencies = np.fft.rfftfreq(ANALYSIS_WINDOW, 1 / rate)
    low, high = SPEECH_BAND_HZ
    mel_low, mel_high = (2595 * np.log10(1 + hz / 700) for hz in (low, high))
    edges = 700 * (10 ** (np.linspace(mel_low, mel_high, MODULATION_BANDS + 1) / 2595) - 1)
    bands = np.zeros((len(frequencies), MODULATION_BANDS))
    for band in range(MODULATION_BANDS):
        bands[(frequencies >= edges[band]) & (frequencies < edges[band + 1]), band] = 1.0
    return (frequencies >= low) & (frequencies <= high), bands


def _check_model_files(path: Path, install: str) -> None:
    """Say which file is missing before Kaldi does it in a log line nobody reads."""
    if not path.is_dir():
        raise ModelError(f"there is no vosk model in {path}. Install one with: {install}")
    graph = path / "graph"
    acoustic = path / "am" / "final.mdl"
    missing = [] if acoustic.is_file() and acoustic.stat().st_size > 0 else ["am/final.mdl"]
    missing += [f"conf/{name}" for name in ("model.conf", "mfcc.conf") if not (path / "conf" / name).is_file()]
    if not (graph / "HCLG.fst").is_file():
        runtime = ("HCLr.fst", "Gr.fst", "disambig_tid.int")
        if not any((graph / name).is_file() for name in runtime):
            missing.append("graph/HCLG.fst (or graph/HCLr.fst, graph/Gr.fst and graph/disambig_tid.int)")
        else:
            missing += [f"graph/{name}" for name in runtime if not (graph / name).is_file()]
    if (path / "ivector" / "final.ie").is_file() or (not missing and _needs_ivectors(acoustic)):
        absent = [f"ivector/{name}" for name in IVECTOR_FILES if not (path / "ivector" / name).is_file()]
        missing += ["ivector/ (the acoustic model takes i-vectors)"] if len(absent) == len(IVECTOR_FILES) else absent
    if missing:
        raise ModelError(
            f"the vosk model in {path} is incomplete (missing {', '.join(missing)}). Reinstall it with: {install}"
        )


def _needs_ivectors(acoustic: Path) -> bool:
    """Whether the acoustic model takes i-vectors: without ivector/, vosk loads it and then cannot recognize."""
    tail = b""
    try:
        with acoustic.open("rb") as handle:
            for _ in range(CONFIG_SEARCH_BYTES >> 20):
                block = handle.read(1 << 20)
                if not block:
                    return False
                if IVECTOR_INPUT in tail + block:
                    return True
                tail = block[-len(IVECTOR_INPUT) :]
    except OSError:
        return False  # vosk.Model says what is wrong with an unreadable file
    return False


def _partial(recognizer: Any) -> str:
    """The words the decoder has so far in this utterance ("" while it has heard only silence)."""
    return str(json.loads(recognizer.PartialResult()).get("partial", ""))


def _ms(started: float) -> float:
    return (time.perf_counter() - started) * 1000
