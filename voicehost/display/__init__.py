"""What players look at: the public board (web page or terminal) and the spymasters' private key pages.

The host calls `show` after every change, `said` with every announcement, `timer` with the sand
timer; it prints `console_lines()` on its own console only (the key pages' secret links are there),
and gives `handle_private` what the key pages' private requests call (`Host.cover`, `clue_checker`).
Only `state.public_state` turns a game into something public: see that module.
"""

from __future__ import annotations

from typing import Protocol, TextIO

from engine.editions import AnyGame
from voicehost.display.none import NoDisplay
from voicehost.display.private import CheckHandler, CoverHandler, clue_checker
from voicehost.display.state import public_state
from voicehost.display.terminal import TerminalDisplay
from voicehost.display.web import DisplayError, WebDisplay
from voicehost.prompts import Prompts

__all__ = [
    "CheckHandler",
    "CoverHandler",
    "Display",
    "DisplayError",
    "NoDisplay",
    "TerminalDisplay",
    "WebDisplay",
    "clue_checker",
    "make_display",
    "public_state",
]

KINDS = ("web", "terminal", "none")


class Display(Protocol):
    def show(self, game: AnyGame) -> None:
        """After every change of the game; thread-safe, from any thread."""

    def said(self, text: str) -> None:
        """Every announcement the host speaks (public by design): the page's live region reads it."""

    def timer(self, seconds_left: int | None, running: bool) -> None:
        """The sand timer's state; None: no timer."""

    def console_lines(self) -> list[str]:
        """What to print on the host's console only: the public address, the private ones with QR codes."""

    def handle_private(self, *, on_cover: CoverHandler | None = None, on_check: CheckHandler | None = None) -> None:
        """What a key page's private choices call (the web display only; the others have no key pages)."""

    def close(self) -> None: ...


def make_display(
    kind: str,
    game: AnyGame,
    prompts: Prompts,
    *,
    host: str = "127.0.0.1",
    port: int = 8080,
    stream: TextIO | None = None,
) -> Display:
    """`kind` is web, terminal or none; `host`/`port` are the web display's (port 0: any free port);
    `stream` is where the terminal display prints (standard output by default). Raises DisplayError."""
    if kind == "web":
        return WebDisplay(game, prompts, host=host, port=port)
    if kind == "terminal":
        display = TerminalDisplay(prompts, stream)
        display.show(game)
        return display
    if kind == "none":
        return NoDisplay()
    raise ValueError(f"unknown display {kind!r}: choose one of {', '.join(KINDS)}")
