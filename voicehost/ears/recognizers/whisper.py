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
("row two column three", "C2") is scored the same way, over the grid's places, alone and after the
lead-ins, when the words sound like one (`places_to_score`) or are a garbled word or two. Beside the
scores, a second signal: the cards found by their sounds, aligned with examples said by the host's own
voices (`voicehost.ears.examples`), and how noisy the room was (`voicehost.ears.conditions`). A clue's
word is taken as transcribed and its number chosen among every way of saying one; while the host
talks, only its stop phrases are scored.
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path
from typing import Any, Final

import numpy as np

from engine.lang import Lang
from voicehost.ears.audio import SAMPLE_RATE, Audio
from voicehost.ears.conditions import snr_db
from voicehost.ears.context import Context
from voicehost.ears.examples import ExampleBank, by_example, example_voices, speech_span
from voicehost.ears.heard import ClosedSet, Heard
from voicehost.ears.recognizers.whisper_tree import DecoderFormatError, Memory, TreeScorer
from voicehost.speech_models import ModelError, reinstall_advice
from voicehost.understanding import (
    Action,
    Command,
    HeardClue,
    HeardCommand,
    HeardGuess,
    Intent,
    command_phrases,
    normalize,
    spoken_numbers,
    understand,
    vocabulary,
)
from voicehost.understanding import Phase as Listening
from voicehost.understanding.positions import garbled_place_ways, places_to_score

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
EXAMPLE_BATCH: Final = 16
"""The second signal's examples encoded at once (16 two-second windows: ~10 MB of features and states)."""
AGREEMENT_CONFIDENCE: Final = 0.95
"""A stop or a clue number the transcript and the scores agree on."""
STOP_GAP: Final = 2.0
"""While the host talks, a stop phrase is taken when it explains the audio within this many nats of
the free transcript: its own echo is heard there all the time."""
NUMBER_FLOOR: Final = 0.5
"""When the transcript has no number of its own, one of the scored numbers must have this share of
the belief for the utterance to be taken for a clue at all ("ripeti" is not a clue for 7)."""
NONE_GAP: Final = 4.0
"""A clue's number must explain the rest of the audio within this many nats of the free transcript."""
NUMBER_UNLIMITED: Final = {"pt": "ilimitado", "it": "senza limiti", "en": "unlimited", "ko": "unlimited"}
"""How a clue heard as unlimited is written for the understanding module."""
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
        self._examples = ExampleBank(self._encode_examples, example_voices)
        self._warm_up()
        _return_freed_memory()

    def _warm_up(self) -> None:
        """CTranslate2's first call with a new shape is slow (0.4-1.8 s): pay it at load, not at the first word."""
        for seconds in (1.0, 2.5):
            self.recognize(np.zeros(round(seconds * SAMPLE_RATE), dtype=np.float32), Context(Lang.EN, guessing=False))

    # ---- the interface ---------------------------------------------------------------------

    def recognize(self, audio: Audio, context: Context) -> Heard:
        started = time.perf_counter()
        encoded, frames = self._encode(audio)
        encoded_at = time.perf_counter()
        sot = self._sot_sequence(context.lang)
        max_tokens = min(MAX_TOKENS, BASE_TOKENS + int(TOKENS_PER_SECOND * len(audio) / SAMPLE_RATE))
        transcript = self._transcribe(encoded, sot, max_tokens)
        transcribed_at = time.perf_counter()
        text = collapse_repeats(transcript.text)
        heard = Heard(text, transcript.confidence if text else 0.0)
        memory = self._tree.memory(encoded)
        if context.over_host:
            found = self._stop(memory, sot, transcript, text, context.lang)
        elif not context.guessing:
            found = self._clue(memory, sot, transcript, text, context.lang)
        elif context.cards or context.answering:
            found = self._closed_set(memory, frames, sot, transcript, heard, context)
            found = self._second_signal(found, encoded, audio, context)
        else:
            found = None
        if context.cards and not context.guessing:  # a board heard first in its clue: its examples made meanwhile
            self._examples.prepare_in_background(context.lang, context.cards)
        if context.names and text and not context.over_host:
            gain, replaced = self._name_gain(memory, sot, text, context.names)
            found = replace(found or heard, name_gain=gain, name_words=replaced)
        done = time.perf_counter()
        timings = (
            ("encode", (encoded_at - started) * 1000),
            ("transcript", (transcribed_at - encoded_at) * 1000),
            ("scores", (done - transcribed_at) * 1000),
            *(found or heard).timings,  # parts of the scores' time: the second signal's
        )
        return replace(found or heard, decode_ms=(done - started) * 1000, timings=timings)

    def _closed_set(
        self, memory: Memory, frames: int, sot: list[int], transcript: Transcript, heard: Heard, context: Context
    ) -> Heard | None:
        """While guessing (or answering a question): every visible card, and "yes", "no" or "pass",
        scored as transcripts of the utterance. A command or a clue the transcript says plainly is
        left to the transcript (None)."""
        said = understand(heard.text, phase=Listening.GUESS, cards=context.cards, lang=context.lang)
        answer = isinstance(said, HeardCommand) and said.command in (Command.YES, Command.NO)
        said_other = said.intent in (Intent.COMMAND, Intent.CLUE) and said.action is not Action.REPROMPT
        # A card named by its place ("row two column three", "C2"): the places are scored too when the words
        # sound like one (`places_to_score`), or are too few to tell and name no card (`garbled_place_ways`):
        # not worth paying for every card said by name.
        places = () if context.answering else places_to_score(heard.text, context.lang)
        if not (places or context.answering or (isinstance(said, HeardGuess) and said.action is Action.ACCEPT)):
            places = garbled_place_ways(heard.text, context.lang)  # a short place garbled past its words ("alma")
        names_too = not said_other or (answer and context.answering)
        if not (names_too or places):
            return None
        extras = extra_phrases(context.lang, context.answering)
        phrases = tuple(dict.fromkeys((*context.cards, *extras))) if names_too else ()
        starts = _lead_starts(self._tokenizer, transcript.tokens)
        leads: list[list[int]] = [[], *(transcript.tokens[:start] for start in starts)]
        leads += [self._name_tokens(name) for name in context.names]  # "Host, cherry" with "Host" lost
        # Whisper writes a lone word capitalized ("Televisão"), and lowercase after a lead-in. A card after
        # a lead-in is scored with the lead-in (its joint probability), so that every reading competes fairly.
        pairs = [(sot, [*lead, *self._card_tokens(phrase, capital=not lead)]) for lead in leads for phrase in phrases]
        card_pairs = len(pairs)
        # a place alone and after the same lead-ins as a card ("I think it's C2"): scored the way names are
        pairs += [(sot, [*lead, *self._place_tokens(phrase, capital=not lead)]) for lead in leads for phrase in places]
        pairs.append((sot, [*transcript.tokens, self._eot]))
        scores = self._tree.score(memory, pairs)
        logprobs = [max(scores[i : card_pairs : len(phrases)]) for i in range(len(phrases))]
        closed = self._ranked(context.lang, frames, sot, phrases, logprobs) if phrases else None
        place_scores = scores[card_pairs:-1]
        place_logprobs = [max(place_scores[i :: len(places)]) for i in range(len(places))]
        placed = self._ranked(context.lang, frames, sot, places, place_logprobs) if places else None
        return replace(heard, transcript_logprob=scores[-1], closed=closed, places=placed)

    def _second_signal(self, heard: Heard | None, encoded: Any, audio: Audio, context: Context) -> Heard | None:
        """Beside the cards' scores, the cards found by their sounds (`voicehost.ears.examples`: aligned
        with examples said by the host's own voices) and how noisy the room was (`conditions.snr_db`)."""
        if heard is None or heard.closed is None or context.answering:
            return heard
        started = time.perf_counter()
        made = self._examples.examples(context.lang, context.cards)  # made now only if the board is new to it
        ready = time.perf_counter()
        examples = by_example(self._states_of(encoded, audio), made, context.cards)
        done = time.perf_counter()
        timings = (*heard.timings, ("examples made", (ready - started) * 1000), ("examples", (done - ready) * 1000))
        return replace(heard, examples=examples, snr_db=snr_db(audio), timings=timings)

    def prepare(self, context: Context) -> None:
        """Make the examples of the context's cards in the background (the second signal's, said by the
        host's voices): call when a board is dealt, so its first guess does not wait for them. The ears
        do it themselves when they first hear a board outside a guess (its clue)."""
        if context.cards:
            self._examples.prepare_in_background(context.lang, context.cards)

    def _encode_examples(self, clips: Sequence[Audio]) -> list[Any]:
        """Each clip's encoder states, as `_encode` computes them, clips of the same window in one batch."""
        import ctranslate2

        windows = [self._window(len(clip)) for clip in clips]
        states: list[Any] = [None] * len(clips)
        for frames in sorted(set(windows)):
            chosen = [i for i, window in enumerate(windows) if window == frames]
            for start in range(0, len(chosen), EXAMPLE_BATCH):
                batch = chosen[start : start + EXAMPLE_BATCH]
                features = np.stack([self._features(clips[i], frames) for i in batch]).astype(np.float32)
                storage = ctranslate2.StorageView.from_array(np.ascontiguousarray(features))
                encoded = np.asarray(self._model.model.encode(storage, to_cpu=True), dtype=np.float32)
                for row, i in enumerate(batch):
                    states[i] = encoded[row].reshape(-1, self._tree.width)
        return states

    def _states_of(self, encoded: Any, audio: Audio) -> Any:
        first, last = speech_span(audio)
        return np.asarray(encoded, dtype=np.float32).reshape(-1, self._tree.width)[first:last]

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

    def _clue(self, memory: Memory, sot: list[int], transcript: Transcript, text: str, lang: Lang) -> Heard | None:
        """A clue is any word and then a number from a small closed set: the word is taken as
        transcribed, and the number is chosen by scoring every way of saying one after it (a free
        transcript of "città, due" is often "città tu e"). The confidence is the lower of the word's
        own probability and the winning number's share, so a doubtful word is still asked back.
        None: no clue there, the free transcript stands."""
        heard = understand(text, phase=Listening.CLUE, cards=(), lang=lang)
        if heard.intent is Intent.COMMAND or not transcript.tokens:
            return None
        word_end = self._clue_word_end(transcript, heard, lang)
        if word_end == 0:
            return None
        word = self._tokenizer.decode(transcript.tokens[:word_end]).strip().strip(".,;:!?")
        numbers = {normalize(phrase, lang) for phrase, _ in spoken_numbers(lang)}
        alone = understand(word, phase=Listening.CLUE, cards=(), lang=lang)
        if not word or alone.intent is Intent.COMMAND or normalize(word, lang) in numbers:
            return None  # "un musicato" is not the clue "un"
        prefix = sot + transcript.tokens[:word_end]
        tails = self._number_tails(lang)
        pairs = [(prefix, tokens) for _, tokens in tails]
        pairs += [(sot, transcript.tokens[:word_end]), (sot, [*transcript.tokens, self._eot])]
        scores = self._tree.score(memory, pairs)
        word_logprob, whole = scores[-2], scores[-1]
        by_value: dict[int | None, float] = {}
        for (value, _), score in zip(tails, scores, strict=False):
            by_value[value] = _logaddexp(by_value.get(value, -math.inf), score)
        top = max(by_value.values())
        total = sum(math.exp(score - top) for score in by_value.values())
        value, best = max(by_value.items(), key=lambda item: item[1])
        share = math.exp(best - top) / total
        rest = whole - word_logprob
        transcribed = heard.clue if isinstance(heard, HeardClue) else None
        if transcribed is None and (share < NUMBER_FLOOR or rest - best > NONE_GAP):
            # no number stands out, or none explains the rest of the audio as well as the free
            # transcript does ("di petti" is not the clue "di, 4"): not taken for a clue
            return None
        if transcribed is not None and transcribed.number == value:
            share = max(share, AGREEMENT_CONFIDENCE)

        def clue(number: int | None) -> str:
            return f"{word} {NUMBER_UNLIMITED[lang.family] if number is None else number}"

        ranked = sorted(by_value.items(), key=lambda item: -item[1])[:3]
        alternatives = tuple((clue(v), math.exp(s - top) / total) for v, s in ranked)
        word_probability = math.exp(word_logprob / max(1, word_end))
        return Heard(clue(value), min(word_probability, share), alternatives=alternatives)

    def _stop(self, memory: Memory, sot: list[int], transcript: Transcript, text: str, lang: Lang) -> Heard | None:
        """While the host talks only "stop" matters, and a lone short word is what Whisper hears worst
        ("para" comes out "pátor"): the stop phrases are scored as transcripts, and one that explains
        the audio about as well as the free transcript is taken. The host's own words do not (None:
        the free transcript stands)."""
        said = understand(text, phase=Listening.CLUE, cards=(), lang=lang)
        if isinstance(said, HeardCommand) and said.command is Command.STOP_TALKING:
            return Heard(text, max(transcript.confidence, AGREEMENT_CONFIDENCE))
        phrases = [phrase for phrase in command_phrases(lang, Command.STOP_TALKING) if len(phrase.split()) == 1]
        if not phrases or not transcript.tokens:
            return None
        pairs = [(sot, self._card_tokens(phrase)) for phrase in phrases] + [(sot, [*transcript.tokens, self._eot])]
        scores = self._tree.score(memory, pairs)
        best = max(range(len(phrases)), key=scores.__getitem__)
        if scores[-1] - scores[best] <= STOP_GAP:
            return Heard(phrases[best], AGREEMENT_CONFIDENCE)
        return None

    def _clue_word_end(self, transcript: Transcript, heard: Any, lang: Lang) -> int:
        """How many of the transcript's tokens make the clue word: up to the number when one was
        understood, else the first word (a clue is one word; the rest is taken for a garbled number)."""
        tokens = transcript.tokens
        if isinstance(heard, HeardClue):
            wanted = normalize(heard.clue.word, lang)
            for end in range(1, len(tokens) + 1):
                if normalize(self._tokenizer.decode(tokens[:end]), lang).endswith(wanted):
                    return end
            return 0
        second = _word_starts(self._tokenizer, tokens)
        return second[1] if len(second) > 1 else len(tokens)

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
        frames = self._window(len(audio))
        features = self._features(audio, frames)
        storage = ctranslate2.StorageView.from_array(np.ascontiguousarray(features[None].astype(np.float32)))
        return self._model.model.encode(storage, to_cpu=True), frames

    @staticmethod
    def _window(samples: int) -> int:
        """The mel frames the encoder hears `samples` over: a multiple of FRAME_STEP, with a margin."""
        return max(MIN_FRAMES, -(-samples // 160 // FRAME_STEP) * FRAME_STEP + MARGIN_FRAMES)

    def _features(self, audio: Audio, frames: int) -> Any:
        padded = np.zeros(frames * 160, dtype=np.float32)
        padded[: min(len(audio), len(padded))] = audio[: len(padded)]
        return self._model.feature_extractor(padded)[:, :frames]

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

    def _place_tokens(self, phrase: str, *, capital: bool) -> list[int]:
        """A place as Whisper writes it: a label as it is ("C2", whatever comes before), words as a card's."""
        if phrase[:1].isupper() and phrase[1:].isdigit():
            return [*_tokens(self._tokenizer, phrase), self._period]
        return self._card_tokens(phrase, capital=capital)

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


@lru_cache(maxsize=4096)
def _return_freed_memory() -> None:
    """Loading quantizes the decoder a block at a time; what glibc kept of those blocks goes back (~120 MB)."""
    try:
        import ctypes

        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass


def _tokens(tokenizer: Any, text: str) -> tuple[int, ...]:
    return tuple(tokenizer.encode(" " + text, add_special_tokens=False).ids)


def _ms(started: float) -> float:
    return (time.perf_counter() - started) * 1000
