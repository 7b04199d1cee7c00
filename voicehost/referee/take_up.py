"""Taking up one utterance: what it means and whether the host acts on it, asks it back, or lets it be.

One pure step, shared by the host (`Host._hear`, which then only does what the result says) and the
bench (`bench.recognition.host_hears`), so that what the bench measures is what the host does. In order:
the form (`form_of`: said to the host or not, talk or a move), the host's name the transcript left out
(`Heard.name_gain`), the decision (a clue check, else `decide`), the attention verdict (`attend`) and
the hedge (`hedged`: a move asked back is never acted on at once).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

from engine.lang import Lang
from voicehost.decision import calibration, decide
from voicehost.ears.heard import Heard
from voicehost.referee.attention import Attention, Listening, attend, hedged
from voicehost.understanding import (
    Action,
    HeardClue,
    HeardCommand,
    HeardGuess,
    NotUnderstood,
    Understanding,
    understand,
)
from voicehost.understanding import Phase as Hearing
from voicehost.understanding.checks import clue_check
from voicehost.understanding.positions import Grid
from voicehost.understanding.results import KEY_REQUESTS
from voicehost.understanding.talk import Form, form_of


@dataclass(frozen=True)
class Moment:
    """What the host waits for when the utterance comes, and what it has asked."""

    lang: Lang
    visible: tuple[str, ...]  # the board's cards not covered yet
    grid: Grid | None  # the board as places ("B3"); None reads no places
    guessing: bool  # operatives are to guess now; else a clue is awaited
    asked: bool = False  # a question waits for its answer (an answer needs no name)
    offers: tuple[str, ...] | None = None  # a yes/no question's cards, what the ears listened for (None: none asked)
    before: Mapping[str, float] | None = None  # what the first hearing made of the cards asked about
    listening: Listening = Listening.OPEN
    host_names: tuple[str, ...] = ()  # names the players gave the host, besides the vocabulary's

    def afresh(self) -> Moment:
        """The same moment with no question: an utterance that was no answer, read against every card."""
        return replace(self, asked=False, offers=None, before=None)


@dataclass(frozen=True)
class TakenUp:
    """What the host makes of one utterance."""

    heard: Heard  # the utterance, the host's name taken off when it was said
    form: Form
    understood: Understanding  # hedged when `hedge`
    verdict: Attention
    hedge: bool  # asked back, never acted on at once
    named: Attention | None  # the ears heard the host's name the transcript left out: surely (TAKE), likely (ASK_BACK)


def take_up(heard: Heard, moment: Moment) -> TakenUp:
    """The form, the name, the decision, the verdict and the hedge of one utterance heard at `moment`."""
    form = form_of(heard.text, moment.lang, moment.host_names)
    named = name_heard(heard) if not (form.addressed or form.talk) else None
    if named is not None:  # the name was said, though the transcript left it out or garbled it
        said = " ".join(heard.text.split()[heard.name_words :])  # "FOST, music 2": the clue is music, 2
        heard = replace(heard, text=said)
        form = replace(form, text=said, addressed=True)
    elif form.addressed:
        heard = replace(heard, text=form.text)  # the scores were of the whole utterance, name and all
    understood = meaning(heard, moment)
    if named is Attention.ASK_BACK and isinstance(understood, NotUnderstood):
        form = replace(form, addressed=False)  # likely said to the host, but nothing to ask back about
    if isinstance(understood, HeardCommand) and understood.command in KEY_REQUESTS:
        form = replace(form, talk=False)  # "Host, is OCEAN allowed?" is a request, not talk
    verdict = attend(
        form,
        understood,
        listening=moment.listening,
        guessing=moment.guessing,
        answering=moment.asked,
        lone_card=_lone_card(form, understood, moment),
        worded=_worded(form, understood, moment),
    )
    hedge = verdict is Attention.ASK_BACK or (named is Attention.ASK_BACK and verdict is Attention.TAKE)
    return TakenUp(heard, form, hedged(understood) if hedge else understood, verdict, hedge, named)


def meaning(heard: Heard, moment: Moment) -> Understanding:
    """What the utterance means with the cards on offer at `moment`: a clue check ("is OCEAN allowed?",
    asked in private, never a clue) while a clue is awaited, else the one decision step (`decide`)."""
    check = None if moment.guessing else clue_check(heard.text, moment.lang)
    if check is not None:
        return check
    return decide(
        heard,
        phase=Hearing.GUESS if moment.guessing else Hearing.CLUE,
        cards=moment.visible if moment.offers is None else moment.offers,
        lang=moment.lang,
        answering=moment.offers is not None,
        before=moment.before,
        grid=moment.grid,
    )


def heard_afresh(taken: TakenUp, moment: Moment) -> Understanding:
    """The utterance read again against every visible card, no question asked (it was no answer to one),
    hedged as it was the first time."""
    understood = meaning(taken.heard, moment.afresh())
    return hedged(understood) if taken.hedge else understood


def name_heard(heard: Heard) -> Attention | None:
    """Whether the ears heard the host's name the transcript left out (`Heard.name_gain`, at the points
    calibrated on the tuning voices): TAKE when surely, ASK_BACK when likely (the move is asked back, never
    acted on at once), None when not."""
    gain, points = heard.name_gain, calibration()
    if gain is None or gain < points.name_ask:
        return None
    return Attention.TAKE if gain >= points.name_gain else Attention.ASK_BACK


def _worded(form: Form, understood: Understanding, moment: Moment) -> bool:
    """Whether the words heard, read as typed, name the card understood (the ears may have found it
    in the scores alone, from speech whose transcript names nothing)."""
    if not isinstance(understood, HeardGuess):
        return True
    read = _as_card(form.text, moment)
    return isinstance(read, HeardGuess) and read.card == understood.card


def _lone_card(form: Form, understood: Understanding, moment: Moment) -> bool:
    """A visible card's name and nothing else, heard while a clue is awaited (it is no clue: a player
    thinking aloud, or an operative ahead of their spymaster)."""
    if not isinstance(understood, HeardClue) or understood.clue.number is not None:
        return False
    alone = _as_card(form.text, moment)
    return isinstance(alone, HeardGuess) and alone.action is Action.ACCEPT


def _as_card(text: str, moment: Moment) -> Understanding:
    """The words read as typed, as a guess among the visible cards."""
    return understand(text, phase=Hearing.GUESS, cards=moment.visible, lang=moment.lang, grid=moment.grid)
