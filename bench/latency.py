"""Latency: from the end of a player's speech to the first sample of the host's spoken verdict.

Whisper path: the utterance in a stream (quiet, speech, quiet) goes through the Silero segmenter
(`voicehost.ears.vad.Segmenter`), which closes it after its end-of-speech silence; then the recognizer
decodes it and `voicehost.mouth.Synthesizer` speaks the verdict. The first sample exists when the
synthesis returns (espeak-ng writes the whole sentence first), so

    latency = (when the segmenter closed the utterance - when the speech really ended)
              + decode time + synthesis time of the reply.

The stream is processed faster than real time; positions in it are audio time, the rest wall time.

vosk path (the Korean model, a grammar of Korean nouns): the stream is fed in 0.1 s chunks through
`VoskRecognizer.listen`, whose own endpointer closes the utterance; the latency to the result is the
audio between the end of speech and the chunk that closed it, plus the wall time vosk took on that
last chunk (earlier chunks were decoded while they were being spoken).
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Final

import numpy as np

from bench.corpus import (
    KOREAN_MEANINGS,
    KOREAN_NOUNS,
    Condition,
    Speech,
    Utterance,
    board,
    korean_corpus,
    seed_of,
    with_noise,
)
from bench.recognition import korean_context, progress
from bench.report import goal_met, ms, percentile, table
from engine.lang import Lang
from voicehost.ears.audio import SAMPLE_RATE, Audio
from voicehost.ears.heard import Recognizer
from voicehost.ears.judge import Verdict, context_for, read
from voicehost.prompts import Prompts

CHUNK: Final = SAMPLE_RATE // 10
"""0.1 s, as the microphone delivers it (voicehost.ears.recordings.CHUNK_SECONDS)."""
LEAD_S: Final = 0.6
TRAIL_S: Final = 2.5
"""Quiet after the speech: more than vosk's longest end-of-speech rule (2 s) needs."""
WHISPER_GOAL_MS: Final = 600
VOSK_GOAL_MS: Final = 250


@dataclass(frozen=True)
class Timing:
    detect_ms: float  # end of speech -> the utterance is closed (VAD or vosk's endpointer), audio time
    decode_ms: float
    synth_ms: float
    right: bool
    vad_end_ms: float | None = None  # the segmenter's own detected_s - end_s (its closing silence)
    lang: str = "ko"  # the language said, for the rows per language

    @property
    def to_result_ms(self) -> float:
        return self.detect_ms + self.decode_ms

    @property
    def total_ms(self) -> float:
        return self.detect_ms + self.decode_ms + self.synth_ms


def stream_of(speech: Audio, uid: str) -> tuple[Audio, float]:  # uid seeds the hiss
    """Quiet, the speech, quiet (with the room's hiss), and where the speech ends, in seconds."""
    audio = with_noise(speech, uid, Condition(None), before=LEAD_S, after=TRAIL_S)
    return audio, LEAD_S + len(speech) / SAMPLE_RATE


def chunks(audio: Audio) -> Iterator[Audio]:
    for start in range(0, len(audio), CHUNK):
        yield audio[start : start + CHUNK]


def reply(prompts: Prompts, verdict: Verdict) -> str:
    """What the host says back: the reveal ("WALRUS: a blue agent. Keep going."), a question, or "again"."""
    result = verdict.result
    card = result.get("card")
    if result["action"] == "accept" and card:
        left = prompts.text("game.guesses_left", count=2)
        return prompts.text("guess.result_own", card=card, identity=prompts.text("identity.blue"), left=left)
    if result["action"] == "confirm" and card:
        return prompts.text("guess.confirm_one", card=card)
    return prompts.text("input.reprompt_guess")


def whisper_latency(
    recognizer: Recognizer, speech: Speech, said: Sequence[Utterance], synthesizers: dict[Lang, Any], segmenter: Any
) -> list[Timing]:
    timings: list[Timing] = []
    for utterance in said:
        assert utterance.lang is not None
        audio, speech_end = stream_of(speech.speech(utterance), utterance.uid)
        found = list(segmenter.utterances(chunks(audio)))
        if not found:
            progress(f"latency: the segmenter found no speech in {utterance.text!r}")
            continue
        closed = found[-1]  # a pause inside a lead-in can split it: the host acts on the last piece
        started = time.perf_counter()
        heard = recognizer.recognize(closed.audio, context_for(board(utterance.lang), "guess"))
        decode_ms = (time.perf_counter() - started) * 1000
        verdict = read(heard, board(utterance.lang), "guess", utterance.uid)
        sentence = reply(Prompts.load(utterance.lang), verdict)
        started = time.perf_counter()
        synthesizers[utterance.lang].synthesize(sentence)
        synth_ms = (time.perf_counter() - started) * 1000
        right = verdict.result["action"] == "accept" and verdict.result.get("card") == utterance.card
        detect_ms = (closed.detected_s - speech_end) * 1000
        vad_end_ms = (closed.detected_s - closed.end_s) * 1000
        lang = utterance.lang.value if utterance.lang else "ko"
        timings.append(Timing(detect_ms, decode_ms, synth_ms, right, vad_end_ms, lang))
    progress(f"latency whisper: {len(timings)} utterances")
    return timings


def vosk_latency(recognizer: Any, speech: Speech, said: Sequence[Utterance], synthesizer: Any) -> list[Timing]:
    timings: list[Timing] = []
    prompts = Prompts.load(Lang.EN)
    for index, utterance in enumerate(said):
        audio, speech_end = stream_of(speech.speech(utterance), f"{utterance.uid}#{index}")
        handed = [0, 0.0]  # chunks handed to vosk so far, and when the last one was

        def stream(audio: Audio = audio, handed: list[Any] = handed) -> Iterator[Audio]:
            for chunk in chunks(audio):
                handed[0] += 1
                handed[1] = time.perf_counter()
                yield chunk

        context = korean_context()
        for heard in recognizer.listen(stream(), lambda context=context: context):
            decode_ms = (time.perf_counter() - handed[1]) * 1000
            detect_ms = (min(handed[0] * CHUNK, len(audio)) / SAMPLE_RATE - speech_end) * 1000
            meaning = KOREAN_MEANINGS[KOREAN_NOUNS.index(utterance.text)]
            sentence = prompts.text(
                "guess.result_own",
                card=meaning,
                identity=prompts.text("identity.blue"),
                left=prompts.text("game.guesses_left", count=2),
            )
            started = time.perf_counter()
            synthesizer.synthesize(sentence)
            synth_ms = (time.perf_counter() - started) * 1000
            timings.append(Timing(detect_ms, decode_ms, synth_ms, heard.text == utterance.text))
            break  # one word per stream: its first result
    progress(f"latency vosk: {len(timings)} utterances")
    return timings


def _by_language(
    name: str, timings: list[Timing] | str | None, goal: int
) -> list[tuple[str, list[Timing] | str | None, int, bool]]:
    """One more row per language, when there are several: the goal is judged on every row."""
    if not isinstance(timings, list):
        return []
    langs = sorted({t.lang for t in timings})
    if len(langs) < 2:
        return []
    return [(f"{name}, {lang}", [t for t in timings if t.lang == lang], goal, False) for lang in langs]


def _spread(values: Sequence[float]) -> str:
    if not values:
        return "–"
    return f"{ms(percentile(values, 50))} / {ms(percentile(values, 95))}"


def tables(whisper: list[Timing] | str | None, vosk: list[Timing] | str | None) -> str:
    headers = [
        "engine",
        "n",
        "right",
        "end of speech → closed, p50 / p95 ms",
        "decode p50 / p95 ms",
        "→ result p50 / p95 ms",
        "synthesis p50 / p95 ms",
        "→ first sample p50 ms",
        "→ first sample p95 ms",
        "goal",
        "goal met?",
    ]
    rows: list[list[object]] = []
    for name, timings, goal, on_result in (
        ("whisper-base + Silero VAD", whisper, WHISPER_GOAL_MS, False),
        *_by_language("whisper-base + Silero VAD", whisper, WHISPER_GOAL_MS),
        ("vosk-ko grammar, streaming", vosk, VOSK_GOAL_MS, True),
    ):
        if timings is None:
            continue
        if isinstance(timings, str):
            rows.append([name, 0, "–", timings, "–", "–", "–", None, None, "–", "–"])
            continue
        total = [t.total_ms for t in timings]
        result = [t.to_result_ms for t in timings]
        measured = percentile(result if on_result else total, 95)
        goal_text = f"p95 → {'result' if on_result else 'first sample'} ≤ {goal} ms"
        rows.append(
            [
                name,
                len(timings),
                f"{sum(t.right for t in timings)}/{len(timings)}",
                _spread([t.detect_ms for t in timings]),
                _spread([t.decode_ms for t in timings]),
                _spread(result),
                _spread([t.synth_ms for t in timings]),
                ms(percentile(total, 50)),
                ms(percentile(total, 95)),
                goal_text,
                goal_met(measured, goal),
            ]
        )
    closing = [t.vad_end_ms for t in whisper if t.vad_end_ms is not None] if isinstance(whisper, list) else []
    parts = [
        "## 2. Latency",
        "",
        "From the end of speech in a stream (quiet, speech, quiet) to the host's verdict. *closed*: when the "
        "segmenter (whisper) or vosk's endpointer closed the utterance, in audio time after the true end of "
        "speech; *decode*: the recognizer's wall time (vosk: on the last chunk only); *synthesis*: "
        '`voicehost.mouth.Synthesizer` speaking the reply ("WALRUS: a blue agent. Keep going. Guesses left: 2."; '
        "vosk: the English reply for the Korean card's meaning).",
        "",
        table(headers, rows),
    ]
    if closing:
        parts += [
            "",
            f"The segmenter's own closing delay (detected_s - end_s): p50 {ms(percentile(closing, 50))} ms, "
            f"p95 {ms(percentile(closing, 95))} ms.",
        ]
    return "\n".join(parts)


def korean_streams(count: int) -> list[Utterance]:
    """`count` Korean nouns to stream, cycling through the grammar."""
    nouns = [u for u in korean_corpus() if u.kind == "card"]
    return [nouns[index % len(nouns)] for index in range(count)]


def latency_sample(langs: Sequence[Lang], per_lang: int, utterances: Any) -> list[Utterance]:
    """`per_lang` card utterances of each language, alone and after a lead-in, spread over the board."""
    picked: list[Utterance] = []
    for lang in langs:
        cards = [u for u in utterances(lang) if u.kind in ("card", "lead-in")]
        rng = np.random.default_rng(seed_of("latency", lang.value))
        picked += [cards[index] for index in sorted(rng.choice(len(cards), min(per_lang, len(cards)), replace=False))]
    return picked
