"""Mid-game positions for each edition, the same every time: for the screenshots and the browser tests.

Each is played through the engine as a table would (clues, right and wrong guesses, a pass), so
the board shows covered cards of several kinds, a live clue and the counters part way.
"""

from __future__ import annotations

import random

from engine.board import Board, deal_competitive, deal_duet
from engine.decks import picture_names, words
from engine.editions import AnyGame, new_game
from engine.events import Event
from engine.lang import Lang
from engine.pieces import Edition, Identity, Side, Team
from voicehost.prompts import Prompts
from voicehost.referee.announcer import announcer_for


def deal(edition: Edition, lang: Lang = Lang.EN, seed: int = 7) -> Board:
    rng = random.Random(seed)
    if edition is Edition.DUET:
        return deal_duet(words(lang), lang, rng, first_clue_giver=Side.A)
    deck = picture_names(lang) if edition is Edition.PICTURES else words(lang)
    return deal_competitive(deck, lang, rng, edition=edition)


def mid_game(edition: Edition, lang: Lang = Lang.EN, seed: int = 7) -> tuple[AnyGame, str]:
    """A game part way through, and what the host said after its last action."""
    game = new_game(deal(edition, lang, seed))
    clues = [word for word in words(lang) if word not in game.board.cards]
    events = (_competitive if game.TEAMS else _duet)(game, clues)
    return game, announcer_for(game, Prompts.load(lang)).describe(events)


def _cards(game: AnyGame, key: tuple[Identity, ...], identity: Identity) -> list[str]:
    return [
        card for index, card in enumerate(game.board.cards) if key[index] is identity and not game.is_covered(index)
    ]


def _competitive(game: AnyGame, clues: list[str]) -> list[Event]:
    key = game.key_for("spymasters")
    first = game.current_player
    assert isinstance(first, Team)
    game.give_clue(clues[0], 2)
    for card in _cards(game, key, Identity.of_team(first))[:2]:
        game.guess(card)
    game.end_turn()
    game.give_clue(clues[1], 2)
    game.guess(_cards(game, key, Identity.of_team(first.other))[0])
    game.guess(_cards(game, key, Identity.BYSTANDER)[0])  # wrong: the turn passes
    game.give_clue(clues[2], 3)
    return game.guess(_cards(game, key, Identity.of_team(first))[0])


def _duet(game: AnyGame, clues: list[str]) -> list[Event]:
    key_a, key_b = game.key_for(Side.A.value), game.key_for(Side.B.value)
    game.give_clue(clues[0], 2, by=Side.A)
    for card in _cards(game, key_a, Identity.GREEN)[:2]:
        game.guess(card)
    game.guess(_cards(game, key_a, Identity.BYSTANDER)[0])  # marked from A's side; B's side stays hidden
    game.give_clue(clues[1], 1, by=Side.B)
    game.guess(_cards(game, key_b, Identity.GREEN)[0])
    game.end_turn()
    game.give_clue(clues[2], 2, by=Side.A)
    return game.guess(_cards(game, key_a, Identity.GREEN)[0])


def finished(edition: Edition, lang: Lang = Lang.EN, seed: int = 7) -> tuple[AnyGame, str]:
    """The mid-game position played on to its end: the next guess touches the assassin."""
    game, _ = mid_game(edition, lang, seed)
    holder = game.KEY_HOLDERS[0] if game.TEAMS else game.current_player.value  # type: ignore[union-attr]
    key = game.key_for(holder)
    events = game.guess(_cards(game, key, Identity.ASSASSIN)[0])
    assert game.over
    return game, announcer_for(game, Prompts.load(lang)).describe(events)
