"""Table talk by voice: discussion said by person-like voices over other players' babble, heard by the
real Whisper base model, never moves the game in either way of playing, and gets silence in the
addressed one (in the open one, talk half heard as a card may be asked back, never acted on).

The voices are the corpus's held-out ones (bench/corpus.py: never used to tune anything); the noise is
four other voices talking at 10 dB below the player (bench/noise.py). The host waits for guesses, with a
clue given: what it hears is talk that names the visible cards, so the one way to fail is to act.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.corpus import Condition, Utterance, audio_of, voices_of
from bench.voices import TestVoice
from engine.game import Phase
from engine.lang import Lang
from tests.speech_models import whisper_base_dir
from tests.understanding.test_table_talk import CLUES, LANGS, addressed, table, talk
from voicehost.ears.recognizers.whisper import WhisperRecognizer
from voicehost.understanding.moment import ListenMode

LINES_PER_LANG = 24
CONDITION = Condition.parse("babble-10")


@pytest.fixture(scope="module")
def recognizer() -> WhisperRecognizer:
    return WhisperRecognizer(whisper_base_dir())


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("speech")


def person_like(lang: Lang) -> TestVoice:
    voices = [voice for voice in voices_of(lang, "held-out") if not voice.hard_tail]
    assert voices, f"no person-like test voice installed for {lang.value}: see README, Tests"
    return voices[0]


@pytest.mark.parametrize("lang", LANGS)
def test_talk_said_over_babble_gets_silence(lang: str, recognizer: WhisperRecognizer, cache: Path) -> None:
    tables = {listening: table(lang, listening) for listening in ListenMode}
    for host, _, game in tables.values():
        host.hear(addressed(lang, CLUES[lang]))
        assert game.state.phase is Phase.GUESS
    voice = person_like(Lang.parse(lang))
    counts = {listening: (len(said.lines), len(game.events)) for listening, (_, said, game) in tables.items()}
    heard_lines = []
    for line in talk(lang)[:LINES_PER_LANG]:
        audio = audio_of(Utterance(Lang.parse(lang), voice, "talk", line, "test"), CONDITION, cache)
        host = tables[ListenMode.OPEN][0]
        heard = recognizer.recognize(audio, host.moment())
        heard_lines.append(f"{line!r} heard as {heard.text!r}")
        for listening, (host, said, game) in tables.items():
            host.hear(heard)
            spoken, events = counts[listening]
            assert len(game.events) == events, f"{listening.value}: {heard_lines[-1]} changed the game"
            if listening is ListenMode.ADDRESSED:
                assert said.lines[spoken:] == [], f"{listening.value}: the host answered {heard_lines[-1]}"
            else:  # open: talk half heard as a card may be asked back ("CEMITÉRIO?"), never acted on
                del said.lines[spoken:]
