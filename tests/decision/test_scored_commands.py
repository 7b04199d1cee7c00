"""The read-only commands as the help teaches them are scored beside the cards while guessing
(`[scored_commands]` in each vocabulary): one garbled past its words ("Pua no placar." for "qual é o
placar") is taken from its own calibrated share, as it changes nothing; a command that changes the game
never is."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest

from engine.lang import Lang
from voicehost.decision import calibration, decide
from voicehost.ears.heard import ClosedSet, Heard
from voicehost.ears.recognizers.whisper import extra_phrases
from voicehost.understanding import Action, Command, HeardCommand, vocabulary
from voicehost.understanding.moment import Awaited, Moment
from voicehost.understanding.reading import Reading
from voicehost.understanding.results import READ_ONLY
from voicehost.understanding.vocabulary import Vocabulary, resolved_table

CARDS = ("IMPRESSORA", "MACARRÃO", "MARMELADA", "SOLDADO")
GUESSING = Moment(Lang.PT_BR, Awaited.GUESS, visible=CARDS)


def scored(lead: str, share: float) -> ClosedSet:
    """Every card and scored phrase, `lead` first with `share` of the belief, the rest sharing what is left."""
    phrases = (*CARDS, *extra_phrases(Lang.PT_BR, answering=False))
    rest = (1 - share) / (len(phrases) - 1)
    logits = tuple(math.log(share if p == lead else rest) for p in phrases)
    return ClosedSet(phrases, logits, logits, tuple(0.0 for _ in phrases))


def understood(text: str, closed: ClosedSet, point: float | None) -> object:
    model = replace(calibration(), read_only_share=point)
    heard = Heard(text, 0.35, closed=closed, transcript_logprob=-1.0)
    return decide(heard, Reading(text, GUESSING, heard.confidence), model)


def test_a_read_only_command_the_scores_put_first_from_its_point_is_taken() -> None:
    said = understood("Pua no placar.", scored("qual é o placar", 0.9), point=0.8)
    assert isinstance(said, HeardCommand) and (said.command, said.action) == (Command.SCORE, Action.ACCEPT)


@pytest.mark.parametrize("point", [0.95, None])
def test_under_its_point_or_without_one_it_is_not(point: float | None) -> None:
    said = understood("Pua no placar.", scored("qual é o placar", 0.9), point=point)
    assert not isinstance(said, HeardCommand)


def test_each_language_scores_the_read_only_commands_its_help_teaches_while_guessing() -> None:
    for lang in Lang:
        vocab = vocabulary(lang)
        assert {vocab.scored_commands[p] for p in vocab.scored_commands} >= {Command.REPEAT, Command.SCORE}
        assert set(vocab.scored_commands.values()) <= READ_ONLY
        assert set(vocab.scored_commands) <= set(extra_phrases(lang, answering=False))
        assert not set(vocab.scored_commands) & set(extra_phrases(lang, answering=True))


def test_a_command_that_changes_the_game_cannot_be_scored_that_way() -> None:
    table = {**resolved_table("en"), "scored_commands": {"undo": "UNDO"}}
    with pytest.raises(ValueError, match="read-only"):
        Vocabulary.from_dict(Lang.EN, table)


def test_talk_that_mentions_the_score_is_no_command_whatever_the_scores() -> None:
    """A line longer than the phrase by more than a word is talk ("who's winning the score, us or them?")."""
    said = understood("quem está ganhando no placar, nós ou eles?", scored("qual é o placar", 0.99), point=0.8)
    assert not isinstance(said, HeardCommand)
