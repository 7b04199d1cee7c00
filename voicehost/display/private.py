"""The key pages' private requests: covering a card and asking whether a clue is allowed, unheard.

Said aloud, either would tell the table something of the key ("I cover CHERRY" names an agent), so
the page sends them to the host over its own secret address and shows (or reads) the answer to its
holder only. The display does not decide anything here: it calls what the host gives it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine.editions import AnyGame
from engine.legality import ClueRuling, Verdict
from voicehost.display.texts import View, team
from voicehost.prompts import Prompts

CoverHandler = Callable[[str], bool]
"""Covers the named card when the rules allow it now; False otherwise (the CLI passes `Host.cover`)."""
CheckHandler = Callable[[str], str]
"""The ruling on a clue word, phrased in the game's language (the CLI passes `clue_checker(...)`)."""


def cover_offer(view: View, choices: list[str], p: Prompts) -> dict[str, Any] | None:
    """What the spymasters' page offers while a card waits to be covered; None the rest of the time."""
    if not choices:
        return None
    if view["phase"] == "simulated_turn":
        why = p.text("display.cover_simulated")
    else:
        why = p.text("display.cover_penalty", Team=team(view["competitive"]["team"], p))
    return {"why": why, "cards": list(choices)}


def cover_answer(card: str, covered: bool, p: Prompts) -> dict[str, Any]:
    return {"ok": covered, "text": p.text("display.cover_done" if covered else "display.cover_refused", card=card)}


def ruling_text(word: str, ruling: ClueRuling, p: Prompts) -> str:
    """A ruling as its holder hears it: "PIANO: not allowed: PIANO is on the table." """
    shown = " ".join(word.split()).upper()
    if ruling.verdict is Verdict.VALID:
        return p.text("display.check_valid", word=shown)
    why = p.text(f"clue_reason.{ruling.reason.value}", card=ruling.card or "")
    verdict = "check_invalid" if ruling.verdict is Verdict.INVALID else "check_doubtful"
    return p.text(f"display.{verdict}", word=shown, why=why)


def clue_checker(current_game: Callable[[], AnyGame]) -> CheckHandler:
    """The `on_check` the CLI gives the web display: the game now on the table rules on the word (its
    visible cards, language and house rules, through `engine.legality.check_clue`), phrased for the page."""

    def check(word: str) -> str:
        game = current_game()
        return ruling_text(word, game.check_clue(word), Prompts.load(game.board.lang))

    return check
