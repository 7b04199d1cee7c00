"""No display at all (`--display none`): the game is played by ear."""

from __future__ import annotations

from engine.editions import AnyGame
from voicehost.display.private import CheckHandler, CoverHandler


class NoDisplay:
    def show(self, game: AnyGame) -> None:
        return None

    def said(self, text: str) -> None:
        return None

    def timer(self, seconds_left: int | None, running: bool) -> None:
        return None

    def console_lines(self) -> list[str]:
        return []

    def handle_private(self, *, on_cover: CoverHandler | None = None, on_check: CheckHandler | None = None) -> None:
        return None

    def close(self) -> None:
        return None
