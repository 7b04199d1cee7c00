"""Events: the facts of a game, in the JSON Lines shape of CONTRACT.md.

The state of a game is derived from its events, so saving, resuming and undo are one mechanism.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from types import MappingProxyType
from typing import Any

from engine.errors import LogError


class EventType(StrEnum):
    GAME_STARTED = "game_started"
    CLUE = "clue"
    CLUE_REJECTED = "clue_rejected"
    GUESS = "guess"
    COVER = "cover"  # a card covered without a guess: penalty or simulated opponent
    BYSTANDER_MARKED = "bystander_marked"  # Duet only: the time token placed on a bystander
    TURN_ENDED = "turn_ended"
    SIDE_DONE = "side_done"  # Duet: all greens of one side are found
    SUDDEN_DEATH = "sudden_death"
    UNDO = "undo"
    TIMER = "timer"
    GAME_OVER = "game_over"


@dataclass(frozen=True)
class Event:
    """One line of the log: its `seq` (1, 2, ...), its type and its fields."""

    seq: int
    type: EventType
    fields: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "fields", MappingProxyType(dict(self.fields)))

    def __getitem__(self, name: str) -> Any:
        return self.fields[name]

    def get(self, name: str, default: Any = None) -> Any:
        return self.fields.get(name, default)

    def to_dict(self) -> dict[str, Any]:
        return {"seq": self.seq, "type": self.type.value, **self.fields}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Event:
        if not isinstance(data, Mapping):
            raise LogError(detail="an event must be a JSON object")
        try:
            seq = int(data["seq"])
            kind = EventType(data["type"])
        except (KeyError, TypeError, ValueError):
            raise LogError(detail=f"not an event: {dict(data)!r:.80}") from None
        fields = {name: value for name, value in data.items() if name not in ("seq", "type")}
        return cls(seq, kind, fields)
