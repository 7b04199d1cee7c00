"""Classic and Pictures rules, every ending and every variant, checked through the events."""

from __future__ import annotations

import copy

import pytest

from engine.board import Board
from engine.competitive import CompetitiveGame
from engine.editions import new_game, replay
from engine.errors import (
    CardAlreadyCovered,
    ClueExpected,
    GameIsOver,
    GuessExpected,
    MustGuessOnce,
    NotAllowedInThisGame,
    NumberOutOfRange,
    UnknownCard,
)
from engine.events import EventType
from engine.game import Phase
from engine.pieces import Team
from engine.variants import Variants


def start(board: Board, **variants: object) -> CompetitiveGame:
    game = new_game(board, Variants(**variants))  # type: ignore[arg-type]
    assert isinstance(game, CompetitiveGame)
    return game


def types(events: list) -> list[str]:
    return [e.type.value for e in events]


def test_game_started_names_edition_and_starting_team(classic_board: Board) -> None:
    game = start(classic_board)
    first = game.events[0].to_dict()
    assert first["seq"] == 1 and first["type"] == "game_started"
    assert first["starting_team"] == "red" and first["edition"] == "classic" and len(first["cards"]) == 25
    assert "key" not in first  # the log is public: it never carries the key


def test_number_plus_one_guesses_then_the_turn_ends(classic_board: Board) -> None:
    game = start(classic_board)
    game.give_clue("cozinha", 2)
    game.guess("MANTEIGA")
    game.guess("ORDEM")
    events = game.guess("VERMELHO")
    assert events[-1].to_dict() | {"seq": 0} == {"seq": 0, "type": "turn_ended", "by": "red", "reason": "limit"}
    assert game.team is Team.BLUE


@pytest.mark.parametrize("number", [0, None])
def test_zero_and_unlimited_lift_the_limit(classic_board: Board, number: int | None) -> None:
    game = start(classic_board)
    game.give_clue("comida", number)
    assert game.events[-1]["number"] == ("unlimited" if number is None else 0)
    for card in ("MANTEIGA", "ORDEM", "VERMELHO", "MOLHO", "PESCOÇO"):
        assert game.guess(card)[-1].type is EventType.GUESS
    assert game.guesses_left() is None


def test_at_least_one_guess_then_stopping_is_allowed(classic_board: Board) -> None:
    game = start(classic_board)
    game.give_clue("pão", 1)
    with pytest.raises(MustGuessOnce):
        game.end_turn()
    game.guess("MANTEIGA")
    assert game.end_turn()[-1]["reason"] == "passed"


def test_wrong_guesses_end_the_turn_and_count_for_the_other_team(classic_board: Board) -> None:
    game = start(classic_board)
    game.give_clue("fruta", 1)
    events = game.guess("CEREJA")
    assert events[0]["identity"] == "blue" and events[-1]["reason"] == "wrong_guess"
    assert game.agents_left(Team.BLUE) == 7
    game.give_clue("tecido", 1)
    assert game.guess("SEDA")[-1]["reason"] == "wrong_guess"


def test_assassin_loses(classic_board: Board) -> None:
    game = start(classic_board)
    game.give_clue("noite", 1)
    events = game.guess("TARDE")
    assert events[-1].to_dict() | {"seq": 0} == {"seq": 0, "type": "game_over", "winner": "blue", "reason": "assassin"}
    with pytest.raises(GameIsOver):
        game.give_clue("mais", 1)


def test_all_found_wins_even_on_the_other_teams_turn(classic_board: Board) -> None:
    game = start(classic_board)
    game.give_clue("casa", 0)
    for card in ("MANTEIGA", "ORDEM", "VERMELHO", "MOLHO", "PESCOÇO", "BONECA", "GOVERNADOR", "CAPA"):
        game.guess(card)
    game.end_turn()
    game.give_clue("doce", 1)
    events = game.guess("TORTA")  # blue uncovers red's last agent
    assert events[-1]["winner"] == "red" and events[-1]["reason"] == "all_found"


def test_illegal_actions_have_player_messages(classic_board: Board) -> None:
    game = start(classic_board)
    with pytest.raises(ClueExpected, match="red spymaster must give a clue"):
        game.guess("MANTEIGA")
    with pytest.raises(NumberOutOfRange):
        game.give_clue("tudo", 10)
    game.give_clue("pão", 2)
    with pytest.raises(GuessExpected):
        game.give_clue("outra", 1)
    game.guess("MANTEIGA")
    with pytest.raises(CardAlreadyCovered, match="MANTEIGA is already covered"):
        game.guess("manteiga")
    with pytest.raises(UnknownCard, match="BANANA is not on the board"):
        game.guess("banana")


def test_cards_match_without_accents(classic_board: Board) -> None:
    game = start(classic_board)
    game.give_clue("corpo", 1)
    assert game.guess("pescoco")[0]["card"] == "PESCOÇO"


def test_invalid_clue_penalty_then_opponent_covers_one_of_their_own(classic_board: Board) -> None:
    game = start(classic_board)
    events = game.reject_clue("manteiga", "visible_word")
    assert types(events) == ["clue_rejected", "turn_ended"] and events[-1]["reason"] == "penalty"
    assert game.team is Team.BLUE
    with pytest.raises(NotAllowedInThisGame):
        game.penalty_cover("MANTEIGA")  # only one of blue's own agents
    cover = game.penalty_cover("NARIZ")
    assert cover[0].to_dict() | {"seq": 0} == {
        "seq": 0,
        "type": "cover",
        "by": "blue",
        "card": "NARIZ",
        "identity": "blue",
        "reason": "penalty",
    }
    with pytest.raises(NotAllowedInThisGame):
        game.penalty_cover("PIZZA")  # one card only
    game.give_clue("forno", 1)


def test_without_the_penalty_an_invalid_clue_is_just_given_again(classic_board: Board) -> None:
    game = start(classic_board, invalid_clue_penalty=False)
    assert types(game.reject_clue("manteiga", "visible_word")) == ["clue_rejected"]
    assert game.team is Team.RED
    game.give_clue("pão", 1)


def test_assassin_ending_sudden_death_win(classic_board: Board) -> None:
    game = start(classic_board, assassin_ending=True)
    game.give_clue("casa", 0)
    for card in ("MANTEIGA", "ORDEM", "VERMELHO", "MOLHO"):
        game.guess(card)
    events = game.guess("TARDE")
    assert types(events) == ["guess", "sudden_death"]
    for card in ("PESCOÇO", "BONECA", "GOVERNADOR", "CAPA"):
        assert game.guess(card)[-1].type is EventType.GUESS
    events = game.guess("TORTA")
    assert events[-1]["winner"] == "red" and events[-1]["reason"] == "sudden_death"


def test_assassin_ending_sudden_death_wrong_guess_loses(classic_board: Board) -> None:
    game = start(classic_board, assassin_ending=True)
    game.give_clue("noite", 1)
    game.guess("TARDE")
    events = game.guess("SEDA")
    assert events[-1]["winner"] == "blue" and events[-1]["reason"] == "sudden_death"


def test_assassin_ending_stopping_in_sudden_death_loses(classic_board: Board) -> None:
    game = start(classic_board, assassin_ending=True)
    game.give_clue("noite", 1)
    game.guess("TARDE")
    assert game.end_turn()[-1]["winner"] == "blue"


def test_assassin_ending_all_found_is_not_yet_a_win(classic_board: Board) -> None:
    game = start(classic_board, assassin_ending=True)
    game.give_clue("tudo", None)
    reds = ("MANTEIGA", "ORDEM", "VERMELHO", "MOLHO", "PESCOÇO", "BONECA", "GOVERNADOR", "CAPA", "TORTA")
    for card in reds:
        assert game.guess(card)[-1].type is EventType.GUESS
    assert not game.over
    events = game.guess("TARDE")
    assert events[-1]["winner"] == "red" and events[-1]["reason"] == "assassin"


def test_coop_simulated_opponent_and_score(classic_board: Board) -> None:
    game = start(classic_board, coop=True)
    game.give_clue("casa", 4)
    for card in ("MANTEIGA", "ORDEM", "VERMELHO", "MOLHO"):
        game.guess(card)
    game.end_turn()
    with pytest.raises(NotAllowedInThisGame):
        game.give_clue("mais", 1)
    with pytest.raises(NotAllowedInThisGame):
        game.simulated_cover("PESCOÇO")  # a red card: the simulated team covers its own agents
    assert types(game.simulated_cover("NARIZ")) == ["cover", "turn_ended"]
    game.give_clue("resto", 0)
    for card in ("PESCOÇO", "BONECA", "GOVERNADOR", "CAPA"):
        game.guess(card)
    events = game.guess("TORTA")
    assert events[-1]["winner"] == "players" and events[-1]["score"] == 7


def test_coop_loses_when_every_enemy_agent_is_covered(classic_board: Board) -> None:
    game = start(classic_board, coop=True)
    for guessed, covered in (("NARIZ", "PERGAMINHO"), ("PIZZA", "CAPACETE"), ("COZINHA", "ESTÚDIO")):
        game.give_clue("engano", 1)
        assert game.guess(guessed)[-1]["reason"] == "wrong_guess"
        game.simulated_cover(covered)
    game.give_clue("engano", 1)
    game.guess("CEREJA")
    assert game.simulated_choices() == ["CHAMA"]
    events = game.simulated_cover("CHAMA")
    assert events[-1]["winner"] == "none" and events[-1]["reason"] == "all_found"


def test_coop_assassin_loses_with_no_score(classic_board: Board) -> None:
    game = start(classic_board, coop=True)
    game.give_clue("noite", 1)
    events = game.guess("TARDE")
    assert events[-1]["winner"] == "none" and "score" not in events[-1].fields


def test_timer_house_rule_ends_the_guessing(classic_board: Board) -> None:
    game = start(classic_board, timer_ends_turn=True)
    game.give_clue("pão", 2)
    assert game.timer_expired() == []  # one guess is required first
    game.guess("MANTEIGA")
    assert game.timer_expired()[-1]["reason"] == "timer"
    assert start(classic_board).timer_expired() == []


def test_variants_of_other_editions_are_refused(classic_board: Board) -> None:
    with pytest.raises(NotAllowedInThisGame, match="mission is not a variant of classic"):
        start(classic_board, mission="cairo")


def test_undo_takes_back_the_last_guess_and_its_consequences(classic_board: Board) -> None:
    game = start(classic_board)
    game.give_clue("fruta", 1)
    game.guess("MANTEIGA")
    before = copy.deepcopy(game.state)
    game.guess("CEREJA")
    assert game.team is Team.BLUE
    undo = game.undo()
    assert undo["undoes"] == 4 and game.team is Team.RED and 15 not in game.state.revealed
    assert game.state == before
    assert replay(game.board, game.events).state == game.state


def test_pictures_example_evolution_two(pictures_board: Board) -> None:
    game = start(pictures_board)
    assert game.agents_left(Team.RED) == 8 and game.agents_left(Team.BLUE) == 7
    game.give_clue("evolution", 2)
    game.guess("MONKEY")
    game.guess("DINOSAUR")
    assert game.guesses_left() == 1
    game.end_turn()
    game.give_clue("kangaroo", 1)
    assert game.guess("TURTLE")[-1]["reason"] == "wrong_guess"
    game.give_clue("australia", 3)
    for card in ("KANGAROO", "ROCKET", "CASTLE", "PIANO"):
        game.guess(card)
    game.give_clue("fairy", 2)
    game.guess("BALLOON")
    assert game.guess("CANDLE")[-1]["reason"] == "wrong_guess"
    game.give_clue("knight", 2)
    game.guess("DRAGON")
    events = game.guess("ANCHOR")
    assert events[-1]["winner"] == "red" and events[-1]["reason"] == "all_found"


def test_three_players_share_one_operative(classic_board: Board) -> None:
    game = start(classic_board, shared_operative=True)
    game.give_clue("pão", 1)
    game.guess("CEREJA")
    game.give_clue("fruta", 1)  # the same operative now guesses for blue
    assert game.guess("PIZZA")[0]["by"] == "blue"


def test_undo_takes_back_a_clue_before_any_guess(classic_board: Board) -> None:
    """A clue misheard and announced is taken back by voice ("undo"): the same spymaster gives it again."""
    game = start(classic_board)
    before = copy.deepcopy(game.state)
    clue = game.give_clue("fruta", 2)[0]
    assert game.last_undoable == clue
    game.undo()
    assert game.state == before and game.state.phase is Phase.CLUE
    assert replay(game.board, game.events).state == game.state


def test_undo_takes_back_a_pass_but_not_a_turn_a_guess_ended(classic_board: Board) -> None:
    game = start(classic_board)
    game.give_clue("fruta", 2)
    game.guess("MANTEIGA")
    before = copy.deepcopy(game.state)
    passed = game.end_turn()[0]
    assert game.last_undoable == passed
    game.undo()
    assert game.state == before and game.team is Team.RED
    game.guess("CEREJA")  # a blue agent: the turn ends as the guess's consequence
    assert game.team is Team.BLUE
    assert game.last_undoable is not None and game.last_undoable.type is EventType.GUESS
    assert replay(game.board, game.events).state == game.state
