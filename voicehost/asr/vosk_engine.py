"""vosk (Kaldi) as a small, streaming recognizer: a closed grammar while guessing, free words for clues.

vosk does its own end-of-speech detection, so it is the engine for a live microphone on small
machines. Three facts about it (vosk 0.3.45, read in its recognizer.cc and measured here) shape
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
"""

from __future__ import annotations

import json
import logging
import re
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import numpy as np

from voicehost.asr import SAMPLE_RATE, Audio, Context, ContextSource, Heard
from voicehost.models import ModelError

logger = logging.getLogger(__name__)

UNKNOWN_SYMBOLS: Final = ("[unk]", "<unk>", "<UNK>")
"""How models spell "some word I do not know": most vosk models say [unk], the Korean one <UNK>.
One of them goes into every grammar so that speech outside it has somewhere to go besides a card."""
SPLIT_INSIDE_WORD: Final = re.compile(r"[-'’]")
"""A card the model does not know as one word ("guarda-chuva", "dell'acqua") may be known as its parts."""
INSTALL_HINT: Final = "voicehost models install <your language: pt-BR, pt-PT, it or en> --engine vosk"


@dataclass(frozen=True)
class Grammar:
    """The phrases vosk may hear while guessing, and those it cannot (a word outside the model)."""

    phrases: tuple[str, ...]
    unknown: tuple[str, ...] = ()

    def to_json(self) -> str:
        """vosk's grammar argument; raw UTF-8 because vosk's JSON reader ignores \\u escapes."""
        return json.dumps(list(self.phrases), ensure_ascii=False)


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
        self._free: Any = None
        self._closed: Any = None
        self._closed_json: str | None = None
        self._grammars: dict[Context, Grammar] = {}

    # ---- the interface ---------------------------------------------------------------------

    def recognize(self, audio: Audio, context: Context) -> Heard:
        """One whole utterance: fed at once, then finalized (no endpointing needed)."""
        started = time.perf_counter()
        recognizer = self._recognizer_for(context)
        recognizer.AcceptWaveform(to_pcm16(audio))
        result = recognizer.FinalResult()
        decode_ms = _ms(started)
        return self._heard(result, decode_ms) or Heard("", 0.0, decode_ms)

    def listen(self, chunks: Iterable[Audio], context: ContextSource) -> Iterator[Heard]:
        """Yields a Heard each time vosk's endpointer closes an utterance that had words in it.

        The context is read again before every chunk until the decoder has heard a word of the
        new utterance: the phase often changes while the microphone hears only silence (the host
        was speaking), and that silence already belongs to vosk's next utterance. Once a word is
        heard, the utterance keeps its grammar to its end. Keep the context source cheap."""
        current = context()
        recognizer = self._recognizer_for(current)
        spent_ms = 0.0  # time spent inside vosk on this utterance's audio: its decode cost
        for chunk in chunks:
            if len(chunk) == 0:
                continue
            wanted = context()
            if wanted != current and not _partial(recognizer):
                current, recognizer = wanted, self._recognizer_for(wanted)
                spent_ms = 0.0
            started = time.perf_counter()
            ended = recognizer.AcceptWaveform(to_pcm16(chunk))
            result = recognizer.Result() if ended else ""
            spent_ms += _ms(started)
            if ended:
                heard = self._heard(result, spent_ms)
                spent_ms = 0.0
                if heard is not None:
                    yield heard  # the next chunk starts a new utterance, and reads the context again
        started = time.perf_counter()
        result = recognizer.FinalResult()
        heard = self._heard(result, spent_ms + _ms(started))
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

    def _recognizer_for(self, context: Context) -> Any:
        """The recognizer for this context, reset to the start of an utterance, its grammar switched."""
        grammar = self.grammar_for(context)
        if grammar is None:
            if self._free is None:
                self._free = self._new_recognizer(None)
            self._free.Reset()
            return self._free
        wanted = grammar.to_json()
        if self._closed is None:
            self._closed = self._new_recognizer(wanted)
        else:
            self._closed.Reset()  # SetGrammar on a running recognizer aborts the process
            if wanted != self._closed_json:
                self._closed.SetGrammar(wanted)
        self._closed_json = wanted
        return self._closed

    def _new_recognizer(self, grammar_json: str | None) -> Any:
        """A KaldiRecognizer sharing the one Model, with per-word confidences."""
        if grammar_json is None:
            recognizer = self._vosk.KaldiRecognizer(self.model, self.sample_rate)
        else:
            recognizer = self._vosk.KaldiRecognizer(self.model, self.sample_rate, grammar_json)
        recognizer.SetWords(True)
        return recognizer

    # ---- results ---------------------------------------------------------------------------

    def _heard(self, result_json: str, decode_ms: float) -> Heard | None:
        """A Heard from vosk's result; None when nothing was said at all (silence, a pause).

        Confidence is the minimum of the words' posteriors, not their mean: the host acts on the
        whole utterance (a card, a clue word and its number), and one doubtful word makes the whole
        action doubtful; a mean would let a confident "two" hide a misheard clue. Unknown-word
        symbols and other non-words leave the text; an utterance of only those is text "" at confidence 0."""
        result = json.loads(result_json)
        words: Sequence[dict[str, Any]] = result.get("result", [])
        if not words and not result.get("text"):
            return None
        kept = [word for word in words if not self._is_marker(str(word.get("word", "")))]
        if not kept:
            return Heard("", 0.0, decode_ms)
        text = " ".join(str(word["word"]) for word in kept)
        confidence = min(float(word.get("conf", 0.0)) for word in kept)
        return Heard(text, max(0.0, min(1.0, confidence)), decode_ms)

    def _is_marker(self, word: str) -> bool:
        """Kaldi vocabularies mark non-words in brackets: [unk], <SPOKEN_NOISE>, and the Korean model's [1]."""
        return word == self.unknown_symbol or (len(word) > 2 and word[0] + word[-1] in ("[]", "<>"))


def to_pcm16(audio: Audio) -> bytes:
    """float32 in [-1, 1] as the 16-bit little-endian PCM vosk reads."""
    samples = np.asarray(audio, dtype=np.float32).reshape(-1)
    return (np.clip(samples, -1.0, 1.0) * 32767).astype("<i2").tobytes()


def _check_model_files(path: Path, install: str) -> None:
    """Say which file is missing before Kaldi does it in a log line nobody reads."""
    if not path.is_dir():
        raise ModelError(f"there is no vosk model in {path}. Install one with: {install}")
    graph = path / "graph"
    has_graph = (graph / "HCLG.fst").exists() or ((graph / "HCLr.fst").exists() and (graph / "Gr.fst").exists())
    acoustic = path / "am" / "final.mdl"
    missing = [] if acoustic.is_file() and acoustic.stat().st_size > 0 else ["am/final.mdl"]
    if not has_graph:
        missing.append("graph/HCLG.fst (or graph/HCLr.fst and graph/Gr.fst)")
    if missing:
        raise ModelError(
            f"the vosk model in {path} is incomplete (missing {', '.join(missing)}). Reinstall it with: {install}"
        )


def _partial(recognizer: Any) -> str:
    """The words the decoder has so far in this utterance ("" while it has heard only silence)."""
    return str(json.loads(recognizer.PartialResult()).get("partial", ""))


def _ms(started: float) -> float:
    return (time.perf_counter() - started) * 1000
