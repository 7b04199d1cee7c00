"""The read-only commands as the help teaches them, and a pass's commonest few words, are scored beside
the cards while guessing (`[scored_commands]` in each vocabulary): a read-only one garbled past its words
("Pua no placar." for "qual é o placar") is taken from its own calibrated share, as it changes nothing; a
pass's phrases add up with its word and are weighed from the pass's points; no other command that changes
the game is scored so."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest

from engine.lang import Lang
from voicehost.decision import calibration, decide
from voicehost.decision.decide import lead_share
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
        assert set(vocab.scored_commands.values()) <= {*READ_ONLY, Command.PASS}
        assert Command.PASS in vocab.scored_commands.values()  # "we're done", "passo a vez", "passo il turno"
        assert set(vocab.scored_commands) <= set(extra_phrases(lang, answering=False))
        assert not set(vocab.scored_commands) & set(extra_phrases(lang, answering=True))


def test_a_command_that_changes_the_game_cannot_be_scored_that_way() -> None:
    table = {**resolved_table("en"), "scored_commands": {"undo": "UNDO"}}
    with pytest.raises(ValueError, match="read-only command or PASS"):
        Vocabulary.from_dict(Lang.EN, table)


def test_talk_that_mentions_the_score_is_no_command_whatever_the_scores() -> None:
    """A line longer than the phrase by more than a word is talk ("who's winning the score, us or them?")."""
    said = understood("quem está ganhando no placar, nós ou eles?", scored("qual é o placar", 0.99), point=0.8)
    assert not isinstance(said, HeardCommand)


def split(shares: dict[str, float]) -> ClosedSet:
    """Every card and scored phrase, `shares` given, the rest sharing what is left."""
    phrases = (*CARDS, *extra_phrases(Lang.PT_BR, answering=False))
    rest = (1 - sum(shares.values())) / (len(phrases) - len(shares))
    logits = tuple(math.log(shares.get(p, rest)) for p in phrases)
    return ClosedSet(phrases, logits, logits, tuple(0.0 for _ in phrases))


def test_a_commands_phrases_are_one_move_and_their_shares_add_up() -> None:
    """ "Pua no placar." split between "qual é o placar" and "placar": each under the point, together over it."""
    said = understood("Pua no placar.", split({"qual é o placar": 0.5, "placar": 0.4}), point=0.8)
    assert isinstance(said, HeardCommand) and (said.command, said.action) == (Command.SCORE, Action.ACCEPT)
    assert said.confidence == pytest.approx(0.9)


def test_a_command_split_over_its_phrases_can_lead_a_card_that_leads_each_phrase() -> None:
    said = understood("Pua no placar.", split({"SOLDADO": 0.4, "qual é o placar": 0.3, "placar": 0.28}), point=0.5)
    assert isinstance(said, HeardCommand) and said.command is Command.SCORE


def passed(text: str, share: float, alone: float | None) -> object:
    model = replace(calibration(), pass_share=0.5, pass_alone_share=alone)
    heard = Heard(text, 0.35, closed=scored("passo", share), transcript_logprob=-1.0)
    return decide(heard, Reading(text, GUESSING, heard.confidence), model)


def test_pass_heard_only_by_the_scores_acts_from_its_own_point() -> None:
    said = passed("Tâso.", 0.97, alone=0.95)
    assert isinstance(said, HeardCommand) and (said.command, said.action) == (Command.PASS, Action.ACCEPT)


@pytest.mark.parametrize("alone", [0.99, None])
def test_under_that_point_or_without_one_pass_is_asked_back(alone: float | None) -> None:
    said = passed("Tâso.", 0.97, alone=alone)
    assert isinstance(said, HeardCommand) and (said.command, said.action) == (Command.PASS, Action.CONFIRM)


def test_a_sentence_scored_as_pass_is_never_acted_on_at_once() -> None:
    said = passed("a gente já tá cansado disso", 0.99, alone=0.9)
    assert not (isinstance(said, HeardCommand) and said.action is Action.ACCEPT)


def plainly_unsure(text: str, shares: dict[str, float], lang: Lang = Lang.PT_BR) -> object:
    """`text` read as a pass, its transcript unsure (asked back on its words alone), with the scores given."""
    model = replace(calibration(), pass_share=0.5, pass_alone_share=None)
    heard = Heard(text, 0.35, closed=split(shares), transcript_logprob=-1.0)
    return decide(heard, Reading(text, GUESSING, heard.confidence), model)


def test_a_pass_said_in_its_own_words_and_heard_unsure_acts_when_its_phrases_together_lead() -> None:
    """ "Passo a vez." heard unsure: the scores split between "passo a vez" and "passo", each under the point."""
    said = plainly_unsure("Passo a vez.", {"passo a vez": 0.3, "passo": 0.25, "SOLDADO": 0.2})
    assert isinstance(said, HeardCommand) and (said.command, said.action) == (Command.PASS, Action.ACCEPT)


def test_a_card_leading_a_pass_split_over_its_phrases_leaves_it_asked_back() -> None:
    said = plainly_unsure("Passo a vez.", {"passo a vez": 0.2, "passo": 0.2, "SOLDADO": 0.45})
    assert isinstance(said, HeardCommand) and (said.command, said.action) == (Command.PASS, Action.CONFIRM)


def test_a_pass_phrase_garbled_and_scored_first_is_a_pass_not_the_card_after_it() -> None:
    """ "Passbâmbis" for "passo a vez" (and "We done." for "we're done"): the scores put the phrase first,
    and a pass is asked back, never a card revealed."""
    said = understood("Passbâmbis", split({"passo a vez": 0.7, "passo": 0.2, "SOLDADO": 0.05}), point=0.8)
    assert isinstance(said, HeardCommand) and said.command is Command.PASS


def test_the_moves_share_sums_a_commands_phrases_and_is_zero_when_another_move_leads() -> None:
    rivals = (*CARDS, *vocabulary(Lang.PT_BR).scored_phrases)
    closed = split({"passo a vez": 0.3, "passo": 0.25, "SOLDADO": 0.4})
    assert lead_share(closed, "passo", rivals, Lang.PT_BR) == pytest.approx(0.55, abs=0.01)
    assert lead_share(closed, "SOLDADO", rivals, Lang.PT_BR) == 0.0
