"""faster-whisper as a closed-vocabulary recognizer where the phase allows it.

Short single words are Whisper's weak spot, and a prompt full of card names makes it "hear"
cards nobody said. So while guessing, the cards are scored as candidate transcripts instead:
the audio is encoded once, over a window just longer than the utterance (not the usual 30 s:
ten times cheaper), and each card's tokens are forced through the decoder in one batched call
per token length; the per-token log-probabilities it returns give log P(card | audio). A prior
(the same score against silence) is subtracted so that short, common words do not win by
default. A free greedy transcript is decoded too: commands, yes/no and clues go through it,
and a card is only trusted when it is clearly ahead of the runner-up.
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Final

import numpy as np

from engine.lang import Lang
from voicehost.asr import SAMPLE_RATE, Audio, Context, Heard
from voicehost.models import ModelError
from voicehost.understanding import Action, Command, Intent, understand
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
TRUST_COMMAND: Final = 0.9
TRUST_SCORES: Final = 0.98
"""Without the transcript's agreement, the card scores alone are trusted from this share (tuned on
synthetic speech: 1 wrong in 100 at 0.98, 3 at 0.95; below it the host asks back)."""
BASE_TOKENS: Final = 8
TOKENS_PER_SECOND: Final = 8
"""The transcript's length cap grows with the utterance: short windows make Whisper loop."""
SHORTLIST: Final = 8
"""Cards forced through the decoder per prefix, chosen by their first token's likelihood."""
MAX_LEAD_TOKENS: Final = 16
MAX_PRIORS: Final = 4096
WHISPER_LANGS: Final = {"pt": "pt", "it": "it", "en": "en", "ko": "ko"}


class WhisperRecognizer:
    """Recognizes one utterance at a time; see the module docstring for how guesses are scored."""

    def __init__(self, model_dir: Path, *, threads: int | None = None, compute_type: str = "int8") -> None:
        try:
            from faster_whisper import WhisperModel
        except ImportError:
            raise ModelError("the whisper engine needs faster-whisper: pip install 'voicehost[whisper]'") from None
        if not (model_dir / "model.bin").exists():
            raise ModelError(f"{model_dir} holds no Whisper model: voicehost models install en --engine whisper")
        try:
            self._model: Any = WhisperModel(
                str(model_dir), device="cpu", compute_type=compute_type, cpu_threads=threads or os.cpu_count() or 2
            )
        except (RuntimeError, ValueError, OSError) as exc:
            raise ModelError(f"the Whisper model in {model_dir} cannot be loaded ({exc}): reinstall it") from None
        self._tokenizer: Any = self._model.hf_tokenizer
        self._vocab = int((self._model.model.is_multilingual and 51865) or 51864)
        self._sot = self._tokenizer.token_to_id("<|startoftranscript|>")
        self._transcribe_token = self._tokenizer.token_to_id("<|transcribe|>")
        self._no_timestamps = self._tokenizer.token_to_id("<|notimestamps|>")
        self._period = self._tokenizer.encode(".", add_special_tokens=False).ids[0]
        self._priors: dict[tuple[str, int, str], float] = {}
        self.last_raw: dict[str, float] = {}  # the last utterance's card scores, before the prior

    # ---- the interface ---------------------------------------------------------------------

    def recognize(self, audio: Audio, context: Context) -> Heard:
        started = time.perf_counter()
        encoded, frames = self._encode(audio)
        sot = self._sot_sequence(context.lang)
        max_tokens = min(MAX_TOKENS, BASE_TOKENS + int(TOKENS_PER_SECOND * len(audio) / SAMPLE_RATE))
        transcript = self._transcribe(encoded, sot, max_tokens)
        text = collapse_repeats(transcript.text)
        confidence = math.exp(transcript.logprob / (len(transcript.tokens) + 1)) if text else 0.0
        if not context.guessing or not (context.cards or context.answering):
            return Heard(text, confidence, _ms(started))
        heard = understand(text, phase=Listening.GUESS, cards=context.cards, lang=context.lang)
        answer = heard.intent is Intent.COMMAND and heard.command in (Command.YES, Command.NO)
        said_other = heard.intent in (Intent.COMMAND, Intent.CLUE) and heard.action is not Action.REPROMPT
        if said_other and not (answer and context.answering):
            return Heard(text, confidence, _ms(started))
        ranked = self._rank_cards(encoded, frames, sot, transcript, context)
        best, best_share = ranked[0]
        alternatives = tuple(ranked[:3])
        if best not in context.cards:  # "yes" or "no" beat the offered cards
            agrees = (
                answer and understand(best, phase=Listening.GUESS, cards=(), lang=context.lang).command is heard.command
            )
            if agrees or best_share >= TRUST_COMMAND:
                return Heard(best, max(best_share, AGREEMENT_CONFIDENCE if agrees else 0.0), _ms(started), alternatives)
            return Heard(text, min(confidence, best_share), _ms(started), alternatives)
        if heard.card == best and heard.action is Action.ACCEPT:
            # the free transcript and the closed-set scores name the same card: act at once
            return Heard(text, max(confidence, AGREEMENT_CONFIDENCE), _ms(started), alternatives)
        if best_share < TRUST_POSTERIOR:
            return Heard(text, min(confidence, best_share), _ms(started), alternatives)
        explains = transcript.logprob - self.last_raw.get(best, -math.inf) <= NONE_GAP
        if best_share >= TRUST_SCORES and explains:
            return Heard(best.lower(), best_share, _ms(started), alternatives)
        # only the card scores point at it, not clearly: the host asks back before revealing anything
        return Heard(best.lower(), min(best_share, UNCONFIRMED_CONFIDENCE), _ms(started), alternatives)

    # ---- pieces ----------------------------------------------------------------------------

    def _sot_sequence(self, lang: Lang) -> list[int]:
        code = WHISPER_LANGS.get(lang.family, lang.family)
        return [self._sot, self._tokenizer.token_to_id(f"<|{code}|>"), self._transcribe_token, self._no_timestamps]

    def _encode(self, audio: Audio) -> tuple[Any, int]:
        import ctranslate2

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
        if context.answering:
            shortlist += ANSWERS.get(context.lang.family, ())
        candidates = [self._card_tokens(card) for card in shortlist]
        pairs = [(sot + lead_tokens, tokens) for lead_tokens, _ in prefixes for tokens in candidates]
        forced = self._score(encoded, pairs)
        scores = [max(forced[index :: len(candidates)]) for index in range(len(candidates))]
        self.last_raw = dict(zip(shortlist, scores, strict=True))
        prior = self._prior(context.lang, frames, sot, shortlist)
        adjusted = [score - PRIOR_WEIGHT * base for score, base in zip(scores, prior, strict=True)]
        top = max(adjusted)
        weights = [math.exp(value - top) for value in adjusted]
        total = sum(weights)
        return sorted(zip(shortlist, (w / total for w in weights), strict=True), key=lambda item: -item[1])

    def _shortlist(self, cards: tuple[str, ...], rows: list[np.ndarray | None]) -> tuple[str, ...]:
        usable = [row - _logsumexp(row) for row in rows if row is not None and row.size == self._vocab]
        if len(cards) <= SHORTLIST or not usable:
            return cards
        first = [self._card_tokens(card)[0] for card in cards]
        best = [max(float(row[token]) for row in usable) for token in first]
        order = sorted(range(len(cards)), key=lambda index: -best[index])
        return tuple(cards[index] for index in order[:SHORTLIST])

    def _card_tokens(self, card: str) -> list[int]:
        return [*list(_tokens(self._tokenizer, card)), self._period]

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


@dataclass(frozen=True)
class Transcript:
    text: str
    logprob: float  # of the whole transcript (CTranslate2 scores the per-token average)
    tokens: list[int]
    rows: list[np.ndarray]  # the decoder's logits before each token (and before the end)


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


def _last_word_start(tokenizer: Any, tokens: list[int]) -> int:
    """Index of the token that starts the transcript's last word (0 when there is one word)."""
    for index in range(len(tokens) - 1, 0, -1):
        piece = tokenizer.id_to_token(tokens[index]) or ""
        if piece.startswith("\u0120") and any(ch.isalnum() for ch in piece):
            return index
    return 0


@lru_cache(maxsize=4096)
def _tokens(tokenizer: Any, card: str) -> tuple[int, ...]:
    return tuple(tokenizer.encode(" " + card.lower(), add_special_tokens=False).ids)


def _logsumexp(row: np.ndarray) -> float:
    top = float(row.max())
    return top + math.log(float(np.exp(row - top).sum()))


def _ms(started: float) -> float:
    return (time.perf_counter() - started) * 1000
