"""The Duet mission map: cities as turns-mistakes, and a team's campaign across them.

The rulebook prints the cities and their numbers, and the links from Praga (Berlim, Cairo,
Moscovo); the other links are printed only on the map sheet, so this project defines them
(`PROJECT_LINKS`), ordering cities from easier to harder along each road. Say so to players.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from engine.errors import NotAllowedInThisGame
from engine.lang import Lang


@dataclass(frozen=True)
class Mission:
    """A city: `tokens` timer tokens, of which `mistakes` lie bystander side up."""

    id: str
    tokens: int
    mistakes: int
    names: Mapping[str, str]

    def name(self, lang: Lang) -> str:
        return self.names.get(lang.value, self.names["pt-PT"])


def _m(id_: str, tokens: int, mistakes: int, pt_br: str, pt_pt: str, it: str, en: str) -> Mission:
    return Mission(id_, tokens, mistakes, {"pt-BR": pt_br, "pt-PT": pt_pt, "it": it, "en": en})


MISSIONS: Final[dict[str, Mission]] = {
    m.id: m
    for m in (
        _m("praga", 9, 9, "Praga", "Praga", "Praga", "Prague"),
        _m("cairo", 9, 5, "Cairo", "Cairo", "Il Cairo", "Cairo"),
        _m("cidade_do_cabo", 10, 1, "Cidade do Cabo", "Cidade do Cabo", "Città del Capo", "Cape Town"),
        _m("bagda", 8, 5, "Bagdá", "Bagdade", "Baghdad", "Baghdad"),
        _m("dubai", 7, 5, "Dubai", "Dubai", "Dubai", "Dubai"),
        _m("sydney", 9, 1, "Sydney", "Sydney", "Sydney", "Sydney"),
        _m("singapura", 6, 6, "Singapura", "Singapura", "Singapore", "Singapore"),
        _m("mumbai", 6, 5, "Mumbai", "Mumbai", "Mumbai", "Mumbai"),
        _m("moscovo", 8, 8, "Moscou", "Moscovo", "Mosca", "Moscow"),
        _m("yakutsk", 8, 4, "Yakutsk", "Yakutsk", "Jakutsk", "Yakutsk"),
        _m("toquio", 8, 1, "Tóquio", "Tóquio", "Tokyo", "Tokyo"),
        _m("xangai", 7, 4, "Xangai", "Xangai", "Shanghai", "Shanghai"),
        _m("hong_kong", 6, 4, "Hong Kong", "Hong Kong", "Hong Kong", "Hong Kong"),
        _m("bangkok", 7, 7, "Bangkok", "Banguecoque", "Bangkok", "Bangkok"),
        _m("berlim", 11, 2, "Berlim", "Berlim", "Berlino", "Berlin"),
        _m("londres", 10, 2, "Londres", "Londres", "Londra", "London"),
        _m("montreal", 9, 2, "Montreal", "Montreal", "Montréal", "Montreal"),
        _m("los_alamos", 8, 2, "Los Alamos", "Los Alamos", "Los Alamos", "Los Alamos"),
        _m("washington", 7, 2, "Washington, D.C.", "Washington, D.C.", "Washington", "Washington, D.C."),
        _m("vaticano", 8, 0, "Vaticano", "Vaticano", "Vaticano", "Vatican City"),
        _m("madrid", 10, 0, "Madri", "Madrid", "Madrid", "Madrid"),
        _m("casablanca", 9, 3, "Casablanca", "Casablanca", "Casablanca", "Casablanca"),
        _m("bogota", 8, 3, "Bogotá", "Bogotá", "Bogotà", "Bogotá"),
        _m("rio_de_janeiro", 7, 3, "Rio de Janeiro", "Rio de Janeiro", "Rio de Janeiro", "Rio de Janeiro"),
        _m("paris", 11, 0, "Paris", "Paris", "Parigi", "Paris"),
        _m("monte_carlo", 9, 0, "Monte Carlo", "Monte Carlo", "Monte Carlo", "Monte Carlo"),
    )
}

START: Final = "praga"
PRINTED_LINKS: Final = (("praga", "berlim"), ("praga", "cairo"), ("praga", "moscovo"))
PROJECT_LINKS: Final = (
    ("cairo", "bagda"),
    ("cairo", "cidade_do_cabo"),
    ("bagda", "dubai"),
    ("bagda", "mumbai"),
    ("dubai", "mumbai"),
    ("cidade_do_cabo", "sydney"),
    ("sydney", "toquio"),
    ("moscovo", "yakutsk"),
    ("moscovo", "bangkok"),
    ("bangkok", "singapura"),
    ("yakutsk", "xangai"),
    ("toquio", "xangai"),
    ("xangai", "hong_kong"),
    ("singapura", "hong_kong"),
    ("berlim", "londres"),
    ("berlim", "paris"),
    ("londres", "montreal"),
    ("londres", "madrid"),
    ("montreal", "los_alamos"),
    ("los_alamos", "washington"),
    ("paris", "monte_carlo"),
    ("paris", "madrid"),
    ("madrid", "casablanca"),
    ("madrid", "vaticano"),
    ("monte_carlo", "vaticano"),
    ("casablanca", "bogota"),
    ("bogota", "rio_de_janeiro"),
)
"""Links not printed in the rulebook: defined by this project (the map sheet is not in the seeds)."""


def neighbours(city: str) -> set[str]:
    links = PRINTED_LINKS + PROJECT_LINKS
    return {b for a, b in links if a == city} | {a for a, b in links if b == city}


def mission(city: str) -> Mission:
    key = city.strip().lower().replace(" ", "_")
    for candidate in MISSIONS.values():
        if key == candidate.id or any(key == name.lower().replace(" ", "_") for name in candidate.names.values()):
            return candidate
    known = ", ".join(sorted(MISSIONS))
    raise NotAllowedInThisGame(detail=f"there is no mission called {city!r}; the cities are {known}")


@dataclass
class Campaign:
    """A team's progress on the map: Praga is done when they first win a normal 9-token game."""

    team: str
    completed: set[str] = field(default_factory=set)

    def available(self) -> list[str]:
        """Missions the team may play now: completed ones again, and any city linked to one."""
        if not self.completed:
            return []
        reachable = set(self.completed)
        for city in self.completed:
            reachable |= neighbours(city)
        return sorted(reachable)

    def record_win(self, city: str | None, tokens: int) -> bool:
        """Mark a won game; returns True when it opened the map or completed a new city."""
        if city is None:
            if tokens == 9 and START not in self.completed:
                self.completed.add(START)
                return True
            return False
        if city not in self.available():
            raise NotAllowedInThisGame(detail=f"{city} is not open yet on {self.team}'s map")
        new = city not in self.completed
        self.completed.add(city)
        return new

    def to_dict(self) -> dict[str, Any]:
        return {"team": self.team, "completed": sorted(self.completed)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Campaign:
        completed = {str(city) for city in data.get("completed", [])}
        unknown = completed - set(MISSIONS)
        if unknown:
            raise NotAllowedInThisGame(detail=f"unknown cities in the campaign: {', '.join(sorted(unknown))}")
        return cls(str(data["team"]), completed)
