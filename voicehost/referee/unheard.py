"""The cards the recognizer cannot hear, said with their places ("CEREJA at B3"): players name those by
place, so that a card the ears cannot tell apart is never guessed wrong."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from engine.editions import AnyGame
from voicehost.prompts import Prompts
from voicehost.understanding import Grid


def unheard_text(
    game: AnyGame, p: Prompts, unheard: Callable[[Sequence[str]], Sequence[str]] | None, grid: Grid
) -> str:
    """Which visible cards `unheard` says the recognizer cannot hear, by their place on `grid`; "" when
    it hears them all (or nobody asked)."""
    if unheard is None:
        return ""
    deaf = set(unheard(game.visible_cards()))
    places = [
        p.text("info.card_at", card=card, place=grid.place_of(index))
        for index, card in enumerate(game.board.cards)
        if card in deaf and not game.is_covered(index)
    ]
    return p.text("info.unheard", cards=", ".join(places)) if places else ""
