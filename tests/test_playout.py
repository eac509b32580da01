"""Compiled random playouts: terminal results, determinism, agreement with the Python API, and the exact
outcome distribution of random tic-tac-toe."""

from __future__ import annotations

import functools
import math
import random
from fractions import Fraction

import numpy as np
import pytest
from numba import njit

import rlgames
from rlgames import TERMINAL, Game, GameKernels, State
from rlgames.jit.rng import below, new_rng_state, sample_index
from rlgames.playout import make_random_playout, run_random_playouts

VARIANTS = [(name, {}) for name in rlgames.list_games()] + [
    ("nim", {"misere": True}),
    ("pig", {"winscore": 20, "diceoutcomes": 3, "horizon": 30}),
]
"""Every game with its default parameters, and rule variants that have kernels of their own."""


def load_or_skip(name: str, **params) -> Game:
    """The game ``name``; skips the test while its module is not written."""
    try:
        return rlgames.load_game(name, **params)
    except ImportError as error:
        pytest.skip(f"{name} is not available: {error}")


def replay_with_python_api(game: Game, rng_state: np.ndarray) -> tuple[State, int]:
    """A random playout through the `State` API drawing from the same stream as the compiled one."""
    state, plies = game.new_initial_state(), 0
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            probs = np.array([p for _, p in outcomes])
            action = outcomes[sample_index(rng_state, probs, len(outcomes))][0]
        else:
            legal = state.legal_actions()
            action = legal[below(rng_state, len(legal))]
        state = state.apply(action)
        plies += 1
    return state, plies


@pytest.mark.parametrize(("name", "params"), VARIANTS)
def test_playouts_end_in_terminal_states(name, params):
    game = load_or_skip(name, **params)
    playout = make_random_playout(game.kernels)
    assert make_random_playout(game.kernels) is playout  # compiled once per process
    rng_state = new_rng_state(0)
    for _ in range(20):
        end, plies = playout(game.initial_compact_state(), rng_state)
        assert end[0] == TERMINAL
        assert end[1] in (-1, 0, 1)
        assert 1 <= plies <= game.max_game_length
    stats = run_random_playouts(game, 300, seed=1)
    assert set(stats.returns.tolist()) <= {-1, 0, 1}
    assert stats.lengths.min() >= 1 and stats.lengths.max() <= game.max_game_length


@pytest.mark.parametrize(("name", "params"), VARIANTS)
def test_compiled_playout_replays_through_the_python_api(name, params):
    """Same stream, same draws: the compiled playout and the facade reach the same terminal state
    in the same number of plies, which checks the ply count and the kernels' use of the API order."""
    game = load_or_skip(name, **params)
    if game.kernels.provides("playout"):
        pytest.skip(f"{name} plays its own playout policy, checked move by move in its own tests")
    playout = make_random_playout(game.kernels)
    for seed in range(15):
        compiled_rng, python_rng = new_rng_state(seed), new_rng_state(seed)
        end, plies = playout(game.initial_compact_state(), compiled_rng)
        state, python_plies = replay_with_python_api(game, python_rng)
        assert tuple(end) == tuple(state.compact)
        assert plies == python_plies
        assert np.array_equal(compiled_rng, python_rng)


def test_same_seed_same_results_different_seed_different():
    game = rlgames.load_game("tic_tac_toe")
    first, again, other = (run_random_playouts(game, 500, seed) for seed in (11, 11, 12))
    assert np.array_equal(first.returns, again.returns) and np.array_equal(first.lengths, again.lengths)
    assert not (np.array_equal(first.returns, other.returns) and np.array_equal(first.lengths, other.lengths))


def test_rng_state_continues_across_calls():
    game = rlgames.load_game("tic_tac_toe")
    rng_state = new_rng_state(3)
    first = run_random_playouts(game, 200, rng_state)
    second = run_random_playouts(game, 200, rng_state)
    both = run_random_playouts(game, 400, seed=3)
    assert np.array_equal(np.concatenate([first.lengths, second.lengths]), both.lengths)


def test_plies_count_the_marks_on_the_board():
    game = rlgames.load_game("tic_tac_toe")
    playout = make_random_playout(game.kernels)
    rng_state = new_rng_state(21)
    for _ in range(200):
        end, plies = playout(game.initial_compact_state(), rng_state)
        assert plies == bin(end[2] | end[3]).count("1")


def test_playouts_start_from_the_given_state():
    game = rlgames.load_game("tic_tac_toe")
    won = game.state_from_moves("a1 a2 b1 b2 c1")  # x completed the top row
    stats = run_random_playouts(game, 50, seed=0, state=won.compact)
    assert np.all(stats.lengths == 0) and np.all(stats.returns == 1)
    forced = game.state_from_moves("a1 b1 c1 b2 a3 c3 c2 a2")  # one empty cell left: b3 draws
    stats = run_random_playouts(game, 50, seed=0, state=forced.compact)
    assert np.all(stats.lengths == 1) and np.all(stats.returns == 0)


@njit
def no_legal_action(s, out) -> int:
    return 0


@njit
def unchanged(s, action):
    return s


def test_a_stuck_state_raises_instead_of_playing_garbage():
    # hash_key and observation are never called by a playout: any function stands in for them.
    kernels = GameKernels(
        legal_actions=no_legal_action,
        apply=unchanged,
        hash_key=no_legal_action,
        observation=no_legal_action,
        max_actions=4,
    )
    with pytest.raises(ValueError, match="no legal action"):
        make_random_playout(kernels)((0, 0, 0), new_rng_state(0))


@functools.cache
def exact_outcome_probabilities(state: State) -> tuple[Fraction, Fraction]:
    """``(P(player 0 wins), P(player 1 wins))`` when both sides play uniformly random legal moves."""
    if state.is_terminal():
        result = state.returns()[0]
        return Fraction(result == 1), Fraction(result == -1)
    legal = state.legal_actions()
    children = [exact_outcome_probabilities(state.apply(a)) for a in legal]
    wins, losses = (sum((child[i] for child in children), Fraction(0)) for i in (0, 1))
    return wins / len(legal), losses / len(legal)


def test_random_tic_tac_toe_matches_exact_outcome_probabilities():
    game = rlgames.load_game("tic_tac_toe")
    p_win, p_loss = exact_outcome_probabilities(game.new_initial_state())
    assert (p_win, p_loss) == (Fraction(737, 1260), Fraction(121, 420))
    exact = {1: p_win, -1: p_loss, 0: 1 - p_win - p_loss}
    n = 50_000
    returns = run_random_playouts(game, n, seed=2024).returns
    for result, p in exact.items():
        p = float(p)
        standard_error = math.sqrt(p * (1 - p) / n)
        assert abs(np.mean(returns == result) - p) < 4 * standard_error, result


def test_connect_four_lengths_agree_with_the_python_api():
    game = load_or_skip("connect_four")
    rng = random.Random(5)
    python_lengths = []
    for _ in range(1_500):
        state, plies = game.new_initial_state(), 0
        while not state.is_terminal():
            state = state.apply(rng.choice(state.legal_actions()))
            plies += 1
        python_lengths.append(plies)
    python_lengths = np.array(python_lengths, dtype=float)
    compiled_lengths = run_random_playouts(game, 20_000, seed=5).lengths.astype(float)
    standard_error = math.sqrt(
        python_lengths.var() / len(python_lengths) + compiled_lengths.var() / len(compiled_lengths)
    )
    assert abs(python_lengths.mean() - compiled_lengths.mean()) < 4 * standard_error
