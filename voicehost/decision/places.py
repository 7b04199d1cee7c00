"""A card named by its place, weighed from the scores: the ears scored the grid's places as transcripts
(`Heard.places`, in the four ways `scored_places` writes each one); the place scored first is taken for
the move when it explains the audio better than every card's name, or when the words read as a place.

Its confidence is the calibrated model's (`Calibration.place`, fitted on the tuning voices' places by
`python -m bench.calibrate`), over the same features as a card by name: the place's share of the belief
among the board's places, its lead over the next place, whether the transcript read as text names the
same place, how much the transcript looks like one of its ways, how much better the free transcript
explains the audio, and how many words were heard.
"""

from __future__ import annotations

import math
from collections.abc import Collection
from dataclasses import dataclass

from rapidfuzz import fuzz

from engine.lang import Lang
from voicehost.decision.features import MAX_MARGIN, GuessFeatures
from voicehost.ears.heard import Heard
from voicehost.understanding import HeardGuess, OffGrid, Understanding, normalize
from voicehost.understanding.positions import Grid, label, scored_places


@dataclass(frozen=True)
class PlaceEvidence:
    """The place scored first: where it is, the card there, its best score less its prior (`logit`,
    comparable with a card name's), and the features the place model weighs."""

    row: int
    column: int
    card: str
    logit: float
    features: GuessFeatures

    @property
    def label(self) -> str:
        return label(self.row, self.column)


def place_evidence(heard: Heard, said: Understanding, grid: Grid, lang: Lang) -> PlaceEvidence | None:
    """What the place scores say, `said` being the transcript read as text with the grid; None when the
    ears scored no place on this grid."""
    scored = heard.places
    if scored is None:
        return None
    where = {way.phrase: (way.row, way.column) for way in scored_places(lang)}
    logits: dict[tuple[int, int], float] = {}
    logprobs: dict[tuple[int, int], float] = {}
    shares: dict[tuple[int, int], float] = {}
    ways: dict[tuple[int, int], list[str]] = {}
    for phrase, logprob, logit, share in zip(
        scored.phrases, scored.logprobs, scored.logits, scored.shares, strict=True
    ):
        place = where.get(phrase)
        if place is None or grid.card_at(*place) is None:
            continue  # off this grid (a 5x4 grid has no fifth row)
        logits[place] = max(logits.get(place, logit), logit)
        logprobs[place] = max(logprobs.get(place, logprob), logprob)
        shares[place] = shares.get(place, 0.0) + share  # its ways together: the belief that it is this place
        ways.setdefault(place, []).append(phrase)
    if not logits:
        return None
    order = sorted(logits, key=lambda place: -logits[place])
    top = order[0]
    card = grid.card_at(*top)
    assert card is not None
    text = normalize(heard.text, lang)
    features = GuessFeatures.measured(
        heard,
        share=shares[top] / sum(shares.values()),
        margin=logits[top] - logits[order[1]] if len(order) > 1 else MAX_MARGIN,
        agrees=isinstance(said, HeardGuess) and said.place == label(*top),
        resembles=max(fuzz.ratio(text, normalize(way, lang)) for way in ways[top]) / 100.0,
        logprob=logprobs[top],
    )
    return PlaceEvidence(top[0], top[1], card, logits[top], features)


def placed_move(
    heard: Heard, said: Understanding, grid: Grid, lang: Lang, visible: Collection[str] | None = None
) -> PlaceEvidence | None:
    """The place scored first, when the move is taken for a place: its words read as one (`said`, the
    transcript read as text with the grid), or it explains the audio better than every card's name and
    its card is still `visible` (None: all are). A covered card's place found by the scores alone is no
    move: MBROLA's pt1 "perfume" scores as "bê uma", and the table heard "COLHER is already covered"."""
    placed = place_evidence(heard, said, grid, lang)
    if placed is None:
        return None
    read_as_place = isinstance(said, OffGrid) or (isinstance(said, HeardGuess) and bool(said.place))
    if read_as_place:
        return placed
    if visible is not None and placed.card not in visible:
        return None
    names_top = heard.closed.logits[0] if heard.closed is not None else -math.inf
    return placed if placed.logit >= names_top else None
