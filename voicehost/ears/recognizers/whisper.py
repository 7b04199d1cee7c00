"""faster-whisper as the ears: a free transcript, and a closed set scored where the phase allows it.

Short single words are Whisper's weak spot, and a prompt full of card names makes it "hear" cards
nobody said. So while guessing the cards are scored as candidate transcripts instead: the audio is
encoded once, over a window just longer than the utterance (not the usual 30 s: ten times cheaper),
and every visible card is forced through the decoder, alone and after the transcript's lead-in
("eu acho que é o ..."), in one pass of a tree decoder (`whisper_tree`): log P(card | audio). A
prior (the same score against silence) is subtracted, so that short, common words do not win by
default. The free greedy transcript is decoded too. What this engine returns is evidence, not a
verdict: the transcript and the closed set's scores (`Heard.closed`), which the decision step
(`voicehost.decision`) turns into acting, asking back or asking again. A card named by its place
("row two column three", "C2") is scored the same way, over the grid's places, when the words sound
like one (`places_to_score`). For a clue, every way of saying a number is scored after the clue's word
(`Heard.numbers`); while the host talks, the stop phrases (`Heard.stops`). Nothing here decides.
"""

from __future__ import annotations

import math
import os
import time
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path
from typing import Any, Final

import numpy as np

from engine.lang import Lang
from voicehost.audio.samples import SAMPLE_RATE, Audio
from voicehost.ears.heard import ClosedSet, ClueNumbers, Heard
from voicehost.ears.recognizers.whisper_tree import DecoderFormatError, Memory, TreeScorer
from voicehost.speech_models import ModelError, reinstall_advice
from voicehost.understanding import Command, command_phrases, normalize, spoken_numbers, vocabulary
from voicehost.understanding.moment import Awaited, Moment
from voicehost.understanding.positions import places_to_score

FRAME_STEP: Final = 100
"""Encoder windows are multiples of 1 s (100 mel frames), so the silence prior can be cached."""
MIN_FRAMES: Final = 200
MARGIN_FRAMES: Final = 100
PRIOR_WEIGHT: Final = 0.8
"""How much of a phrase's score against silence is subtracted: chosen on the tuning voices (cards alone and
after lead-ins, clean; 0.3, 0.5, 0.8, 1.0 and 1.3 tried, 0.8 put the right card first most often)."""
MAX_TOKENS: Final = 40
BASE_TOKENS: Final = 8
TOKENS_PER_SECOND: Final = 8
"""The transcript's length cap grows with the utterance: short windows make Whisper loop."""
MAX_LEAD_TOKENS: Final = 16
MAX_LEADS: Final = 3
NAME_REPLACES: Final = 2
"""The host's name may have been transcribed as up to this many words ("Considero um ...")."""
MAX_PRIORS: Final = 4096
WHISPER_LANGS: Final = {"pt": "pt", "it": "it", "en": "en", "ko": "ko"}
NUMERICS: Final = {"CT2_USE_MKL": "0"}
"""CTranslate2 uses Intel MKL on Intel processors unless told otherwise, and MKL's results can change
from run to run with memory alignment (CTranslate2 issue 693); oneDNN, its backend on every other
x86 processor, gives the same bits on every run. Set before CTranslate2 is imported, unless the
environment chose."""


class WhisperRecognizer:
    """Recognizes one utterance at a time; see the module docstring for what it weighs."""

    def __init__(self, model_dir: Path, *, threads: int | None = None, compute_type: str = "int8") -> None:
        for name, value in NUMERICS.items():
            os.environ.setdefault(name, value)
        try:
            from faster_whisper import WhisperModel
        except ImportError:
            raise ModelError("the whisper engine needs faster-whisper: pip install 'voicehost[whisper]'") from None
        _check_model_files(model_dir)
        try:
            self._model: Any = WhisperModel(
                str(model_dir), device="cpu", compute_type=compute_type, cpu_threads=threads or os.cpu_count() or 2
            )
            self._tree = TreeScorer(model_dir)
        except DecoderFormatError as exc:
            raise _broken_model(model_dir, f"cannot be read ({exc})") from None
        except Exception as exc:  # the tokenizers library raises a bare Exception on a bad tokenizer.json
            raise _broken_model(model_dir, f"cannot be loaded ({exc})") from None
        self._tokenizer: Any = self._model.hf_tokenizer
        specials = ("<|startoftranscript|>", "<|transcribe|>", "<|notimestamps|>", "<|endoftext|>")
        self._sot, self._transcribe_token, self._no_timestamps, self._eot = (
            self._tokenizer.token_to_id(token) for token in specials
        )
        period = self._tokenizer.encode(".", add_special_tokens=False).ids
        if None in (self._sot, self._transcribe_token, self._no_timestamps, self._eot) or not period:
            raise _broken_model(model_dir, "has a tokenizer.json that is not Whisper's")
        self._period = period[0]
        self._comma = self._tokenizer.encode(",", add_special_tokens=False).ids[0]
        self._priors: dict[tuple[str, int, str], float] = {}
        self._warm_up()
        _return_freed_memory()

    def _warm_up(self) -> None:
        """CTranslate2's first call with a new shape is slow (0.4-1.8 s): pay it at load, not at the first word."""
        for seconds in (1.0, 2.5):
            self.recognize(np.zeros(round(seconds * SAMPLE_RATE), dtype=np.float32), Moment(Lang.EN, Awaited.CLUE))

    # ---- the interface ---------------------------------------------------------------------

    def recognize(self, audio: Audio, moment: Moment) -> Heard:
        started = time.perf_counter()
        encoded, frames = self._encode(audio)
        encoded_at = time.perf_counter()
        sot = self._sot_sequence(moment.lang)
        max_tokens = min(MAX_TOKENS, BASE_TOKENS + int(TOKENS_PER_SECOND * len(audio) / SAMPLE_RATE))
        transcript = self._transcribe(encoded, sot, max_tokens)
        transcribed_at = time.perf_counter()
        text = collapse_repeats(transcript.text)
        heard = Heard(text, transcript.confidence if text else 0.0)
        memory = self._tree.memory(encoded)
        if moment.over_host:
            heard = self._stops(memory, sot, transcript, heard, moment.lang)
        elif moment.hears_cards and (moment.cards or moment.answering):
            heard = self._closed_set(memory, frames, sot, transcript, heard, moment)
        elif moment.awaited is Awaited.CLUE and not moment.asked:
            heard = self._clue_numbers(memory, sot, transcript, heard, moment.lang)
        if moment.names and text and not moment.over_host:
            gain, replaced = self._name_gain(memory, sot, text, moment.names)
            heard = replace(heard, name_gain=gain, name_words=replaced)
        done = time.perf_counter()
        timings = (
            ("encode", (encoded_at - started) * 1000),
            ("transcript", (transcribed_at - encoded_at) * 1000),
            ("scores", (done - transcribed_at) * 1000),
        )
        return replace(heard, decode_ms=(done - started) * 1000, timings=timings)

    def _closed_set(
        self, memory: Memory, frames: int, sot: list[int], transcript: Transcript, heard: Heard, moment: Moment
    ) -> Heard:
        """While a card makes sense (or a yes-or-no question about one waits): every card that may be meant,
        and "yes", "no" or "pass", scored as transcripts of the utterance; the grid's places too, alone, when
        the words sound like one (`places_to_score`: not worth paying for every card said by name)."""
        places = () if moment.answering else places_to_score(heard.text, moment.lang)
        extras = extra_phrases(moment.lang, moment.answering)
        phrases = tuple(dict.fromkeys((*moment.cards, *extras)))
        starts = _lead_starts(self._tokenizer, transcript.tokens)
        leads: list[list[int]] = [[], *(transcript.tokens[:start] for start in starts)]
        leads += [self._name_tokens(name) for name in moment.names]  # "Host, cherry" with "Host" lost
        # Whisper writes a lone word capitalized ("Televisão"), and lowercase after a lead-in. A card after
        # a lead-in is scored with the lead-in (its joint probability), so that every reading competes fairly.
        pairs = [(sot, [*lead, *self._card_tokens(phrase, capital=not lead)]) for lead in leads for phrase in phrases]
        card_pairs = len(pairs)
        pairs += [(sot, self._card_tokens(phrase)) for phrase in places]  # alone: a lead-in is rare before one
        pairs.append((sot, [*transcript.tokens, self._eot]))
        scores = self._tree.score(memory, pairs)
        logprobs = [max(scores[i : card_pairs : len(phrases)]) for i in range(len(phrases))]
        closed = self._ranked(moment.lang, frames, sot, phrases, logprobs)
        placed = self._ranked(moment.lang, frames, sot, places, scores[card_pairs:-1]) if places else None
        return replace(heard, transcript_logprob=scores[-1], closed=closed, places=placed)

    def _ranked(
        self, lang: Lang, frames: int, sot: list[int], phrases: tuple[str, ...], logprobs: list[float]
    ) -> ClosedSet:
        """Scored phrases as evidence: each one's score less its prior, and its share of the belief."""
        priors = self._priors_of(lang, frames, sot, phrases)
        logits = [score - PRIOR_WEIGHT * prior for score, prior in zip(logprobs, priors, strict=True)]
        top = max(logits)
        weights = [math.exp(value - top) for value in logits]
        total = sum(weights)
        order = sorted(range(len(phrases)), key=lambda i: -logits[i])
        return ClosedSet(
            tuple(phrases[i] for i in order),
            tuple(logprobs[i] for i in order),
            tuple(logits[i] for i in order),
            tuple(weights[i] / total for i in order),
        )

    def _name_gain(self, memory: Memory, sot: list[int], text: str, names: tuple[str, ...]) -> tuple[float, int]:
        """How much better the audio is explained with one of the host's names said first than by the
        transcript alone: a short name said before a move ("Host, cherry") is often left out of the
        transcript or garbled ("Inscitaria, guindaste"), yet the decoder still hears it. The readings
        tried put the name before the transcript, or in place of its first one or two words; the best
        one's gain, and how many words it replaced. The decision weighs it (`voicehost.decision`)."""
        words = text.split()
        pairs = [(sot, [*_tokens(self._tokenizer, text), self._eot])]
        replaced: list[int] = []  # how many of the transcript's first words each reading puts the name in place of
        for dropped in range(min(NAME_REPLACES, len(words) - 1) + 1):
            rest = " ".join(words[dropped:])
            rest = rest[:1].lower() + rest[1:]
            pairs += [(sot, [*self._name_tokens(name), *_tokens(self._tokenizer, rest), self._eot]) for name in names]
            replaced += [dropped] * len(names)
        scores = self._tree.score(memory, pairs)
        best = max(range(1, len(scores)), key=scores.__getitem__)
        return scores[best] - scores[0], replaced[best - 1]

    def _name_tokens(self, name: str) -> list[int]:
        return list(_tokens(self._tokenizer, f"{name[:1].upper()}{name[1:]},"))

    def _clue_numbers(self, memory: Memory, sot: list[int], transcript: Transcript, heard: Heard, lang: Lang) -> Heard:
        """A clue is any word and then a number from a small closed set: every way of saying a number is
        scored after the transcript's word (up to where its number begins, else its first word), with the
        word's own score and the whole transcript's, for the decision to weigh (`voicehost.decision.clues`)."""
        if not transcript.tokens:
            return heard
        word_end = self._clue_word_end(transcript.tokens, lang)
        word = self._tokenizer.decode(transcript.tokens[:word_end]).strip().strip(".,;:!?")
        if not word:
            return heard
        prefix = sot + transcript.tokens[:word_end]
        tails = self._number_tails(lang)
        pairs = [(prefix, tokens) for _, tokens in tails]
        pairs += [(sot, transcript.tokens[:word_end]), (sot, [*transcript.tokens, self._eot])]
        scores = self._tree.score(memory, pairs)
        by_value: dict[int | None, float] = {}
        for (value, _), score in zip(tails, scores, strict=False):
            by_value[value] = _logaddexp(by_value.get(value, -math.inf), score)
        ranked = sorted(by_value.items(), key=lambda item: -item[1])
        numbers = ClueNumbers(
            word,
            scores[-2],
            word_end,
            tuple(value for value, _ in ranked),
            tuple(score for _, score in ranked),
            scores[-1],
        )
        return replace(heard, numbers=numbers, transcript_logprob=scores[-1])

    def _stops(self, memory: Memory, sot: list[int], transcript: Transcript, heard: Heard, lang: Lang) -> Heard:
        """While the host talks only "stop" matters, and a lone short word is what Whisper hears worst
        ("para" comes out "pátor"): the one-word stop phrases are scored as transcripts, beside the free
        transcript's own score (`voicehost.decision.stops` weighs them)."""
        phrases = tuple(p for p in command_phrases(lang, Command.STOP_TALKING) if len(p.split()) == 1)
        if not phrases or not transcript.tokens:
            return heard
        pairs = [(sot, self._card_tokens(phrase)) for phrase in phrases] + [(sot, [*transcript.tokens, self._eot])]
        scores = self._tree.score(memory, pairs)
        order = sorted(range(len(phrases)), key=lambda i: -scores[i])
        logprobs = tuple(scores[i] for i in order)
        stops = ClosedSet(tuple(phrases[i] for i in order), logprobs, logprobs, (1.0,) * len(order))
        return replace(heard, stops=stops, transcript_logprob=scores[-1])

    def _clue_word_end(self, tokens: list[int], lang: Lang) -> int:
        """How many of the transcript's tokens make the clue's word: up to the first word that starts a
        number ("Música, três." and its repeats), else its first word (the rest taken for a garbled number)."""
        numbers = {tuple(normalize(phrase, lang).split()) for phrase, _ in spoken_numbers(lang)}
        longest = max((len(number) for number in numbers), default=1)
        starts = _word_starts(self._tokenizer, tokens)
        for start in starts[1:]:
            keys = tuple(normalize(self._tokenizer.decode(tokens[start:]), lang).split())
            if keys and (keys[0].isdigit() or any(keys[:size] in numbers for size in range(1, longest + 1))):
                return start
        return starts[1] if len(starts) > 1 else len(tokens)

    @lru_cache(maxsize=8)  # noqa: B019 - one list per language, for the recognizer's lifetime
    def _number_tails(self, lang: Lang) -> list[tuple[int | None, list[int]]]:
        """Every way a clue's number may follow its word in a transcript ("Música, três." or "Música 3.")."""
        written = [*spoken_numbers(lang), *((str(value), value) for value in range(10))]
        tails: list[tuple[int | None, list[int]]] = []
        for phrase, value in written:
            tokens = list(_tokens(self._tokenizer, phrase))
            tails += [(value, [self._comma, *tokens, self._period]), (value, [*tokens, self._period])]
        return tails

    # ---- pieces ----------------------------------------------------------------------------

    def _sot_sequence(self, lang: Lang) -> list[int]:
        code = WHISPER_LANGS.get(lang.family, lang.family)
        return [self._sot, self._tokenizer.token_to_id(f"<|{code}|>"), self._transcribe_token, self._no_timestamps]

    def _encode(self, audio: Audio) -> tuple[Any, int]:
        """The audio through the encoder, over a window just longer than it (see the module docstring).

        The encoder takes at most 30 s (3000 mel frames). Anything longer is chatter, not one clue or
        guess, and the player's answer comes at its end ("... no, wait: the oyster"), so only the last
        30 s less the trailing margin are heard."""
        import ctranslate2

        audio = audio[-(self._model.feature_extractor.nb_max_frames - MARGIN_FRAMES) * 160 :]
        frames = max(MIN_FRAMES, -(-len(audio) // 160 // FRAME_STEP) * FRAME_STEP + MARGIN_FRAMES)
        padded = np.zeros(frames * 160, dtype=np.float32)
        padded[: min(len(audio), len(padded))] = audio[: len(padded)]
        features = self._model.feature_extractor(padded)[:, :frames]
        storage = ctranslate2.StorageView.from_array(np.ascontiguousarray(features[None].astype(np.float32)))
        return self._model.model.encode(storage, to_cpu=True), frames

    def _transcribe(self, encoded: Any, sot: list[int], max_tokens: int) -> Transcript:
        """The free transcript, greedy."""
        result = self._model.model.generate(
            encoded,
            [sot],
            beam_size=1,
            max_length=max_tokens,
            return_scores=True,
            repetition_penalty=1.1,
            no_repeat_ngram_size=3,
        )[0]
        tokens = list(result.sequences_ids[0])
        text = self._tokenizer.decode(tokens).strip()
        score = float(result.scores[0]) if result.scores else -10.0
        return Transcript(text, score * (len(tokens) + 1), tokens)

    def _card_tokens(self, card: str, *, capital: bool = True) -> list[int]:
        text = card.lower()
        if capital:
            text = text[:1].upper() + text[1:]
        return [*_tokens(self._tokenizer, text), self._period]

    def _priors_of(self, lang: Lang, frames: int, sot: list[int], phrases: tuple[str, ...]) -> list[float]:
        """Each phrase's score against silence of the same length: how much the decoder likes it anyway.
        Cached per phrase, so a reveal (which changes the set of cards) costs nothing new."""
        missing = [phrase for phrase in phrases if (lang.value, frames, phrase) not in self._priors]
        if missing:
            silence, _ = self._encode(np.zeros(frames * 160 - MARGIN_FRAMES * 160, dtype=np.float32))
            scores = self._tree.score(self._tree.memory(silence), [(sot, self._card_tokens(p)) for p in missing])
            for phrase, score in zip(missing, scores, strict=True):
                self._priors[(lang.value, frames, phrase)] = score
            while len(self._priors) > MAX_PRIORS:
                self._priors.pop(next(iter(self._priors)))
        return [self._priors[(lang.value, frames, phrase)] for phrase in phrases]


def extra_phrases(lang: Lang, answering: bool) -> tuple[str, ...]:
    """Scored with the cards: after a question "yes" and "no" (a free transcript of a lone "sì" is often
    "C"), otherwise "pass" (a lone "pass" is often transcribed as something else); from the vocabulary."""
    vocab = vocabulary(lang)
    wanted = (Command.YES, Command.NO) if answering else (Command.PASS,)
    return tuple(vocab.scored_words[command] for command in wanted)


REQUIRED_FILES: Final = ("model.bin", "config.json", "tokenizer.json")
VOCABULARIES: Final = ("vocabulary.txt", "vocabulary.json", "shared_vocabulary.txt", "shared_vocabulary.json")
"""A CTranslate2 Whisper model as faster-whisper reads it, with any of CTranslate2's vocabulary names.
Without tokenizer.json faster-whisper fetches one from huggingface.co: the host is offline."""


def _check_model_files(model_dir: Path) -> None:
    """Before loading: a missing file is named, instead of a download attempt or a CTranslate2 error."""
    if not model_dir.is_dir():
        raise _broken_model(model_dir, "is missing (no such folder)")
    missing = [name for name in REQUIRED_FILES if not (model_dir / name).is_file()]
    if not any((model_dir / name).is_file() for name in VOCABULARIES):
        missing.append(VOCABULARIES[0])
    if missing:
        raise _broken_model(model_dir, f"is missing {', '.join(missing)}")


def _broken_model(model_dir: Path, problem: str) -> ModelError:
    return ModelError(f"The whisper model in {model_dir} {problem}. {reinstall_advice(model_dir, 'whisper')}")


@dataclass(frozen=True)
class Transcript:
    text: str
    logprob: float  # of the whole transcript (CTranslate2 scores the per-token average)
    tokens: list[int]

    @property
    def confidence(self) -> float:
        """The geometric mean of the tokens' probabilities, the end included."""
        return math.exp(self.logprob / (len(self.tokens) + 1))


def collapse_repeats(text: str) -> str:
    """ "reindeer reindeer reindeer" -> "reindeer": a short window makes Whisper repeat itself."""
    words = text.split()
    for size in range(1, 5):
        index = 0
        out: list[str] = []
        while index < len(words):
            chunk = words[index : index + size]
            out.extend(chunk)
            index += size
            while len(chunk) == size and [_bare(w) for w in words[index : index + size]] == [_bare(w) for w in chunk]:
                index += size
        words = out
    return " ".join(words)


def _bare(word: str) -> str:
    return "".join(ch for ch in word.lower() if ch.isalnum())


def _word_starts(tokenizer: Any, tokens: list[int]) -> list[int]:
    """Indexes of the tokens that start a word of the transcript (the first token always does)."""
    starts = [0] if tokens else []
    for index in range(1, len(tokens)):
        piece = tokenizer.id_to_token(tokens[index]) or ""
        if piece.startswith("\u0120") and any(ch.isalnum() for ch in piece):
            starts.append(index)
    return starts


def _lead_starts(tokenizer: Any, tokens: list[int]) -> list[int]:
    """Where the card may start after a lead-in: each of the transcript's last MAX_LEADS word starts (the
    transcript may split the card in two, "joa ninha"), past the first word, within MAX_LEAD_TOKENS."""
    starts = [start for start in _word_starts(tokenizer, tokens) if 0 < start <= MAX_LEAD_TOKENS]
    return starts[-MAX_LEADS:]


def _logaddexp(a: float, b: float) -> float:
    if a == -math.inf:
        return b
    top = max(a, b)
    return top + math.log(math.exp(a - top) + math.exp(b - top))


def _return_freed_memory() -> None:
    """Loading quantizes the decoder a block at a time; what glibc kept of those blocks goes back (~120 MB)."""
    try:
        import ctypes

        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass


@lru_cache(maxsize=4096)
def _tokens(tokenizer: Any, text: str) -> tuple[int, ...]:
    """A phrase's tokens after a space, as the tree decoder scores it: the same phrases come back every
    utterance (the cards, their lead-ins, the numbers), so each is tokenized once."""
    return tuple(tokenizer.encode(" " + text, add_special_tokens=False).ids)
