"""The decision's features of a guess, with the second signal and the room's noise (`voicehost.decision`).

Unit tests on made-up evidence: how the second signal's lead is read, how it is weighed into the cards'
scores when the calibration says so, and that a calibration fitted without a feature still loads.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from engine.lang import Lang
from voicehost.decision import FEATURES, calibration, decide, evidence
from voicehost.decision.calibration import Calibration, use
from voicehost.decision.cards import Evidence
from voicehost.decision.features import MAX_EXAMPLE_LEAD, QUIET_DB, with_examples
from voicehost.ears.heard import ByExample, ClosedSet, Heard
from voicehost.understanding import Action, Command, HeardClue, HeardCommand, HeardGuess, Understanding
from voicehost.understanding.moment import Awaited, Moment
from voicehost.understanding.reading import Reading

CARDS = ("CHERRY", "WALRUS", "ROBIN")


def closed(logits: dict[str, float]) -> ClosedSet:
    order = sorted(logits, key=lambda phrase: -logits[phrase])
    return ClosedSet(tuple(order), tuple(logits[p] - 1 for p in order), tuple(logits[p] for p in order), (0.0,) * 3)


def heard(logits: dict[str, float], costs: dict[str, float] | None, snr: float | None = None) -> Heard:
    examples = None
    if costs is not None:
        order = sorted(costs, key=lambda phrase: costs[phrase])
        examples = ByExample(tuple(order), tuple(costs[p] for p in order))
    return Heard("mumble", 0.3, transcript_logprob=-3.0, closed=closed(logits), examples=examples, snr_db=snr)


def reading(said: Heard, lang: Lang = Lang.EN) -> Reading:
    return Reading(said.text, Moment(lang, Awaited.GUESS, visible=CARDS), said.confidence)


def found(said: Heard, model: Calibration | None = None) -> Evidence | None:
    """What the scores say of `said` while guessing among CARDS (the shipped calibration's weighing)."""
    return evidence(said, reading(said), model or calibration())


def decided(said: Heard, lang: Lang = Lang.EN, model: Calibration | None = None) -> Understanding:
    return decide(said, reading(said, lang), model)


def test_the_second_signal_agreeing_leads_and_disagreeing_trails() -> None:
    logits = {"CHERRY": -1.0, "WALRUS": -4.0, "ROBIN": -5.0}
    agreeing = found(heard(logits, {"CHERRY": 0.40, "WALRUS": 0.55, "ROBIN": 0.60}, 12.0))
    trailing = found(heard(logits, {"CHERRY": 0.58, "WALRUS": 0.50, "ROBIN": 0.60}))
    assert agreeing is not None and agreeing.features is not None
    assert trailing is not None and trailing.features is not None
    assert agreeing.features.example_lead == pytest.approx(0.15)
    assert agreeing.features.example_first == 1.0
    assert agreeing.features.snr == 12.0
    assert trailing.features.example_lead == pytest.approx(-0.08)
    assert trailing.features.example_first == 0.0
    assert trailing.features.snr == QUIET_DB  # no estimate: a quiet room


def test_without_the_second_signal_its_features_are_neutral_and_a_far_lead_is_capped() -> None:
    logits = {"CHERRY": -1.0, "WALRUS": -4.0, "ROBIN": -5.0}
    none = found(heard(logits, None))
    far = found(heard(logits, {"CHERRY": 0.1, "WALRUS": 0.9, "ROBIN": 0.9}))
    assert none is not None and none.features is not None and far is not None and far.features is not None
    assert (none.features.example_lead, none.features.example_first) == (0.0, 0.0)
    assert far.features.example_lead == MAX_EXAMPLE_LEAD


def test_the_weighed_second_signal_can_change_the_card_first() -> None:
    logits = {"CHERRY": -1.0, "WALRUS": -1.5, "ROBIN": -5.0, "PASS": -6.0}
    costs = ByExample(("WALRUS", "CHERRY", "ROBIN"), (0.40, 0.50, 0.70))
    assert with_examples(logits, costs, 0.0) == logits
    weighed = with_examples(logits, costs, 20.0)
    assert weighed == pytest.approx({"CHERRY": -3.0, "WALRUS": -1.5, "ROBIN": -11.0, "PASS": -6.0})
    said = heard({"CHERRY": -1.0, "WALRUS": -1.5, "ROBIN": -5.0}, {"WALRUS": 0.40, "CHERRY": 0.50, "ROBIN": 0.70})
    alone = found(said, replace(calibration(), example_weight=0.0))
    fused = found(said, replace(calibration(), example_weight=20.0))
    assert alone is not None and fused is not None
    assert (alone.top, fused.top) == ("CHERRY", "WALRUS")


def test_a_calibration_fitted_before_a_feature_weighs_it_nothing() -> None:
    data = calibration().to_dict()
    data["guess"]["weights"] = {name: 0.0 for name in FEATURES[:6]} | {"share": 1.0}
    del data["examples"]
    older = Calibration.from_dict(data)
    assert older.weights == (1.0, *[0.0] * (len(FEATURES) - 1))
    assert older.example_weight == 0.0
    data["guess"]["weights"]["loudness"] = 1.0
    with pytest.raises(ValueError, match="loudness"):
        Calibration.from_dict(data)


def test_the_bench_can_decide_with_another_calibration() -> None:
    said = heard({"CHERRY": -0.5, "WALRUS": -9.0, "ROBIN": -9.0}, {"CHERRY": 0.3, "WALRUS": 0.6, "ROBIN": 0.6})
    never = replace(calibration(), act=1.0, ask=1.0)
    try:
        use(never)
        assert decided(said).action.value == "reprompt"
    finally:
        use(None)
    assert calibration() is not never


def test_a_language_with_its_own_model_is_decided_by_it() -> None:
    from voicehost.decision.calibration import Logistic

    said = heard({"CHERRY": -0.5, "WALRUS": -9.0, "ROBIN": -9.0}, None)
    never = replace(calibration(), act=1.0, ask=1.0)
    always = Logistic(0.0, (0.0,) * len(FEATURES), act=0.5, ask=0.5)
    model = replace(never, by_lang={"pt-PT": always})
    assert decided(said, Lang.EN, model).action.value == "reprompt"
    assert decided(said, Lang.PT_PT, model).action.value == "accept"
    assert Calibration.from_dict(model.to_dict()).by_lang == {"pt-PT": always}


def test_pass_written_with_a_number_while_guessing_is_a_pass_not_a_clue() -> None:
    """ "Passo 2." (Whisper heard a number in the silence after "passo"): no clue can be given while the
    operatives guess, so the word counts. Taken at once when the scores put "passo" first too, else asked
    back; any other clue-shaped line stays a clue (the referee leaves it alone)."""
    guessing = Moment(Lang.PT_BR, Awaited.GUESS, visible=CARDS)
    scored = Heard("Passo 2.", 0.4, closed=closed({"passo": 0.0, "CHERRY": -6.0, "WALRUS": -7.0, "ROBIN": -8.0}))
    taken = decide(scored, Reading(scored.text, guessing, scored.confidence))
    assert isinstance(taken, HeardCommand) and taken.command is Command.PASS and taken.action is Action.ACCEPT
    typed = decide(Heard("passo 2"), Reading("passo 2", guessing, None))
    assert isinstance(typed, HeardCommand) and typed.command is Command.PASS and typed.action is Action.CONFIRM
    clue = decide(Heard("fruta 2"), Reading("fruta 2", guessing, None))
    assert isinstance(clue, HeardClue)


def test_pause_with_nothing_to_pause_is_a_pass_taken_when_the_scores_agree() -> None:
    """ "Pause." with no sand running while the team may pass: a pass, at once when the scores put "pass"
    first, asked back when they do not or when nothing was scored (typed); "pause" stays a pause where
    there is sand to pause, or where no pass may be made."""
    idle = Moment(Lang.EN, Awaited.GUESS, visible=CARDS, nothing_to_pause=True)
    agreeing = Heard("pause", 0.65, closed=closed({"pass": 0.0, "CHERRY": -6.0, "WALRUS": -7.0, "ROBIN": -8.0}))
    taken = decide(agreeing, Reading(agreeing.text, idle, agreeing.confidence))
    assert isinstance(taken, HeardCommand) and taken.command is Command.PASS and taken.action is Action.ACCEPT
    assert taken.heard == "pass"
    other = Heard("pause", 0.65, closed=closed({"CHERRY": 0.0, "pass": -3.0, "WALRUS": -7.0, "ROBIN": -8.0}))
    taken = decide(other, Reading(other.text, idle, other.confidence))
    assert not (isinstance(taken, HeardCommand) and taken.action is Action.ACCEPT)
    typed = decide(Heard("pause"), Reading("pause", idle, None))
    assert isinstance(typed, HeardCommand) and typed.command is Command.PASS and typed.action is Action.CONFIRM
    running = Moment(Lang.EN, Awaited.GUESS, visible=CARDS)
    paused = decide(agreeing, Reading(agreeing.text, running, agreeing.confidence))
    assert isinstance(paused, HeardCommand) and paused.command is Command.TIMER_PAUSE


def test_a_clue_shaped_line_while_guessing_is_weighed_by_the_cards_scores() -> None:
    """ "Cata-sete." for "capacete": no clue can be given now, so a card the scores put far ahead is the
    move (asked back or acted on as the calibration says), and a line they do not point anywhere stays no move."""
    guessing = Moment(Lang.PT_BR, Awaited.GUESS, visible=CARDS)
    sure = Heard(
        "Cata-sete.", 0.2, transcript_logprob=-1.5, closed=closed({"CHERRY": 0.0, "WALRUS": -9.0, "ROBIN": -9.5})
    )
    taken = decide(sure, Reading(sure.text, guessing, sure.confidence))
    assert isinstance(taken, HeardGuess) and taken.card == "CHERRY"
    unsure = Heard(
        "Cata-sete.", 0.2, transcript_logprob=-1.5, closed=closed({"CHERRY": 0.0, "WALRUS": 0.0, "ROBIN": 0.0})
    )
    assert not isinstance(decide(unsure, Reading(unsure.text, guessing, unsure.confidence)), HeardClue | HeardGuess)


def test_the_same_card_near_again_right_after_a_sorry_is_asked_back() -> None:
    """ "sattera" for ZATTERA, each time under the ask point alone: answered "Sorry?" with the card it came
    nearest to; said again right after, the two hearings agree and the card is asked back, never acted on."""
    from voicehost.decision.calibration import Logistic
    from voicehost.decision.cards import UNCLEAR_SHARE
    from voicehost.understanding import NotUnderstood

    unsure = Logistic(-0.2, (0.0,) * len(FEATURES), act=0.9, ask=0.7)  # every card at 0.45: under 0.7, over 0.35
    assert UNCLEAR_SHARE * unsure.ask <= 0.45 < unsure.ask
    model = replace(calibration(), by_lang={"en": unsure})
    said = heard({"CHERRY": -0.5, "WALRUS": -9.0, "ROBIN": -9.0}, None)
    first = decide(said, reading(said), model)
    assert isinstance(first, NotUnderstood) and first.nearest == "CHERRY"
    again = Moment(Lang.EN, Awaited.GUESS, visible=CARDS, unclear="CHERRY")
    second = decide(said, Reading(said.text, again, said.confidence), model)
    assert isinstance(second, HeardGuess) and (second.card, second.action) == ("CHERRY", Action.CONFIRM)
    other = Moment(Lang.EN, Awaited.GUESS, visible=CARDS, unclear="WALRUS")
    assert isinstance(decide(said, Reading(said.text, other, said.confidence), model), NotUnderstood)


def test_a_card_answered_no_is_set_aside_unless_named_in_words() -> None:
    """ "CHERRY?" - "no": until the game moves, CHERRY leading the scores alone again is set aside and the card
    next is asked back (never acted on, however sure: what led was wrong); the words naming CHERRY keep it."""
    from voicehost.decision.calibration import Logistic

    sure = Logistic(5.0, (0.0,) * len(FEATURES), act=0.9, ask=0.7)  # every card at 0.99: acted on at once
    model = replace(calibration(), by_lang={"en": sure})
    logits = {"CHERRY": -0.5, "WALRUS": -2.0, "ROBIN": -9.0}
    denied = Moment(Lang.EN, Awaited.GUESS, visible=CARDS, denied=("CHERRY",))
    garbled = heard(logits, None)
    plain = decide(garbled, reading(garbled), model)
    assert isinstance(plain, HeardGuess) and (plain.card, plain.action) == ("CHERRY", Action.ACCEPT)
    set_aside = decide(garbled, Reading(garbled.text, denied, garbled.confidence), model)
    assert isinstance(set_aside, HeardGuess) and (set_aside.card, set_aside.action) == ("WALRUS", Action.CONFIRM)
    named = replace(garbled, text="cherry")
    kept = decide(named, Reading(named.text, denied, named.confidence), model)
    assert isinstance(kept, HeardGuess) and kept.card == "CHERRY"
    slip = replace(garbled, text="sherry")  # a slip away: MBROLA pt1's "orelha" heard "Lhena." read as HIENA
    aside = decide(slip, Reading(slip.text, denied, slip.confidence), model)
    assert isinstance(aside, HeardGuess) and (aside.card, aside.action) == ("WALRUS", Action.CONFIRM)
