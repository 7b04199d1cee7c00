"""No display at all (`--display none`): the game is played by ear."""

from __future__ import annotations

from engine.editions import AnyGame


class NoDisplay:
    def show(self, game: AnyGame) -> None:
        return None

    def said(self, text: str) -> None:
        return None

    def timer(self, seconds_left: int | None, running: bool) -> None:
        return None

    def console_lines(self) -> list[str]:
        return []

    def close(self) -> None:
        return None
