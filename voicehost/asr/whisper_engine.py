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
from functools import lru_cache
from pathlib import Path
from typing import Any, Final

import numpy as np

from engine.lang import Lang
from voicehost.asr import Audio, Context, Heard
from voicehost.models import ModelError
from voicehost.understanding import Action, Intent, understand
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
DISAGREEMENT_CONFIDENCE: Final = 0.45
"""Confidence when they name different cards: the host asks back."""
MAX_TOKENS: Final = 40
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
        self._priors: dict[tuple[str, int, tuple[str, ...]], list[float]] = {}

    # ---- the interface ---------------------------------------------------------------------

    def recognize(self, audio: Audio, context: Context) -> Heard:
        started = time.perf_counter()
        encoded, frames = self._encode(audio)
        sot = self._sot_sequence(context.lang)
        text, logprob = self._transcribe(encoded, sot)
        confidence = math.exp(logprob) if text else 0.0
        if not context.guessing or not context.cards:
            return Heard(text, confidence, _ms(started))
        heard = understand(text, phase=Listening.GUESS, cards=context.cards, lang=context.lang)
        if heard.intent in (Intent.COMMAND, Intent.CLUE) and heard.action is not Action.REPROMPT:
            return Heard(text, confidence, _ms(started))
        ranked = self._rank_cards(encoded, frames, sot, text, context)
        best, best_share = ranked[0]
        alternatives = tuple(ranked[:3])
        if heard.card == best and heard.action is not Action.REPROMPT:
            return Heard(text, max(confidence, AGREEMENT_CONFIDENCE), _ms(started), alternatives)
        if best_share < TRUST_POSTERIOR:
            return Heard(text, min(confidence, best_share), _ms(started), alternatives)
        if heard.card is not None and heard.card != best:
            return Heard(best.lower(), DISAGREEMENT_CONFIDENCE, _ms(started), alternatives)
        return Heard(best.lower(), best_share, _ms(started), alternatives)

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

    def _transcribe(self, encoded: Any, sot: list[int]) -> tuple[str, float]:
        result = self._model.model.generate(
            encoded,
            [sot],
            beam_size=1,
            max_length=MAX_TOKENS,
            return_scores=True,
            repetition_penalty=1.1,
            no_repeat_ngram_size=3,
        )[0]
        tokens = result.sequences_ids[0]
        text = self._tokenizer.decode(tokens).strip()
        score = float(result.scores[0]) if result.scores else -10.0
        return text, score

    def _rank_cards(
        self, encoded: Any, frames: int, sot: list[int], text: str, context: Context
    ) -> list[tuple[str, float]]:
        cards = tuple(context.cards)
        candidates = [self._card_tokens(card) for card in cards]
        scores = self._score(encoded, sot, candidates)
        words = text.split()
        if len(words) > 1:  # "eu acho que é X": also score the card after what was said before it
            lead = self._tokenizer.encode(" " + " ".join(words[:-1]), add_special_tokens=False).ids
            after_lead = self._score(encoded, sot + lead, candidates)
            scores = [max(a, b) for a, b in zip(scores, after_lead, strict=True)]
        prior = self._prior(context.lang, frames, sot, cards, candidates)
        adjusted = [score - PRIOR_WEIGHT * base for score, base in zip(scores, prior, strict=True)]
        top = max(adjusted)
        weights = [math.exp(value - top) for value in adjusted]
        total = sum(weights)
        ranked = sorted(zip(cards, (w / total for w in weights), strict=True), key=lambda item: -item[1])
        return ranked

    def _card_tokens(self, card: str) -> list[int]:
        return [*list(_tokens(self._tokenizer, card)), self._period]

    def _prior(
        self, lang: Lang, frames: int, sot: list[int], cards: tuple[str, ...], candidates: list[list[int]]
    ) -> list[float]:
        key = (lang.value, frames, cards)
        if key not in self._priors:
            silence, _ = self._encode(np.zeros(frames * 160 - MARGIN_FRAMES * 160, dtype=np.float32))
            self._priors[key] = self._score(silence, sot, candidates)
            if len(self._priors) > 64:
                self._priors.pop(next(iter(self._priors)))
        return self._priors[key]

    def _score(self, encoded: Any, prefix: list[int], candidates: Sequence[list[int]]) -> list[float]:
        """log P(candidate | audio, prefix) for each candidate, forcing its tokens through the decoder.

        CTranslate2 returns the log-probabilities of every forced step when asked for the
        vocabulary logits; prompts in one call must have the same length, hence the groups."""
        import ctranslate2

        array = np.asarray(encoded)
        groups: dict[int, list[int]] = {}
        for index, tokens in enumerate(candidates):
            groups.setdefault(len(tokens), []).append(index)
        totals = [0.0] * len(candidates)
        skip = len(prefix) - 4  # rows start after the <|notimestamps|> token
        for length, members in groups.items():
            prompts = [prefix + candidates[index][:-1] for index in members]
            batch = ctranslate2.StorageView.from_array(np.ascontiguousarray(np.repeat(array, len(members), axis=0)))
            steps = skip + length
            results = self._model.model.generate(
                batch,
                prompts,
                beam_size=1,
                max_length=2 * steps + 1,
                return_logits_vocab=True,
                suppress_blank=False,
                suppress_tokens=[],
            )
            for index, result in zip(members, results, strict=True):
                rows = np.asarray(result.logits[0], dtype=np.float32).reshape(-1, self._vocab)
                tokens = candidates[index]
                total = 0.0
                for step, token in enumerate(tokens):
                    row = rows[skip + step] if skip + step < len(rows) else rows[-1]
                    total += float(row[token] - _logsumexp(row))
                totals[index] = total
        return totals


@lru_cache(maxsize=4096)
def _tokens(tokenizer: Any, card: str) -> tuple[int, ...]:
    return tuple(tokenizer.encode(" " + card.lower(), add_special_tokens=False).ids)


def _logsumexp(row: np.ndarray) -> float:
    top = float(row.max())
    return top + math.log(float(np.exp(row - top).sum()))


def _ms(started: float) -> float:
    return (time.perf_counter() - started) * 1000
