"""Thousands of random legal games per edition, checking what must always hold."""

from __future__ import annotations

import random
from collections import Counter

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.board import Board, deal_competitive, deal_duet
from engine.competitive import CompetitiveGame
from engine.duet import DuetGame
from engine.editions import AnyGame, new_game, replay
from engine.errors import GameError
from engine.events import EventType
from engine.game import Phase
from engine.lang import Lang
from engine.pieces import GRID_5X4, GRID_5X5, Edition, Side
from engine.variants import Variants

WORDS = [f"W{i:02d}" for i in range(80)]
RUNS = settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
MAX_ACTIONS = 400


def competitive_action(game: CompetitiveGame, rng: random.Random) -> None:
    phase = game.state.phase
    if phase is Phase.SIMULATED_TURN:
        game.simulated_cover(rng.choice(game.simulated_choices()))
    elif phase is Phase.CLUE:
        if game.penalty_choices() and rng.random() < 0.5:
            game.penalty_cover(rng.choice(game.penalty_choices()))
        elif rng.random() < 0.05:
            game.reject_clue("bad", "visible_word")
        else:
            game.give_clue("clue", rng.choice([None, 0, 1, 2, 3, 9]))
    else:
        roll = rng.random()
        if roll < 0.1 and game.state.guesses_this_turn:
            game.end_turn()
        elif roll < 0.13:
            game.timer_expired()
        elif roll < 0.16 and game.last_undoable is not None:
            game.undo()
        else:
            game.guess(rng.choice(game.visible_cards()))


def duet_action(game: DuetGame, rng: random.Random) -> None:
    phase = game.state.phase
    if phase is Phase.CLUE:
        giver = rng.choice(game.next_givers())
        if rng.random() < 0.05:
            game.reject_clue("bad", "visible_word", number=1, by=giver)
        else:
            game.give_clue("clue", rng.choice([None, 0, 1, 2, 3, 12]), by=giver)
    elif phase is Phase.SUDDEN_DEATH:
        guesser = rng.choice([side for side in Side if game.has_words_to_find(side)])
        judge = guesser.other
        options = [
            c
            for i, c in enumerate(game.board.cards)
            if not game.is_covered(i) and judge not in game.state.marks.get(i, set())
        ]
        game.guess(rng.choice(options), by=guesser)
    else:
        roll = rng.random()
        if roll < 0.15 and game.state.guesses_this_turn:
            game.end_turn()
        elif roll < 0.18 and game.last_undoable is not None:
            game.undo()
        else:
            assert game.guesser is not None
            judge = game.guesser.other
            options = [
                c
                for i, c in enumerate(game.board.cards)
                if not game.is_covered(i) and judge not in game.state.marks.get(i, set())
            ]
            game.guess(rng.choice(options))


def check_invariants(game: AnyGame, covered_before: dict[int, object], undone: bool) -> dict[int, object]:
    if isinstance(game, CompetitiveGame):
        tally = Counter(game.state.revealed.values())
        assert all(tally[identity] <= Counter(game.board.key)[identity] for identity in tally)
        assert game.agents_left(game.team) >= 0 and game.agents_left(game.team.other) >= 0
        covered: dict[int, object] = dict(game.state.revealed)
    else:
        assert game.state.tokens_left >= 0 and 0 <= game.state.mistakes_left <= game.state.tokens_left
        assert len(game.state.greens) <= 15
        covered = {i: "covered" for i in range(25) if game.is_covered(i)}
    if not undone:  # a covered card never changes, except when a guess is taken back
        assert all(covered.get(i) == value for i, value in covered_before.items())
    return covered


def play_random(board: Board, variants: Variants, seed: int) -> AnyGame:
    rng = random.Random(seed)
    game = new_game(board, variants)
    covered: dict[int, object] = {}
    for _ in range(MAX_ACTIONS):
        if game.over:
            break
        before = len(game.events)
        try:
            if isinstance(game, CompetitiveGame):
                competitive_action(game, rng)
            else:
                duet_action(game, rng)
        except GameError as error:  # the driver only makes legal moves
            raise AssertionError(f"legal move refused: {error}") from error
        new = game.events[before:]
        covered = check_invariants(game, covered, any(e.type is EventType.UNDO for e in new))
    assert game.over, "every game ends"
    outcomes = [e for e in game.events if e.type is EventType.GAME_OVER]
    assert len(outcomes) == 1 and outcomes[0] is game.events[-1]
    assert [e.seq for e in game.events] == list(range(1, len(game.events) + 1))
    rebuilt = replay(game.board, [type(e).from_dict(e.to_dict()) for e in game.events])
    assert rebuilt.state == game.state
    return game


variant_sets = st.builds(
    Variants,
    assassin_ending=st.booleans(),
    coop=st.booleans(),
    invalid_clue_penalty=st.booleans(),
    timer_ends_turn=st.booleans(),
)


@RUNS
@given(seed=st.integers(0, 2**32), variants=variant_sets)
def test_random_classic_games(seed: int, variants: Variants) -> None:
    board = deal_competitive(WORDS, Lang.PT_BR, random.Random(seed), grid=GRID_5X5)
    play_random(board, variants, seed)


@RUNS
@given(seed=st.integers(0, 2**32), variants=variant_sets, words_on_pictures=st.booleans())
def test_random_pictures_games(seed: int, variants: Variants, words_on_pictures: bool) -> None:
    grid = GRID_5X5 if words_on_pictures else GRID_5X4
    board = deal_competitive(WORDS, Lang.EN, random.Random(seed), edition=Edition.PICTURES, grid=grid)
    play_random(board, variants, seed)


@RUNS
@given(
    seed=st.integers(0, 2**32),
    tokens=st.sampled_from([9, 10, 11]),
    relaxed=st.booleans(),
    penalty=st.booleans(),
    mission=st.sampled_from([None, "praga", "cairo", "vaticano", "paris", "singapura", "cidade_do_cabo"]),
)
def test_random_duet_games(seed: int, tokens: int, relaxed: bool, penalty: bool, mission: str | None) -> None:
    board = deal_duet(WORDS, Lang.IT, random.Random(seed))
    variants = Variants(
        duet_tokens=tokens if mission is None else 9,
        duet_relaxed_order=relaxed,
        invalid_clue_penalty=penalty,
        mission=mission,
    )
    game = play_random(board, variants, seed)
    assert isinstance(game, DuetGame)
    assert game.state.phase is Phase.OVER
