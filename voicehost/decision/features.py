"""What the decision weighs about the card the ears scored first: a few numbers, each with a reason."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import astuple, dataclass, fields
from typing import Final

from engine.lang import Lang
from voicehost.ears.heard import ByExample, Heard
from voicehost.understanding import Action, HeardGuess, Understanding, match_card

MAX_MARGIN: Final = 20.0
MAX_GAP: Final = 20.0
MAX_WORDS: Final = 8
MAX_EXAMPLE_LEAD: Final = 0.3
"""The second signal's lead, in its cost (mean cosine distance): beyond this either way it is as sure as it gets."""
QUIET_DB: Final = 40.0
"""The room's noise estimate when the ears made none: a quiet room (`voicehost.ears.conditions`)."""


@dataclass(frozen=True)
class GuessFeatures:
    """The evidence for the card scored first (the names are the calibration file's keys)."""

    share: float  # its share of the belief among the phrases scored (0..1)
    margin: float  # how far its prior-adjusted score leads the runner-up's, in nats (0..20)
    agrees: float  # 1 when the free transcript, read as text, names it at once
    resembles: float  # how much the transcript looks like it when read as text (0..1)
    gap: float  # how much better the free transcript explains the audio than the card does, in nats
    words: float  # how many words the transcript has (a card is one or two; talk is many)
    example_lead: float  # how much better its examples align than any other card's (the second signal; <0: worse)
    example_first: float  # 1 when the second signal puts it first too
    examples_agree: float  # 1 when the scores alone and the sounds alone put the same card first (this one)
    snr: float  # how far the speech stood above the room's noise, in dB (0..40): the same scores mean less in a din

    def vector(self) -> tuple[float, ...]:
        return astuple(self)

    @classmethod
    def of(
        cls,
        heard: Heard,
        said: Understanding,
        card: str,
        logits: Mapping[str, float],
        shares: Mapping[str, float],
        logprob: float,
        lang: Lang,
    ) -> GuessFeatures:
        ordered = sorted(logits.values(), reverse=True)
        margin = ordered[0] - ordered[1] if len(ordered) > 1 else MAX_MARGIN
        agrees = isinstance(said, HeardGuess) and said.card == card and said.action is Action.ACCEPT
        resembles = max((c.score for c in match_card(heard.text, [card], lang)), default=0.0) / 100.0
        lead = example_lead(heard, card, tuple(logits))
        agree = lead is not None and lead > 0 and _scored_first(heard, tuple(logits)) == card
        return cls.measured(
            heard,
            share=shares[card],
            margin=margin,
            agrees=agrees,
            resembles=resembles,
            logprob=logprob,
            example_lead=lead,
            agree=agree,
        )

    @classmethod
    def measured(
        cls,
        heard: Heard,
        *,
        share: float,
        margin: float,
        agrees: bool,
        resembles: float,
        logprob: float,
        example_lead: float | None = None,
        agree: bool = False,
    ) -> GuessFeatures:
        """The features from what was measured, each in its range: for a card named by its name (`of`) or
        by its place (`voicehost.decision.places`); `logprob` the phrase's own score, `example_lead` the
        second signal's (None: not computed, e.g. for a place), `agree` whether the scores alone put the
        same card first as the second signal alone."""
        transcript = heard.transcript_logprob if heard.transcript_logprob is not None else logprob
        lead = 0.0 if example_lead is None else min(MAX_EXAMPLE_LEAD, max(-MAX_EXAMPLE_LEAD, example_lead))
        return cls(
            share=share,
            margin=min(MAX_MARGIN, max(0.0, margin)),
            agrees=1.0 if agrees else 0.0,
            resembles=resembles,
            gap=min(MAX_GAP, max(-MAX_GAP, transcript - logprob)),
            words=float(min(MAX_WORDS, len(heard.text.split()))),
            example_lead=lead,
            example_first=1.0 if example_lead is not None and example_lead > 0 else 0.0,
            examples_agree=1.0 if agree else 0.0,
            snr=heard.snr_db if heard.snr_db is not None else QUIET_DB,
        )


def _scored_first(heard: Heard, phrases: tuple[str, ...]) -> str | None:
    """The phrase among `phrases` the scores alone put first (before the second signal is weighed in)."""
    closed = heard.closed
    if closed is None:
        return None
    return next((phrase for phrase in closed.phrases if phrase in phrases), None)  # best first


def example_lead(heard: Heard, card: str, phrases: tuple[str, ...]) -> float | None:
    """How much lower `card`'s examples cost than the best other card's among `phrases` (the second
    signal, `Heard.examples`); None when it was not computed for these cards."""
    found = heard.examples
    if found is None or card not in found.phrases:
        return None
    costs = dict(zip(found.phrases, found.costs, strict=True))
    others = [cost for phrase, cost in costs.items() if phrase != card and phrase in phrases]
    return (min(others) - costs[card]) if others else None


FEATURES: Final = tuple(field.name for field in fields(GuessFeatures))


def with_examples(logits: Mapping[str, float], examples: ByExample | None, weight: float) -> dict[str, float]:
    """The cards' scores with the second signal weighed in: each card loses `weight` nats per unit of cost
    its examples align above the best card's (phrases without examples, "pass", keep theirs). The weight
    is the calibration's, fitted on the tuning voices (0: the scores alone)."""
    if examples is None or weight == 0.0:
        return dict(logits)
    costs = dict(zip(examples.phrases, examples.costs, strict=True))
    best = min((costs[phrase] for phrase in logits if phrase in costs), default=0.0)
    return {phrase: value - weight * (costs.get(phrase, best) - best) for phrase, value in logits.items()}
