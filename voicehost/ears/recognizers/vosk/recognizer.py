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
  other real words of the language (`Moment.fillers`, from the game's own decks), where such speech
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

import json
import logging
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import numpy as np

from voicehost.audio.samples import SAMPLE_RATE, Audio
from voicehost.ears.heard import Heard, MomentSource
from voicehost.ears.recognizers.vosk.decoder import Decoder, Tape, elapsed_ms
from voicehost.ears.recognizers.vosk.endpoint import MAX_REPLAY_S, REPLAY_LEAD_S, Endpointer
from voicehost.ears.recognizers.vosk.grammar import Grammar
from voicehost.ears.recognizers.vosk.vocabulary import spell, unheard_of
from voicehost.ears.voice_check import NOT_SPEECH_CONFIDENCE, sounds_like_a_voice, speech_evidence
from voicehost.speech_models import ModelError
from voicehost.understanding.moment import Moment

logger = logging.getLogger(__name__)

UNKNOWN_SYMBOLS: Final = ("[unk]", "<unk>", "<UNK>")
"""How models spell "some word I do not know": most vosk models say [unk], the Korean one <UNK>.
One of them goes into every grammar so that speech outside it has somewhere to go besides a card."""
INSTALL_HINT: Final = "voicehost models install <your language: pt-BR, pt-PT, it or en> --engine vosk"
IVECTOR_FILES: Final = ("final.ie", "final.dubm", "final.mat", "global_cmvn.stats", "online_cmvn.conf", "splice.conf")
"""What vosk reads from ivector/ once final.ie is there (model.cc); small models all use i-vectors."""
IVECTOR_INPUT: Final = b"input-node name=ivector"
"""How an acoustic model that needs i-vectors says so: its nnet3 config, stored as text in final.mdl."""
CONFIG_SEARCH_BYTES: Final = 16 << 20
"""The nnet3 config follows the transition model, 170 KB into the Korean final.mdl; big models have more."""


EARLY_MIN_CONFIDENCE: Final = 0.95
"""The word confidence (vosk's, after the speech check) an early cut needs to go to the host at once;
with less, the cut is held.

Measured on the early cuts of the ko nouns streamed clean and at 20 dB SNR (64): 63 right, all at
1.0, and one wrong card at 0.57; on halves of them (the words cut by 120-300 ms of quiet), the wrong
cards came out at 0.36-0.91 (0.89 and 0.91 with 0.8 here, which the host would have revealed)."""
MAX_FILLERS: Final = 400
"""At most this many fillers go into one grammar (`Moment.fillers`; an even spread of them when there
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
        self._grammars: dict[tuple[tuple[str, ...], ...], Grammar] = {}
        self._closed_json: str | None = None  # the grammar of the last guessing moment
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

    def recognize(self, audio: Audio, moment: Moment) -> Heard:
        """One whole utterance: fed at once, then finalized (no endpointing needed)."""
        started = time.perf_counter()
        decoder = self._recognizer_for(moment)
        decoder.accept(audio)
        result = decoder.kaldi.FinalResult()
        heard = self.heard(result, decoder, started)
        return heard or Heard("", 0.0, elapsed_ms(started))

    def listen(self, chunks: Iterable[Audio], moment: MomentSource) -> Iterator[Heard]:
        """Yields a Heard each time an utterance that had words in it ends.

        The moment is read again before every chunk until the decoder has heard a word of the
        new utterance: the phase often changes while the microphone hears only silence (the host
        was speaking), and that silence already belongs to vosk's next utterance. Once a word is
        heard, the utterance keeps its grammar to its end. Keep the moment source cheap.

        While guessing, an utterance ends ENDPOINT_SILENCE_MS after its speech: at once when it holds
        a confident, complete phrase, otherwise once CONTINUATION_SILENCE_MS have passed without the
        player going on (see the module's docstring). Otherwise vosk's endpointer ends it. The results
        this endpointer ends carry start_s and end_s: where their speech lies in the stream, in seconds
        from its start (vosk's endpointer leaves them to the caller)."""
        listening = Endpointer(self, moment)
        for chunk in chunks:
            if len(chunk):
                yield from listening.hear(chunk)
        yield from listening.finish()

    # ---- what the endpointer drives (`endpoint.Decoding`) ---------------------------------

    def decoder_for(self, moment: Moment) -> tuple[Decoder, Grammar | None]:
        """The decoder for this moment, reset to the start of an utterance (`_recognizer_for`), and the
        grammar it holds: None for free words, whose utterances only vosk's endpointer ends."""
        decoder = self._recognizer_for(moment)
        return decoder, self._closed_grammar if decoder is self._closed else None

    def heard(self, result_json: str, decoder: Decoder, started: float, spent_ms: float = 0.0) -> Heard | None:
        """A Heard from vosk's result (`_read`); None when nothing was said at all (silence, a pause)."""
        read = self._read(result_json, decoder, started, spent_ms)
        return read.heard if read is not None else None

    def early_result(
        self, result_json: str, decoder: Decoder, started: float, spent_ms: float, grammar: Grammar
    ) -> tuple[Heard | None, bool]:
        """The result of an utterance the endpointer cut early (`_read`), and whether it can go to the
        host at once (`_complete`); otherwise the endpointer holds it."""
        read = self._read(result_json, decoder, started, spent_ms, early=True)
        return (read.heard if read is not None else None), self._complete(read, grammar)

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

    def grammar_for(self, moment: Moment) -> Grammar | None:
        """The closed set for a guessing moment: the cards (lowercase), the phrases, the fillers, the
        unknown word.

        Fillers the model does not know are left out quietly (they are only somewhere else to go), and
        so is any filler with a word of a card or a phrase in it: a result word that is a filler must
        never be part of a card or command. None means free vocabulary: a clue, a model without runtime
        grammars, or nothing in the moment the model can hear."""
        if not moment.hears_cards or not self.supports_grammar:
            return None
        key = (moment.cards, moment.phrases, moment.fillers)
        if key not in self._grammars:
            kept: list[str] = []
            unknown: list[str] = []
            cards: list[str] = []
            for index, phrase in enumerate((*moment.cards, *moment.phrases)):
                text = " ".join(phrase.lower().split())
                if not text:
                    continue
                spelled = self._spell(text)
                if spelled is None:
                    unknown.append(text)
                    continue
                if spelled not in kept:
                    kept.append(spelled)
                if index < len(moment.cards) and spelled not in cards:
                    cards.append(spelled)
            if unknown:
                logger.info("the vosk model cannot hear these words, they are left out: %s", ", ".join(unknown))
            if len(self._grammars) > 32:
                self._grammars.pop(next(iter(self._grammars)))
            fillers = self._fillers(moment.fillers, kept) if kept else []
            kept += fillers
            if kept and self.unknown_symbol:
                kept.append(self.unknown_symbol)
            repeats = KEYWORD_REPEATS if fillers else 1
            self._grammars[key] = Grammar(tuple(kept), tuple(unknown), tuple(cards), tuple(fillers), repeats)
        grammar = self._grammars[key]
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
        return spell(phrase, self.knows)

    def unheard(self, cards: Sequence[str]) -> list[str]:
        """The cards (as printed) this model cannot hear: a word of them is outside its vocabulary, so no
        grammar can hold them (`grammar_for` leaves them out); they can only be named by their place."""
        return unheard_of(cards, self.knows)

    @property
    def active_grammar(self) -> str | None:
        """The grammar JSON the closed recognizer holds now (None before the first guessing moment)."""
        return self._closed_json

    def _recognizer_for(self, moment: Moment) -> Decoder:
        """The recognizer for this moment, reset to the start of an utterance, its grammar switched."""
        grammar = self.grammar_for(moment)
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

    def _new_decoder(self, grammar_json: str | None) -> Decoder:
        """A KaldiRecognizer sharing the one Model, with per-word confidences and times."""
        if grammar_json is None:
            recognizer = self._vosk.KaldiRecognizer(self.model, self.sample_rate)
        else:
            recognizer = self._vosk.KaldiRecognizer(self.model, self.sample_rate, grammar_json)
        recognizer.SetWords(True)
        return Decoder(recognizer, Tape(self.sample_rate))

    # ---- results ---------------------------------------------------------------------------

    def _read(
        self, result_json: str, decoder: Decoder, started: float, spent_ms: float = 0.0, *, early: bool = False
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
            return _Read(Heard("", 0.0, spent_ms + elapsed_ms(started)), spelled, sure=False)
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
        return _Read(Heard(text, confidence, spent_ms + elapsed_ms(started)), spelled, sure)

    def _heard_again(
        self, grammar: Grammar, tape: Tape, began: int, words: Sequence[dict[str, Any]]
    ) -> tuple[Sequence[dict[str, Any]], Tape]:
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


def _confidence(words: Sequence[dict[str, Any]]) -> float:
    """The least of the words' posteriors, in 0..1 (0 for no words)."""
    return max(0.0, min(1.0, min((float(word.get("conf", 0.0)) for word in words), default=0.0)))
