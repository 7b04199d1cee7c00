"""The terminal display: the public board as a text grid, printed again whenever it changes.

Covered cards show their identity letter in brackets; a Duet card marked bystander from one side
shows that side in parentheses; once the game is over, the others show what the key says in braces
({R}, or {AG BI} for the two sides of a Duet card). Same public view and texts as the web page.
"""

from __future__ import annotations

import sys
import threading
from typing import TextIO

from engine.editions import AnyGame
from voicehost.display.private import CheckHandler, CoverHandler
from voicehost.display.state import public_state
from voicehost.display.texts import View, revealed, texts
from voicehost.prompts import Prompts
from voicehost.understanding.positions import label


class TerminalDisplay:
    """Writes to `stream` (standard output by default; the host's text mode may prefer stderr)."""

    def __init__(self, prompts: Prompts, stream: TextIO | None = None) -> None:
        self._prompts = prompts
        self._stream = stream if stream is not None else sys.stdout
        self._lock = threading.Lock()
        self._last = ""

    def show(self, game: AnyGame) -> None:
        with self._lock:
            if game.board.lang != self._prompts.lang:
                self._prompts = Prompts.load(game.board.lang)
            text = render(public_state(game), self._prompts)
            if text == self._last:
                return
            self._last = text
            self._stream.write(text + "\n")
            self._stream.flush()

    def said(self, text: str) -> None:
        """The host prints or speaks its announcements itself."""

    def timer(self, seconds_left: int | None, running: bool) -> None:
        """Not drawn: reprinting the board every second would bury the game."""

    def console_lines(self) -> list[str]:
        return []

    def handle_private(self, *, on_cover: CoverHandler | None = None, on_check: CheckHandler | None = None) -> None:
        """No key pages: cards to cover are chosen aloud ("choose for me")."""

    def close(self) -> None:
        return None


def render(view: View, p: Prompts) -> str:
    """The board and its status lines as plain text."""
    words = texts(view, p)
    cells = [_cell(view, index, p) for index in range(len(view["cards"]))]
    width = max(len(cell) for cell in cells) + 2
    columns = view["columns"]
    # columns are letters from the left, rows numbers from the top: "B3" is said as printed
    header = "   " + "".join(label(1, column + 1)[0].ljust(width) for column in range(columns)).rstrip()
    rows = [header] + [
        f"{start // columns + 1:<3}" + "".join(cell.ljust(width) for cell in cells[start : start + columns]).rstrip()
        for start in range(0, len(cells), columns)
    ]
    status = [
        words["turn"],
        " ".join(part for part in (words["clue"], words["guesses"]) if part),
        " · ".join(item["text"] for item in words["counters"]),
        words["result"],
    ]
    return "\n".join([f"== {words['edition']} ==", *rows, *(line for line in status if line)])


def _cell(view: View, index: int, p: Prompts) -> str:
    card = view["cards"][index]
    if card["covered"]:
        return f"[{p.text('display.letter_' + card['identity'])}] {card['name']}"
    if shown := revealed(view, index, p):
        return f"{{{' '.join(item['side'] + item['letter'] for item in shown)}}} {card['name']}"
    if card["marks"]:
        return f"({''.join(side.upper() for side in card['marks'])}) {card['name']}"
    return f"    {card['name']}"
