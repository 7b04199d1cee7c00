"""Where each miss comes from, per voice and condition: the model's limit or the decision's caution.

For every guess (a card by its name, alone or after a lead-in) and every card named by its place, the
ears' scores put some card first. When that is not the card meant, no decision could have acted on it:
the *model* (Whisper's scores) lost it. When it is, and the host still did not act at once, the
*decision* held back (its operating point, fitted on the tuning voices). The table puts both beside what
the host did, so that a missed goal says which of the two to work on. The second signal (query by
example, `voicehost.ears.examples`) is shown beside the scorer when the ears computed it: its own first
card, and the first card of the two together as the decision ranks them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Final

from bench.report import percent, table
from engine.lang import Lang
from voicehost.decision import calibration, evidence
from voicehost.decision.places import place_evidence
from voicehost.ears.heard import Heard
from voicehost.understanding import Phase, understand
from voicehost.understanding.moment import Awaited, Moment
from voicehost.understanding.positions import Grid
from voicehost.understanding.reading import Reading

NAMES: Final = "names"
PLACES: Final = "places"
OUTCOMES: Final = ("right at once", "asked back", "missed", "wrong reveal")
"""bench.recognition.Outcome's values a guess may have (a card acted on is a reveal)."""


@dataclass
class VoiceTally:
    """One voice in one condition: how many guesses, how many the scorer put first (and the second
    signal, and both fused), and what the host did."""

    n: int = 0
    first: int = 0
    by_example: int = 0  # the second signal's first card is the one meant
    with_example: int = 0  # ...of how many it was computed for
    fused: int = 0  # the card first when both are weighed as the decision weighs them
    decided: int = 0  # the decision step acted on the card meant (before the attention step's verdict)
    gated: int = 0  # places only: how many the ears scored as places at all
    outcomes: dict[str, int] = field(default_factory=dict)

    def add(self, other: VoiceTally) -> None:
        self.n += other.n
        self.first += other.first
        self.by_example += other.by_example
        self.with_example += other.with_example
        self.fused += other.fused
        self.decided += other.decided
        self.gated += other.gated
        for name, count in other.outcomes.items():
            self.outcomes[name] = self.outcomes.get(name, 0) + count


def scored_first(heard: Heard, card: str, cards: Sequence[str], lang: Lang, *, fused: bool = False) -> bool:
    """Whether the scores of the cards' names put `card` first as the decision reads them: the scores
    alone, or (`fused`) with the second signal weighed in as the calibration weighs it."""
    model = calibration() if fused else replace(calibration(), example_weight=0.0)
    found = evidence(heard, Reading(heard.text, Moment(lang, Awaited.GUESS, visible=tuple(cards))), model)
    return found is not None and found.top == card


def place_scored_first(heard: Heard, card: str, grid: Grid, lang: Lang) -> bool:
    """Whether the place the ears scored first is `card`'s (False when the places were not scored)."""
    said = understand(heard.text, phase=Phase.GUESS, cards=grid.cards, lang=lang, grid=grid)
    placed = place_evidence(heard, said, grid, lang)
    return placed is not None and placed.card == card


def example_first(heard: Heard, card: str, cards: Sequence[str]) -> bool | None:
    """Whether the second signal alone puts `card` first among `cards`; None when it was not computed."""
    examples = heard.examples
    if examples is None:
        return None
    costs = {phrase: cost for phrase, cost in zip(examples.phrases, examples.costs, strict=True) if phrase in cards}
    return bool(costs) and min(costs, key=costs.__getitem__) == card


def record(
    tallies: dict[tuple[str, str, str, str], VoiceTally],
    *,
    lang: Lang,
    voice: str,
    condition: str,
    group: str,
    outcome: str,
    first: bool,
    by_example: bool | None = None,
    fused: bool | None = None,
    gated: bool = False,
    decided: bool = False,
) -> None:
    tally = tallies.setdefault((lang.value, voice, condition, group), VoiceTally())
    tally.n += 1
    tally.first += first
    tally.gated += gated
    tally.decided += decided
    if by_example is not None:
        tally.with_example += 1
        tally.by_example += by_example
    if fused is not None:
        tally.fused += fused
    tally.outcomes[outcome] = tally.outcomes.get(outcome, 0) + 1


HEADERS: Final = [
    "lang",
    "voice",
    "condition",
    "n",
    "scorer first %",
    "example first %",
    "fused first %",
    "at once %",
    "asked back %",
    "missed %",
    "wrong",
    "model lost %",
    "decision held back %",
    "attention held back %",
]


def _cells(lang: str, voice: str, condition: str, tally: VoiceTally) -> list[object]:
    right = tally.outcomes.get("right at once", 0)
    examples = tally.with_example
    return [
        lang,
        voice,
        condition,
        tally.n,
        percent(tally.first, tally.n),
        percent(tally.by_example, examples) if examples else None,
        percent(tally.fused, examples) if examples else None,
        percent(right, tally.n),
        percent(tally.outcomes.get("asked back", 0), tally.n),
        percent(tally.outcomes.get("missed", 0), tally.n),
        tally.outcomes.get("wrong reveal", 0),
        percent(tally.n - tally.first, tally.n),
        percent(max(0, tally.first - tally.decided), tally.n),
        percent(max(0, tally.decided - right), tally.n),
    ]


def voices_table(tallies: Mapping[tuple[str, str, str, str], VoiceTally], group: str = NAMES) -> str:
    """One row per language, voice and condition, and a bold row per language and condition."""
    keys = sorted(key for key in tallies if key[3] == group)
    if not keys:
        return ""
    rows: list[list[object]] = []
    for lang in sorted({key[0] for key in keys}):
        for voice in sorted({key[1] for key in keys if key[0] == lang}):
            for condition in sorted({key[2] for key in keys if key[:2] == (lang, voice)}):
                rows.append(_cells(lang, voice, condition, tallies[(lang, voice, condition, group)]))
        for condition in sorted({key[2] for key in keys if key[0] == lang}):
            rows.append(_cells(f"**{lang}**", "all", condition, _pooled(tallies, group, lang, condition)))
    for condition in sorted({key[2] for key in keys}):
        rows.append(_cells("**all**", "all", condition, _pooled(tallies, group, None, condition)))
    what = "cards by name, alone and after a lead-in" if group == NAMES else "cards by their place"
    lines = [
        f"### Where each miss comes from, per voice: {what}",
        "",
        "*scorer first*: the ears' scores put the card meant first; *example first*: the second signal alone "
        "(query by example) did; *fused first*: both weighed together did. *model lost*: the scorer did not "
        "put it first, so no decision could act on it; *decision held back*: it did, and the calibrated "
        "decision did not act on it at once (asked back or asked again): the operating point's caution; "
        "*attention held back*: the decision acted, and the attention step asked back instead (in the open "
        "way, a card found by the scores alone, its transcript naming no card, is asked back: it may be talk).",
        "",
        table(HEADERS, rows),
    ]
    if group == PLACES:
        gated = _pooled(tallies, group, None, None)
        lines += ["", f"The gate scored the places of {gated.gated} of {gated.n} places said (`places_to_score`)."]
    return "\n".join(lines)


def _pooled(
    tallies: Mapping[tuple[str, str, str, str], VoiceTally], group: str, lang: str | None, condition: str | None
) -> VoiceTally:
    summed = VoiceTally()
    for (heard_lang, _, heard_in, kind), tally in tallies.items():
        if kind == group and lang in (None, heard_lang) and condition in (None, heard_in):
            summed.add(tally)
    return summed


def pooled(tallies: Mapping[tuple[str, str, str, str], VoiceTally], groups: Iterable[str]) -> VoiceTally:
    summed = VoiceTally()
    for group in groups:
        summed.add(_pooled(tallies, group, None, None))
    return summed
