"""The open way acts at once on a card Whisper garbles when the scores alone are sure (`unworded_act`).

Its own recognizer: the second signal's examples of a board depend, under the tests' pinned numerics, on
which other boards' examples were encoded with them, so the cards' probabilities here must not depend on
what other modules heard first (espeak-ng's "colher", written "Cunhê", scores COLHER at 0.9997 here, and
TÚNEL at 0.95 after the classic-pt-PT board's examples: `test_whisper_engine`'s hard tail).
"""

from __future__ import annotations

import pytest

from tests.speech_models import whisper_base_dir
from tests.voice.test_whisper_engine import said


@pytest.fixture(scope="module")
def whisper() -> object:
    from voicehost.ears.recognizers.whisper import WhisperRecognizer

    return WhisperRecognizer(whisper_base_dir())


@pytest.mark.parametrize(
    ("voice", "lang", "card"),
    [("pt-br", "pt-BR", "MACARRÃO"), ("pt", "pt-PT", "COLHER"), ("it", "it", "RAZZO"), ("en-us", "en", "SHERIFF")],
)
def test_the_open_way_acts_on_a_card_whisper_garbles_when_the_scores_are_sure(
    whisper: object, voice: str, lang: str, card: str
) -> None:
    """espeak-ng's "macarrão" is written "Macafel", "colher" "Cunhê", "razzo" "Pagano", "sheriff"
    "Carrot": no word names a card, and the scores put the card said first, sure. The open way used to ask
    each back ("MACARRÃO?"); from the calibrated point for cards found only by the scores (`unworded_act`,
    in a few words) it acts at once."""
    from bench.corpus import boards
    from engine.lang import Lang
    from voicehost.referee.attention import Attention
    from voicehost.referee.take_up import take_up, worded
    from voicehost.understanding import Action, HeardGuess
    from voicehost.understanding.moment import Awaited, moment_for

    spoken = Lang.parse(lang)
    moment = moment_for(spoken, tuple(boards(spoken)["test"].cards), 5, Awaited.GUESS)
    heard = whisper.recognize(said(voice, card.lower()), moment)  # type: ignore[attr-defined]
    taken = take_up(heard, moment)
    assert isinstance(taken.understood, HeardGuess) and taken.understood.card == card, heard.text
    assert not worded(taken.understood, taken.reading), heard.text  # found by the scores alone
    assert (taken.verdict, taken.understood.action) == (Attention.TAKE, Action.ACCEPT), heard.text
