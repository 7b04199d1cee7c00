"""Duet: tokens, marks from each side, turn order, sudden death, scoring and missions."""

from __future__ import annotations

import pytest

from engine.duet import DuetGame
from engine.editions import new_game, replay
from engine.errors import CardAlreadyCovered, CardAlreadyMarked, NotAllowedInThisGame, NotYourTurn
from engine.pieces import Side
from engine.variants import Variants
from tests.conftest import DUET_EXAMPLE_PAIRS, duet_board

GREEN_A = [c for c, p in DUET_EXAMPLE_PAIRS.items() if p[0] == "G"]
GREEN_B = [c for c, p in DUET_EXAMPLE_PAIRS.items() if p[1] == "G"]
GREEN_ONLY_B = [c for c in GREEN_B if c not in GREEN_A]


def start(first: Side | None = None, **variants: object) -> DuetGame:
    game = new_game(duet_board(first), Variants(**variants))  # type: ignore[arg-type]
    assert isinstance(game, DuetGame)
    return game


def test_either_player_may_give_the_first_clue_then_they_alternate() -> None:
    game = start()
    assert game.next_givers() == [Side.A, Side.B]
    game.give_clue("fogo", 1, by=Side.B)
    game.guess("PIZZA")
    game.end_turn()
    with pytest.raises(NotYourTurn):
        game.give_clue("outra", 1, by=Side.B)
    assert start(Side.A).next_givers() == [Side.A]


def test_relaxed_order_allows_two_in_a_row_but_not_three() -> None:
    game = start(duet_relaxed_order=True)
    for _ in range(2):
        game.give_clue("x", 1, by=Side.A)
        game.guess("MANTEIGA" if not game.state.marks else "ORDEM")
    assert game.next_givers() == [Side.B]


def test_a_card_marked_from_one_side_stays_visible_and_guessable_by_the_other() -> None:
    game = start()
    game.give_clue("pão", 1, by=Side.A)
    game.guess("MANTEIGA")  # bystander on A's side
    assert "MANTEIGA" in game.visible_cards()
    assert game.check_clue("manteiga").verdict.value == "invalid"  # still visible
    game.give_clue("leite", 1, by=Side.B)
    game.guess("MANTEIGA")  # bystander on B's side too: now covered
    assert "MANTEIGA" not in game.visible_cards()
    game.give_clue("x", 1, by=Side.A)
    with pytest.raises(CardAlreadyCovered):
        game.guess("MANTEIGA")


def test_same_side_bystander_cannot_be_guessed_twice() -> None:
    game = start()
    game.give_clue("pão", 1, by=Side.A)
    game.guess("CEREJA")
    game.give_clue("x", 1, by=Side.B)
    game.guess("TORTA")
    game.end_turn()
    game.give_clue("y", 1, by=Side.A)
    with pytest.raises(CardAlreadyMarked):
        game.guess("CEREJA")


def test_assassin_loses_for_both() -> None:
    game = start()
    game.give_clue("queijo", 1, by=Side.A)
    events = game.guess("PIZZA")
    assert events[-1]["winner"] == "none" and events[-1]["reason"] == "assassin"


def test_all_greens_of_a_side_found_is_announced_and_the_other_gives_clues() -> None:
    game = start()
    game.give_clue("tudo", None, by=Side.A)
    events = []
    for card in GREEN_A:
        events += game.guess(card)
    done = [e for e in events if e.type.value == "side_done"]
    assert [e["side"] for e in done] == ["a"]
    assert events[-1].type.value == "turn_ended"  # nothing left to find on A's clues
    assert game.next_givers() == [Side.B]
    with pytest.raises(NotAllowedInThisGame, match="all of A's greens are found"):
        game.give_clue("mais", 1, by=Side.A)


def test_clear_win_and_score() -> None:
    game = start()
    game.give_clue("tudo", None, by=Side.A)
    for card in GREEN_A:
        game.guess(card)
    game.give_clue("resto", None, by=Side.B)
    events = []
    for card in GREEN_ONLY_B:
        events += game.guess(card)
    over = events[-1]
    assert over["winner"] == "players" and over["reason"] == "all_found"
    # 9 tokens - 1 (A's turn, ended when A's greens were done) = 8 left, one of which pays for the
    # winning turn: 3*7, plus 1 for the token taken after a correct guess
    assert over["score"] == 3 * 7 + 1


def run_out_of_time(game: DuetGame) -> None:
    givers = [Side.A, Side.B]
    bystanders_a = [c for c, p in DUET_EXAMPLE_PAIRS.items() if p[0] == "B"]
    bystanders_b = [c for c, p in DUET_EXAMPLE_PAIRS.items() if p[1] == "B"]
    turn = 0
    while game.state.phase.value != "sudden_death":
        giver = givers[turn % 2]
        game.give_clue("x", 1, by=giver)
        pool = bystanders_a if giver is Side.A else bystanders_b
        card = next(
            c
            for c in pool
            if giver not in game.state.marks.get(game.board.index_of(c) or 0, set())
            and not game.is_covered(game.board.index_of(c) or 0)
        )
        game.guess(card)
        turn += 1


def test_sudden_death_win_and_minus_one() -> None:
    game = start()
    run_out_of_time(game)
    assert game.state.tokens_left == 0
    with pytest.raises(NotAllowedInThisGame, match="no more clues"):
        game.give_clue("x", 1, by=Side.A)
    with pytest.raises(NotAllowedInThisGame, match="say who is guessing"):
        game.guess("TORTA")
    events = []
    for card in GREEN_A:
        events += game.guess(card, by=Side.B)
    for card in GREEN_ONLY_B:
        if not game.over:
            events += game.guess(card, by=Side.A)
    assert events[-1]["winner"] == "players" and events[-1]["reason"] == "sudden_death"
    assert events[-1]["score"] == -1


def test_sudden_death_any_wrong_guess_loses() -> None:
    game = start()
    run_out_of_time(game)
    events = game.guess("ORDEM", by=Side.B)
    assert events[-1]["winner"] == "none" and events[-1]["reason"] == "sudden_death"


def test_invalid_clue_costs_a_token_then_guessing_goes_on() -> None:
    game = start()
    events = game.reject_clue("salada", "visible_word", number=2, by=Side.A)
    assert [e.type.value for e in events] == ["clue_rejected", "clue"]
    assert events[0]["tokens_left"] == 8
    assert game.guess("SALADA")[0]["identity"] == "green"


@pytest.mark.parametrize("tokens", [10, 11])
def test_easier_games_have_more_tokens(tokens: int) -> None:
    assert start(duet_tokens=tokens).state.tokens_left == tokens
    with pytest.raises(NotAllowedInThisGame):
        Variants(duet_tokens=12)


def test_mission_mistakes_then_two_token_mistakes_then_out_of_time() -> None:
    game = start(mission="vaticano")  # 8 tokens, 0 mistakes: every bystander costs two tokens
    assert (game.state.tokens_left, game.state.mistakes_left) == (8, 0)
    assert game.events[0]["mistakes_left"] == 0
    bystanders_a = [c for c, p in DUET_EXAMPLE_PAIRS.items() if p[0] == "B"]
    bystanders_b = [c for c, p in DUET_EXAMPLE_PAIRS.items() if p[1] == "B"]
    game.give_clue("x", 1, by=Side.A)
    marked = game.guess(bystanders_a[0])
    assert marked[1]["tokens_left"] == 6 and marked[1]["mistakes_left"] == 0
    game.give_clue("x", 1, by=Side.B)
    game.guess("TORTA")
    assert game.end_turn()[-1]["tokens_left"] == 5
    game.give_clue("x", 1, by=Side.A)
    game.guess(bystanders_a[1])  # 3 left
    game.give_clue("x", 1, by=Side.B)
    game.guess("CEREJA")
    game.end_turn()  # 2 left
    game.give_clue("x", 1, by=Side.A)
    game.guess("SALADA")
    game.end_turn()  # 1 left
    game.give_clue("x", 1, by=Side.B)
    events = game.guess(bystanders_b[0])  # needs two tokens, one is left: lost at once
    assert events[-1]["winner"] == "none" and events[-1]["reason"] == "out_of_time"
    assert replay(game.board, game.events).state == game.state


def test_mission_uses_bystander_tokens_first_for_mistakes_and_check_tokens_for_stops() -> None:
    game = start(mission="cairo")  # 9-5
    game.give_clue("x", 1, by=Side.A)
    game.guess("SALADA")
    stop = game.end_turn()[-1]
    assert (stop["tokens_left"], stop["mistakes_left"]) == (8, 5)
    game.give_clue("x", 1, by=Side.B)
    mark = game.guess("MANTEIGA")[1]
    assert (mark["tokens_left"], mark["mistakes_left"]) == (7, 4)
    assert game.events[-1]["mistakes_left"] == 4


def test_unknown_mission_is_refused_with_the_list() -> None:
    with pytest.raises(NotAllowedInThisGame, match="no mission called 'atlantis'"):
        start(mission="atlantis")
