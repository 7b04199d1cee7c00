"""The board: cards on the table and the key card. Validated on load, dealt from a seed."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, TypeVar

from engine.characters import controls_in, shown
from engine.errors import BoardError
from engine.lang import Lang, fold_text
from engine.pieces import (
    COMPETITIVE_COUNTS,
    GRID_5X4,
    GRID_5X5,
    Edition,
    GridSize,
    Identity,
    Side,
    Team,
)

COMPETITIVE_IDENTITIES: Final = frozenset({Identity.RED, Identity.BLUE, Identity.BYSTANDER, Identity.ASSASSIN})
DUET_IDENTITIES: Final = frozenset({Identity.GREEN, Identity.BYSTANDER, Identity.ASSASSIN})

G, B, A = Identity.GREEN, Identity.BYSTANDER, Identity.ASSASSIN
DUET_PAIRS: Final[Counter[tuple[Identity, Identity]]] = Counter(
    {(G, G): 3, (G, A): 1, (G, B): 5, (A, G): 1, (B, G): 5, (A, A): 1, (A, B): 1, (B, A): 1, (B, B): 7}
)
"""Every Duet key card follows this structure (side A, side B): 15 distinct greens in all."""
DUET_GRID: Final = GRID_5X5

E = TypeVar("E", Team, Side)


@dataclass(frozen=True)
class Board:
    """Cards row-major, as printed, plus the key (competitive) or the two key sides (Duet)."""

    edition: Edition
    lang: Lang
    grid: GridSize
    cards: tuple[str, ...]
    key: tuple[Identity, ...] = ()
    starting_team: Team | None = None
    key_a: tuple[Identity, ...] = ()
    key_b: tuple[Identity, ...] = ()
    first_clue_giver: Side | None = None

    def __post_init__(self) -> None:
        validate(self)

    @property
    def is_duet(self) -> bool:
        return self.edition is Edition.DUET

    def index_of(self, card: str) -> int | None:
        """Where a card lies, matching case and accents loosely; None when it is not on the board."""
        wanted = fold_text(card.strip())
        for index, name in enumerate(self.cards):
            if fold_text(name) == wanted:
                return index
        return None

    def side_key(self, side: Side) -> tuple[Identity, ...]:
        return self.key_a if side is Side.A else self.key_b

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Board:
        """Build from the board-file JSON (CONTRACT.md); every rejection names its reason."""
        if not isinstance(data, Mapping):
            raise BoardError(detail="a board file must hold one JSON object")
        try:
            edition = Edition(data.get("edition", "classic"))
        except ValueError:
            raise BoardError(detail=f"unknown edition {data.get('edition')!r}") from None
        try:
            lang = Lang.parse(str(data.get("lang", "pt-BR")))
        except ValueError as exc:
            raise BoardError(detail=str(exc)) from None
        columns, rows = data.get("columns"), data.get("rows")
        if not isinstance(columns, int) or not isinstance(rows, int):
            raise BoardError(detail="columns and rows must be whole numbers")
        cards = data.get("cards")
        if not isinstance(cards, list) or not all(isinstance(card, str) for card in cards):
            raise BoardError(detail="cards must be a list of words")
        return cls(
            edition=edition,
            lang=lang,
            grid=GridSize(columns, rows),
            cards=tuple(cards),
            key=_identities(data.get("key"), "key"),
            starting_team=_optional_enum(Team, data.get("starting_team"), "starting_team"),
            key_a=_identities(data.get("key_a"), "key_a"),
            key_b=_identities(data.get("key_b"), "key_b"),
            first_clue_giver=_optional_enum(Side, data.get("first_clue_giver"), "first_clue_giver"),
        )

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "edition": self.edition.value,
            "lang": self.lang.value,
            "columns": self.grid.columns,
            "rows": self.grid.rows,
            "cards": list(self.cards),
        }
        if self.is_duet:
            data["key_a"] = [identity.value for identity in self.key_a]
            data["key_b"] = [identity.value for identity in self.key_b]
            data["first_clue_giver"] = self.first_clue_giver.value if self.first_clue_giver else None
        else:
            data["key"] = [identity.value for identity in self.key]
            data["starting_team"] = self.starting_team.value if self.starting_team else None
        return data


def _identities(raw: object, field: str) -> tuple[Identity, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise BoardError(detail=f"{field} must be a list")
    try:
        return tuple(Identity(str(item)) for item in raw)
    except ValueError:
        bad = next(item for item in raw if str(item) not in {i.value for i in Identity})
        raise BoardError(detail=f"{field} has an unknown identity {bad!r}") from None


def _optional_enum(kind: type[E], raw: object, field: str) -> E | None:
    if raw is None:
        return None
    try:
        return kind(str(raw))
    except ValueError:
        raise BoardError(detail=f"{field} cannot be {raw!r}") from None


def validate(board: Board) -> None:
    """Raise BoardError with the first broken rule; a board that passes can be played to the end."""
    if len(board.cards) != board.grid.cells:
        raise BoardError(
            detail=f"a {board.grid.columns}x{board.grid.rows} grid needs {board.grid.cells} cards, "
            f"not {len(board.cards)}"
        )
    if any(not card.strip() for card in board.cards):
        raise BoardError(detail="a card has no word")
    for card in board.cards:  # a shared board file must not write to the terminals it is shown on
        controls = controls_in(card)
        if controls:
            raise BoardError(
                detail=f"the card {shown(card)} holds control characters ({', '.join(controls)}), "
                "which would act on the terminal instead of being shown"
            )
    folded = Counter(fold_text(card) for card in board.cards)
    twice = [card for card in board.cards if folded[fold_text(card)] > 1]
    if twice:
        raise BoardError(detail=f"{twice[0]} is on the board twice")
    if board.is_duet:
        _validate_duet(board)
    else:
        _validate_competitive(board)


def _validate_competitive(board: Board) -> None:
    counts = COMPETITIVE_COUNTS.get(board.grid)
    if counts is None:
        raise BoardError(detail="competitive games use a 5x5 or a 5x4 grid")
    if board.key_a or board.key_b:
        raise BoardError(detail="key_a and key_b belong to Duet; a competitive board has one key")
    if len(board.key) != len(board.cards):
        raise BoardError(detail=f"the key has {len(board.key)} identities for {len(board.cards)} cards")
    unknown = [identity for identity in board.key if identity not in COMPETITIVE_IDENTITIES]
    if unknown:
        raise BoardError(detail=f"{unknown[0].value} is not an identity of a competitive key")
    tally = Counter(board.key)
    if board.starting_team is None:
        raise BoardError(detail="starting_team must be red or blue")
    starter, other = board.starting_team, board.starting_team.other
    expected = {
        Identity.of_team(starter): counts.starting_agents,
        Identity.of_team(other): counts.other_agents,
        Identity.BYSTANDER: counts.bystanders,
        Identity.ASSASSIN: counts.assassins,
    }
    wrong = [
        f"{wanted} {identity.value}, not {tally[identity]}"
        for identity, wanted in expected.items()
        if tally[identity] != wanted
    ]
    if wrong:
        raise BoardError(
            detail=f"a {board.grid.columns}x{board.grid.rows} key with {starter.value} starting needs "
            + "; ".join(wrong)
        )


def _validate_duet(board: Board) -> None:
    if board.grid != DUET_GRID:
        raise BoardError(detail="Duet is played on a 5x5 grid")
    if board.key:
        raise BoardError(detail="a Duet board has key_a and key_b, not key")
    for field, side in (("key_a", board.key_a), ("key_b", board.key_b)):
        if len(side) != len(board.cards):
            raise BoardError(detail=f"{field} has {len(side)} identities for {len(board.cards)} cards")
        unknown = [identity for identity in side if identity not in DUET_IDENTITIES]
        if unknown:
            raise BoardError(detail=f"{unknown[0].value} is not an identity of a Duet key")
    pairs = Counter(zip(board.key_a, board.key_b, strict=True))
    if pairs != DUET_PAIRS:
        for pair, wanted in DUET_PAIRS.items():
            if pairs[pair] != wanted:
                raise BoardError(
                    detail=f"a Duet key has {wanted} cards that are {pair[0].value} on side A and "
                    f"{pair[1].value} on side B, this one has {pairs[pair]}"
                )


def deal_competitive(
    cards: Sequence[str],
    lang: Lang,
    rng: random.Random,
    *,
    edition: Edition = Edition.CLASSIC,
    grid: GridSize | None = None,
    starting_team: Team | None = None,
) -> Board:
    """Draw a grid of cards and a random key card, the way the box does."""
    grid = grid or (GRID_5X4 if edition is Edition.PICTURES else GRID_5X5)
    counts = COMPETITIVE_COUNTS[grid]
    chosen = rng.sample(list(cards), grid.cells)
    starter = starting_team or rng.choice([Team.RED, Team.BLUE])
    key = (
        [Identity.of_team(starter)] * counts.starting_agents
        + [Identity.of_team(starter.other)] * counts.other_agents
        + [Identity.BYSTANDER] * counts.bystanders
        + [Identity.ASSASSIN] * counts.assassins
    )
    rng.shuffle(key)
    return Board(edition, lang, grid, tuple(chosen), tuple(key), starter)


def deal_duet(cards: Sequence[str], lang: Lang, rng: random.Random, *, first_clue_giver: Side | None = None) -> Board:
    """A random two-sided key that always follows the printed key-card structure."""
    chosen = rng.sample(list(cards), DUET_GRID.cells)
    pairs = [pair for pair, count in DUET_PAIRS.items() for _ in range(count)]
    rng.shuffle(pairs)
    return Board(
        Edition.DUET,
        lang,
        DUET_GRID,
        tuple(chosen),
        key_a=tuple(a for a, _ in pairs),
        key_b=tuple(b for _, b in pairs),
        first_clue_giver=first_clue_giver,
    )
