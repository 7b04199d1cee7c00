"""The decision's confidence: a logistic model over the guess features, and its operating points.

Fitted on the tuning voices of the bench's corpus (`python -m bench.calibrate`, which writes
`calibration.json` beside this module with what it was fitted on): the probability that the card the
ears scored first is the card meant. `act` is the lowest probability acted on at once, chosen for no
wrong reveal on the tuning voices with a margin; `ask` the lowest asked back about; below it the
host asks again, or, for talk that is no move, says nothing.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import Any

from engine.lang import Lang
from voicehost.decision.features import FEATURES, GuessFeatures
from voicehost.understanding.results import Command


@dataclass(frozen=True)
class Logistic:
    """A logistic model over the guess features and its operating points: the card's by its name (the
    calibration's own) and by its place (`Calibration.place`, fitted apart: a place is four words, a
    name one, and its evidence reads differently)."""

    bias: float
    weights: tuple[float, ...]  # in the order of FEATURES
    act: float
    ask: float

    def probability(self, features: GuessFeatures) -> float:
        return _logistic(self.bias, self.weights, features)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], where: str = "the calibration") -> Logistic:
        weights = data["weights"]
        known = [name for name in weights if name in FEATURES]
        if len(known) < len(weights) or not known:
            raise ValueError(f"{where} weighs features the decision does not compute: {', '.join(weights)}")
        # a feature the model was fitted without weighs nothing (a calibration fitted before it was added)
        act, ask = float(data["act"]), float(data["ask"])
        if not 0.0 <= ask <= act <= 1.0:
            raise ValueError(f"{where}'s operating points must be 0 <= ask <= act <= 1, not {ask} and {act}")
        return cls(float(data["bias"]), tuple(float(weights.get(name, 0.0)) for name in FEATURES), act, ask)

    def to_dict(self) -> dict[str, Any]:
        weights = dict(zip(FEATURES, self.weights, strict=True))
        return {"bias": self.bias, "weights": weights, "act": self.act, "ask": self.ask}


def _logistic(bias: float, weights: tuple[float, ...], features: GuessFeatures) -> float:
    z = bias + sum(w * x for w, x in zip(weights, features.vector(), strict=True))
    return 1.0 / (1.0 + math.exp(-max(-60.0, min(60.0, z))))


@dataclass(frozen=True)
class Calibration:
    bias: float
    weights: tuple[float, ...]  # in the order of FEATURES
    act: float
    ask: float
    answer_share: float  # "yes" or "no" after a question, taken from the scores from this share
    pass_share: float  # "pass" read unsure is acted on when the scores agree from this share
    name_gain: float  # the ears' `name_gain` from which an utterance counts as said to the host, name unheard
    name_ask: float  # ...from which it is asked back as if said to the host, hedged (below `name_gain`)
    fitted: Mapping[str, Any]  # what it was fitted on, for the record
    place: Logistic | None = None  # None: a place heard only by the scores is asked back, never acted on
    example_weight: float = 0.0  # nats a card loses per unit of its examples' cost above the best card's
    number_sure: float = 0.9  # a clue is taken at once from this share of the belief in its number
    clue_floor: float = 0.5  # a line whose transcript writes no number is a clue only when one number has this
    # share of the belief ("ripeti" is not a clue for 7)...
    clue_gap: float = 4.0  # ...and explains the rest of the audio within this many nats of the free transcript
    unworded_act: float | None = None  # in the open way, a card found only by the scores (its words name none)
    # is acted on at once from this probability; None: always asked back (it may be talk heard badly)...
    unworded_words: int = 0  # ...when its transcript has at most this many words
    talk_ask: float | None = None  # in the open way, a line whose words read as talk but whose scores alone put a
    # card at this probability is asked back ("ENGINEER?"): in a din a card comes out as the others' talk;
    # None: let be, as talk...
    talk_ask_words: int = 0  # ...when its transcript has at most this many words (talk runs longer)
    place_unworded_act: float | None = None  # in the open way, a card found by its place only in the scores (the
    # words read as no place: "Rho 4 column 5.") is acted on at once from this probability; None: asked back...
    place_unworded_words: int = 0  # ...when its transcript has at most this many words
    by_lang: Mapping[str, Logistic] = field(default_factory=dict)  # a language's own guess model, where fitted
    ending_gap: float | None = None  # once the game is over, "new game" or "quit" taken within this many nats a
    # token of the transcript; None: from their words only
    name_slip: float = math.inf  # ...from which it counts as said to the host when the transcript's first word is
    # the name a letter away ("Post sheriff"): the words and the gain agree (between `name_ask` and `name_gain`)
    read_only_share: float | None = None  # a read-only command heard only by the scores ("Pua no placar.")
    # is taken from this share; None: never (its words alone count)
    ending_ask: float | None = None  # once the game is over, a short line "new game" or "quit" explains within
    # this many nats a token is asked back ("Sai na tua jogo."): likely one garbled; None: silence
    pass_alone_share: float | None = None  # "pass" heard only by the scores ("Tâso") is acted on at once from
    # this share (undo takes it back); None: only asked back (from `pass_ask_share`)
    pass_ask_share: float | None = None  # ...and asked back ("pass?") from this one; None: from `pass_share`
    answer_by_lang: Mapping[str, float] = field(default_factory=dict)  # a language's own `answer_share`, where
    # its tuning data held enough answers heard only by the scores: "sim", "sì" and "yes" are garbled apart
    yes_by_lang: Mapping[str, float] = field(default_factory=dict)  # a language's own point for a "yes" the
    # words do not say: a false "yes" acts (reveals, gives a clue, passes), a false "no" costs a repeat, so "yes"
    # has a point chosen on the false yeses alone, on answers heard in a talking room too; none: `answer_point`
    undo_gap: float | None = None  # while the next clue is awaited, a short line an "undo" phrase explains within
    # this many nats a token of the transcript is taken for undo, which asks first; None: from its words only

    def guess_model(self, lang: Lang) -> Logistic:
        """The model that weighs a card named by its name in `lang`: the language's own where the tuning data
        supported one, else the one fitted on every language."""
        return self.by_lang.get(lang.value) or Logistic(self.bias, self.weights, self.act, self.ask)

    def answer_point(self, lang: Lang, command: Command | None = None) -> float:
        """The share from which "yes" or "no" (`command`; either when None) heard only by the scores answers a
        question in `lang`: "yes" from its own point where one was chosen (on the false yeses alone), "no"
        from the answers' (on the false noes, where "yes" has its own point: a "no" changes nothing)."""
        if command is Command.YES and lang.value in self.yes_by_lang:
            return self.yes_by_lang[lang.value]
        return self.answer_by_lang.get(lang.value, self.answer_share)

    def probability(self, features: GuessFeatures) -> float:
        return _logistic(self.bias, self.weights, features)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Calibration:
        guess = Logistic.from_dict(data["guess"])
        return cls(
            bias=guess.bias,
            weights=guess.weights,
            act=guess.act,
            ask=guess.ask,
            answer_share=float(data["commands"]["answer_share"]),
            pass_share=float(data["commands"]["pass_share"]),
            name_gain=float(data.get("name", {}).get("gain", math.inf)),
            name_ask=float(data.get("name", {}).get("ask", math.inf)),
            name_slip=float(data.get("name", {}).get("slip", math.inf)),
            fitted=dict(data.get("fitted", {})),
            place=Logistic.from_dict(data["place"], "the place calibration") if "place" in data else None,
            example_weight=float(data.get("examples", {}).get("weight", 0.0)),
            number_sure=float(data.get("clues", {}).get("number_sure", 0.9)),
            clue_floor=float(data.get("clues", {}).get("floor", 0.5)),
            clue_gap=float(data.get("clues", {}).get("gap", 4.0)),
            unworded_act=_optional_float(data.get("unworded", {}).get("act")),
            unworded_words=int(data.get("unworded", {}).get("words", 0)),
            talk_ask=_optional_float(data.get("unworded", {}).get("talk_ask")),
            talk_ask_words=int(data.get("unworded", {}).get("talk_ask_words", 0)),
            place_unworded_act=_optional_float(data.get("unworded", {}).get("place_act")),
            place_unworded_words=int(data.get("unworded", {}).get("place_words", 0)),
            ending_gap=_optional_float(data["commands"].get("ending_gap")),
            ending_ask=_optional_float(data["commands"].get("ending_ask")),
            read_only_share=_optional_float(data["commands"].get("read_only_share")),
            pass_alone_share=_optional_float(data["commands"].get("pass_alone_share")),
            pass_ask_share=_optional_float(data["commands"].get("pass_ask_share")),
            answer_by_lang={lang: float(share) for lang, share in data["commands"].get("answer_by_lang", {}).items()},
            yes_by_lang={lang: float(share) for lang, share in data["commands"].get("yes_by_lang", {}).items()},
            undo_gap=_optional_float(data["commands"].get("undo_gap")),
            by_lang={
                lang: Logistic.from_dict(model, f"the {lang} guess calibration")
                for lang, model in data.get("guess_by_lang", {}).items()
            },
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "fitted": dict(self.fitted),
            "guess": Logistic(self.bias, self.weights, self.act, self.ask).to_dict(),
            "commands": {
                "answer_share": self.answer_share,
                "pass_share": self.pass_share,
                "ending_gap": self.ending_gap,
                "ending_ask": self.ending_ask,
                "read_only_share": self.read_only_share,
                "pass_alone_share": self.pass_alone_share,
                "pass_ask_share": self.pass_ask_share,
                "undo_gap": self.undo_gap,
                **({"answer_by_lang": dict(self.answer_by_lang)} if self.answer_by_lang else {}),
                **({"yes_by_lang": dict(self.yes_by_lang)} if self.yes_by_lang else {}),
            },
            "name": {"gain": self.name_gain, "ask": self.name_ask, "slip": self.name_slip},
            **({"place": self.place.to_dict()} if self.place is not None else {}),
            "examples": {"weight": self.example_weight},
            "clues": {"number_sure": self.number_sure, "floor": self.clue_floor, "gap": self.clue_gap},
            "unworded": {
                "act": self.unworded_act,
                "words": self.unworded_words,
                "talk_ask": self.talk_ask,
                "talk_ask_words": self.talk_ask_words,
                "place_act": self.place_unworded_act,
                "place_words": self.place_unworded_words,
            },
            **({"guess_by_lang": {k: v.to_dict() for k, v in self.by_lang.items()}} if self.by_lang else {}),
        }


def _optional_float(value: Any) -> float | None:
    return None if value is None else float(value)


_chosen: list[Calibration] = []


def calibration() -> Calibration:
    """The calibration the host decides with: the one that ships with it (package data), unless the bench
    chose another (`use`) to compare calibrations on the same hearings."""
    return _chosen[-1] if _chosen else shipped()


def use(model: Calibration | None) -> None:
    """Decide with `model` from now on (None: the shipped calibration again)."""
    _chosen[:] = [model] if model is not None else []


@cache
def shipped() -> Calibration:
    """The calibration that ships with the host (package data)."""
    text = resources.files("voicehost.decision").joinpath("calibration.json").read_text(encoding="utf-8")
    return Calibration.from_dict(json.loads(text))
