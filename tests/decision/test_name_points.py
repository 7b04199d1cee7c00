"""The host's name's points (`bench/calibrate.py: name_points`): the slip point spends no more than the
false-take allowance the gain's own point leaves."""

from __future__ import annotations

from bench.calibrate import NameSample, name_points


def _unnamed(gains: list[float], slipped: frozenset[int] = frozenset()) -> list[NameSample]:
    return [NameSample(f"u{i}", "clean", gain, False, False, i in slipped) for i, gain in enumerate(gains)]


GAINS = [-20.0 + 20.0 * i / 399 for i in range(400)]
"""400 lines said without the name, their gains spread evenly: the allowance at 1 in 200 is 2 lines."""


def test_no_slip_among_the_lines_said_without_the_name_lets_slips_count_from_the_ask_point() -> None:
    act, ask, slip, _ = name_points(_unnamed(GAINS))
    assert ask < act and slip == ask


def test_slips_said_without_the_name_are_taken_only_within_the_allowance() -> None:
    act, ask, _, _ = name_points(_unnamed(GAINS))
    high = [i for i, gain in enumerate(GAINS) if ask <= gain < act][-4:]  # four slipped lines near the top
    act2, ask2, slip, _ = name_points(_unnamed(GAINS, frozenset(high)))
    assert (act2, ask2) == (act, ask)
    taken = sum(GAINS[i] >= act for i in range(400)) + sum(slip <= GAINS[i] < act for i in high)
    assert taken <= 2 and slip > ask
    assert sum(slip <= GAINS[i] < act for i in high) == 2 - sum(gain >= act for gain in GAINS)
