"""The game as the display sees it: a public view for everyone and a private one per key holder.

`public_state` is the only way from a game to anything the public display serves. It reads the
words on the table, the public counters and the identity of *covered* cards, and nothing else of
the key: an uncovered card's identity, or the other side of a Duet card marked from one side, never
enters it. The tests check this as noninterference (two keys that differ only where nobody may
look give byte-identical public pages).
"""

from __future__ import annotations

from functools import cache
from typing import Any

from engine.competitive import CompetitiveGame
from engine.decks import pictures, words
from engine.duet import GREENS_TO_FIND, DuetGame
from engine.editions import AnyGame
from engine.events import EventType
from engine.lang import Lang
from engine.missions import mission
from engine.pieces import Clue, Edition, EndReason, Identity, Side, Team

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
    }
    if isinstance(game, CompetitiveGame):
        view["cards"] = [_competitive_card(game, index) for index in range(len(board.cards))]
        view["competitive"] = _competitive(game)
    else:
        view["cards"] = _duet_cards(game)
        view["duet"] = _duet(game)
    return view


def key_identities(game: AnyGame, viewer: str) -> list[str]:
    """The key a private page shows: the whole key for the spymasters, one side for a Duet player."""
    board = game.board
    if isinstance(game, DuetGame):
        return [identity.value for identity in board.side_key(Side(viewer))]
    return [identity.value for identity in board.key]


def key_viewers(game: AnyGame) -> tuple[str, ...]:
    """Who has a private key page in this game: both spymasters share one; each Duet player has a side."""
    return (Side.A.value, Side.B.value) if isinstance(game, DuetGame) else ("spymasters",)


# ---- cards ------------------------------------------------------------------------------------


def _card(game: AnyGame, index: int) -> Card:
    name = game.board.cards[index]
    emoji = _emoji(game.board.lang, game.board.edition is Edition.PICTURES).get(name)
    return {"name": name, "emoji": emoji, "covered": False, "identity": None, "marks": []}


@cache
def _emoji(lang: Lang, pictures_edition: bool) -> dict[str, str]:
    """Picture names to emoji; on a mixed deck a name that is also a word is the word, as dealing decides."""
    taken = set() if pictures_edition else set(words(lang))
    return {picture.name(lang): picture.emoji for picture in pictures() if picture.name(lang) not in taken}


def _competitive_card(game: CompetitiveGame, index: int) -> Card:
    card = _card(game, index)
    revealed = game.state.revealed.get(index)  # covered cards only: this map holds nothing else
    if revealed is not None:
        card["covered"], card["identity"] = True, revealed.value
    return card


def _duet_cards(game: DuetGame) -> list[Card]:
    """Greens found and bystanders marked from both sides are covered; a one-side mark shows only that side."""
    cards = []
    for index in range(len(game.board.cards)):
        card = _card(game, index)
        marks = sorted(side.value for side in game.state.marks.get(index, ()))
        card["marks"] = marks
        if index in game.state.greens:
            card["covered"], card["identity"] = True, Identity.GREEN.value
        elif len(marks) == 2:
            card["covered"], card["identity"] = True, Identity.BYSTANDER.value
        cards.append(card)
    last = _losing_guess(game)
    if last is not None:
        index, identity = last
        cards[index]["covered"], cards[index]["identity"] = True, identity
    return cards


def _losing_guess(game: DuetGame) -> tuple[int, str] | None:
    """The guess that lost a Duet game (the assassin, or a mistake in sudden death): it was said aloud."""
    if game.state.end_reason not in (EndReason.ASSASSIN, EndReason.SUDDEN_DEATH):
        return None
    guesses = [event for event in game.events if event.type is EventType.GUESS]
    if not guesses or guesses[-1]["identity"] == Identity.GREEN.value:
        return None
    index = game.board.index_of(guesses[-1]["card"])
    return None if index is None else (index, str(guesses[-1]["identity"]))


# ---- counters ---------------------------------------------------------------------------------


def _clue(clue: Clue | None) -> dict[str, Any]:
    return {"word": clue.word, "number": clue.number_value} if clue is not None else {}


def _competitive(game: CompetitiveGame) -> dict[str, Any]:
    state = game.state
    return {
        "team": game.team.value,
        "starting_team": game.players_team.value,
        "guesses_left": game.guesses_left(),
        "agents_left": {team.value: game.agents_left(team) for team in Team},
        "agents_total": {team.value: game.agents_total(team) for team in Team},
        "coop": game.variants.coop,
        "assassin_ending": game.variants.assassin_ending,
        "penalty_for": state.penalty_for.value if state.penalty_for else None,
        "sudden_death": state.sudden_death,
    }


def _duet(game: DuetGame) -> dict[str, Any]:
    state = game.state
    city = mission(game.variants.mission) if game.variants.mission else None
    return {
        "giver": state.giver.value if state.giver else None,
        "guesser": game.guesser.value if game.guesser else None,
        "next_givers": [side.value for side in game.next_givers()],
        "sudden_death_guessers": [side.value for side in Side if side.other not in state.done]
        if state.sudden_death
        else [],
        "tokens_left": state.tokens_left,
        "tokens_total": city.tokens if city else game.variants.duet_tokens,
        "mistakes_left": state.mistakes_left if city else None,
        "greens_found": len(state.greens),
        "greens_total": GREENS_TO_FIND,
        "done": sorted(side.value for side in state.done),
        "sudden_death": state.sudden_death,
        "mission": city.name(game.board.lang) if city else None,
    }
