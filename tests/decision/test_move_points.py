"""The moves' operating points (`bench/calibrate_moves.py`): chosen on data, and on enough of it."""

from __future__ import annotations

import math
from dataclasses import replace

from bench.calibrate_moves import (
    ASK_RATE,
    MIN_SAMPLES,
    READ_ONLY_WRONG_RATE,
    WRONG_RATE,
    GatePoint,
    GateSample,
    MoveSample,
    WordsPoint,
    answer_points,
    clue_corpus,
    gate_point,
    point,
)
from bench.corpus import ANSWER_TEMPI, COMMAND_TEMPI, answer_corpus, command_corpus, corpus
from bench.voices import TestVoice
from engine.lang import Lang
from voicehost.decision import Calibration, calibration
from voicehost.understanding import Command

VOICES = [TestVoice("rhvoice:slt", "en", "rhvoice", "slt"), TestVoice("espeak:en-us", "en", "espeak", "en-us")]


def _samples(shares_right: list[tuple[float, bool]]) -> list[MoveSample]:
    return [MoveSample(f"u{i}", "clean", share, False, right) for i, (share, right) in enumerate(shares_right)]


def test_too_few_samples_keep_the_point_shipped() -> None:
    few = _samples([(0.9, True)] * (MIN_SAMPLES - 1))
    assert point(few, 0.998) == 0.998


def test_the_point_is_the_lowest_share_whose_acts_are_wrong_at_most_at_the_rate() -> None:
    """200 answers right from 0.70 up, and one wrong at 0.60: taking from 0.60 would be wrong 1 time in
    201 (0.50 %, allowed); with a second wrong one at 0.65, 2 in 202 from 0.60 is too many: 0.65."""
    right = [(0.70 + 0.29 * i / 199, True) for i in range(200)]
    assert WRONG_RATE * 201 >= 1
    assert point(_samples([*right, (0.60, False)]), 0.998) == 0.6
    assert point(_samples([*right, (0.60, False), (0.65, False)]), 0.998) == 0.65


def test_answers_said_at_other_speeds_are_other_utterances() -> None:
    """Each speed is a voice of its own id, so its hearing is cached apart from the voice's own speed."""
    more = answer_corpus(Lang.EN, VOICES)
    assert len(more) == len(VOICES) * len(ANSWER_TEMPI) * 4
    assert {u.command for u in more} == {Command.YES, Command.NO} and {u.kind for u in more} == {"yes/no"}
    uids = [u.uid for u in more]
    assert len(set(uids)) == len(uids)
    assert not set(uids) & {u.uid for u in corpus(Lang.EN, VOICES)}
    assert {u.voice.speed for u in more if u.voice.name == "slt"} == {70, 80, 90, 110, 125, 140}


def test_read_only_commands_take_more_risk_than_moves() -> None:
    """A read-only command changes nothing: one wrong in 60 taken (1.7 %) is within its rate, not a move's."""
    right = [(0.70 + 0.29 * i / 59, True) for i in range(60)]
    samples = _samples([*right, (0.60, False)])
    assert point(samples, None) == 0.7
    assert point(samples, None, READ_ONLY_WRONG_RATE) == 0.6


def test_commands_said_at_other_speeds_give_pass_garbled_more_often() -> None:
    """Each language says "pass" two ways and every read-only command its help teaches, at each speed."""
    for lang in Lang:
        more = command_corpus(lang, VOICES)
        assert len(more) == len(VOICES) * len(COMMAND_TEMPI) * 5
        assert sum(u.command is Command.PASS for u in more) == len(VOICES) * len(COMMAND_TEMPI) * 2
        assert {u.command for u in more} == {Command.PASS, Command.REPEAT, Command.SCORE, Command.READ_BOARD}
        assert all(u.kind == "command" for u in more)
        assert len({u.uid for u in more}) == len(more)


def test_pass_is_asked_back_from_the_share_that_keeps_other_lines_out() -> None:
    """60 passes heard only by the scores at 0.6 to 0.99, and 100 lines of talk, two of them scored "pass"
    at 0.7 and 0.9: asking from 0.6 asks 2 in 100 other lines (allowed at ASK_RATE); a third at 0.65 moves
    the point to the first pass above it."""
    from bench.calibrate_moves import ask_point

    def sample(i: int, share: float, meant: str | None) -> MoveSample:
        taken = "pass" if share > 0 else None
        return MoveSample(f"u{i}", "clean", share, False, meant == "pass", taken, True, meant)

    passes = [sample(i, 0.6 + 0.39 * i / 59, "pass") for i in range(60)]
    talk = [sample(100 + i, 0.0, None) for i in range(98)] + [sample(300, 0.7, None), sample(301, 0.9, None)]
    assert ASK_RATE * 100 >= 2
    assert ask_point([*passes, *talk], None) == 0.6
    above = min(p.share for p in passes if p.share > 0.65)
    assert ask_point([*passes, *talk[1:], sample(302, 0.65, None)], None) == math.floor(above * 1e6) / 1e6
    assert ask_point(passes[:10] + talk, 0.9) == 0.9  # too few passes: the point shipped stays


def test_the_languages_of_the_same_answer_words_have_their_own_point_where_their_data_chooses_one() -> None:
    """Italian's answers are wrong at 0.86 (a "no" heard "Sì lo"), Portuguese's never: pooled, Italian sets the
    point for both; apart, pt-BR and pt-PT ("sim", "não" both) answer from 0.55 and Italian keeps its own.
    English, with too few answers scored first, is left out (the pooled point applies)."""

    def said(lang: str, shares_right: list[tuple[float, bool]]) -> list[MoveSample]:
        return [
            MoveSample(f"{lang}{i}", "clean", share, False, right, lang=lang)
            for i, (share, right) in enumerate(shares_right)
        ]

    italian = said("it", [(0.55 + 0.4 * i / 99, True) for i in range(100)] + [(0.86, False)])
    brazilian = said("pt-BR", [(0.55 + 0.4 * i / 29, True) for i in range(30)])
    portuguese = said("pt-PT", [(0.6 + 0.3 * i / 29, True) for i in range(30)])
    english = said("en", [(0.9, True)] * 30)
    pooled = point([*italian, *brazilian, *portuguese, *english], 0.8)
    assert pooled > 0.86
    chosen = answer_points([*italian, *brazilian, *portuguese, *english], pooled)
    assert chosen == [  # no "yes" told apart in these samples: "yes" has the answers' point
        WordsPoint("sì/no", ("it",), point(italian, pooled), point(italian, pooled), point(italian, pooled)),
        WordsPoint("sim/não", ("pt-BR", "pt-PT"), 0.55, 0.55, 0.55),
    ]
    assert chosen[0].share > 0.86


def test_yes_has_its_own_point_chosen_on_the_false_yeses_alone() -> None:
    """100 answers of "sim" and "não" heard by the scores alone, right from 0.55 up, and two answers wrong
    at 0.60 and 0.62: one a "não" taken for "yes" (it would reveal, give a clue or pass), one a "sim"
    taken for "no" (it costs a repeat). Every answer counted, the answers' point is above both; the point of
    "yes" counts the false yes alone: just above 0.60, the "no" wrong at 0.62 does not raise it; the point of
    "no" counts the false noes alone, at the read-only rate (one in fifty: a "no" changes nothing): one in
    51 noes is within it, a second is not."""

    def answer(i: int, share: float, taken: str, meant: str) -> MoveSample:
        return MoveSample(f"a{i}", "babble-10-reverb", share, False, taken == meant, taken, True, meant, "pt-PT")

    right = [answer(i, 0.55 + 0.44 * i / 99, "yes" if i % 2 else "no", "yes" if i % 2 else "no") for i in range(100)]
    false_yes, false_no = answer(200, 0.60, "yes", "no"), answer(201, 0.62, "no", "yes")
    (alone,) = answer_points([*right, false_yes, false_no], 0.9)
    above = min(s.share for s in right if s.share > 0.62)
    assert alone.share == math.floor(above * 1e6) / 1e6
    assert alone.yes == math.floor(min(s.share for s in right if s.share > 0.60 and s.command == "yes") * 1e6) / 1e6
    assert READ_ONLY_WRONG_RATE * 51 >= 1 and alone.no == 0.55  # one false "no" in 51 is within the rate
    (stricter,) = answer_points([*right, false_yes, false_no, answer(202, 0.58, "no", "yes")], 0.9)
    assert stricter.no > 0.58 and stricter.yes == alone.yes  # a second one is not; "yes" does not move
    model = replace(calibration(), answer_by_lang={"pt-PT": 0.5}, yes_by_lang={"pt-PT": 0.8})
    assert model.answer_point(Lang.PT_PT, Command.YES) == 0.8  # "yes" from its own point
    assert model.answer_point(Lang.PT_PT, Command.NO) == 0.5
    assert model.answer_point(Lang.IT, Command.YES) == model.answer_point(Lang.IT)  # no point of its own
    assert Calibration.from_dict(model.to_dict()).yes_by_lang == {"pt-PT": 0.8}


def test_a_language_without_its_own_answer_point_takes_the_pooled_one() -> None:
    model = Calibration.from_dict(
        {
            **calibration().to_dict(),
            "commands": {**calibration().to_dict()["commands"], "answer_share": 0.9, "answer_by_lang": {"pt-BR": 0.6}},
        }
    )
    assert model.answer_point(Lang.PT_BR) == 0.6
    assert model.answer_point(Lang.IT) == 0.9
    assert Calibration.from_dict(model.to_dict()).answer_by_lang == {"pt-BR": 0.6}


def _gate(i: int, meant: bool, share: float, gap: float, right: bool = True) -> GateSample:
    return GateSample(f"g{i}", "clean", meant, share, gap, True, meant and right)


def test_the_clue_gate_lets_the_most_clues_through_that_keeps_other_lines_out() -> None:
    """60 clues whose number the transcript does not write (shares 0.6 to 0.99, gaps 0 to 5.9 nats) and 100
    lines of talk, two scored a number at 0.9, 5 and 7 nats below the transcript: the gate lets every clue
    through (one talk line with them: 1 in 100, within ASK_RATE). A talk line sure enough to be taken at once
    (0.999, 2 nats) must stay out: the gate narrows to the gaps below it, losing the clues beyond."""
    clues = [_gate(i, True, 0.6 + 0.39 * i / 59, i / 10) for i in range(60)]
    talk = [GateSample(f"t{i}", "clean", False) for i in range(98)] + [
        _gate(200, False, 0.9, 5.0),
        _gate(201, False, 0.9, 7.0),
    ]
    assert ASK_RATE * 100 >= 1
    assert gate_point([*clues, *talk], GatePoint(0.5, 4.0), number_sure=0.99) == GatePoint(0.6, 5.9)
    sure = _gate(202, False, 0.999, 2.0)
    assert gate_point([*clues, *talk[1:], sure], GatePoint(0.5, 4.0), number_sure=0.99) == GatePoint(0.6, 1.9)
    wrong_numbers = [_gate(i, True, 0.6 + 0.39 * i / 59, i / 10, right=i >= 30) for i in range(60)]
    # the clues heard with another number count for nothing: the gate keeps only the floor it needs
    assert (
        gate_point([*wrong_numbers, *talk], GatePoint(0.5, 4.0), 0.99).floor
        == math.floor((0.6 + 0.39 * 30 / 59) * 1e6) / 1e6
    )


def test_too_few_clues_at_the_gate_keep_it_as_shipped() -> None:
    clues = [_gate(i, True, 0.95, 1.0) for i in range(MIN_SAMPLES - 1)]
    assert gate_point([*clues, GateSample("t", "clean", False)], GatePoint(0.5, 4.0), 0.99) == GatePoint(0.5, 4.0)


def test_clues_said_at_other_speeds_are_other_utterances_of_every_number() -> None:
    more = clue_corpus(Lang.IT, VOICES)
    own = [u for u in corpus(Lang.IT, VOICES) if u.kind == "clue"]
    assert len(more) == len(COMMAND_TEMPI) * len(own)
    assert {u.clue[1] for u in more if u.clue} == {u.clue[1] for u in own if u.clue}
    assert {u.phase for u in more} == {"clue"} and {u.voice.speed for u in more if u.voice.name == "slt"} == {80, 125}
    assert not {u.uid for u in more} & {u.uid for u in own} and len({u.uid for u in more}) == len(more)
