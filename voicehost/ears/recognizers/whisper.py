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
lead-ins, when the words sound like one (`places_to_score`) or are a garbled word or two naming no card.
Beside the scores, a second signal: the cards found by their sounds, aligned with examples said by the
host's own voices (`voicehost.ears.examples`), and how noisy the room was (`voicehost.ears.conditions`).
For a clue, every way of saying a number is scored after the clue's word (`Heard.numbers`); while the
host talks or once the game is over, the few commands that make sense (`Heard.commands`). Nothing here
decides.
"""

from __future__ import annotations

import atexit
import math
import os
import threading
import time
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path
from typing import Any, Final

import numpy as np
from rapidfuzz.distance import Levenshtein

from engine.lang import Lang
from voicehost.audio.samples import SAMPLE_RATE, Audio
from voicehost.decision.undo import may_be_undo
from voicehost.ears.conditions import snr_db
from voicehost.ears.examples import Example, ExampleBank, by_example, example_voices, speech_span
from voicehost.ears.heard import ClosedSet, ClueNumbers, Heard
from voicehost.ears.recognizers.heap import one_heap, return_freed_memory
from voicehost.ears.recognizers.whisper_tree import DecoderFormatError, Memory, Scoring, TreeScorer, one_blas_thread
from voicehost.speech_models import ModelError, reinstall_advice
from voicehost.understanding import (
    Action,
    Command,
    HeardClue,
    HeardGuess,
    command_phrases,
    normalize,
    spoken_numbers,
    vocabulary,
)
from voicehost.understanding.moment import Awaited, Moment
from voicehost.understanding.positions import garbled_place_ways, places_to_score
from voicehost.understanding.reading import Reading
from voicehost.understanding.talk import is_host_name
from voicehost.understanding.vocabulary import ending_phrases

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
MAX_SILENCES: Final = 8
AHEAD_FRAMES: Final = (200, 300, 400, 500, 600)
"""The windows of utterances up to 5 s, whose priors a new board's phrases get ahead (`_prepare_ahead`)."""
AHEAD_PAUSE_SECONDS: Final = 0.01
"""Encoded silences kept (`_silence`): 0.2 MB a second of window."""
EXAMPLE_BATCH: Final = 4
"""The second signal's examples encoded at once. CTranslate2's encoder holds a batch's activations of every
layer: 16 clips at once raised the process's peak by 70 MB, and 4 encode as fast (a board's 75 examples in
1.3-1.5 s either way, the same states bit for bit)."""
WHISPER_LANGS: Final = {"pt": "pt", "it": "it", "en": "en", "ko": "ko"}
NUMERICS: Final = {"CT2_USE_MKL": "0"}
"""CTranslate2 uses Intel MKL on Intel processors unless told otherwise, and MKL's results can change
from run to run with memory alignment (CTranslate2 issue 693); oneDNN, its backend on every other
x86 processor, gives the same bits on every run. Set before CTranslate2 is imported, unless the
environment chose."""


def _may_be_undo(text: str, moment: Moment) -> bool:
    """Whether a line heard while a clue is awaited may be an undo its words do not read, worth scoring every
    way of saying undo (some 70 ms on 2 cores): short enough for the decision to weigh (`voicehost.decision.undo`),
    and no clue its words read at once ("Música 2." is the clue whatever an undo scores)."""
    reading = Reading(text, moment)
    if not may_be_undo(reading.text, moment.lang):
        return False
    return not (isinstance(reading.said, HeardClue) and reading.said.action is Action.ACCEPT)


class WhisperRecognizer:
    """Recognizes one utterance at a time; see the module docstring for what it weighs."""

    def __init__(self, model_dir: Path, *, threads: int | None = None, compute_type: str = "int8") -> None:
        for name, value in NUMERICS.items():
            os.environ.setdefault(name, value)
        one_heap()
        try:
            from faster_whisper import WhisperModel
        except ImportError:
            raise ModelError("the whisper engine needs faster-whisper: pip install 'voicehost[whisper]'") from None
        _check_model_files(model_dir)
        try:
            cores = threads or os.cpu_count() or 2
            self._model: Any = WhisperModel(str(model_dir), device="cpu", compute_type=compute_type, cpu_threads=cores)
            self._tree = TreeScorer(
                model_dir, threads=cores
            )  # the scores come after the transcript: the cores are free
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
        # one thread at a time computes (an utterance, the priors ahead, a board's examples): two at once share
        # the cores' threads and change the sums of numpy's and CTranslate2's products, and so the scores.
        # Reentrant: an utterance that makes its board's examples itself encodes them under it too.
        self._computing = threading.RLock()
        self._silences: dict[int, Any] = {}  # encoded silence by its length in frames (`_silence`)
        self._tails: dict[Lang, list[tuple[int | None, list[int]]]] = {}  # `_number_tails`
        self._priors_ms = 0.0  # spent on priors in the utterance being heard
        self._ahead: list[tuple[Lang, list[int], tuple[str, ...]]] = []  # phrases whose priors to compute ahead
        self._preparing: threading.Thread | None = None
        self._ahead_lock = threading.Lock()
        self._stopping = False
        atexit.register(_stop_ahead, weakref.ref(self))  # before the interpreter stops its threads mid-computation
        self._examples = ExampleBank(self._encode_examples, example_voices)
        self._warm_up()
        return_freed_memory()

    def _warm_up(self) -> None:
        """CTranslate2's first call with a new shape is slow (0.4-1.8 s): pay it at load, not at the first word."""
        for seconds in (1.0, 2.5):
            self.recognize(np.zeros(round(seconds * SAMPLE_RATE), dtype=np.float32), Moment(Lang.EN, Awaited.CLUE))

    # ---- the interface ---------------------------------------------------------------------

    def recognize(self, audio: Audio, moment: Moment) -> Heard:
        with self._computing:
            heard = self._recognize(audio, moment)
        return_freed_memory()
        return heard

    def wait_prepared(self, timeout: float) -> bool:
        """Block until the priors computed ahead (`_prepare`) are done; False on timeout."""
        deadline = time.monotonic() + timeout
        while True:
            with self._ahead_lock:
                thread = self._preparing
            if thread is None:
                return True
            thread.join(max(0.0, deadline - time.monotonic()))
            if thread.is_alive():
                return False

    def _recognize(self, audio: Audio, moment: Moment) -> Heard:
        started = time.perf_counter()
        self._priors_ms = 0.0
        encoded, frames = self._encode(audio)
        encoded_at = time.perf_counter()
        sot = self._sot_sequence(moment.lang)
        max_tokens = min(MAX_TOKENS, BASE_TOKENS + int(TOKENS_PER_SECOND * len(audio) / SAMPLE_RATE))
        transcript = self._transcribe(encoded, sot, max_tokens)
        transcribed_at = time.perf_counter()
        text = collapse_repeats(transcript.text)
        heard = Heard(text, transcript.confidence if text else 0.0)
        # numpy's BLAS on one thread for the tree's scores only: the features and the transcript as
        # faster-whisper computes them (its mel filters are a numpy product whose sums change with threads)
        with one_blas_thread():
            scoring = self._tree.scoring(self._tree.memory(encoded))  # one tree for every score of this utterance
            named = bool(moment.names) and bool(text) and not moment.over_host
            readings = self._name_readings(sot, text, moment.names) if named else None
            if readings is not None:
                scoring.expect(readings.pairs)  # in the same pass as the cards
            if moment.over_host or (moment.awaited is Awaited.OVER and not moment.asked):
                heard = self._commands(scoring, sot, transcript, heard, moment)
            elif moment.hears_cards and (moment.cards or moment.answering):
                heard = self._closed_set(scoring, frames, sot, transcript, heard, moment)
            elif moment.awaited is Awaited.CLUE and not moment.asked:
                heard = self._clue_numbers(scoring, sot, transcript, heard, moment.lang)
                if moment.undoable and _may_be_undo(text, moment):
                    heard = self._undo(scoring, sot, transcript, heard, moment)
            if readings is not None:
                gain, replaced = self._name_gain(scoring, readings)
                heard = replace(heard, name_gain=gain, name_words=replaced)
        # after the scores, outside `one_blas_thread`: the examples are encoded with faster-whisper's features
        heard = self._second_signal(heard, encoded, audio, moment)
        if not moment.over_host:
            self.prepare(moment)  # a board heard first (its clue, say): its examples made meanwhile, once
        done = time.perf_counter()
        priors_ms, self._priors_ms = self._priors_ms, 0.0
        timings = (
            ("encode", (encoded_at - started) * 1000),
            ("transcript", (transcribed_at - encoded_at) * 1000),
            ("scores", (done - transcribed_at) * 1000 - priors_ms),
            ("priors", priors_ms),  # a new board's phrases against silence of a new length: once each
            *heard.timings,  # parts of the scores' time: the second signal's
        )
        return replace(heard, decode_ms=(done - started) * 1000, timings=timings)

    def transcribe_after(self, audio: Audio, lang: Lang, previous: str) -> str:
        """Whisper's free transcript, greedy, with `previous` as the text said before (Whisper's prompt):
        the usual way to bias it toward a vocabulary, which the host does not use (a prompt full of card
        names makes it hear cards nobody said); the bench's baseline."""
        with self._computing:
            encoded, _ = self._encode(audio)
            previous_token = self._tokenizer.token_to_id("<|startofprev|>")
            words = list(_tokens(self._tokenizer, previous))
            result = self._model.model.generate(
                encoded,
                [[previous_token, *words, *self._sot_sequence(lang)]],
                beam_size=1,
                max_length=len(words) + 48,
                repetition_penalty=1.1,
                no_repeat_ngram_size=3,
            )[0]
        return str(self._tokenizer.decode(list(result.sequences_ids[0]))).strip()

    def _closed_set(
        self, scoring: Scoring, frames: int, sot: list[int], transcript: Transcript, heard: Heard, moment: Moment
    ) -> Heard:
        """While a card makes sense (or a yes-or-no question about one waits): every card that may be meant,
        and "yes", "no" or "pass", scored as transcripts of the utterance; the grid's places too, alone and
        after the lead-ins, when the words sound like one (`places_to_score`) or are a word or two that names
        no card (`garbled_place_ways`: a short place garbled past its words, "alma"); not worth paying for
        every card said by name. One pass of the decoder for them all, and one over silence for the priors
        it lacks."""
        places = () if moment.answering else places_to_score(heard.text, moment.lang)
        if not (places or moment.answering or _names_a_card(heard.text, moment)):
            places = garbled_place_ways(heard.text, moment.lang)
        extras = extra_phrases(moment.lang, moment.answering)
        phrases = tuple(dict.fromkeys((*moment.scored_cards, *extras)))
        starts = _lead_starts(self._tokenizer, transcript.tokens)
        leads: list[list[int]] = [[], *(transcript.tokens[:start] for start in starts)]
        leads += [self._name_tokens(name) for name in moment.names]  # "Host, cherry" with "Host" lost
        # Whisper writes a lone word capitalized ("Televisão"), and lowercase after a lead-in. A card after
        # a lead-in is scored with the lead-in (its joint probability), so that every reading competes fairly.
        pairs = [(sot, [*lead, *self._card_tokens(phrase, capital=not lead)]) for lead in leads for phrase in phrases]
        card_pairs = len(pairs)
        # a place alone and after the same lead-ins as a card ("I think it's C2"): scored the way names are
        around = leads_before_a_place(leads, self._tokenizer.decode, moment.lang) if places else []
        pairs += [(sot, [*lead, *self._place_tokens(phrase, capital=not lead)]) for lead in around for phrase in places]
        pairs.append((sot, [*transcript.tokens, self._eot]))
        scores = scoring.score(pairs)
        logprobs = [max(scores[i : card_pairs : len(phrases)]) for i in range(len(phrases))]
        priors = self._priors_of(moment.lang, frames, sot, (*phrases, *places))
        self._prepare_ahead(moment.lang, sot, (*phrases, *places))
        closed = _ranked(phrases, logprobs, priors[: len(phrases)])
        place_scores = scores[card_pairs:-1]
        place_logprobs = [max(place_scores[i :: len(places)]) for i in range(len(places))]
        placed = _ranked(places, place_logprobs, priors[len(phrases) :]) if places else None
        return replace(heard, transcript_logprob=scores[-1], closed=closed, places=placed)

    def _second_signal(self, heard: Heard, encoded: Any, audio: Audio, moment: Moment) -> Heard:
        """Beside the cards' scores, the cards found by their sounds (`voicehost.ears.examples`: aligned
        with examples said by the host's own voices) and how noisy the room was (`conditions.snr_db`)."""
        if heard.closed is None or moment.answering or not moment.cards:
            return heard
        started = time.perf_counter()
        made = self._board_examples(moment.lang, moment.cards)  # made now only if the board is new to it
        ready = time.perf_counter()
        examples = by_example(self._states_of(encoded, audio), made, moment.cards)
        done = time.perf_counter()
        timings = (*heard.timings, ("examples made", (ready - started) * 1000), ("examples", (done - ready) * 1000))
        return replace(heard, examples=examples, snr_db=snr_db(audio), timings=timings)

    def prepare(self, moment: Moment, *, wait: bool = False) -> None:
        """Make the examples of the board's cards (the second signal's, said by the host's voices) when
        they are not made yet, in the background unless `wait`: the ears ask it when they start listening
        to a board (dealt or resumed) and after each move (a new game), and the recognizer on each utterance
        of a board, so that the board's first guess does not wait for them."""
        cards = moment.board
        if not cards:
            return
        if wait:
            self._examples.prepare(moment.lang, cards)
        else:
            self._examples.prepare_in_background(moment.lang, cards)

    def _board_examples(self, lang: Lang, cards: tuple[str, ...]) -> list[Example]:
        """The examples of the board's cards. Missing ones are made, or waited for while the background
        makes them, with `_computing` let go: they are encoded under it (`_encode_examples`), by whichever
        thread makes them, and the priors ahead may go meanwhile (their time is not this utterance's)."""
        if not self._examples.missing(lang, cards):
            return self._examples.examples(lang, cards)
        priors_ms = self._priors_ms
        self._computing.release()
        try:
            return self._examples.examples(lang, cards)
        finally:
            self._computing.acquire()
            self._priors_ms = priors_ms

    def _encode_examples(self, clips: Sequence[Audio]) -> list[Any]:
        """Each clip's encoder states, as `_encode` computes them, clips of the same window in one batch;
        each batch under `_computing` (an utterance waits for one batch at most)."""
        import ctranslate2

        windows = [self._window(len(clip)) for clip in clips]
        states: list[Any] = [None] * len(clips)
        for frames in sorted(set(windows)):
            chosen = [i for i, window in enumerate(windows) if window == frames]
            for start in range(0, len(chosen), EXAMPLE_BATCH):
                batch = chosen[start : start + EXAMPLE_BATCH]
                with self._computing:
                    if self._stopping:  # the process is ending: this thread ends here, quietly (see `_stop_ahead`)
                        raise SystemExit
                    features = np.stack([self._features(clips[i], frames) for i in batch]).astype(np.float32)
                    storage = ctranslate2.StorageView.from_array(np.ascontiguousarray(features))
                    encoded = np.asarray(self._model.model.encode(storage, to_cpu=True), dtype=np.float32)
                for row, i in enumerate(batch):
                    states[i] = encoded[row].reshape(-1, self._tree.width)
        return states

    def _states_of(self, encoded: Any, audio: Audio) -> Any:
        first, last = speech_span(audio)
        return np.asarray(encoded, dtype=np.float32).reshape(-1, self._tree.width)[first:last]

    def _name_readings(self, sot: list[int], text: str, names: tuple[str, ...]) -> NameReadings:
        """The readings of an utterance with one of the host's names said first (see `_name_gain`)."""
        words = text.split()
        pairs = [(sot, [*_tokens(self._tokenizer, text), self._eot])]
        replaced: list[int] = []  # how many of the transcript's first words each reading puts the name in place of
        for dropped in range(min(NAME_REPLACES, len(words) - 1) + 1):
            rest = " ".join(words[dropped:])
            rest = rest[:1].lower() + rest[1:]
            pairs += [(sot, [*self._name_tokens(name), *_tokens(self._tokenizer, rest), self._eot]) for name in names]
            replaced += [dropped] * len(names)
        return NameReadings(pairs, replaced)

    @staticmethod
    def _name_gain(scoring: Scoring, readings: NameReadings) -> tuple[float, int]:
        """How much better the audio is explained with one of the host's names said first than by the
        transcript alone: a short name said before a move ("Host, cherry") is often left out of the
        transcript or garbled ("Inscitaria, guindaste"), yet the decoder still hears it. The readings
        tried put the name before the transcript, or in place of its first one or two words; the best
        one's gain, and how many words it replaced. The decision weighs it (`voicehost.decision`)."""
        scores = scoring.score(readings.pairs)
        best = max(range(1, len(scores)), key=scores.__getitem__)
        return scores[best] - scores[0], readings.replaced[best - 1]

    def _name_tokens(self, name: str) -> list[int]:
        return list(_tokens(self._tokenizer, f"{name[:1].upper()}{name[1:]},"))

    def _clue_numbers(
        self, scoring: Scoring, sot: list[int], transcript: Transcript, heard: Heard, lang: Lang
    ) -> Heard:
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
        scores = scoring.score(pairs)
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

    def _commands(
        self, scoring: Scoring, sot: list[int], transcript: Transcript, heard: Heard, moment: Moment
    ) -> Heard:
        """Where only a few commands make sense (`phrases_scored`: "stop" while the host talks, "new game"
        or "quit" once the game is over), their phrases are scored as transcripts beside the free
        transcript's own score: a short command is what Whisper hears worst ("para" comes out "pátor",
        "sair do jogo" "Sai no dujogo"). `voicehost.decision` weighs them (`stops`, `endings`); the endings
        per token, so that a short phrase does not beat a long transcript by its length alone. Once the game
        is over each phrase is also scored after the host's name, as the cards are, and after the name as the
        transcript writes it: "apresentador, sair do jogo", transcribed "apresentador, saíram do jogo.", was 3
        nats a token from "sair do jogo" alone."""
        phrases = phrases_scored(moment)
        if not phrases or not transcript.tokens:
            return heard
        leads = [[]] if moment.over_host else self._leads(moment, self._spoken_name(transcript.tokens, moment))
        pairs = [(sot, [*lead, *self._card_tokens(phrase, capital=not lead)]) for phrase in phrases for lead in leads]
        pairs.append((sot, [*transcript.tokens, self._eot]))
        scores = scoring.score(pairs)
        if not moment.over_host:  # "sai" against a long garbled transcript: compared per token, not in total
            scores = [score / len(tokens) for score, (_, tokens) in zip(scores, pairs, strict=True)]
        scores = [max(scores[i * len(leads) : (i + 1) * len(leads)]) for i in range(len(phrases))] + [scores[-1]]
        order = sorted(range(len(phrases)), key=lambda i: -scores[i])
        logprobs = tuple(scores[i] for i in order)
        commands = ClosedSet(tuple(phrases[i] for i in order), logprobs, logprobs, (1.0,) * len(order))
        return replace(heard, commands=commands, transcript_logprob=scores[-1])

    def _undo(self, scoring: Scoring, sot: list[int], transcript: Transcript, heard: Heard, moment: Moment) -> Heard:
        """While a clue is awaited after a move "undo" takes back (a card revealed wrongly ends the turn, and
        the next clue is awaited at once), every way of saying "undo" is scored as what was said after the
        host's name (or without it): MBROLA pt1's "apresentador, desfaz" comes out "apresentador deste faço.",
        which no reading of the words takes for an undo (`voicehost.decision.undo`). Both it and the free
        transcript are weighed per token of what follows the name, never of the name itself: the name's
        well-heard tokens would bring any short line after it near an undo ("Conduttore città")."""
        phrases = tuple(phrase for phrase in command_phrases(moment.lang, Command.UNDO) if phrase.strip())
        if not phrases or not transcript.tokens:
            return heard
        spoken = self._spoken_name(transcript.tokens, moment)
        leads = self._leads(moment, spoken)
        said = spoken[0] if spoken else []  # the name as the transcript writes it: the free transcript's lead
        pairs = [([*sot, *lead], self._card_tokens(phrase, capital=not lead)) for phrase in phrases for lead in leads]
        pairs.append(([*sot, *said], [*transcript.tokens[len(said) :], self._eot]))
        scores = [score / len(tokens) for score, (_, tokens) in zip(scoring.score(pairs), pairs, strict=True)]
        each = [max(scores[i * len(leads) : (i + 1) * len(leads)]) for i in range(len(phrases))]
        best = max(range(len(phrases)), key=each.__getitem__)
        return replace(heard, undo=(phrases[best], scores[-1] - each[best]))

    def _leads(self, moment: Moment, spoken: list[list[int]]) -> list[list[int]]:
        """What a command phrase is scored after: nothing, the host's name as the host knows it, and the name as
        the transcript writes it (`spoken`, from `_spoken_name`)."""
        return [[], *(self._name_tokens(name) for name in moment.names), *spoken]

    def _spoken_name(self, tokens: list[int], moment: Moment) -> list[list[int]]:
        """The transcript's first words when they are the host's name ("apresentador,"), as a lead; else none."""
        for start in _word_starts(self._tokenizer, tokens)[1 : MAX_LEADS + 1]:
            if is_host_name(self._tokenizer.decode(tokens[:start]), moment.lang, moment.host_names):
                return [tokens[:start]]
        return []

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

    def _number_tails(self, lang: Lang) -> list[tuple[int | None, list[int]]]:
        """Every way a clue's number may follow its word in a transcript ("Música, três." or "Música 3."),
        kept per language (on the recognizer: a cache on the method kept every recognizer alive)."""
        if lang not in self._tails:
            written = [*spoken_numbers(lang), *((str(value), value) for value in range(10))]
            tails: list[tuple[int | None, list[int]]] = []
            for phrase, value in written:
                tokens = list(_tokens(self._tokenizer, phrase))
                tails += [(value, [self._comma, *tokens, self._period]), (value, [*tokens, self._period])]
            self._tails[lang] = tails
        return self._tails[lang]

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
        missing = [phrase for phrase in dict.fromkeys(phrases) if (lang.value, frames, phrase) not in self._priors]
        if missing:
            started = time.perf_counter()
            scores = self._tree.score(self._silence(frames), [(sot, self._card_tokens(p)) for p in missing])
            self._priors_ms += (time.perf_counter() - started) * 1000
            for phrase, score in zip(missing, scores, strict=True):
                self._priors[(lang.value, frames, phrase)] = score
            while len(self._priors) > MAX_PRIORS:
                self._priors.pop(next(iter(self._priors)))
        return [self._priors[(lang.value, frames, phrase)] for phrase in phrases]

    def _prepare_ahead(self, lang: Lang, sot: list[int], phrases: tuple[str, ...]) -> None:
        """A new board's phrases lack priors for the other lengths an utterance may have: they are computed
        in the background (`_prepare`), so that only its first move pays for them, not the first of each
        length (some moves in six in a game)."""
        if all((lang.value, frames, p) in self._priors for frames in AHEAD_FRAMES for p in phrases):
            return
        with self._ahead_lock:
            if (lang, sot, phrases) in self._ahead:
                return
            self._ahead.append((lang, sot, phrases))
            if self._preparing is None:
                self._preparing = threading.Thread(target=self._prepare, name="voicehost-priors", daemon=True)
                self._preparing.start()

    def _stop_ahead(self) -> None:
        """No more priors ahead nor examples encoded, and none being computed once this returns (the process
        is ending)."""
        self._stopping = True
        with self._computing:
            pass

    def _prepare(self) -> None:
        """The priors asked for ahead, one length at a time, between utterances (an utterance that comes
        meanwhile waits for the length being computed, a tenth of a second). A thread that ends when
        there is nothing left."""
        while True:
            with self._ahead_lock:
                if not self._ahead:
                    self._preparing = None
                    return
                lang, sot, phrases = self._ahead[0]
            for frames in AHEAD_FRAMES:
                time.sleep(AHEAD_PAUSE_SECONDS)  # an utterance that was waiting goes first
                with self._computing, one_blas_thread():
                    if self._stopping:
                        return
                    self._priors_of(lang, frames, sot, phrases)
            return_freed_memory()
            with self._ahead_lock:
                self._ahead.pop(0)

    def _silence(self, frames: int) -> Memory:
        """The decoder's view of silence `frames` long, kept for the window lengths heard lately: the priors
        of a new board's cards then cost no pass of the encoder."""
        if frames not in self._silences:
            silence, _ = self._encode(np.zeros(frames * 160 - MARGIN_FRAMES * 160, dtype=np.float32))
            self._silences[frames] = np.asarray(silence, dtype=np.float32)
            while len(self._silences) > MAX_SILENCES:
                self._silences.pop(next(iter(self._silences)))
        return self._tree.memory(self._silences[frames])


def _stop_ahead(recognizer: weakref.ref[WhisperRecognizer]) -> None:
    """At exit: a recognizer still there computes no more priors ahead (a weak reference: it keeps none alive)."""
    alive = recognizer()
    if alive is not None:
        alive._stop_ahead()


def _names_a_card(text: str, moment: Moment) -> bool:
    """Whether the transcript, read as typed, names a card that may be meant (then a garbled place is not
    worth scoring): a cost gate, not a verdict."""
    said = Reading(text, moment).named
    return isinstance(said, HeardGuess) and said.action is Action.ACCEPT


def leads_before_a_place(
    leads: Sequence[list[int]], text_of: Callable[[list[int]], str], lang: Lang
) -> list[list[int]]:
    """The readings of the transcript's first words a place may follow: none (the place alone), and those
    with nothing like a place in them (`places_to_score`: "I think it's", not "Linha 2 coluna", which cuts
    the place's own words and would be "linha dois coluna três" said inside itself)."""
    return [lead for lead in leads if not lead or not places_to_score(text_of(lead), lang)]


def phrases_scored(moment: Moment) -> tuple[str, ...]:
    """The command phrases scored alone: over the host's voice the one-word stop phrases; once the game
    is over, every way of saying "new game" and "quit"."""
    if moment.over_host:
        return tuple(p for p in command_phrases(moment.lang, Command.STOP_TALKING) if len(p.split()) == 1)
    return ending_phrases(moment.lang)


def extra_phrases(lang: Lang, answering: bool) -> tuple[str, ...]:
    """Scored with the cards: after a question "yes" and "no" (a free transcript of a lone "sì" is often
    "C"), otherwise "pass" (a lone "pass" is often transcribed as something else), a pass's commonest few
    words ("we're done") and the read-only commands as the help teaches them; from the vocabulary."""
    vocab = vocabulary(lang)
    if answering:
        return (vocab.scored_words[Command.YES], vocab.scored_words[Command.NO])
    return (vocab.scored_words[Command.PASS], *vocab.scored_commands)


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


def _ranked(phrases: tuple[str, ...], logprobs: list[float], priors: list[float]) -> ClosedSet:
    """Scored phrases as evidence: each one's score less its prior, and its share of the belief."""
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


Pairs = list[tuple[list[int], list[int]]]


@dataclass(frozen=True)
class NameReadings:
    """The transcript alone, then each reading with a host's name first, and how many words each replaced."""

    pairs: Pairs
    replaced: list[int]


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
    return " ".join(_without_echo(words))


ECHO_MIN_LETTERS: Final = 3
ECHO_EDITS_PER_LETTER: Final = 0.2


def _without_echo(words: list[str]) -> list[str]:
    """ "Conduttore elicottero Conduttone el" -> "Conduttore elicottero": the repeat a short window makes
    is often not exact (a letter changed, cut short), so the tail that spells the start again, within a
    slip per five letters, is dropped. A tail with a digit is never an echo ("tomate tomate 3")."""
    for cut in range(1, len(words)):
        head, tail = "".join(map(_bare, words[:cut])), "".join(map(_bare, words[cut:]))
        if len(tail) < ECHO_MIN_LETTERS or not head or any(ch.isdigit() for ch in tail):
            continue
        again = head * (len(tail) // len(head) + 2)
        spelled = min(Levenshtein.distance(tail, again[:size]) for size in range(len(tail) - 2, len(tail) + 3))
        if spelled <= int(len(tail) * ECHO_EDITS_PER_LETTER):
            return words[:cut]
    return words


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
def _tokens(tokenizer: Any, text: str) -> tuple[int, ...]:
    """A phrase's tokens after a space, as the tree decoder scores it: the same phrases come back every
    utterance (the cards, their lead-ins, the numbers), so each is tokenized once."""
    return tuple(tokenizer.encode(" " + text, add_special_tokens=False).ids)
