"""The registry of editions: which game class plays which board, so callers never branch on it."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Final

from engine.board import Board
from engine.competitive import CompetitiveGame
from engine.duet import DuetGame
from engine.events import Event
from engine.game import Game
from engine.pieces import Edition
from engine.variants import Variants

AnyGame = Game[Any]
"""A game of any edition: callers use the interface every edition shares (see engine.game)."""

GAME_CLASSES: Final[dict[Edition, type[AnyGame]]] = {
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
    return GAME_CLASSES[board.edition].replay(board, events)
