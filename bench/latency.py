"""Latency: from the end of a player's guess to the first sample of the host's spoken answer, by stage.

Whisper path, as `voicehost.ears.streams.SegmentedEars` runs it: the guess in a stream (quiet, speech,
quiet) goes through the Silero segmenter (`voicehost.ears.vad.Segmenter`). When a silence of PAUSE_MS
begins, recognition starts on the utterance as it stands; the result is used when the closing silence
(END_SILENCE_MS) has confirmed the end. Then the host decides and `voicehost.mouth.Synthesizer` speaks
the answer, whose first sample exists when the synthesis returns (espeak-ng writes the sentence whole):

    first sample = max(pause + encode + transcript + card scores, close) + decision + synthesis

Stream positions are audio time (the stream is processed faster than real time), the rest wall time.

vosk path (the Korean model, bench/korean.py): the stream is fed in 0.1 s chunks to
`VoskRecognizer.listen`, whose endpointer closes the utterance; to the result is the audio between the
end of speech and the chunk that closed it plus the wall time vosk took on that last chunk.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Final

import numpy as np

from bench.corpus import HISS, Utterance, corpus, seed_of, voices_of
from bench.korean import KOREAN_MEANINGS, KOREAN_NOUNS, KoreanWord, korean_corpus, korean_moment, korean_speech
from bench.recognition import host_hears as decide_as_host
from bench.recognition import progress, situation
from bench.report import goal_met, ms, percentile, table
from bench.voices import synthesize
from engine.lang import Lang
from voicehost.audio.samples import SAMPLE_RATE, Audio
from voicehost.ears.heard import Recognizer
from voicehost.ears.vad import END_SILENCE_MS, PAUSE_MS
from voicehost.prompts import Prompts
from voicehost.understanding import Action, HeardGuess, Understanding
from voicehost.understanding.moment import ListenMode

CHUNK: Final = SAMPLE_RATE // 10
"""0.1 s, as the microphone delivers it (voicehost.ears.recordings.CHUNK_SECONDS)."""
LEAD_S: Final = 0.6
TRAIL_S: Final = 2.5
"""Quiet after the speech: more than vosk's longest end-of-speech rule (2 s) needs."""
WHISPER_GOAL_MS: Final = 600
VOSK_GOAL_MS: Final = 250
STAGES: Final = ("pause", "encode", "transcript", "scores", "decision", "synthesis")


@dataclass(frozen=True)
class Timing:
    """One guess: each stage in ms, whether the card meant was revealed, and its language."""

    lang: str
    stages: dict[str, float]
    close_ms: float
    right: bool

    @property
    def to_result_ms(self) -> float:
        recognized = self.stages["pause"] + sum(self.stages.get(s, 0.0) for s in ("encode", "transcript", "scores"))
        return max(recognized, self.close_ms)

    @property
    def total_ms(self) -> float:
        return self.to_result_ms + self.stages.get("decision", 0.0) + self.stages.get("synthesis", 0.0)


def stream_of(speech: Audio, seed: int) -> tuple[Audio, float]:
    """Quiet, the speech, quiet, with the room's hiss; and where the speech ends, in seconds."""
    head, tail = round(LEAD_S * SAMPLE_RATE), round(TRAIL_S * SAMPLE_RATE)
    audio = np.concatenate([np.zeros(head, np.float32), speech, np.zeros(tail, np.float32)])
    audio = audio + np.random.default_rng(seed).standard_normal(len(audio)) * HISS
    return np.clip(audio, -1.0, 1.0).astype(np.float32), LEAD_S + len(speech) / SAMPLE_RATE


def chunks(audio: Audio) -> Iterator[Audio]:
    for start in range(0, len(audio), CHUNK):
        yield audio[start : start + CHUNK]


def reply(prompts: Prompts, understood: Understanding) -> str:
    """What the host says back: the reveal ("WALRUS: a blue agent. Keep going."), a question, or "again"."""
    if isinstance(understood, HeardGuess) and understood.action is Action.ACCEPT:
        left = prompts.text("game.guesses_left", count=2)
        return prompts.text("guess.result_own", card=understood.card, identity=prompts.text("identity.blue"), left=left)
    if isinstance(understood, HeardGuess) and understood.action is Action.CONFIRM:
        return prompts.text("guess.confirm_one", card=understood.card)
    return prompts.text("input.reprompt_guess")


def sample(langs: Sequence[Lang], per_lang: int, *, quick: bool) -> list[Utterance]:
    """`per_lang` guesses (cards alone and after a lead-in) of each language's held-out voices, spread
    over voices and boards with a fixed seed."""
    picked: list[Utterance] = []
    for lang in langs:
        voices = voices_of(lang, "held-out")[: 1 if quick else None]
        guesses = [u for u in corpus(lang, voices, quick=quick) if u.kind in ("card", "lead-in")]
        rng = np.random.default_rng(seed_of("latency", lang.value))
        count = min(per_lang, len(guesses))
        picked += [guesses[int(i)] for i in sorted(rng.choice(len(guesses), count, replace=False))]
    return picked


def whisper_latency(
    recognizer: Recognizer, said: Sequence[Utterance], synthesizers: dict[Lang, Any], segmenter: Any, cache: Any
) -> list[Timing]:
    timings: list[Timing] = []
    for utterance in said:
        speech = synthesize(utterance.voice, utterance.text, cache_dir=cache)
        audio, speech_end = stream_of(speech, seed_of(utterance.uid, "latency"))
        pauses: list[Any] = []
        found = list(segmenter.utterances(chunks(audio), on_pause=pauses.append))
        if not found:
            progress(f"latency: the segmenter found no speech in {utterance.text!r}")
            continue
        closed = found[-1]  # a pause inside a lead-in can split it: the host acts on the last piece
        paused = next((p for p in reversed(pauses) if np.array_equal(p.audio, closed.audio)), None)
        pause_s = paused.detected_s if paused is not None else closed.detected_s
        where = situation(utterance)
        heard = recognizer.recognize(closed.audio, where.moment)
        stages = {"pause": (pause_s - speech_end) * 1000, **dict(heard.timings)}
        started = time.perf_counter()
        _, understood = decide_as_host(
            heard, utterance.lang, where.cards, guessing=True, answering=False, listening=ListenMode.OPEN
        )
        stages["decision"] = (time.perf_counter() - started) * 1000
        sentence = reply(Prompts.load(utterance.lang), understood)
        started = time.perf_counter()
        synthesizers[utterance.lang].synthesize(sentence)
        stages["synthesis"] = (time.perf_counter() - started) * 1000
        right = (
            isinstance(understood, HeardGuess)
            and understood.action is Action.ACCEPT
            and understood.card == utterance.card
        )
        timings.append(Timing(utterance.lang.value, stages, (closed.detected_s - speech_end) * 1000, right))
    progress(f"latency whisper: {len(timings)} guesses")
    return timings


def vosk_latency(recognizer: Any, words: Sequence[KoreanWord], synthesizer: Any, cache: Any) -> list[Timing]:
    timings: list[Timing] = []
    prompts = Prompts.load(Lang.EN)
    for index, word in enumerate(words):
        audio, speech_end = stream_of(korean_speech(word, cache), seed_of(word.uid, index))
        handed: list[Any] = [0, 0.0]  # chunks handed to vosk so far, and when the last one was

        def stream(audio: Audio = audio, handed: list[Any] = handed) -> Iterator[Audio]:
            for chunk in chunks(audio):
                handed[0] += 1
                handed[1] = time.perf_counter()
                yield chunk

        moment = korean_moment()
        for heard in recognizer.listen(stream(), lambda moment=moment: moment):
            decode_ms = (time.perf_counter() - handed[1]) * 1000
            close_ms = (min(handed[0] * CHUNK, len(audio)) / SAMPLE_RATE - speech_end) * 1000
            meaning = KOREAN_MEANINGS[KOREAN_NOUNS.index(word.text)]
            sentence = prompts.text(
                "guess.result_own",
                card=meaning,
                identity=prompts.text("identity.blue"),
                left=prompts.text("game.guesses_left", count=2),
            )
            started = time.perf_counter()
            synthesizer.synthesize(sentence)
            synth_ms = (time.perf_counter() - started) * 1000
            stages = {"pause": close_ms, "encode": decode_ms, "synthesis": synth_ms}
            timings.append(Timing("ko", stages, close_ms, heard.text == word.text))
            break  # one word per stream: its first result
    progress(f"latency vosk: {len(timings)} words")
    return timings


def korean_streams(count: int) -> list[KoreanWord]:
    """`count` Korean nouns to stream, cycling through the grammar."""
    nouns = [word for word in korean_corpus() if word.kind == "card"]
    return [nouns[index % len(nouns)] for index in range(count)]


def _spread(values: Sequence[float]) -> str:
    if not values:
        return "–"
    return f"{ms(percentile(values, 50))} / {ms(percentile(values, 90))}"


def tables(whisper: list[Timing] | str | None, vosk: list[Timing] | str | None) -> str:
    headers = [
        "engine",
        "n",
        "right",
        f"pause ({PAUSE_MS} ms rule)",
        "encode",
        "transcript",
        "card scores",
        f"close ({END_SILENCE_MS} ms rule)",
        "→ result",
        "decision",
        "synthesis",
        "→ first sample",
        "goal",
        "goal met?",
    ]
    rows: list[list[object]] = []
    groups: list[tuple[str, list[Timing] | str | None, int, bool]] = [
        ("whisper-base + Silero VAD", whisper, WHISPER_GOAL_MS, False)
    ]
    if isinstance(whisper, list):
        for lang in sorted({t.lang for t in whisper}):
            groups.append((f"whisper, {lang}", [t for t in whisper if t.lang == lang], WHISPER_GOAL_MS, False))
    groups.append(("vosk-ko grammar, streaming", vosk, VOSK_GOAL_MS, True))
    for name, timings, goal, on_result in groups:
        if timings is None:
            continue
        if isinstance(timings, str):
            rows.append([name, 0, "–", timings, *["–"] * 10])
            continue
        measured = percentile([t.to_result_ms if on_result else t.total_ms for t in timings], 90)
        rows.append(
            [
                name,
                len(timings),
                f"{sum(t.right for t in timings)}/{len(timings)}",
                *[_spread([t.stages[s] for t in timings if s in t.stages]) for s in STAGES[:4]],
                _spread([t.close_ms for t in timings]),
                _spread([t.to_result_ms for t in timings]),
                *[_spread([t.stages[s] for t in timings if s in t.stages]) for s in STAGES[4:]],
                _spread([t.total_ms for t in timings]),
                f"p90 → {'result' if on_result else 'first sample'} ≤ {goal} ms",
                goal_met(measured, goal),
            ]
        )
    return "\n".join(
        [
            "## 2. Latency",
            "",
            "Per guess, p50 / p90 in ms. *pause*: from the true end of speech to when the segmenter heard the "
            "silence that may end it and recognition started (audio time); *encode*, *transcript*, *card scores*: "
            "the Whisper recognizer's stages (`Heard.timings`, wall time); *close*: when the closing silence "
            "confirmed the end; *→ result*: max(pause + recognition, close), when the host has the evidence; "
            "*decision*: form, `decide` and `attend`; *synthesis*: `voicehost.mouth.Synthesizer` speaking the "
            'answer ("WALRUS: a blue agent. Keep going. Guesses left: 2.", the question back, or "again"); '
            "*→ first sample*: the sum. vosk: *pause* and *close* are the audio from the end of speech to the "
            "chunk after which it yielded, *encode* its wall time on that chunk, the reply English.",
            "",
            table(headers, rows),
        ]
    )
