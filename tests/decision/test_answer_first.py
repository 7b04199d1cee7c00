""" "No" opening a longer line (`voicehost.decision.cards.no_first`): over the others' talk Whisper writes the
room's words after a player's "no" ("No, I'm not."), and the line read as talk left the host's question
waiting ("Undo the pass?" asked six times in an English babble game). "No" changes nothing, so the words
alone say it; a "yes" opening a line is no answer by its words (the others' "Sì, c'è un cich" in babble
would have undone a pass nobody wanted undone)."""

from __future__ import annotations

import math

import pytest

from engine.lang import Lang
from voicehost.decision import decide
from voicehost.ears.heard import ClosedSet, Heard
from voicehost.referee.attention import Attention
from voicehost.referee.take_up import take_up
from voicehost.understanding import Command, HeardCommand, vocabulary
from voicehost.understanding.commands import answer_leading
from voicehost.understanding.moment import Awaited, Moment
from voicehost.understanding.reading import Reading

CARDS = ("WALRUS", "DRUMMER", "SARDINE", "ROCKET")
ASKED = Moment(Lang.EN, Awaited.GUESS, visible=CARDS, asked=True, offers=("DRUMMER",))


def scored(lead: str) -> ClosedSet:
    """ "yes", "no" and every card scored while "DRUMMER?" waits, `lead` first with nine tenths of the belief."""
    phrases = (*CARDS, "yes", "no")
    logits = tuple(math.log(0.9 if phrase == lead else 0.02) for phrase in phrases)
    return ClosedSet(phrases, logits, logits, tuple(0.0 for _ in phrases))


def understood(text: str, lead: str) -> object:
    heard = Heard(text, 0.2, closed=scored(lead), transcript_logprob=-3.0)
    return decide(heard, Reading(text, ASKED, heard.confidence))


@pytest.mark.parametrize(
    ("lang", "text", "answer"),
    [
        ("en", "No, I'm not.", Command.NO),
        ("en", "No. She's a good girl without her own means", Command.NO),
        ("pt-BR", "Sim, vamos nessa", Command.YES),
        ("it", "No, è il", Command.NO),
        ("en", "No.", None),  # a lone answer is read as a command already
        ("pt-BR", "Não vai dar nada,", Command.NO),
        ("en", "Know, it", None),  # only the language's own word, exactly
    ],
)
def test_a_yes_or_no_set_apart_at_the_start_of_a_line_is_read(lang: str, text: str, answer: Command | None) -> None:
    leading = answer_leading(text, vocabulary(Lang.parse(lang)))
    assert (leading[0] if leading else None) is answer


@pytest.mark.parametrize("lead", ["no", "yes", "WALRUS"])
def test_no_opening_a_line_answers_whatever_the_scores(lead: str) -> None:
    said = understood("No, I'm not.", lead)
    assert isinstance(said, HeardCommand) and said.command is Command.NO


def test_yes_opening_a_line_is_no_answer_by_its_words() -> None:
    said = understood("Yes, I think so maybe", "WALRUS")
    assert not (isinstance(said, HeardCommand) and said.command is Command.YES)


def test_a_negation_about_a_card_is_no_answer() -> None:
    moment = Moment(Lang.PT_BR, Awaited.GUESS, visible=("TOURO", "OCEANO"), asked=True, offers=("OCEANO",))
    heard = Heard("não é o touro", 0.2, transcript_logprob=-3.0)
    assert not isinstance(decide(heard, Reading(heard.text, moment, heard.confidence)), HeardCommand)


def test_talk_about_a_card_after_no_is_no_answer() -> None:
    """ "no, not the rocket, too easy" while "DRUMMER?" waits is the table talking: let be, the question waits."""
    heard = Heard("no, not the rocket, too easy", 0.2, closed=scored("no"), transcript_logprob=-3.0)
    taken = take_up(heard, ASKED)
    assert not (isinstance(taken.understood, HeardCommand) and taken.understood.command is Command.NO)
    assert taken.verdict is not Attention.TAKE or not isinstance(taken.understood, HeardCommand)


def test_the_answer_is_taken_up_though_the_line_reads_as_talk() -> None:
    heard = Heard("No, I'm not.", 0.2, closed=scored("yes"), transcript_logprob=-3.0)
    taken = take_up(heard, ASKED)
    assert taken.verdict is Attention.TAKE
    assert isinstance(taken.understood, HeardCommand) and taken.understood.command is Command.NO
