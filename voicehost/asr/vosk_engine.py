"""vosk (Kaldi) as a small, streaming recognizer: a closed grammar while guessing, free words for clues.

vosk does its own end-of-speech detection, so it is the engine for a live microphone on small
machines. Seven facts about it (vosk 0.3.45, read in its recognizer.cc and measured here) shape
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
- The same holds for speech that names no card: the unknown-word symbol in a grammar does not absorb
  it, and a word outside the grammar mostly came out as the card nearest in sound, at a confidence the
  host acts on (18 of 40 Korean words in `python -m bench --sections recognition --engines vosk`).
  So while guessing the grammar also holds a filler (garbage) model, as keyword spotting does: many
  other real words of the language (`Context.fillers`, from the game's own decks), where such speech
  can go instead. A result with a filler in it is no card: it is decoded again in the grammar without
  fillers, and what that hears for sure is only asked back (`_heard_again`); the rest is nothing heard.
- Its own endpointer waits for the trailing silence the model's conf/model.conf asks (0.5 s after a
  complete phrase, 1.0 s otherwise), on a decoder that advances in blocks of about 0.24 s: results
  came 0.8-1.1 s after the speech ended, and vosk 0.3.45's Python API cannot shorten that (no
  SetEndpointerDelays). So while guessing, `listen` ends an utterance itself once the audio has been
  quiet for ENDPOINT_SILENCE_MS, quiet meaning near the noise floor compared with the utterance's own
  speech level (`_quiet_after_speech`); FinalResult then decodes everything fed, the lagging block
  included.
  A cut that may be early (no confident, single, complete phrase yet: "passo" of "passo a vez", a
  lead-in heard as other words or cards, half a word cut at a long stop closure) is held: if the
  player goes on within CONTINUATION_SILENCE_MS, the utterance is decoded again from its start, as
  one; speech that soon after a result that went out is kept doubtful. With too little contrast
  between speech and noise, and for free words (a clue's word and its number are often apart),
  vosk's endpointer decides as before.
"""

from __future__ import annotations

import itertools
import json
import logging
import math
import re
import time
from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from functools import cache, cached_property
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

LEVEL_FRAME_S: Final = 0.01
"""The endpointer follows the stream's loudness in 10 ms frames (dB of the mean power)."""
ENDPOINT_SILENCE_MS: Final = 120
"""Quiet after the speech that ends an utterance while guessing (vosk's own rules wait 500 ms or more).

Tuned on `python -m bench --sections latency --engines vosk`, whose 0.1 s chunks close an utterance
this much to 100 ms more after its speech, against the goal of p95 end of speech -> result <= 250 ms:
100 ms gave p95 282 ms there (one cut held, at a lower confidence), 120 ms 224-228 ms, 150 ms 261 ms.
And on the quiet inside words: espeak-ng's stop closures last 30-50 ms in ko, pt-br and en, but
110-120 ms in Italian double consonants ("gatto", "letto"), and real speakers hold them longer; with
120-300 ms of quiet put inside the ko nouns, the results are the same as with vosk's endpointer
(23, 21 and 17 right of 32, against 23, 21 and 19; 3, 2 and 4 wrong cards at a confidence the host
acts on, the same as vosk's): a half word is either held (EARLY_MIN_CONFIDENCE, `Grammar.ends_one_guess`)
or its rest comes out doubtful (`_Listening._end`)."""
CONTINUATION_SILENCE_MS: Final = 500
"""How long a held cut waits for the player to go on, from the end of the speech: vosk's own rule
after a complete phrase (rule2 of the models' conf/model.conf), so a pause that vosk kept inside one
utterance still is. An early result followed by speech within it makes that speech doubtful."""
RESUME_MS: Final = 30
"""Loud audio in a row that counts as the player going on after a cut: more than a click."""
MIN_SPEECH_MS: Final = 50
"""Loud audio an utterance needs before quiet can end it."""
QUIET_FRACTION: Final = 0.2
"""A frame is quiet below the noise floor plus this share of the floor-to-speech distance in dB (and
QUIET_MARGIN_DB at least).

Measured on the ko nouns of tests/test_vosk_engine.py in bench/corpus.py's white noise: their loudest
50 ms are 44-49 dB above the hiss when clean (the line: 9 dB above it, where espeak-ng's last frames
are 11-37 dB above), 24-28 dB above the noise at 20 dB SNR (the line: 5 dB). A larger share would
take more of a word's fading end, or a weak final consonant, for quiet."""
QUIET_MARGIN_DB: Final = 3.0
"""Quiet reaches at least this far above the floor: white noise's 10 ms frames scatter about 1 dB."""
MIN_CONTRAST_DB: Final = 20.0
"""With less speech above the noise floor, vosk's endpointer decides. At 10 dB SNR (14-18 dB here) a
word's weak consonants sink into the noise: 지하철's aspirated affricate sits 1-4 dB above it for
140 ms, so at 12 dB this cut 지하철 after its first syllables, and its rest came out as another card
at confidence 1.0. At 20 dB SNR (24-28 dB) the ko nouns are cut early, all right at confidence 1.0."""
FLOOR_PERCENTILE: Final = 10.0
"""The noise floor: this percentile of the frame levels of the last FLOOR_WINDOW_S of the stream."""
FLOOR_WINDOW_S: Final = 5.0
"""Long enough to hold some quiet between utterances; when it holds none (5 s of talk), the floor
comes out high, the contrast low, and vosk's endpointer decides."""
SPEECH_SMOOTHING_FRAMES: Final = 5
"""The utterance's speech level is its loudest median of this many frames (50 ms): a click is not speech."""
EARLY_MIN_CONFIDENCE: Final = 0.95
"""The word confidence (vosk's, after the speech check) an early cut needs to go to the host at once;
with less, the cut is held.

Measured on the early cuts of the ko nouns streamed clean and at 20 dB SNR (64): 63 right, all at
1.0, and one wrong card at 0.57; on halves of them (the words cut by 120-300 ms of quiet), the wrong
cards came out at 0.36-0.91 (0.89 and 0.91 with 0.8 here, which the host would have revealed)."""
REPLAY_LEAD_S: Final = 1.0
"""A held utterance is decoded again from up to this much before its first loud frame: FinalResult
leaves vosk a new feature pipeline, which decodes better after some quiet (with 0.3 s, 14 of 32
word halves came out right, with the utterance's 0.5 s 17, as with vosk's endpointer)."""
MAX_REPLAY_S: Final = 10.0
"""Longer utterances end by vosk's endpointer only (a held one would be decoded again at length)."""
MAX_FILLERS: Final = 400
"""At most this many fillers go into one grammar (`Context.fillers`; an even spread of them when there
are more): every one costs decode time, and the decks give 545-613 words and picture names per language.

Measured on the Korean model, 8 cards and 0, 100, 200 or 354 fillers (bench/corpus.py's
KOREAN_FILLERS): a grammar switch took 0.5, 1.2, 1.7 and 2.6 ms, `recognize` of a card (about 1.2 s)
25, 37, 45 and 53 ms, and in `python -m bench --sections latency --engines vosk` (3 runs of 16
streams) end of speech -> result p50/p95 172/222, 187/225, 199/225 and 202/227 ms, against the goal
of p95 <= 250 ms. 400 stays near what was measured; the pt, it and en models could not be."""
KEYWORD_REPEATS: Final = 4
"""How many times each card and phrase (and the unknown word) is listed in a grammar with fillers, and
each filler once: vosk estimates a bigram model from the list, counting a phrase as often as it is
listed, so a filler weighs a quarter of a card (the standard filler penalty of keyword spotting).

Tuned with the 354 Korean fillers on `python -m bench --sections recognition --engines vosk` (8 cards
and 10 words outside the grammar, clean and at 20, 10 and 5 dB SNR) and on a held-out set (the cards
in espeak-ng's ko+f3 and ko+m3 voices, 25 other words and phrases outside in ko, ko+f3 and ko+m3;
96 card and 300 other utterances in all): with 1, 2, 4 and 8 repeats, cards acted on at once 5, 6, 8
and 9 of 32 (held out: 10, 10, 11 and 13 of 64), words outside revealed as a card 0, 0, 0 and 1 of 40
(held out: 2 each time, 주차장 heard as 지하철 at 1.0 with or without fillers)."""
FILLER_CONFIDENCE: Final = 0.3
"""The most a result is worth when a filler came out in it: below the host's LOW_ASR_CONFIDENCE
(0.6), so the host asks back ("did you say ...?") and never reveals a card at once."""
ASK_BACK_MIN_CONFIDENCE: Final = 0.95
"""When a filler came out, the utterance is decoded again in the grammar without fillers (the cards,
phrases and unknown word, as before there were fillers); what that hears is asked back when its
confidence is at least this, and otherwise the utterance is nothing heard (the host says nothing).

espeak-ng's Korean is heard poorly (the free vocabulary hears none of the 8 cards right), so fillers
take most cards said by it: acted on at once 8 of 32 (before fillers, 23). On the sets of
KEYWORD_REPEATS, with 4 repeats: asking back at 0.6, 0.8 or 0.95 and more, the cards came out right,
at once or asked back, 24, 23 and 23 of 32 (held out: 46, 44 and 40 of 64; never asking back, 9 and
15), and the words outside were asked back 26, 18 and 14 times of 40 (held out: 220, 158 and 119 of
300) instead of being nothing heard: operatives talk among themselves while they guess."""
WARM_UP_SECONDS: Final = 0.5
"""Faint hiss each recognizer decodes at load (`VoskRecognizer._warm_up`)."""


@dataclass(frozen=True)
class Grammar:
    """The phrases vosk may hear while guessing, and those it cannot (a word outside the model)."""

    phrases: tuple[str, ...]
    unknown: tuple[str, ...] = ()
    cards: tuple[str, ...] = ()  # the phrases that are cards
    fillers: tuple[str, ...] = ()  # the phrases that are other words of the language: no card, no command
    repeats: int = 1  # how many times every phrase but a filler is written into the JSON (KEYWORD_REPEATS)

    @cached_property
    def without_fillers(self) -> Grammar:
        """The same grammar with no fillers: what a filler result is decoded again in."""
        fillers = frozenset(self.fillers)
        return Grammar(tuple(p for p in self.phrases if p not in fillers), self.unknown, self.cards)

    @cached_property
    def filler_words(self) -> frozenset[str]:
        """The words of the fillers: none of them is a word of a card or another phrase (`grammar_for`),
        so a result word among them is a filler wherever it stands."""
        return frozenset(word for filler in self.fillers for word in filler.split())

    def to_json(self) -> str:
        """vosk's grammar argument; raw UTF-8 because vosk's JSON reader ignores \\u escapes.

        vosk estimates a bigram model from the phrases it is given, counting each as often as it is
        listed: every phrase but a filler is listed `repeats` times, so a filler weighs that much less."""
        fillers = frozenset(self.fillers)
        listed = [phrase for phrase in self.phrases for _ in range(1 if phrase in fillers else self.repeats)]
        return json.dumps(listed, ensure_ascii=False)

    def ends_one_guess(self, words: Sequence[str]) -> bool:
        """Whether these words can be a whole utterance: they end with a whole phrase that no longer
        phrase goes on from, and name no card before it.

        vosk turns a grammar into a word bigram model, so it decodes any run of the grammar's words:
        "passo" alone where only "passo a vez" is a phrase, a lead-in as other cards. Words that could
        still become a longer phrase ("não" of "não é isso") are not a whole utterance yet."""
        whole, started, cards = self._parts
        tails = [tuple(words[-n:]) for n in range(len(words), 0, -1)]  # longest first
        if any(tail in started for tail in tails):
            return False
        last = next((tail for tail in tails if tail in whole), None)
        if last is None:
            return False
        before = tuple(words[: len(words) - len(last)])
        return not any(before[i : i + len(card)] == card for card in cards for i in range(len(before)))

    @cached_property
    def _parts(self) -> tuple[frozenset[tuple[str, ...]], frozenset[tuple[str, ...]], tuple[tuple[str, ...], ...]]:
        """The phrases as word tuples, every shorter start of one of them, and the cards as word tuples."""
        split = [tuple(phrase.split()) for phrase in self.phrases]
        starts = frozenset(words[:n] for words in split for n in range(1, len(words)))
        return frozenset(split), starts, tuple(tuple(card.split()) for card in self.cards)


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
        self.utterance_start = 0  # sample number where the utterance under way began (`mark`)

    @property
    def fed(self) -> int:
        """vosk's clock now: samples fed so far."""
        return self._end

    def mark(self) -> None:
        """An utterance begins here: the recognizer was reset, or gave its result."""
        self.utterance_start = self._end

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
        return self.between(first, min(round(end_s * self.rate), first + int(MAX_SPEECH_SPAN_S * self.rate)))

    def between(self, first: int, last: int) -> Audio:
        """The samples first to last (not included) of vosk's clock, as far as they are still kept."""
        first, last = max(first, self._start), min(last, self._end)
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


def _frame_levels(audio: npt.NDArray[Any], frame: int) -> npt.NDArray[np.float64]:
    """dB of the mean power of each whole frame."""
    samples = np.asarray(audio, dtype=np.float64)
    whole = len(samples) // frame * frame
    power = np.mean(samples[:whole].reshape(-1, frame) ** 2, axis=1) if whole else np.zeros(0)
    return np.asarray(10 * np.log10(power + 1e-12), dtype=np.float64)


class _Levels:
    """The loudness of the stream one `listen` hears, frame by frame (dB), numbered from its start."""

    def __init__(self, sample_rate: int) -> None:
        self.frame = max(1, round(LEVEL_FRAME_S * sample_rate))  # samples per frame
        self.samples = 0  # samples heard so far
        self._rest = np.zeros(0, dtype=np.float64)  # the start of the next frame
        self._kept = max(int(FLOOR_WINDOW_S / LEVEL_FRAME_S), int((MAX_REPLAY_S + 1) / LEVEL_FRAME_S))
        self._levels: deque[float] = deque(maxlen=self._kept)

    @property
    def frames(self) -> int:
        """Whole frames heard so far."""
        return self.samples // self.frame

    def add(self, audio: Audio) -> None:
        samples = np.concatenate([self._rest, np.asarray(audio, dtype=np.float64)])
        whole = len(samples) // self.frame * self.frame
        self._levels.extend(_frame_levels(samples[:whole], self.frame).tolist())
        self._rest = samples[whole:]
        self.samples += len(audio)

    def between(self, first: int, last: int) -> npt.NDArray[np.float64]:
        """The levels of frames first to last (not included), as far as they are still kept."""
        oldest = self.frames - len(self._levels)
        first, last = max(first, oldest), min(last, self.frames)
        if last <= first:
            return np.zeros(0)
        kept = itertools.islice(self._levels, first - oldest, last - oldest)
        return np.fromiter(kept, dtype=np.float64, count=last - first)

    def floor(self, last: int) -> float:
        """The noise floor before frame `last`: a low percentile of the recent levels."""
        recent = self.between(last - int(FLOOR_WINDOW_S / LEVEL_FRAME_S), last)
        return float(np.percentile(recent, FLOOR_PERCENTILE)) if len(recent) else 0.0


def _quiet_after_speech(levels: npt.NDArray[np.float64], floor_db: float, since: int) -> tuple[int, int, float] | None:
    """In an utterance's frame levels, the first place from frame `since` on where ENDPOINT_SILENCE_MS of
    quiet follows its speech: (the frame where that quiet is complete, the frame after the speech's
    last loud one, the level under which a frame is quiet). None when there is none yet, or when it
    cannot be told: too little speech, or speech too close to the noise floor (`MIN_CONTRAST_DB`)."""
    if len(levels) < SPEECH_SMOOTHING_FRAMES:
        return None
    windows = np.lib.stride_tricks.sliding_window_view(levels, SPEECH_SMOOTHING_FRAMES)
    contrast = float(np.median(windows, axis=1).max()) - floor_db
    if contrast < MIN_CONTRAST_DB:
        return None
    quiet_below = floor_db + max(QUIET_MARGIN_DB, QUIET_FRACTION * contrast)
    loud = np.flatnonzero(levels >= quiet_below).tolist()
    silence = round(ENDPOINT_SILENCE_MS / 1000 / LEVEL_FRAME_S)
    for index in range(max(0, math.ceil(MIN_SPEECH_MS / 1000 / LEVEL_FRAME_S) - 1), len(loud)):
        speech_end = loud[index] + 1
        cut = speech_end + silence
        if index + 1 < len(loud):  # the speech went on after this gap
            if loud[index + 1] >= cut >= since:
                return cut, speech_end, quiet_below
        elif cut <= len(levels):  # the quiet at the end: when it was complete before, cut now
            return max(cut, since), speech_end, quiet_below
    return None


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
        self._closed_grammar: Grammar | None = None  # the same, as a Grammar: its fillers are no card
        # The free recognizer first: with a broken graph it fails cleanly, where a grammar one would not.
        self._closed_holds = json.dumps([self.unknown_symbol or UNKNOWN_SYMBOLS[0]], ensure_ascii=False)
        self._plain_holds = self._closed_holds  # the grammar of the decoder that hears filler results again
        try:
            self._free = self._new_decoder(None)
            self._closed = self._new_decoder(self._closed_holds) if self.supports_grammar else None
            self._plain = self._new_decoder(self._plain_holds) if self.supports_grammar else None
            self._warm_up()
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
        heard = self._heard(result, decoder, started)
        return heard or Heard("", 0.0, _ms(started))

    def listen(self, chunks: Iterable[Audio], context: ContextSource) -> Iterator[Heard]:
        """Yields a Heard each time an utterance that had words in it ends.

        The context is read again before every chunk until the decoder has heard a word of the
        new utterance: the phase often changes while the microphone hears only silence (the host
        was speaking), and that silence already belongs to vosk's next utterance. Once a word is
        heard, the utterance keeps its grammar to its end. Keep the context source cheap.

        While guessing, an utterance ends ENDPOINT_SILENCE_MS after its speech: at once when it holds
        a confident, complete phrase, otherwise once CONTINUATION_SILENCE_MS have passed without the
        player going on (see the module's docstring). Otherwise vosk's endpointer ends it. The results
        this endpointer ends carry start_s and end_s: where their speech lies in the stream, in seconds
        from its start (vosk's endpointer leaves them to the caller)."""
        listening = _Listening(self, context)
        for chunk in chunks:
            if len(chunk):
                yield from listening.hear(chunk)
        yield from listening.finish()

    def _complete(self, read: _Read | None, grammar: Grammar) -> bool:
        """Whether an utterance cut early can go to the host at once: confidently heard, and a whole
        utterance by `Grammar.ends_one_guess` (an unknown word at its end is not). A result heard again
        without fillers counts by that decode's words and confidence: it goes out to be asked back."""
        if read is None or not read.words or self._is_marker(read.words[-1]):
            return False
        return read.sure and grammar.ends_one_guess(read.words)

    # ---- grammar ---------------------------------------------------------------------------

    def knows(self, word: str) -> bool:
        """Whether the model's vocabulary has this exact word (vosk drops the others from a grammar)."""
        if word not in self._known:
            self._known[word] = int(self.model.vosk_model_find_word(word)) > 0  # 0 is <eps>, -1 unknown
        return self._known[word]

    def grammar_for(self, context: Context) -> Grammar | None:
        """The closed set for a guessing context: the cards (lowercase), the phrases, the fillers, the
        unknown word.

        Fillers the model does not know are left out quietly (they are only somewhere else to go), and
        so is any filler with a word of a card or a phrase in it: a result word that is a filler must
        never be part of a card or command. None means free vocabulary: a clue, a model without runtime
        grammars, or nothing in the context the model can hear."""
        if not context.guessing or not self.supports_grammar:
            return None
        if context not in self._grammars:
            kept: list[str] = []
            unknown: list[str] = []
            cards: list[str] = []
            for index, phrase in enumerate((*context.cards, *context.phrases)):
                text = " ".join(phrase.lower().split())
                if not text:
                    continue
                spelled = self._spell(text)
                if spelled is None:
                    unknown.append(text)
                    continue
                if spelled not in kept:
                    kept.append(spelled)
                if index < len(context.cards) and spelled not in cards:
                    cards.append(spelled)
            if unknown:
                logger.info("the vosk model cannot hear these words, they are left out: %s", ", ".join(unknown))
            if len(self._grammars) > 32:
                self._grammars.pop(next(iter(self._grammars)))
            fillers = self._fillers(context.fillers, kept) if kept else []
            kept += fillers
            if kept and self.unknown_symbol:
                kept.append(self.unknown_symbol)
            repeats = KEYWORD_REPEATS if fillers else 1
            self._grammars[context] = Grammar(tuple(kept), tuple(unknown), tuple(cards), tuple(fillers), repeats)
        grammar = self._grammars[context]
        return grammar if grammar.phrases else None

    def _fillers(self, offered: Sequence[str], taken: Sequence[str]) -> list[str]:
        """The fillers a grammar gets: those the model knows, with no word of the phrases `taken`, at
        most MAX_FILLERS of them (an even spread, when there are more)."""
        words = {word for phrase in taken for word in phrase.split()}
        fillers: dict[str, None] = {}
        for filler in offered:
            spelled = self._spell(" ".join(filler.lower().split()))
            if spelled and not words.intersection(spelled.split()):
                fillers[spelled] = None
        found = list(fillers)
        if len(found) <= MAX_FILLERS:
            return found
        return [found[index * len(found) // MAX_FILLERS] for index in range(MAX_FILLERS)]

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
            self._free.tape.mark()
            return self._free
        wanted = grammar.to_json()
        self._closed.kaldi.Reset()  # SetGrammar on a running recognizer aborts the process
        self._closed.tape.mark()
        if wanted != self._closed_holds:
            self._closed.kaldi.SetGrammar(wanted)
            self._closed_holds = wanted
        self._closed_json, self._closed_grammar = wanted, grammar
        return self._closed

    def _warm_up(self) -> None:
        """Each recognizer decodes WARM_UP_SECONDS of faint hiss, and is reset.

        vosk's first decode builds what it builds once: the acoustic model's computation and the first
        states of the decoding graph, which it composes as it goes. Without this, the first clue of a
        game paid for it: its decode took 1.3-2.0 s on the ko model (2 busy cores), 0.7-1.1 s after
        this, which adds about 0.6 s to the load; later clues take 0.2-0.5 s. Longer or speech-like
        warm-up sounds (white noise, synthetic vowels, 1-2 s) did no better: the rest is the graph
        along each new sentence's own words."""
        count = round(WARM_UP_SECONDS * self.sample_rate)
        hiss = (np.random.default_rng(0).standard_normal(count) * 1e-3).astype(np.float32)
        for decoder in (self._free, self._closed, self._plain):
            if decoder is not None:
                decoder.accept(hiss)
                decoder.kaldi.FinalResult()
                decoder.kaldi.Reset()
                decoder.tape.mark()

    def _new_decoder(self, grammar_json: str | None) -> _Decoder:
        """A KaldiRecognizer sharing the one Model, with per-word confidences and times."""
        if grammar_json is None:
            recognizer = self._vosk.KaldiRecognizer(self.model, self.sample_rate)
        else:
            recognizer = self._vosk.KaldiRecognizer(self.model, self.sample_rate, grammar_json)
        recognizer.SetWords(True)
        return _Decoder(recognizer, _Tape(self.sample_rate))

    # ---- results ---------------------------------------------------------------------------

    def _heard(self, result_json: str, decoder: _Decoder, started: float, spent_ms: float = 0.0) -> Heard | None:
        """A Heard from vosk's result (`_read`); None when nothing was said at all (silence, a pause)."""
        read = self._read(result_json, decoder, started, spent_ms)
        return read.heard if read is not None else None

    def _read(
        self, result_json: str, decoder: _Decoder, started: float, spent_ms: float = 0.0, *, early: bool = False
    ) -> _Read | None:
        """A Heard from vosk's result, with the words it was made of; None when nothing was said at all.

        Confidence is the minimum of the words' posteriors, not their mean: the host acts on the
        whole utterance (a card, a clue word and its number), and one doubtful word makes the whole
        action doubtful; a mean would let a confident "two" hide a misheard clue. Unknown-word
        symbols and other non-words leave the text; an utterance of only those is text "" at
        confidence 0. A result with a filler in it is no card: what the grammar without fillers hears
        in it instead, when at least ASK_BACK_MIN_CONFIDENCE, keeps at most FILLER_CONFIDENCE (the
        host asks back), and otherwise it is nothing heard.
        Words whose audio does not sound like a voice keep at most NOT_SPEECH_CONFIDENCE.
        `early`: the result of an early cut, which goes out at once only when sure (`_complete`);
        fillers spread the posterior, so a card they leave standing below EARLY_MIN_CONFIDENCE is
        sure when the grammar without them hears the same words at EARLY_MIN_CONFIDENCE or more,
        the rule from before there were fillers (without it, 4 of the 16 streams of the latency bench
        waited for CONTINUATION_SILENCE_MS: 522-587 ms after the speech).
        decode_ms counts from `started` (the last chunk or the whole utterance) plus `spent_ms` before it."""
        result = json.loads(result_json)
        words: Sequence[dict[str, Any]] = result.get("result", [])
        began, tape = decoder.tape.utterance_start, decoder.tape
        tape.mark()  # the decoder's next utterance begins here
        if not words and not result.get("text"):
            return None
        grammar = self._closed_grammar if decoder is self._closed and self._plain is not None else None
        filled = grammar is not None and any(str(word.get("word", "")) in grammar.filler_words for word in words)
        if grammar is not None and filled:
            logger.debug("fillers in %r: heard again without them", result.get("text", ""))
            words, tape = self._heard_again(grammar, decoder.tape, began, words)
            if _confidence(self._words(words)) < ASK_BACK_MIN_CONFIDENCE:
                words = []
        spelled = tuple(str(word.get("word", "")) for word in words)
        kept = self._words(words)
        if not kept:
            return _Read(Heard("", 0.0, spent_ms + _ms(started)), spelled, sure=False)
        text = " ".join(str(word["word"]) for word in kept)
        confidence = _confidence(kept)
        start, end = min(float(word["start"]) for word in kept), max(float(word["end"]) for word in kept)
        evidence = speech_evidence(tape.around(start, end), tape.rate)
        sure = confidence >= EARLY_MIN_CONFIDENCE
        if early and not sure and grammar is not None and grammar.fillers and not filled:
            again, _ = self._heard_again(grammar, decoder.tape, began, words)
            sure = [w["word"] for w in self._words(again)] == [w["word"] for w in kept]
            sure = sure and _confidence(self._words(again)) >= EARLY_MIN_CONFIDENCE
        sure = sure and sounds_like_a_voice(*evidence)
        if filled:  # heard again without fillers: only asked back
            confidence = min(confidence, FILLER_CONFIDENCE)
        if not sounds_like_a_voice(*evidence):
            logger.debug("%r over audio that is no voice: flatness %.2f, modulation %.1f dB", text, *evidence)
            confidence = min(confidence, NOT_SPEECH_CONFIDENCE)
        return _Read(Heard(text, confidence, spent_ms + _ms(started)), spelled, sure)

    def _heard_again(
        self, grammar: Grammar, tape: _Tape, began: int, words: Sequence[dict[str, Any]]
    ) -> tuple[Sequence[dict[str, Any]], _Tape]:
        """What the grammar without fillers hears in the utterance under way on `tape` (which began at
        its sample `began`): its words, and the tape they are timed on.

        The utterance is taken from REPLAY_LEAD_S before its first word (not before it began) to all
        that was fed; one longer than MAX_REPLAY_S is no guess, and is not heard again."""
        plain = self._plain
        assert plain is not None
        first = round(min(float(word.get("start", 0.0)) for word in words) * tape.rate) if words else began
        audio = tape.between(max(began, first - round(REPLAY_LEAD_S * tape.rate)), tape.fed)
        if not len(audio) or len(audio) > MAX_REPLAY_S * tape.rate:
            return [], plain.tape
        wanted = grammar.without_fillers.to_json()
        plain.kaldi.Reset()  # SetGrammar on a running recognizer aborts the process
        plain.tape.mark()
        if wanted != self._plain_holds:
            plain.kaldi.SetGrammar(wanted)
            self._plain_holds = wanted
        plain.accept(audio)
        heard: Sequence[dict[str, Any]] = json.loads(plain.kaldi.FinalResult()).get("result", [])
        plain.tape.mark()
        logger.debug("heard again without fillers: %s", " ".join(str(word.get("word")) for word in heard) or "nothing")
        return heard, plain.tape

    def _words(self, words: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
        """The words of a result that are words: not the unknown word or another marker."""
        return [word for word in words if not self._is_marker(str(word.get("word", "")))]

    def _is_marker(self, word: str) -> bool:
        """Kaldi vocabularies mark non-words in brackets: [unk], <SPOKEN_NOISE>, and the Korean model's [1]."""
        return word == self.unknown_symbol or (len(word) > 2 and word[0] + word[-1] in ("[]", "<>"))


@dataclass(frozen=True)
class _Read:
    """A result as `VoskRecognizer._read` made it: the Heard, the words it was made of (non-words
    included, from the decode heard again when fillers came out), and whether they were sure: at
    EARLY_MIN_CONFIDENCE or more, over a voice."""

    heard: Heard
    words: tuple[str, ...]
    sure: bool


@dataclass
class _Utterance:
    """The audio one utterance fed its decoder: decoded again when the player goes on after a held cut."""

    start: int  # the stream's sample where it begins
    audio: list[Audio] = field(default_factory=list)  # kept while it may be decoded again
    samples: int = 0

    def add(self, audio: Audio, keep: bool) -> None:
        if keep:
            self.audio.append(audio)
        self.samples += len(audio)


@dataclass
class _Cut:
    """Where an utterance was ended early, and what that was measured on."""

    at: int  # the stream's sample where the decoder stopped
    speech_end: int  # the frame after the speech's last loud frame
    quiet_below: float  # dB: louder frames are speech
    heard: Heard | None = None  # the result, while it waits (held)
    tail: list[Audio] = field(default_factory=list)  # heard since the cut, while it waits


class _Listening:
    """One `VoskRecognizer.listen`: the utterance under way with its decoder and grammar, the stream's
    loudness, and a cut that waits to see whether the player goes on."""

    def __init__(self, recognizer: VoskRecognizer, context: ContextSource) -> None:
        self.recognizer = recognizer
        self.context = context
        self.current = context()
        self.decoder = recognizer._recognizer_for(self.current)
        self.levels = _Levels(recognizer.sample_rate)
        self.utterance = _Utterance(0)
        self.spent_ms = 0.0  # time spent inside vosk on this utterance's audio: its decode cost
        self.held: _Cut | None = None  # an early cut whose result waits
        self.after: _Cut | None = None  # the last early cut whose result went out, while the player may go on
        self.doubtful = False  # the utterance under way began where an early result's speech may go on

    def hear(self, chunk: Audio) -> Iterator[Heard]:
        audio = np.array(chunk, dtype=np.float32).reshape(-1)  # a copy: the caller may reuse its buffer
        pieces = [(self.levels.samples, audio)]  # where in the stream, and the audio: what is left to do
        self.levels.add(audio)
        while pieces:
            start, piece = pieces.pop()
            rest = self._wait(start, piece) if self.held is not None else self._feed(start, piece)
            for item in rest:
                if isinstance(item, Heard):
                    yield item  # the consumer may change the context before the rest of the chunk
                else:
                    pieces.append(item)

    def finish(self) -> Iterator[Heard]:
        """The end of the stream: what is held, or what the decoder has."""
        if self.held is not None:
            yield from self._end(self.held.heard)
            return
        started = time.perf_counter()
        yield from self._end(
            self.recognizer._heard(self.decoder.kaldi.FinalResult(), self.decoder, started, self.spent_ms)
        )

    def _feed(self, start: int, piece: Audio) -> Iterator[Heard | tuple[int, Audio]]:
        """Feed the decoder, up to where quiet ends the utterance early if it does."""
        wanted = self.context()
        if wanted != self.current and not _partial(self.decoder.kaldi):
            self.current, self.decoder = wanted, self.recognizer._recognizer_for(wanted)
            self.spent_ms, self.utterance = 0.0, _Utterance(start)
        end = start + len(piece)
        self._watch_after(end)
        grammar = self.recognizer.grammar_for(self.current) if self.decoder is self.recognizer._closed else None
        cut = self._end_of_speech(grammar, start, end)
        fed = piece if cut is None else piece[: cut.at - start]
        if len(fed) < len(piece):
            yield (start + len(fed), piece[len(fed) :])  # the next utterance's
        started = time.perf_counter()
        ended = self.decoder.accept(fed) if len(fed) else False
        self.utterance.add(fed, keep=cut is not None or self._may_cut(grammar, len(fed)))
        if ended:  # vosk's own endpointer
            heard = self.recognizer._heard(self.decoder.kaldi.Result(), self.decoder, started, self.spent_ms)
            self.spent_ms, self.utterance = 0.0, _Utterance(start + len(fed))
            yield from self._end(heard)  # the next chunk starts a new utterance, and reads the context again
            return
        if cut is None or grammar is None:
            self.spent_ms += _ms(started)
            return
        result = self.decoder.kaldi.FinalResult()  # decodes all that was fed (vosk lags), ends the utterance
        read = self.recognizer._read(result, self.decoder, started, self.spent_ms, early=True)
        cut.heard = self._placed(read.heard if read else None, cut)
        if self.recognizer._complete(read, grammar):
            self.spent_ms, self.utterance, self.after = 0.0, _Utterance(cut.at), cut
            yield from self._end(cut.heard)
        else:
            self.held = cut
            self.spent_ms += _ms(started)

    def _wait(self, start: int, piece: Audio) -> Iterator[Heard | tuple[int, Audio]]:
        """While a cut is held: nothing is fed until the player goes on or CONTINUATION_SILENCE_MS pass."""
        held = self.held
        assert held is not None
        held.tail.append(piece)
        end = start + len(piece)
        until = held.speech_end + round(CONTINUATION_SILENCE_MS / 1000 / LEVEL_FRAME_S)
        if self._went_on(held, end, until):
            again = self._again(held)
            self.held, self.utterance = None, _Utterance(end - len(again), [again], len(again))
            started = time.perf_counter()
            if self.decoder.accept(again):  # vosk's endpointer, on what was decoded again
                heard = self.recognizer._heard(self.decoder.kaldi.Result(), self.decoder, started, self.spent_ms)
                self.spent_ms, self.utterance = 0.0, _Utterance(end)
                yield from self._end(heard)
            else:
                self.spent_ms += _ms(started)
        elif end // self.levels.frame >= until:
            self.held, self.spent_ms, self.utterance = None, 0.0, _Utterance(held.at)
            yield from self._end(held.heard)
            yield (held.at, np.concatenate(held.tail))  # the quiet since the cut opens the next utterance

    def _end(self, heard: Heard | None) -> Iterator[Heard]:
        """The utterance under way ended with this result: yield it, doubtful when it may be the rest of
        an early result's speech (a word cut at a long stop closure would otherwise give two cards)."""
        doubtful, self.doubtful = self.doubtful, False
        if heard is None:
            return
        if doubtful and heard.text:
            heard = replace(heard, confidence=min(heard.confidence or 0.0, NOT_SPEECH_CONFIDENCE))
        yield heard

    def _watch_after(self, end: int) -> None:
        """After an early result: the player going on within CONTINUATION_SILENCE_MS makes the next
        utterance doubtful."""
        after = self.after
        if after is None:
            return
        until = after.speech_end + round(CONTINUATION_SILENCE_MS / 1000 / LEVEL_FRAME_S)
        if self._went_on(after, end, until):
            self.doubtful, self.after = True, None
        elif end // self.levels.frame >= until:
            self.after = None

    def _went_on(self, cut: _Cut, end: int, until: int) -> bool:
        """Whether RESUME_MS of loud frames in a row came after the cut, before frame `until`."""
        frame = self.levels.frame
        loud = self.levels.between(cut.at // frame, min(end // frame, until)) >= cut.quiet_below
        run = longest = 0
        for frame_is_loud in loud.tolist():
            run = run + 1 if frame_is_loud else 0
            longest = max(longest, run)
        return longest * LEVEL_FRAME_S * 1000 >= RESUME_MS

    def _end_of_speech(self, grammar: Grammar | None, start: int, end: int) -> _Cut | None:
        """Where, in the stream's samples start to end, the utterance has had ENDPOINT_SILENCE_MS of
        quiet after its speech; None when not yet, or when that cannot be told."""
        if not self._may_cut(grammar, end - start):
            return None
        frame = self.levels.frame
        first, last = self.utterance.start // frame, end // frame
        found = _quiet_after_speech(self.levels.between(first, last), self.levels.floor(last), start // frame - first)
        if found is None:
            return None
        at, speech_end, quiet_below = found
        return _Cut(max((first + at) * frame, start), first + speech_end, quiet_below)

    def _placed(self, heard: Heard | None, cut: _Cut) -> Heard | None:
        """The result with where its speech lies in the stream (seconds from its start): from the
        utterance's first loud frame to the end of its speech."""
        if heard is None:
            return None
        frame, rate = self.levels.frame, self.recognizer.sample_rate
        first = self.utterance.start // frame
        loud = np.flatnonzero(self.levels.between(first, cut.speech_end) >= cut.quiet_below)
        begin = first + int(loud[0]) if len(loud) else cut.speech_end
        return replace(heard, start_s=begin * frame / rate, end_s=cut.speech_end * frame / rate)

    def _may_cut(self, grammar: Grammar | None, more: int) -> bool:
        """Whether this endpointer may end the utterance under way, with `more` samples in it."""
        return grammar is not None and self.utterance.samples + more <= MAX_REPLAY_S * self.recognizer.sample_rate

    def _again(self, held: _Cut) -> Audio:
        """What to decode again when the player went on after a held cut: the utterance from
        REPLAY_LEAD_S before its first loud frame, and all heard since the cut."""
        audio = np.concatenate([*self.utterance.audio, *held.tail])
        frame = self.levels.frame
        loud = np.flatnonzero(_frame_levels(audio, frame) >= held.quiet_below)
        skip = max(0, int(loud[0]) * frame - round(REPLAY_LEAD_S * self.recognizer.sample_rate)) if len(loud) else 0
        return audio[skip:]


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


def _confidence(words: Sequence[dict[str, Any]]) -> float:
    """The least of the words' posteriors, in 0..1 (0 for no words)."""
    return max(0.0, min(1.0, min((float(word.get("conf", 0.0)) for word in words), default=0.0)))


def _ms(started: float) -> float:
    return (time.perf_counter() - started) * 1000
