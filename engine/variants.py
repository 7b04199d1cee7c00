"""Variants and house rules: one frozen value, recorded in `game_started`, checked per edition."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, fields
from typing import Any, Final

from engine.errors import NotAllowedInThisGame
from engine.pieces import Edition

DUET_TOKEN_CHOICES: Final = (9, 10, 11)


@dataclass(frozen=True)
class HouseRules:
    """Relaxations of the one-word rule the rulebooks offer to groups (all off by default)."""

    multiword_names: bool = False  # "Leonardo da Vinci", "New York"
    abbreviations: bool = False  # "FBI", "ONU"
    compounds: bool = False  # "porquinho-da-índia", "tic tac"
    homophones: bool = False  # a clue that sounds like a visible card is put to the opponent, not refused


@dataclass(frozen=True)
class Variants:
    """Everything a group can choose before a game; defaults are the standard rules."""

    assassin_ending: bool = False
    coop: bool = False  # one team against a simulated opponent (two players, or three on one team)
    shared_operative: bool = False  # three players: two spymasters, one operative guessing for both
    invalid_clue_penalty: bool = True  # off: an invalid clue is simply refused and given again
    timer_ends_turn: bool = False  # the sand timer running out ends the guessing
    duet_tokens: int = 9
    duet_relaxed_order: bool = False  # a Duet player may give two clues in a row, then the other must
    mission: str | None = None  # a city of the Duet mission map: sets tokens and allowed mistakes
    house: HouseRules = field(default_factory=HouseRules)

    def __post_init__(self) -> None:
        if self.duet_tokens not in DUET_TOKEN_CHOICES:
            raise NotAllowedInThisGame(detail="Duet is played with 9, 10 or 11 timer tokens")
        if self.mission is not None:
            from engine.missions import mission  # the map knows cities by id: keep the id, whatever was typed

            object.__setattr__(self, "mission", mission(self.mission).id)
        if self.coop and self.shared_operative:
            raise NotAllowedInThisGame(
                detail="choose either one team against a simulated opponent or two spymasters sharing an operative"
            )

    def check_edition(self, edition: Edition) -> None:
        """Refuse variants that do not exist for this edition, naming the one at fault."""
        competitive_only = {
            "assassin_ending": self.assassin_ending,
            "coop": self.coop,
            "shared_operative": self.shared_operative,
        }
        duet_only = {
            "duet_relaxed_order": self.duet_relaxed_order,
            "mission": self.mission is not None,
            "duet_tokens": self.duet_tokens != 9,
        }
        wrong = duet_only if edition.competitive else competitive_only
        for name, chosen in wrong.items():
            if chosen:
                raise NotAllowedInThisGame(detail=f"{name.replace('_', ' ')} is not a variant of {edition.value}")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any] | None) -> Variants:
        data = dict(data or {})
        house = HouseRules(**{f.name: bool(data.get("house", {}).get(f.name, False)) for f in fields(HouseRules)})
        known = {f.name for f in fields(cls)} - {"house"}
        return cls(**{name: value for name, value in data.items() if name in known}, house=house)
