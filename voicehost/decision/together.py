"""Lines heard together: a player met with silence says the move again, and each hearing of the same speech
is evidence of its own. One place for how their beliefs add up, for the cards (`cards._said_again`) and for
a clue's number (`clues._clue_again`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TypeVar

K = TypeVar("K")


def heard_together(now: Mapping[K, float], *before: Mapping[K, float]) -> dict[K, float]:
    """Each phrase's log-share in the line heard now plus its log-share in each line `before`; a phrase a line
    before did not weigh counts at that line's least likely (it was no better than anything it weighed)."""
    together = dict(now)
    for earlier in before:
        floor = min(earlier.values(), default=0.0)
        together = {phrase: value + earlier.get(phrase, floor) for phrase, value in together.items()}
    return together
