"""Recognition: each utterance of the corpus through what the host would do, and through a baseline.

The host path is `voicehost.diagnose`: the engine recognizes the utterance in the phase's context and
the host reads the result (`read`), deciding to act at once (accept), ask back (confirm) or ask again
(reprompt). The baseline is what a plain speech-to-text pipeline does: Whisper's free transcript, and
a card only when the normalized transcript is exactly a card's name (likewise a command phrase, or a
clue of exactly two words, a word and a number); it never asks back.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from enum import Enum
from functools import cache
from pathlib import Path
from typing import Any, Final

from bench.corpus import KINDS, KOREAN_FILLERS, KOREAN_NOUNS, Condition, Speech, Utterance, board
from bench.report import ms, percent, percentile, table
from engine.lang import Lang
from voicehost.ears.audio import SAMPLE_RATE
from voicehost.ears.context import Context
from voicehost.ears.heard import Heard, Recognizer
from voicehost.ears.judge import context_for, read
from voicehost.understanding import Intent, listening_phrases, normalize, understand
from voicehost.understanding import Phase as Listening

MISTAKES_SHOWN = 12
HOST = "whisper-base, host"
BASELINE = "whisper-base, plain + exact"
VOSK = "vosk-ko, grammar"
RIGHT_CLEAN_GOAL: Final = 97.0
"""Right intent, %, on clean speech (the host path, every language together)."""
RIGHT_NOISY_GOAL: Final = 90.0
NOISY_SNR_DB: Final = 10.0
"""Right intent, %, at this SNR."""
WRONG_REVEALS_GOAL: Final = 0
"""Wrong reveals of the host path, every language and condition."""


class Outcome(Enum):
    RIGHT = "right at once"  # the intended move, acted on at once (for speech outside the game: rejected)
    RIGHT_ASKED = "right, asked back"  # a confirm proposing the intended move: "Did you say WALRUS?"
    ASKED = "asked"  # any other confirm, or a reprompt of in-vocabulary speech: nothing happens yet
    WRONG_REVEAL = "wrong reveal"  # a card accepted that nobody said
    WRONG_OTHER = "wrong other"  # another move accepted that nobody made (a command, a clue)


RIGHT_INTENT: Final = (Outcome.RIGHT, Outcome.RIGHT_ASKED)
"""Mapped to the right intent: acted on at once, or asked back with the right move."""
ASKING: Final = (Outcome.RIGHT_ASKED, Outcome.ASKED)
"""The host asks back or asks again: every confirm, and every reprompt of in-vocabulary speech."""


@dataclass
class Tally:
    n: int = 0
    outcomes: dict[Outcome, int] = field(default_factory=lambda: dict.fromkeys(Outcome, 0))
    decode_ms: list[float] = field(default_factory=list)
    audio_s: float = 0.0

    def add(self, outcome: Outcome, decode_ms: float, audio_s: float) -> None:
        self.n += 1
        self.outcomes[outcome] += 1
        self.decode_ms.append(decode_ms)
        self.audio_s += audio_s

    def count(self, *outcomes: Outcome) -> int:
        return sum(self.outcomes[outcome] for outcome in outcomes)

    def row(self) -> list[object]:
        return [
            self.n,
            percent(self.count(*RIGHT_INTENT), self.n),
            percent(self.outcomes[Outcome.RIGHT], self.n),
            percent(self.count(*ASKING), self.n),
            self.outcomes[Outcome.WRONG_REVEAL],
            self.outcomes[Outcome.WRONG_OTHER],
            ms(percentile(self.decode_ms, 50)),
            ms(percentile(self.decode_ms, 95)),
        ]


@dataclass
class Results:
    """Tallies by (engine, language, condition) and by (engine, kind), and a few wrong moves to show."""

    by_condition: dict[tuple[str, str, str], Tally] = field(default_factory=dict)
    by_kind: dict[tuple[str, str], Tally] = field(default_factory=dict)
    mistakes: dict[str, list[str]] = field(default_factory=dict)  # by engine
    notes: list[str] = field(default_factory=list)

    def add(
        self,
        engine: str,
        language: str,
        condition: Condition,
        utterance: Utterance,
        outcome: Outcome,
        decode_ms: float,
        audio_s: float,
        heard: str,
        did: str,
    ) -> None:
        self.by_condition.setdefault((engine, language, condition.name), Tally()).add(outcome, decode_ms, audio_s)
        for kind in (utterance.kind, "all"):
            self.by_kind.setdefault((engine, kind), Tally()).add(outcome, decode_ms, audio_s)
        if outcome in (Outcome.WRONG_REVEAL, Outcome.WRONG_OTHER):
            self.mistakes.setdefault(engine, []).append(
                f"{language}, {condition.name}, {utterance.voice}: said {utterance.text!r}, heard {heard!r} -> {did}"
            )


# ---- scoring --------------------------------------------------------------------------------------


def score(utterance: Utterance, result: dict[str, Any]) -> Outcome:
    """What the host's verdict (`diagnose.Verdict.result`) means for the player who said `utterance`."""
    action = result["action"]
    if utterance.kind == "oov":  # nothing to map: the right thing is to ask again
        if action in ("confirm", "reprompt"):
            return Outcome.RIGHT if action == "reprompt" else Outcome.ASKED
    elif action == "reprompt":
        return Outcome.ASKED
    elif action == "confirm":
        return Outcome.RIGHT_ASKED if intended(utterance, result) else Outcome.ASKED
    elif intended(utterance, result):
        return Outcome.RIGHT
    return Outcome.WRONG_REVEAL if result["intent"] == "guess" else Outcome.WRONG_OTHER


def intended(utterance: Utterance, result: dict[str, Any]) -> bool:
    """Whether the move the verdict accepts or asks about is the one meant: the card (for a confirm the
    card the host names first, its best), the command or answer, or the clue's word (normalized) and number."""
    intent = result["intent"]
    if intent == "guess":
        return utterance.card is not None and result.get("card") == utterance.card
    if intent == "command":
        return utterance.command is not None and result.get("command") == utterance.command.value
    if intent == "clue" and utterance.clue is not None and "word" in result:
        lang = utterance.lang or Lang.EN
        word, number = utterance.clue
        return normalize(str(result["word"]), lang) == normalize(word, lang) and result["number"] == number
    return False


def describe(result: dict[str, Any]) -> str:
    what = (
        result.get("card")
        or result.get("command")
        or (f"{result['word']} {result['number']}" if "word" in result else "")
    )
    return f"{result['action']} {result['intent']} {what}".strip()


@cache
def _exact_commands(lang: Lang, phase: str) -> dict[str, str]:
    """Normalized command phrase -> command, as the phase reads it."""
    listening = Listening.GUESS if phase == "guess" else Listening.CLUE
    found: dict[str, str] = {}
    for phrase in listening_phrases(lang):
        understood = understand(phrase, phase=listening, cards=(), lang=lang)
        if understood.intent is Intent.COMMAND and understood.command is not None:
            found.setdefault(normalize(phrase, lang), understood.command.value)
    return found


def baseline_result(text: str, utterance: Utterance) -> dict[str, Any]:
    """Exact matching of a free transcript: a card's name, a command phrase, or "<word> <number>"."""
    lang = utterance.lang or Lang.EN
    heard = normalize(text, lang)
    result: dict[str, Any] = {"heard": text, "intent": "unknown", "action": "reprompt"}
    cards = {normalize(card, lang): card for card in (board(lang).cards if utterance.lang else KOREAN_NOUNS)}
    commands = _exact_commands(lang, utterance.phase)
    if heard in commands:
        return {**result, "intent": "command", "action": "accept", "command": commands[heard]}
    if utterance.phase == "clue" and len(heard.split()) == 2:
        understood = understand(text, phase=Listening.CLUE, cards=(), lang=lang)
        if understood.intent is Intent.CLUE and understood.clue is not None:
            clue = understood.clue
            return {**result, "intent": "clue", "action": "accept", "word": clue.word, "number": clue.number}
    if heard in cards:
        return {**result, "intent": "guess", "action": "accept", "card": cards[heard]}
    return result


# ---- running --------------------------------------------------------------------------------------


def host_context(utterance: Utterance) -> Context:
    """What the host listens for when this is said: the phase's context; after a yes/no question, answers too."""
    context = context_for(board(utterance.lang), utterance.phase) if utterance.lang else korean_context()
    return replace(context, answering=True) if utterance.kind == "yes/no" else context


def korean_context() -> Context:
    """The Korean nouns while guessing, with the other Korean words as the grammar's fillers."""
    return Context(Lang.EN, True, KOREAN_NOUNS, fillers=KOREAN_FILLERS)


class _KoreanBoard:
    """What `diagnose.read` needs of a board, for the Korean nouns."""

    lang = Lang.EN
    cards = KOREAN_NOUNS


def recognize(recognizer: Recognizer, audio: Any, context: Context) -> tuple[Heard, float]:
    started = time.perf_counter()
    heard = recognizer.recognize(audio, context)
    return heard, (time.perf_counter() - started) * 1000


def run_whisper(
    recognizer: Recognizer,
    speech: Speech,
    langs: Sequence[Lang],
    conditions: Sequence[Condition],
    utterances: Callable[[Lang], list[Utterance]],
    results: Results,
    *,
    baseline: bool,
) -> None:
    for lang in langs:
        said = utterances(lang)
        for condition in conditions:
            started = time.perf_counter()
            for utterance in said:
                audio = speech.clip(utterance, condition)
                seconds = len(audio) / SAMPLE_RATE
                heard, decode = recognize(recognizer, audio, host_context(utterance))
                verdict = read(heard, board(lang), utterance.phase, utterance.uid).result
                results.add(
                    HOST,
                    lang.value,
                    condition,
                    utterance,
                    score(utterance, verdict),
                    decode,
                    seconds,
                    heard.text,
                    describe(verdict),
                )
                if not baseline:
                    continue
                if utterance.phase != "clue":  # in the clue phase the host's call is the free transcript already
                    heard, decode = recognize(recognizer, audio, Context(lang, guessing=False))
                plain = baseline_result(heard.text, utterance)
                results.add(
                    BASELINE,
                    lang.value,
                    condition,
                    utterance,
                    score(utterance, plain),
                    decode,
                    seconds,
                    heard.text,
                    describe(plain),
                )
            progress(
                f"whisper {lang.value} {condition.name}: {len(said)} utterances in "
                f"{time.perf_counter() - started:.0f} s"
            )


def run_vosk(
    recognizer: Recognizer, speech: Speech, conditions: Sequence[Condition], said: Iterable[Utterance], results: Results
) -> None:
    said = list(said)
    for condition in conditions:
        for utterance in said:
            audio = speech.clip(utterance, condition)
            heard, decode = recognize(recognizer, audio, korean_context())
            verdict = read(heard, _KoreanBoard(), "guess", utterance.uid).result  # type: ignore[arg-type]
            results.add(
                VOSK,
                "ko",
                condition,
                utterance,
                score(utterance, verdict),
                decode,
                len(audio) / SAMPLE_RATE,
                heard.text,
                describe(verdict),
            )
        progress(f"vosk ko {condition.name}: {len(said)} utterances")
    results.notes.append(
        f"vosk-ko's grammar also holds {len(KOREAN_FILLERS)} other Korean nouns as fillers (bench/corpus.py "
        "KOREAN_FILLERS, none of them said, none a card or a word said outside the grammar): speech that "
        "names no card can go there; a result with a filler is asked back at most."
    )


def text_check(langs: Sequence[Lang], utterances: Callable[[Lang], list[Utterance]]) -> list[str]:
    """Utterances the host would not get right even typed: a corpus or vocabulary problem, not recognition."""
    wrong: list[str] = []
    for lang in langs:
        for utterance in {u.text: u for u in utterances(lang)}.values():
            verdict = read(Heard(utterance.text), board(lang), utterance.phase, utterance.uid).result
            if score(utterance, verdict) is not Outcome.RIGHT:
                wrong.append(f"{lang.value} {utterance.kind} {utterance.text!r} -> {describe(verdict)}")
    return wrong


def progress(line: str) -> None:
    print(f"[bench] {line}", file=sys.stderr, flush=True)


# ---- tables ---------------------------------------------------------------------------------------

HEADERS = [
    "n",
    "right intent %",
    "at once %",
    "asked %",
    "wrong reveals",
    "other wrong",
    "decode p50 ms",
    "decode p95 ms",
]
COUNTS = len(HEADERS) - 2
"""The columns of the table by kind: no decode times."""


def total(results: Results, engine: str, condition: str | None = None) -> Tally:
    """One engine's tally over every language, in one condition (by name) or in all of them."""
    summed = Tally()
    for (name, _, heard_in), tally in results.by_condition.items():
        if name == engine and condition in (None, heard_in):
            summed.n += tally.n
            for outcome, count in tally.outcomes.items():
                summed.outcomes[outcome] += count
            summed.decode_ms += tally.decode_ms
            summed.audio_s += tally.audio_s
    return summed


def tables(results: Results) -> str:
    rows = [
        [engine, language, condition, *tally.row()]
        for (engine, language, condition), tally in results.by_condition.items()
    ]
    kinds = [
        [kind, engine, *tally.row()[:COUNTS]]
        for kind in (*KINDS, "all")
        for engine in (HOST, BASELINE, VOSK)
        if (tally := results.by_kind.get((engine, kind))) is not None
    ]
    parts = [
        "## 1. Recognition",
        "",
        "Synthetic players (espeak-ng) on the classic board of each language; every utterance read as the host "
        "would (`voicehost.diagnose`). *right intent*: the intended move, acted on at once or asked back (a "
        "confirm of the card meant, named first if several are; of the clue's word and number; of the command); "
        "speech outside the game (oov) is right only when rejected (a reprompt). *at once*: right without asking "
        "(for oov, the rejection). *asked*: every confirm, and every reprompt of in-vocabulary speech: nothing "
        "happens yet; a confirm of the right move counts in both *right intent* and *asked*, and at once + "
        "asked + the two wrong counts make all n. *wrong reveals*: a card accepted that nobody said (the costly "
        "mistake); *other wrong*: a command, answer or clue accepted that nobody gave; both are counts. Decode: "
        "the wall time of `recognize()`. The baseline is Whisper's plain transcript matched exactly; it never "
        "asks back. The goals (right intent ≥ 97 % clean and ≥ 90 % at 10 dB SNR, no wrong reveals; the host "
        "path, every language together) are judged in the closing *Goals* table.",
        "",
        table(["engine", "lang", "condition", *HEADERS], rows),
        "",
        "By kind of utterance (every language and condition above):",
        "",
        table(["kind", "engine", *HEADERS[:COUNTS]], kinds),
    ]
    for engine in (HOST, BASELINE, VOSK):
        lines = results.mistakes.get(engine, [])
        if not lines:
            continue
        shown = lines[:MISTAKES_SHOWN]
        parts += ["", f"Wrong moves of {engine} ({len(lines)}; the first {len(shown)}):", ""]
        parts += [f"- {line}" for line in shown]
    if results.notes:
        parts += ["", *[f"- {note}" for note in results.notes]]
    return "\n".join(parts)


def model_dir(model_id: str) -> Path | str:
    """The installed model's folder, or why it is not there."""
    from voicehost.speech_models import Manifest, ModelError, require

    try:
        return require(Manifest.load().get(model_id))
    except ModelError as exc:
        return str(exc)
