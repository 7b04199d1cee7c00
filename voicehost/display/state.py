"""The game as the display sees it: a public view for everyone and a private one per key holder.

`public_state` is the only way from a game to anything the public display serves. While the game
goes on it reads the words on the table, the public counters and the identity of *covered* cards,
and nothing else of the key: an uncovered card's identity, or the other side of a Duet card marked
from one side, never enters it. Once the game is over the table turns the key card over: then, and
only then, `reveal` holds the whole key. The tests check this as noninterference (two keys that
differ only where nobody may look give byte-identical public pages until the game is over).
"""

from __future__ import annotations

from functools import cache
from typing import Any

from engine.decks import pictures, words
from engine.editions import AnyGame
from engine.lang import Lang
from engine.pieces import Clue, Edition

Card = dict[str, Any]


def public_state(game: AnyGame) -> dict[str, Any]:
    """Everything players around the table may see, as a JSON-ready dict."""
    board = game.board
    state = game.state
    view: dict[str, Any] = {
        "edition": board.edition.value,
        "lang": board.lang.value,
        "columns": board.grid.columns,
        "rows": board.grid.rows,
        "phase": state.phase.value,
        "clue": _clue(state.clue),
        "clues": [{"by": by, **_clue(clue)} for by, clue in state.clues],
        "over": game.over,
        "winner": state.winner.value if state.winner else None,
        "end_reason": state.end_reason.value if state.end_reason else None,
        "score": state.score,
        "cards": [_card(game, index) for index in range(len(board.cards))],
        COUNTERS[game.TEAMS]: game.public_counters(),
        "reveal": _reveal(game) if game.over else None,
    }
    return view


COUNTERS = {True: "competitive", False: "duet"}
"""Where the page finds the edition's counters: two teams' agents, or the Duet bank and greens."""


def key_identities(game: AnyGame, viewer: str) -> list[str]:
    """The key a private page shows: the whole key for the spymasters, one side for a Duet player."""
    return [identity.value for identity in game.key_for(viewer)]


def key_viewers(game: AnyGame) -> tuple[str, ...]:
    """Who has a private key page in this game: both spymasters share one; each Duet player has a side."""
    return game.KEY_HOLDERS


def _reveal(game: AnyGame) -> dict[str, list[str]]:
    """The whole key, by key holder (the spymasters' key, or both Duet sides): for a finished game only."""
    assert game.over, "the key is shown only once the game is over"
    return {holder: key_identities(game, holder) for holder in game.KEY_HOLDERS}


# ---- cards ------------------------------------------------------------------------------------


def _card(game: AnyGame, index: int) -> Card:
    """A card as the table sees it: covered ones show their identity; a Duet card shows its one-side marks."""
    name = game.board.cards[index]
    emoji = _emoji(game.board.lang, game.board.edition is Edition.PICTURES).get(name)
    identity = game.public_identity(index)
    return {
        "name": name,
        "emoji": emoji,
        "covered": identity is not None,
        "identity": identity.value if identity is not None else None,
        "marks": [side.value for side in game.marks(index)],
    }


@cache
def _emoji(lang: Lang, pictures_edition: bool) -> dict[str, str]:
    """Picture names to emoji; on a mixed deck a name that is also a word is the word, as dealing decides."""
    taken = set() if pictures_edition else set(words(lang))
    return {picture.name(lang): picture.emoji for picture in pictures() if picture.name(lang) not in taken}


def _clue(clue: Clue | None) -> dict[str, Any]:
    return {"word": clue.word, "number": clue.number_value} if clue is not None else {}
