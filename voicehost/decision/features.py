"""What the decision weighs about the card the ears scored first: a few numbers, each with a reason."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import astuple, dataclass, fields
from typing import Final

from engine.lang import Lang
from voicehost.ears.heard import Heard
from voicehost.understanding import Action, HeardGuess, Understanding, match_card

MAX_MARGIN: Final = 20.0
MAX_GAP: Final = 20.0
MAX_WORDS: Final = 8


@dataclass(frozen=True)
class GuessFeatures:
    """The evidence for the card scored first (the names are the calibration file's keys)."""

    share: float  # its share of the belief among the phrases scored (0..1)
    margin: float  # how far its prior-adjusted score leads the runner-up's, in nats (0..20)
    agrees: float  # 1 when the free transcript, read as text, names it at once
    resembles: float  # how much the transcript looks like it when read as text (0..1)
    gap: float  # how much better the free transcript explains the audio than the card does, in nats
    words: float  # how many words the transcript has (a card is one or two; talk is many)

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
        return cls.measured(
            heard, share=shares[card], margin=margin, agrees=agrees, resembles=resembles, logprob=logprob
        )

    @classmethod
    def measured(
        cls, heard: Heard, *, share: float, margin: float, agrees: bool, resembles: float, logprob: float
    ) -> GuessFeatures:
        """The features from what was measured, each in its range: for a card named by its name (`of`) or
        by its place (`voicehost.decision.places`); `logprob` the phrase's own score."""
        transcript = heard.transcript_logprob if heard.transcript_logprob is not None else logprob
        return cls(
            share=share,
            margin=min(MAX_MARGIN, max(0.0, margin)),
            agrees=1.0 if agrees else 0.0,
            resembles=resembles,
            gap=min(MAX_GAP, max(-MAX_GAP, transcript - logprob)),
            words=float(min(MAX_WORDS, len(heard.text.split()))),
        )


FEATURES: Final = tuple(field.name for field in fields(GuessFeatures))
