"""The registry of editions: which game class plays which board, so callers never branch on it."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

from engine.board import Board
from engine.competitive import CompetitiveGame
from engine.duet import DuetGame
from engine.events import Event
from engine.pieces import Edition
from engine.variants import Variants

AnyGame = CompetitiveGame | DuetGame

GAME_CLASSES: Final[dict[Edition, type[CompetitiveGame] | type[DuetGame]]] = {
    Edition.CLASSIC: CompetitiveGame,
    Edition.PICTURES: CompetitiveGame,
    Edition.DUET: DuetGame,
}


def new_game(board: Board, variants: Variants | None = None) -> AnyGame:
    """A started game for this board: `game_started` is already its first event."""
    game = GAME_CLASSES[board.edition](board, variants)
    game.start()
    return game


def replay(board: Board, events: Iterable[Event]) -> AnyGame:
    """The game a log describes, rebuilt exactly (see `Game.replay`)."""
    game = GAME_CLASSES[board.edition].replay(board, events)
    assert isinstance(game, CompetitiveGame | DuetGame)
    return game
