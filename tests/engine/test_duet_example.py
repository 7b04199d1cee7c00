"""The example game printed in the Duet rulebook (seed 001), replayed move by move."""

from __future__ import annotations

from engine.duet import DuetGame
from engine.editions import new_game, replay
from engine.events import EventType
from engine.pieces import Side
from tests.conftest import duet_board


def test_example_game_leaves_six_turns() -> None:
    game = new_game(duet_board())
    assert isinstance(game, DuetGame)
    game.give_clue("tomate", 3, by=Side.A)
    assert [e["identity"] for e in game.guess("SALADA")] == ["green"]
    wrong = game.guess("CEREJA")
    assert [e.type for e in wrong] == [EventType.GUESS, EventType.BYSTANDER_MARKED, EventType.TURN_ENDED]
    assert wrong[1]["side"] == "a" and wrong[1]["tokens_left"] == 8

    game.give_clue("bolo", 2, by=Side.B)
    game.guess("TORTA")
    assert game.guess("cereja")[0]["identity"] == "green"  # green on B's side, though marked from A's
    game.end_turn()
    assert game.state.tokens_left == 7 and game.state.taken_after_correct == 1

    game.give_clue("miniatura", 2, by=Side.A)
    for card in ("BONECA", "VERMELHO", "MOLHO", "FORMIGA"):
        assert game.guess(card)[0]["identity"] == "green"
    ended = game.end_turn()
    assert ended[-1]["tokens_left"] == 6  # "Restam 6 turnos para jogar"
    assert game.greens_found() == 7
    assert game.next_givers() == [Side.B]
    assert replay(game.board, game.events).state == game.state


def test_guess_is_judged_on_the_clue_givers_side() -> None:
    game = new_game(duet_board())
    assert isinstance(game, DuetGame)
    game.give_clue("fogo", 1, by=Side.B)
    # PIZZA is an assassin on A's side but green on B's: A guesses B's clue, judged on B's side.
    assert game.guess("PIZZA")[0]["identity"] == "green"
