"""The open way's point for cards the words do not name (`bench/calibrate_unworded.py`): chosen on data."""

from __future__ import annotations

import math

from bench.calibrate_moves import ASK_RATE, WRONG_RATE
from bench.calibrate_unworded import (
    MIN_LINES_TAKEN,
    UnwordedPoint,
    UnwordedSample,
    talk_ask_point,
    unworded_point,
)


def _said(i: int, probability: float, words: int, right: bool = True, talk: bool = False) -> UnwordedSample:
    return UnwordedSample(f"u{i}", "clean", probability, words, right, talk)


def test_the_point_acts_on_the_most_right_cards_while_the_wrong_ones_stay_under_the_rate() -> None:
    """200 cards found only by the scores (1 to 3 words, 0.93 to 0.999) and a line of talk at 0.9997 with 5
    words: the words' count keeps the talk out, not the probability. A wrong card at 0.95 with 2 words among
    them is within 1 in 200 only with enough right ones beside it; talk is never let in, even within it."""
    cards = [_said(i, 0.93 + 0.069 * i / 199, 1 + i % 3) for i in range(200)]
    talk = _said(300, 0.9997, 5, right=False, talk=True)
    assert unworded_point([*cards, talk], act=0.92) == UnwordedPoint(0.93, 3)
    short_talk = _said(303, 0.9997, 3, right=False, talk=True)  # 1 in 201, but talk: the cards of 2 words or less
    assert unworded_point([*cards, short_talk], act=0.92) == UnwordedPoint(0.93, 2)
    assert unworded_point([*cards, _said(304, 0.95, 2, talk=True, right=False)], act=0.92) == UnwordedPoint(
        math.floor((0.93 + 0.069 * 58 / 199) * 1e6) / 1e6,
        3,  # the first card above the talk
    )
    wrong = _said(301, 0.95, 2, right=False)
    assert WRONG_RATE * 201 >= 1
    assert unworded_point([*cards, talk, wrong], act=0.92) == UnwordedPoint(0.93, 3)
    second = _said(302, 0.96, 1, right=False)  # two wrong in 202 is too many: the point rises above them
    chosen = unworded_point([*cards, talk, wrong, second], act=0.92)
    assert chosen.act is not None and chosen.act > 0.96 and chosen.words == 3


def test_no_point_below_the_cards_act_nor_on_too_few_lines() -> None:
    below = [_said(i, 0.8, 1) for i in range(100)]
    assert unworded_point(below, act=0.92) == UnwordedPoint(None, 0)
    few = [_said(i, 0.95, 1) for i in range(MIN_LINES_TAKEN - 1)]
    assert unworded_point(few, act=0.92) == UnwordedPoint(None, 0)


def _shaped(
    i: int, probability: float, words: int, right: bool = True, talk: bool = False, room: str = "clean"
) -> UnwordedSample:
    return UnwordedSample(f"t{i}", room, probability, words, right, talk, shaped_as_talk=True)


def test_a_card_in_words_that_read_as_talk_is_asked_from_a_point_that_keeps_talk_out_of_every_room() -> None:
    """Talk scores a card as surely as a card does (0.99); its length keeps it out (7 words against 3). 200 lines
    of talk a room: at most ASK_RATE of them (4) asked in any room, and a noisy room's talk does not
    raise the quiet room's point above what the quiet room allows."""
    assert ASK_RATE * 200 == 4
    talk = [
        _shaped(1000 + i, 0.99, 7, right=False, talk=True, room=room) for i in range(200) for room in ("clean", "din")
    ]
    cards = [_shaped(i, 0.8 + 0.19 * i / 99, 3) for i in range(100)]
    assert talk_ask_point([*talk, *cards], ask=0.7) == UnwordedPoint(0.8, 3)
    short_talk = [_shaped(2000 + i, 0.85, 3, right=False, talk=True, room="din") for i in range(5)]  # 5 of 200 in din
    chosen = talk_ask_point([*talk, *cards, *short_talk], ask=0.7)
    assert chosen.act is not None and chosen.act > 0.85 and chosen.words == 3
    wrong = [_shaped(3000 + i, 0.95, 2, right=False) for i in range(200)]  # most lines asked would be another card
    assert talk_ask_point([*talk, *wrong], ask=0.7) == UnwordedPoint(None, 0)
    assert talk_ask_point([*talk, *cards], ask=0.99).act is not None  # from the cards' ask up
    assert talk_ask_point(talk, ask=0.7) == UnwordedPoint(None, 0)  # no card: no point
