"""faster-whisper as a closed-vocabulary recognizer where the phase allows it.

Short single words are Whisper's weak spot, and a prompt full of card names makes it "hear"
cards nobody said. So while guessing, the cards are scored as candidate transcripts instead:
the audio is encoded once, over a window just longer than the utterance (not the usual 30 s:
ten times cheaper), and each card's tokens are forced through the decoder in one batched call
per prefix (alone, and after the transcript's lead-in); the per-token log-probabilities it
returns give log P(card | audio). A prior (the same score against silence) is subtracted so
that short, common words do not win by default. A free greedy transcript is decoded too:
commands and yes/no go through it, a card is acted on at once only when the transcript agrees
or the card is clearly ahead, explains the audio and the transcript resembles it. A clue's word
is taken as transcribed and its number chosen among the ways of saying one; while the host
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
from voicehost.ears.context import Context
from voicehost.ears.heard import Heard
from voicehost.speech_models import ModelError, reinstall_advice
from voicehost.understanding import (
    Action,
    Command,
    HeardClue,
    HeardCommand,
    HeardGuess,
    Intent,
    command_phrases,
    match_card,
    normalize,
    spoken_numbers,
    understand,
)
from voicehost.understanding import Phase as Listening

FRAME_STEP: Final = 100
"""Encoder windows are multiples of 1 s (100 mel frames), so the silence prior can be cached."""
MIN_FRAMES: Final = 200
MARGIN_FRAMES: Final = 100
PRIOR_WEIGHT: Final = 0.5
"""How much of the card's score against silence is subtracted (tuned on synthetic speech)."""
TRUST_POSTERIOR: Final = 0.5
"""Below this share of the probability mass, the best card is not proposed at all."""
AGREEMENT_CONFIDENCE: Final = 0.95
"""Confidence when the free transcript and the card scores name the same card."""
UNCONFIRMED_CONFIDENCE: Final = 0.45
"""Confidence when only the card scores name the card: below LOW_ASR_CONFIDENCE, so the host asks."""
NONE_GAP: Final = 4.0
"""The card must explain the audio almost as well as the free transcript does (in nats): the shares
are relative to the cards, so "terminar" can make OCEANO the best card by far; this is the
none-of-the-above check."""
MAX_TOKENS: Final = 40
ANSWERS: Final = {"pt": ("sim", "não"), "it": ("sì", "no"), "en": ("yes", "no")}
"""Scored with the offered cards after a question: a free transcript of a lone "sì" is often "C"."""
PASSING: Final = {"pt": ("passo",), "it": ("passo",), "en": ("pass",)}
"""Scored with the cards while guessing: a lone "pass" is often transcribed as something else."""
COMMAND_MARGIN: Final = 2.0
"""How much (in nats) "pass" must beat the best card by to be taken for it."""
TRUST_COMMAND: Final = 0.9
TRUST_SCORES: Final = 0.98
"""Without the transcript's agreement, the card scores alone are trusted from this share (tuned on
synthetic speech: 1 wrong in 100 at 0.98, 3 at 0.95; below it the host asks back)."""
RESEMBLANCE: Final = 70.0
"""Without the transcript's agreement, the card scores alone reveal a card only when the free transcript
at least resembles it (`match_card`'s score, 0..100). Tuned on the bench's dev corpus (4 languages, clean
and 10 dB, about 800 card utterances): at 60, "colher" transcribed "Tu não" revealed TÚNEL (0.99 of the
scores); from 67 on, no wrong reveal, and about a third of the at-once reveals become questions."""
BASE_TOKENS: Final = 8
TOKENS_PER_SECOND: Final = 8
"""The transcript's length cap grows with the utterance: short windows make Whisper loop."""
SHORTLIST: Final = 25
"""Cards forced through the decoder per prefix: a 5x5 board is scored whole; larger sets are cut to
the cards whose first token is likeliest."""
MAX_LEAD_TOKENS: Final = 16
MAX_PRIORS: Final = 4096
STOP_GAP: Final = 2.0
"""While the host talks, a stop phrase is taken when it explains the audio within this many nats of
the free transcript: tighter than NONE_GAP, since the host's own echo is heard there all the time."""
NUMBER_FLOOR: Final = 0.5
"""When the transcript has no number of its own, one of the scored numbers must have this share of
the belief for the utterance to be taken for a clue at all ("ripeti" is not a clue for 7)."""
NUMBER_SHORTLIST: Final = 8
"""Ways of saying a clue's number forced through the decoder in full, out of about 70."""
NUMBER_UNLIMITED: Final = {"pt": "ilimitado", "it": "senza limiti", "en": "unlimited", "ko": "unlimited"}
"""How a clue heard as unlimited is written for the understanding module."""
WHISPER_LANGS: Final = {"pt": "pt", "it": "it", "en": "en", "ko": "ko"}


class WhisperRecognizer:
    """Recognizes one utterance at a time; see the module docstring for how guesses are scored."""

    def __init__(self, model_dir: Path, *, threads: int | None = None, compute_type: str = "int8") -> None:
        try:
            from faster_whisper import WhisperModel
        except ImportError:
            raise ModelError("the whisper engine needs faster-whisper: pip install 'voicehost[whisper]'") from None
        _check_model_files(model_dir)
        try:
            self._model: Any = WhisperModel(
                str(model_dir), device="cpu", compute_type=compute_type, cpu_threads=threads or os.cpu_count() or 2
            )
        except Exception as exc:  # the tokenizers library raises a bare Exception on a bad tokenizer.json
            raise _broken_model(model_dir, f"cannot be loaded ({exc})") from None
        self._tokenizer: Any = self._model.hf_tokenizer
        self._vocab = int((self._model.model.is_multilingual and 51865) or 51864)
        specials = ("<|startoftranscript|>", "<|transcribe|>", "<|notimestamps|>")
        self._sot, self._transcribe_token, self._no_timestamps = (self._tokenizer.token_to_id(t) for t in specials)
        period = self._tokenizer.encode(".", add_special_tokens=False).ids
        if None in (self._sot, self._transcribe_token, self._no_timestamps) or not period:
            raise _broken_model(model_dir, "has a tokenizer.json that is not Whisper's")
        self._period = period[0]
        self._comma = self._tokenizer.encode(",", add_special_tokens=False).ids[0]
        self._priors: dict[tuple[str, int, str], float] = {}
        self._tails: dict[str, list[tuple[int | None, list[int]]]] = {}
        self.last_raw: dict[str, float] = {}  # the last utterance's card scores, before the prior
        self.last_adjusted: dict[str, float] = {}  # and after it
        self.last_transcript: tuple[str, float] = ("", 0.0)  # the free transcript and its log-probability

    # ---- the interface ---------------------------------------------------------------------

    def recognize(self, audio: Audio, context: Context) -> Heard:
        started = time.perf_counter()
        encoded, frames = self._encode(audio)
        sot = self._sot_sequence(context.lang)
        max_tokens = min(MAX_TOKENS, BASE_TOKENS + int(TOKENS_PER_SECOND * len(audio) / SAMPLE_RATE))
        transcript = self._transcribe(encoded, sot, max_tokens)
        text = collapse_repeats(transcript.text)
        self.last_transcript = (text, transcript.logprob)
        confidence = transcript.confidence if text else 0.0
        if context.over_host or not context.guessing:
            listen = self._stop if context.over_host else self._clue
            found = listen(encoded, sot, transcript, text, context.lang)
            return replace(found or Heard(text, confidence), decode_ms=_ms(started))
        if not (context.cards or context.answering):
            return Heard(text, confidence, _ms(started))
        heard = understand(text, phase=Listening.GUESS, cards=context.cards, lang=context.lang)
        answer = isinstance(heard, HeardCommand) and heard.command in (Command.YES, Command.NO)
        said_other = heard.intent in (Intent.COMMAND, Intent.CLUE) and heard.action is not Action.REPROMPT
        if said_other and not (answer and context.answering):
            return Heard(text, confidence, _ms(started))
        ranked = self._rank_cards(encoded, frames, sot, transcript, context)
        best, best_share = ranked[0]
        alternatives = tuple(ranked[:3])
        if best not in context.cards:  # "yes", "no" or "pass" beat the cards
            scored = understand(best, phase=Listening.GUESS, cards=(), lang=context.lang)
            agrees = (
                isinstance(heard, HeardCommand) and isinstance(scored, HeardCommand) and scored.command is heard.command
            )
            if agrees:
                return Heard(best, max(best_share, AGREEMENT_CONFIDENCE), _ms(started), alternatives)
            if best_share < TRUST_COMMAND:
                return Heard(text, min(confidence, best_share), _ms(started), alternatives)
            if context.answering:
                return Heard(best, best_share, _ms(started), alternatives)
            # "pass" on the scores alone would end a turn nobody ended ("repete" scores as "passo"): ask first
            return Heard(best, min(best_share, UNCONFIRMED_CONFIDENCE), _ms(started), alternatives)
        if isinstance(heard, HeardGuess) and heard.card == best and heard.action is Action.ACCEPT:
            # the free transcript and the closed-set scores name the same card: act at once
            return Heard(text, max(confidence, AGREEMENT_CONFIDENCE), _ms(started), alternatives)
        if best_share < TRUST_POSTERIOR:
            return Heard(text, min(confidence, best_share), _ms(started), alternatives)
        explains = transcript.logprob - self.last_raw.get(best, -math.inf) <= NONE_GAP
        resembles = any(
            c.card == best and c.score >= RESEMBLANCE for c in match_card(text, context.cards, context.lang)
        )
        if best_share >= TRUST_SCORES and explains and resembles:
            return Heard(best.lower(), best_share, _ms(started), alternatives)
        # only the card scores point at it, not clearly: the host asks back before revealing anything
        return Heard(best.lower(), min(best_share, UNCONFIRMED_CONFIDENCE), _ms(started), alternatives)

    def _clue(self, encoded: Any, sot: list[int], transcript: Transcript, text: str, lang: Lang) -> Heard | None:
        """A clue is any word and then a number from a small closed set: the word is taken as
        transcribed, and the number is chosen by scoring every way of saying one after it (a free
        transcript of "città, due" is often "città tu e"). The confidence is the lower of the word's
        own token probability and the winning number's share, so a doubtful word is still asked back.
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
        tails = self._number_shortlist(encoded, prefix, self._number_tails(lang))
        forced = self._score(encoded, [(prefix, tokens) for _, tokens in tails])
        by_value: dict[int | None, float] = {}
        for (value, _), score in zip(tails, forced, strict=True):
            by_value[value] = _logaddexp(by_value.get(value, -math.inf), score)
        top = max(by_value.values())
        total = sum(math.exp(score - top) for score in by_value.values())
        value, best = max(by_value.items(), key=lambda item: item[1])
        share = math.exp(best - top) / total
        word_logprob = _mean_logprob(transcript, word_end)
        rest = transcript.logprob - word_logprob * word_end
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
        return Heard(clue(value), min(math.exp(word_logprob), share), alternatives=alternatives)

    def _stop(self, encoded: Any, sot: list[int], transcript: Transcript, text: str, lang: Lang) -> Heard | None:
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
        scores = self._score(encoded, [(sot, self._card_tokens(phrase)) for phrase in phrases])
        best = max(range(len(phrases)), key=scores.__getitem__)
        if transcript.logprob - scores[best] <= STOP_GAP:
            return Heard(phrases[best], AGREEMENT_CONFIDENCE)
        return None

    def _clue_word_end(self, transcript: Transcript, heard: Any, lang: Lang) -> int:
        """How many of the transcript's tokens make the clue word: up to the number when one was
        understood, else the first word (a clue is one word; the rest is taken for a garbled number)."""
        tokens = transcript.tokens
        if heard.intent is Intent.CLUE and heard.clue is not None:
            wanted = normalize(heard.clue.word, lang)
            for end in range(1, len(tokens) + 1):
                if normalize(self._tokenizer.decode(tokens[:end]), lang).endswith(wanted):
                    return end
            return 0
        second = _word_starts(self._tokenizer, tokens)
        return second[1] if len(second) > 1 else len(tokens)

    def _number_tails(self, lang: Lang) -> list[tuple[int | None, list[int]]]:
        """Every way a clue's number may follow its word in a transcript ("Música, três." or "Música 3."),
        tokenized once per language."""
        if lang.value not in self._tails:
            written = [*spoken_numbers(lang), *((str(value), value) for value in range(10))]
            tails = []
            for phrase, value in written:
                tokens = list(_tokens(self._tokenizer, phrase))
                tails += [(value, [self._comma, *tokens, self._period]), (value, [*tokens, self._period])]
            self._tails[lang.value] = tails
        return self._tails[lang.value]

    def _number_shortlist(
        self, encoded: Any, prefix: list[int], tails: list[tuple[int | None, list[int]]]
    ) -> list[tuple[int | None, list[int]]]:
        """The tails whose first word is likeliest after the clue word, with or without a comma: one
        decoder row gives both distributions, so only a few tails are forced through in full."""
        rows = self._rows(encoded, [*prefix, self._comma])
        after_word, after_comma = (row - _logsumexp(row) for row in rows[-2:])

        def first_word(tokens: list[int]) -> float:
            if tokens[0] == self._comma:
                return float(after_word[self._comma] + after_comma[tokens[1]])
            return float(after_word[tokens[0]])

        return sorted(tails, key=lambda tail: first_word(tail[1]), reverse=True)[:NUMBER_SHORTLIST]

    def _rows(self, encoded: Any, prompt: list[int]) -> np.ndarray:
        """The decoder's logits at each forced position after the start tokens, and after the prompt."""
        result = self._model.model.generate(
            encoded,
            [prompt],
            beam_size=1,
            max_length=2 * (len(prompt) - 3) + 1,  # as in _score: enough for a row after the prompt's last token
            return_logits_vocab=True,
            suppress_blank=False,
            suppress_tokens=[],
        )[0]
        return np.asarray(result.logits[0], dtype=np.float32).reshape(-1, self._vocab)[: len(prompt) - 3]

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
        """Greedy, with the per-step distributions kept: they shortlist the cards for free."""
        result = self._model.model.generate(
            encoded,
            [sot],
            beam_size=1,
            max_length=max_tokens,
            return_scores=True,
            return_logits_vocab=True,
            repetition_penalty=1.1,
            no_repeat_ngram_size=3,
        )[0]
        tokens = list(result.sequences_ids[0])
        text = self._tokenizer.decode(tokens).strip()
        score = float(result.scores[0]) if result.scores else -10.0
        rows = [np.asarray(row, dtype=np.float32).reshape(-1) for row in (result.logits[0] if result.logits else [])]
        return Transcript(text, score * (len(tokens) + 1), tokens, rows)

    def _rank_cards(
        self, encoded: Any, frames: int, sot: list[int], transcript: Transcript, context: Context
    ) -> list[tuple[str, float]]:
        """The cards as candidate transcripts, most likely first, with their share of the belief.

        Forcing every card through the decoder costs one decoder pass per card (CTranslate2 projects
        the audio again for every row of a batch), so the cards are first shortlisted by how likely
        their first token is at the start, or after what was said before the last word ("I think
        it's the ..."), from the distributions the greedy transcript already computed."""
        cards = tuple(context.cards)
        prefixes: list[tuple[list[int], np.ndarray | None]] = [([], transcript.rows[0] if transcript.rows else None)]
        lead = _last_word_start(self._tokenizer, transcript.tokens)
        if 0 < lead <= MAX_LEAD_TOKENS:
            row = transcript.rows[lead] if lead < len(transcript.rows) else None
            prefixes.append((transcript.tokens[:lead], row))
        shortlist = self._shortlist(cards, [row for _, row in prefixes])
        extras = ANSWERS.get(context.lang.family, ()) if context.answering else PASSING.get(context.lang.family, ())
        shortlist += tuple(extra for extra in extras if extra not in shortlist)
        # Whisper writes a lone word capitalized ("Televisão"), and lowercase after a lead-in. One call
        # per prefix: a call pads every prompt to its longest, and the lone cards are short.
        scores = [-math.inf] * len(shortlist)
        for lead_tokens, _ in prefixes:
            pairs = [(sot + lead_tokens, self._card_tokens(card, capital=not lead_tokens)) for card in shortlist]
            scores = [max(a, b) for a, b in zip(scores, self._score(encoded, pairs), strict=True)]
        self.last_raw = dict(zip(shortlist, scores, strict=True))
        prior = self._prior(context.lang, frames, sot, shortlist)
        adjusted = [score - PRIOR_WEIGHT * base for score, base in zip(scores, prior, strict=True)]
        self.last_adjusted = dict(zip(shortlist, adjusted, strict=True))
        if not context.answering:
            # a command must beat the best card clearly: short words are likelier transcripts per se
            best_card = max(
                (value for name, value in zip(shortlist, adjusted, strict=True) if name in cards), default=-math.inf
            )
            keep = [
                name in cards or value > best_card + COMMAND_MARGIN
                for name, value in zip(shortlist, adjusted, strict=True)
            ]
            shortlist = tuple(name for name, kept in zip(shortlist, keep, strict=True) if kept)
            adjusted = [value for value, kept in zip(adjusted, keep, strict=True) if kept]
        top = max(adjusted)
        weights = [math.exp(value - top) for value in adjusted]
        total = sum(weights)
        return sorted(zip(shortlist, (w / total for w in weights), strict=True), key=lambda item: -item[1])

    def _shortlist(self, cards: tuple[str, ...], rows: list[np.ndarray | None]) -> tuple[str, ...]:
        """The cards whose first token is likeliest at the start (capitalized) or after the lead-in."""
        if len(cards) <= SHORTLIST:
            return cards
        best = [-math.inf] * len(cards)
        for position, row in enumerate(rows):
            if row is None or row.size != self._vocab:
                continue
            logprobs = row - _logsumexp(row)
            for index, card in enumerate(cards):
                token = self._card_tokens(card, capital=position == 0)[0]
                best[index] = max(best[index], float(logprobs[token]))
        order = sorted(range(len(cards)), key=lambda index: -best[index])
        return tuple(cards[index] for index in order[:SHORTLIST])

    def _card_tokens(self, card: str, *, capital: bool = True) -> list[int]:
        text = card.lower()
        if capital:
            text = text[:1].upper() + text[1:]
        return [*_tokens(self._tokenizer, text), self._period]

    def _prior(self, lang: Lang, frames: int, sot: list[int], cards: tuple[str, ...]) -> list[float]:
        """Each card's score against silence of the same length: how much the decoder likes it anyway.
        Cached per card, so a reveal (which changes the set of cards) costs nothing new."""
        missing = [card for card in cards if (lang.value, frames, card) not in self._priors]
        if missing:
            silence, _ = self._encode(np.zeros(frames * 160 - MARGIN_FRAMES * 160, dtype=np.float32))
            pairs = [(sot, self._card_tokens(card)) for card in missing]
            for card, score in zip(missing, self._score(silence, pairs), strict=True):
                self._priors[(lang.value, frames, card)] = score
            while len(self._priors) > MAX_PRIORS:
                self._priors.pop(next(iter(self._priors)))
        return [self._priors[(lang.value, frames, card)] for card in cards]

    def _score(self, encoded: Any, pairs: Sequence[tuple[list[int], list[int]]]) -> list[float]:
        """log P(candidate | audio, prefix) for each (prefix, candidate), in one decoder call.

        CTranslate2 returns the log-probabilities of every forced step when asked for the vocabulary
        logits. Prompts in one call must have the same length: shorter ones are padded at the end,
        which cannot change the earlier steps the score reads (the decoder is causal)."""
        import ctranslate2

        prompts = [prefix + tokens[:-1] for prefix, tokens in pairs]
        longest = max(len(prompt) for prompt in prompts)
        padded = [prompt + [self._period] * (longest - len(prompt)) for prompt in prompts]
        array = np.asarray(encoded)
        batch = ctranslate2.StorageView.from_array(np.ascontiguousarray(np.repeat(array, len(pairs), axis=0)))
        steps = longest - 3  # rows start after the <|notimestamps|> token
        results = self._model.model.generate(
            batch,
            padded,
            beam_size=1,
            max_length=2 * steps + 1,
            return_logits_vocab=True,
            suppress_blank=False,
            suppress_tokens=[],
        )
        totals: list[float] = []
        for (prefix, tokens), result in zip(pairs, results, strict=True):
            rows = np.asarray(result.logits[0], dtype=np.float32).reshape(-1, self._vocab)
            skip = len(prefix) - 4
            total = 0.0
            for step, token in enumerate(tokens):
                row = rows[min(skip + step, len(rows) - 1)]
                total += float(row[token] - _logsumexp(row))
            totals.append(total)
        return totals


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
    rows: list[np.ndarray]  # the decoder's logits before each token (and before the end)

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


def _last_word_start(tokenizer: Any, tokens: list[int]) -> int:
    """Index of the token that starts the transcript's last word (0 when there is one word)."""
    starts = _word_starts(tokenizer, tokens)
    return starts[-1] if starts else 0


def _mean_logprob(transcript: Transcript, end: int) -> float:
    """The average log-probability of the transcript's first `end` tokens, from its own rows."""
    total = 0.0
    for token, row in zip(transcript.tokens[:end], transcript.rows, strict=False):
        total += float(row[token] - _logsumexp(row))
    return total / max(1, min(end, len(transcript.rows)))


def _logaddexp(a: float, b: float) -> float:
    if a == -math.inf:
        return b
    top = max(a, b)
    return top + math.log(math.exp(a - top) + math.exp(b - top))


@lru_cache(maxsize=4096)
def _tokens(tokenizer: Any, text: str) -> tuple[int, ...]:
    return tuple(tokenizer.encode(" " + text, add_special_tokens=False).ids)


def _logsumexp(row: np.ndarray) -> float:
    top = float(row.max())
    return top + math.log(float(np.exp(row - top).sum()))


def _ms(started: float) -> float:
    return (time.perf_counter() - started) * 1000
