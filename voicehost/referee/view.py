"""What the referee's steps see of the table: the game, the words, and what the host remembers.

Built by the host before each step (`Host.view`); a step reads it and returns effects
(`voicehost.referee.effects`), never changing it: the game is for reading here, the host moves it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from engine.editions import AnyGame
from engine.game import Player
from engine.legality import ClueRuling
from engine.pieces import Side
from voicehost.prompts import Prompts
from voicehost.referee.announcer import Announcer
from voicehost.understanding import Grid
from voicehost.understanding.moment import ListenMode


@dataclass(frozen=True)
class HostSettings:
    timer_seconds: int | None = None
    simulated: str = "random"  # co-op: "random", or "choose" (the spymaster picks the card in private)
    seed: int = 0
    key_pages: bool = False  # the key holders have private pages (the web display) to choose cards on
    listening: ListenMode = ListenMode.OPEN  # addressed: a move counts only said to the host (see attention.py)
    host_name: str = ""  # a name the players gave the host, besides the vocabulary's
    unheard: Callable[[Sequence[str]], Sequence[str]] | None = None  # the cards the recognizer cannot hear


@dataclass(frozen=True)
class View:
    """The table as a step sees it."""

    game: AnyGame
    p: Prompts
    announce: Announcer
    settings: HostSettings
    chosen_side: Side | None  # Duet: the player who said "A" or "B" for the next clue or guess
    listening: ListenMode
    last_said: str  # what "repeat" says
    name: str  # the name the host tells players to call it by
    unheard: str  # which cards the recognizer cannot hear, with their places ("" when it hears them all)
    can_deal: bool  # a new game can be dealt (else "new game" says how to play again)
    unsaved: str | None  # where and why the game is not on disk, in the game's language; None when saved
    has_earpiece: bool = False  # a spymaster hears the key in private (--key-audio)
    timer_running: bool = False  # the sand timer runs (or is paused): "pause" has something to pause

    def t(self, key: str, **params: Any) -> str:
        return self.p.text(key, **params)

    @property
    def grid(self) -> Grid:
        """The board as places, for a card named by its place ("B3", "row two column three")."""
        board = self.game.board
        return Grid(tuple(board.cards), board.grid.columns)

    def clue_giver(self) -> Player | None:
        """Who gives the clue now: the only one who may, or the Duet player who said it was them."""
        givers = self.game.clue_givers()
        if len(givers) == 1:
            return givers[0]
        return self.chosen_side if self.chosen_side in givers else None

    def reason(self, ruling: ClueRuling | None) -> str:
        """Why a clue is refused or doubtful, in words; "" without a ruling."""
        if ruling is None:
            return ""
        return self.t(f"clue_reason.{ruling.reason.value}", card=ruling.card or "")

    def claiming(self, side: Side | None) -> View:
        """The table once a Duet player has said who they are."""
        return replace(self, chosen_side=side)
