"""Latency: from the end of a player's move to the first sample of the host's spoken answer, as it plays.

Whisper path: the host itself hears each move. A game on the corpus's board waits for it (a clue given
when the move is a guess, a place or a command; a fresh game for a clue), the host
(`voicehost.referee.host.Host`) runs with its voice loop (`voicehost.frontends.voice_loop.VoiceLoop`),
whose ears are `SegmentedEars` (the Silero segmenter, recognition started at the first pause, the
hold for an unfinished clue word), and speaks through `SpeakerMouth` with the real synthesizer. The
move comes as a microphone delivers it: quiet, the speech, quiet, in 32 ms chunks, each when its last
sample has been "recorded" (real time). The loudspeaker is a stand-in that notes when it is handed
the answer's first sample. Nothing is rebuilt here: the parts are watched, never copied.

    first sample = the loudspeaker gets the answer's first sample - the speech ended

Its stages, from what the watched parts did (wall time, `time.perf_counter`): *pause*, from the end
of speech to the start of the recognition whose result the host used (the first pause of
`vad.PAUSE_MS`, or later); *encode*, *transcript*, *scores*, the recognizer's own (`Heard.timings`);
*→ result*, from the end of speech to when the ears handed the utterance to the host (the closing
silence of `vad.END_SILENCE_MS`, `vad.WHOLE_MS` for a move the host acts on at once, held longer for an
unfinished clue word, or the recognition's end if later); *decision*, from there to the synthesis of
the answer starting (`Host.hear`: the take-up, the rules, the announcer's text); *synthesis*, the
synthesizer's time for the whole answer (espeak-ng writes it whole before the first sample).

Satellite path: the same host through a Wyoming satellite (`bench.satellite`, in this process: it
streams its microphone in 1024-sample chunks in real time), the link and the satellite's speaker as
`--satellite` plays (`SatelliteLink`, `SatelliteMouth`); *→ first chunk* is from the end of speech at
the satellite's microphone to the first audio chunk of the answer arriving back at it.

vosk path (the Korean model, bench/korean.py): the stream is fed in the same chunks to
`VoskRecognizer.listen`, whose endpointer closes the utterance; to the result is the audio between the
end of speech and the chunk that closed it plus the wall time vosk took on that last chunk.
"""

from __future__ import annotations

import contextlib
import io
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

import numpy as np

from bench.corpus import CLUE_WORDS, HISS, Utterance, boards, corpus, seed_of, voices_of
from bench.korean import KOREAN_MEANINGS, KOREAN_NOUNS, KoreanWord, korean_corpus, korean_moment, korean_speech
from bench.places import place_corpus
from bench.recognition import progress
from bench.report import goal_met, ms, percentile, table
from bench.satellite import Said, SatelliteStandIn
from bench.voices import synthesize
from engine.editions import new_game
from engine.events import EventType
from engine.lang import Lang
from voicehost.audio.samples import SAMPLE_RATE, Audio
from voicehost.ears.heard import Heard, MomentSource, Preparing, Recognizer
from voicehost.ears.recordings import CHUNK_SECONDS
from voicehost.ears.streams import Ears, SegmentedEars, Unfinished, Whole
from voicehost.frontends.voice_loop import VoiceLoop
from voicehost.mouth import SpeakerMouth, SpeechSynthesizer
from voicehost.prompts import Prompts
from voicehost.referee.host import Host, HostSettings
from voicehost.understanding.moment import ListenMode

CHUNK: Final = round(CHUNK_SECONDS * SAMPLE_RATE)
"""As the microphone delivers it (voicehost.ears.recordings.CHUNK_SECONDS)."""
LEAD_S: Final = 0.6
TRAIL_S: Final = 2.5
"""Quiet after the speech: more than the hold for an unfinished clue word and vosk's longest rule (2 s)."""
AFTER_ANSWER_S: Final = 0.2
"""The stream goes on this long after the answer's first sample, then stops."""
WHISPER_GOAL_MS: Final = 450
SATELLITE_GOAL_MS: Final = 500
VOSK_GOAL_MS: Final = 200
KINDS: Final = ("card", "lead-in", "place", "clue", "command")
STAGES: Final = ("pause", "encode", "transcript", "scores", "priors", "result", "decision", "synthesis")
PATHS: Final = ("local", "satellite")


@dataclass(frozen=True)
class Timing:
    """One move: each stage in ms (`first` is end of speech → first sample, or → first chunk back through
    a satellite), what the host made of it, its kind, language and path."""

    lang: str
    kind: str
    path: str
    stages: dict[str, float]
    outcome: str  # acted on, asked back, or answered otherwise ("Sorry?", a command's answer)

    @property
    def first_ms(self) -> float:
        return self.stages["first"]

    @property
    def to_result_ms(self) -> float:
        return self.stages["result"]


def stream_of(speech: Audio, seed: int) -> tuple[Audio, float]:
    """Quiet, the speech, quiet, with the room's hiss; and where the speech ends, in seconds."""
    head, tail = round(LEAD_S * SAMPLE_RATE), round(TRAIL_S * SAMPLE_RATE)
    audio = np.concatenate([np.zeros(head, np.float32), speech, np.zeros(tail, np.float32)])
    audio = audio + np.random.default_rng(seed).standard_normal(len(audio)) * HISS
    return np.clip(audio, -1.0, 1.0).astype(np.float32), LEAD_S + len(speech) / SAMPLE_RATE


def chunks(audio: Audio) -> Iterator[Audio]:
    for start in range(0, len(audio), CHUNK):
        yield audio[start : start + CHUNK]


def sample(langs: Sequence[Lang], per_kind: int, *, quick: bool) -> list[Utterance]:
    """`per_kind` moves of each kind (cards alone, after a lead-in, places, clues, commands) of each
    language's held-out voices, spread over voices and boards with a fixed seed."""
    picked: list[Utterance] = []
    for lang in langs:
        voices = voices_of(lang, "held-out")[: 1 if quick else None]
        said = corpus(lang, voices, quick=quick) + place_corpus(lang, voices, quick=quick)
        for kind in KINDS:
            of_kind = [u for u in said if u.kind == kind]
            rng = np.random.default_rng(seed_of("latency", lang.value, kind))
            count = min(per_kind, len(of_kind))
            picked += [of_kind[int(i)] for i in sorted(rng.choice(len(of_kind), count, replace=False))]
    return picked


# ---- watching the parts ---------------------------------------------------------------------------------


@dataclass
class Watch:
    """What the parts did, and when (time.perf_counter)."""

    recognized: list[tuple[float, float, Heard]] = field(default_factory=list)  # started, done, result
    handed: list[tuple[float, Heard]] = field(default_factory=list)  # the ears handed an utterance to the host
    synthesized: list[tuple[float, float]] = field(default_factory=list)  # started, done
    played: list[float] = field(default_factory=list)  # the loudspeaker got an answer's first sample
    answered: threading.Event = field(default_factory=threading.Event)


class WatchedRecognizer:
    """The recognizer, each recognition noted."""

    def __init__(self, recognizer: Recognizer, watch: Watch) -> None:
        self._recognizer, self._watch = recognizer, watch

    def recognize(self, audio: Audio, moment: Any) -> Heard:
        started = time.perf_counter()
        heard = self._recognizer.recognize(audio, moment)
        self._watch.recognized.append((started, time.perf_counter(), heard))
        return heard

    def prepare(self, moment: Any, *, wait: bool = False) -> None:
        """The recognizer's own (the ears ask it when they start listening, and after each move)."""
        if isinstance(self._recognizer, Preparing):
            self._recognizer.prepare(moment, wait=wait)


class WatchedEars:
    """The ears, each utterance handed to the host noted."""

    def __init__(self, ears: Ears, watch: Watch) -> None:
        self._ears, self._watch = ears, watch

    def utterances(
        self,
        chunks: Iterable[Audio],
        moment: MomentSource,
        unfinished: Unfinished | None = None,
        whole: Whole | None = None,
    ) -> Iterator[Heard]:
        for heard in self._ears.utterances(chunks, moment, unfinished, whole):
            self._watch.handed.append((time.perf_counter(), heard))
            yield heard


class WatchedSynthesizer:
    """The host's voice, each synthesis noted (and its sentences, when it speaks sentence by sentence)."""

    def __init__(self, synthesizer: SpeechSynthesizer, watch: Watch) -> None:
        self._synthesizer, self._watch = synthesizer, watch

    def synthesize(self, text: str) -> Audio:
        started = time.perf_counter()
        audio = self._synthesizer.synthesize(text)
        self._watch.synthesized.append((started, time.perf_counter()))
        return audio


class Loudspeaker:
    """Stands in for the sound card: notes when it gets an answer's first sample, plays nothing."""

    def __init__(self, watch: Watch) -> None:
        self._watch = watch

    def play(self, audio: Audio, rate: int, cancel: threading.Event) -> bool:
        self._watch.played.append(time.perf_counter())
        self._watch.answered.set()
        return True

    def close(self) -> None:
        """Nothing to close."""


def paced(audio: Audio, chunk: int, started: float, stop: threading.Event) -> Iterator[Audio]:
    """`audio` in chunks of `chunk` samples, each when its last sample has been recorded (a microphone),
    from `started` on; ended early once `stop` is set."""
    for first in range(0, len(audio), chunk):
        delay = started + (first + chunk) / SAMPLE_RATE - time.perf_counter()
        if delay > 0:
            time.sleep(delay)
        if stop.is_set():
            return
        yield audio[first : first + chunk]


# ---- the host, hearing one move ---------------------------------------------------------------------------


def table_for(utterance: Utterance, mouth: Any, listening: ListenMode = ListenMode.OPEN) -> Host:
    """A host whose game waits for this move: a fresh game for a clue; else one where a clue was given."""
    game = new_game(boards(utterance.lang)[utterance.board])
    if utterance.phase == "guess":
        game.give_clue(CLUE_WORDS[utterance.lang][0], 2)
    return Host(game, Prompts.load(utterance.lang), mouth, settings=HostSettings(listening=listening))


def dealt_before(recognizer: Recognizer, host: Host) -> None:
    """What the recognizer makes for a board when it is dealt (`Preparing`), made before the move: in a game
    the host's opening and the clue come first, and give it those seconds (the ears start it at the deal)."""
    if isinstance(recognizer, Preparing):
        recognizer.prepare(host.moment(), wait=True)


def outcome_of(host: Host, events_before: int) -> str:
    """What the host made of the move: acted on (the game moved), asked back (a question waits), else answered."""
    if host.question is not None:
        return "asked back"
    moved = host.game.events[events_before:]
    if any(e.type in (EventType.GUESS, EventType.CLUE, EventType.TURN_ENDED) for e in moved):
        return "acted on"
    return "answered"


def stages_of(watch: Watch, speech_end: float, answer: float) -> dict[str, float]:
    """The stages of the answer that reached the speaker at `answer`, the speech having ended at `speech_end`."""
    handed_at, heard = max((h for h in watch.handed if h[0] <= answer), key=lambda h: h[0])
    used = [r for r in watch.recognized if r[2].decode_ms == heard.decode_ms and r[2].text == heard.text]
    stages = {"first": (answer - speech_end) * 1000, "result": (handed_at - speech_end) * 1000}
    if used:
        started, _, result = max(used, key=lambda r: r[0])
        stages["pause"] = (started - speech_end) * 1000
        stages.update(dict(result.timings))
    synthesis = [s for s in watch.synthesized if handed_at <= s[0] <= answer]
    if synthesis:
        started, done = synthesis[0]
        stages["decision"] = (started - handed_at) * 1000
        stages["synthesis"] = (done - started) * 1000
    return stages


def hear_locally(
    recognizer: Recognizer, synthesizer: SpeechSynthesizer, utterance: Utterance, speech: Audio, segmenter: Any
) -> Timing | None:
    """The host hears the move from a microphone and answers on a loudspeaker; None when it said nothing."""
    watch = Watch()
    mouth = SpeakerMouth(
        WatchedSynthesizer(synthesizer, watch), make_output=lambda: Loudspeaker(watch), out=io.StringIO()
    )
    host = table_for(utterance, mouth)
    dealt_before(recognizer, host)
    events = len(host.game.events)
    ears = WatchedEars(SegmentedEars(WatchedRecognizer(recognizer, watch), segmenter), watch)
    audio, speech_end_s = stream_of(speech, seed_of(utterance.uid, "latency"))
    stop = threading.Event()
    started = time.perf_counter() + 0.05
    stopper = _stop_after_answer(watch, stop)
    try:
        VoiceLoop(host, ears, mouth=mouth).run(paced(audio, CHUNK, started, stop))
    finally:
        stop.set()
        stopper.join()
        mouth.close(drain=True, timeout=30)
    return _timing(utterance, "local", watch, started + speech_end_s, watch.played, outcome_of(host, events))


def _stop_after_answer(watch: Watch, stop: threading.Event) -> threading.Thread:
    """Ends the stream AFTER_ANSWER_S after the host's answer reached the speaker."""

    def wait() -> None:
        if watch.answered.wait(LEAD_S + 20) or stop.is_set():
            time.sleep(AFTER_ANSWER_S)
        stop.set()

    thread = threading.Thread(target=wait, name="bench-stopper", daemon=True)
    thread.start()
    return thread


def _timing(
    utterance: Utterance, path: str, watch: Watch, speech_end: float, answers: Sequence[float], outcome: str
) -> Timing | None:
    """The first answer after the ears handed the move to the host, by stage; None when there is none (the
    host let it be). A whole move closes 160 ms after the detector's end of speech, which may come before a
    faint tail the synthesized speech still holds: that answer is this move's too."""
    if not watch.handed:
        return None
    after = [t for t in answers if t >= watch.handed[0][0]]
    if not after:
        return None
    if path == "satellite":  # the stages are the host's; the answer is what came back to the satellite
        local = [t for t in watch.played if t >= watch.handed[0][0]]
        stages = stages_of(watch, speech_end, local[0]) if local else {}
        stages["first"] = (after[0] - speech_end) * 1000
    else:
        stages = stages_of(watch, speech_end, after[0])
    return Timing(utterance.lang.value, utterance.kind, path, stages, outcome)


class SatelliteSpeaker:
    """The satellite's speaker as the host's mouth sees it (`SatelliteMouth`), noting when an answer's first
    sample is handed over (as the local stand-in loudspeaker does)."""

    def __init__(self, synthesizer: SpeechSynthesizer, watch: Watch) -> None:
        self._synthesizer, self._watch = WatchedSynthesizer(synthesizer, watch), watch

    def synthesize(self, text: str) -> Audio:
        audio = self._synthesizer.synthesize(text)
        self._watch.played.append(time.perf_counter())  # handed to the link right after
        self._watch.answered.set()
        return audio


def hear_through_satellite(
    recognizer: Recognizer,
    synthesizer: SpeechSynthesizer,
    utterances: Sequence[tuple[Utterance, Audio]],
    segmenter: Any,
) -> list[Timing]:
    """The host hears each move through a Wyoming satellite and answers on its speaker, as `--satellite`
    plays (`voicehost.frontends.satellite`): the link's chunks into the voice loop, `SatelliteMouth`."""
    from voicehost.frontends.wyoming_link import SatelliteLink
    from voicehost.mouth.satellite import SatelliteMouth

    timings: list[Timing] = []
    satellite = SatelliteStandIn()
    link = SatelliteLink("127.0.0.1", satellite.port)
    try:
        link.open()
        for utterance, speech in utterances:
            watch = Watch()
            mouth = SatelliteMouth(SatelliteSpeaker(synthesizer, watch), link, out=io.StringIO())
            host = table_for(utterance, mouth)
            dealt_before(recognizer, host)
            events = len(host.game.events)
            ears = WatchedEars(SegmentedEars(WatchedRecognizer(recognizer, watch), segmenter), watch)
            audio, speech_end_s = stream_of(speech, seed_of(utterance.uid, "latency"))
            said = Said(audio, speech_end_s)
            stop = threading.Event()
            before = len(satellite.heard.first_chunks)
            stopper = _stop_after_answer(watch, stop)
            loop = threading.Thread(
                target=VoiceLoop(host, ears, mouth=mouth).run,
                args=(link.chunks(lambda lost: None, lambda: None, stop),),
                name="bench-voice-loop",
            )
            loop.start()
            time.sleep(0.3)  # the loop has caught up with the satellite's stream
            satellite.say(said)
            stopper.join()
            loop.join(30)
            mouth.close(drain=True, timeout=30)
            back = satellite.heard.first_chunks[before:]
            end = said.speech_end
            found = None if end is None else _timing(utterance, "satellite", watch, end, back, outcome_of(host, events))
            if found is not None:
                timings.append(found)
    finally:
        with contextlib.suppress(Exception):
            link.close()
        satellite.close()
    return timings


def whisper_latency(
    recognizer: Recognizer,
    said: Sequence[Utterance],
    synthesizers: dict[Lang, SpeechSynthesizer],
    cache: Any,
    paths: Sequence[str] = PATHS,
) -> list[Timing]:
    """Each move heard by the host on each path (`PATHS`); VadError when the segmenter cannot run."""
    from voicehost.ears.vad import Segmenter

    segmenter = Segmenter()
    timings: list[Timing] = []
    speeches = [(u, synthesize(u.voice, u.text, cache_dir=cache)) for u in said]
    if "local" in paths:
        for utterance, speech in speeches:
            found = hear_locally(recognizer, synthesizers[utterance.lang], utterance, speech, segmenter)
            if found is not None:
                timings.append(found)
        progress(f"latency whisper: {len(timings)} of {len(said)} moves answered")
    if "satellite" in paths:
        for lang in dict.fromkeys(u.lang for u in said):
            mine = [(u, s) for u, s in speeches if u.lang is lang]
            timings += hear_through_satellite(recognizer, synthesizers[lang], mine, segmenter)
        progress(f"latency through a satellite: {sum(t.path == 'satellite' for t in timings)} moves answered")
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
            stages = {"pause": close_ms, "encode": decode_ms, "result": close_ms + decode_ms, "synthesis": synth_ms}
            stages["first"] = stages["result"] + synth_ms
            outcome = "acted on" if heard.text == word.text else "answered"
            timings.append(Timing("ko", "card", "local", stages, outcome))
            break  # one word per stream: its first result
    progress(f"latency vosk: {len(timings)} words")
    return timings


def korean_streams(count: int) -> list[KoreanWord]:
    """`count` Korean nouns to stream, cycling through the grammar."""
    nouns = [word for word in korean_corpus() if word.kind == "card"]
    return [nouns[index % len(nouns)] for index in range(count)]


# ---- the tables -------------------------------------------------------------------------------------------


def _spread(values: Sequence[float]) -> str:
    if not values:
        return "–"
    return f"{ms(percentile(values, 50))} / {ms(percentile(values, 90))}"


def goal_of(path: str) -> int:
    return SATELLITE_GOAL_MS if path == "satellite" else WHISPER_GOAL_MS


def tables(whisper: list[Timing] | str | None, vosk: list[Timing] | str | None) -> str:
    headers = [
        "engine, path",
        "moves",
        "n",
        "acted / asked / other",
        "pause",
        "encode",
        "transcript",
        "scores",
        "priors",
        "→ result",
        "decision",
        "synthesis",
        "→ first sample",
        "goal",
        "goal met?",
    ]
    rows: list[list[object]] = []
    groups: list[tuple[str, str, list[Timing] | str | None, int, bool]] = []
    if isinstance(whisper, list):
        for path in PATHS:
            on_path = [t for t in whisper if t.path == path]
            if not on_path:
                continue
            name = "whisper-base, " + ("satellite" if path == "satellite" else "microphone")
            groups.append((f"**{name}**", "all", on_path, goal_of(path), False))
            for kind in KINDS:
                groups.append((name, kind, [t for t in on_path if t.kind == kind], goal_of(path), False))
            for lang in sorted({t.lang for t in on_path}):
                groups.append((name, lang, [t for t in on_path if t.lang == lang], goal_of(path), False))
    elif whisper is not None:
        groups.append(("whisper-base", "–", whisper, WHISPER_GOAL_MS, False))
    if vosk is not None:
        groups.append(("vosk-ko grammar, streaming", "card", vosk, VOSK_GOAL_MS, True))
    for name, moves, timings, goal, on_result in groups:
        if isinstance(timings, str) or timings is None:
            rows.append([name, moves, 0, "–", timings, *["–"] * 10])
            continue
        if not timings:
            continue
        measured = percentile([t.to_result_ms if on_result else t.first_ms for t in timings], 90)
        counts = [sum(t.outcome == o for t in timings) for o in ("acted on", "asked back", "answered")]
        rows.append(
            [
                name,
                moves,
                len(timings),
                " / ".join(str(c) for c in counts),
                *[_spread([t.stages[s] for t in timings if s in t.stages]) for s in STAGES],
                _spread([t.first_ms for t in timings]),
                f"p90 → {'result' if on_result else 'first sample'} ≤ {goal} ms",
                goal_met(measured, goal),
            ]
        )
    return "\n".join(
        [
            "## 2. Latency",
            "",
            "Per move, p50 / p90 in ms, as the host plays: a game waiting for the move, the host, its voice loop "
            "and ears (recognition from the first pause, the hold for an unfinished clue word) and its voice, "
            "the move streamed in real time. *pause*: from the end of speech to the start of the recognition "
            "whose result was used; *encode*, *transcript*, *scores*: the recognizer's stages; *priors*: the "
            "scores against silence a board's phrases need once for each length of utterance; *→ result*: from "
            "the end of speech to the ears handing the utterance to the host (the closing silence, or the "
            "recognition's end if later); *decision*: the host's take-up, rules and text, to its synthesis "
            "starting; *synthesis*: the whole answer's (espeak-ng writes it whole); *→ first sample*: from the "
            "end of speech to the answer's first sample at the loudspeaker, or through a satellite to the "
            "answer's first audio chunk arriving back at it. Moves the host let be (no answer) are not "
            "counted. vosk: *pause* is the audio from the end of speech to the chunk after which it yielded, "
            "*encode* its wall time on that chunk, the reply English.",
            "",
            table(headers, rows),
        ]
    )
