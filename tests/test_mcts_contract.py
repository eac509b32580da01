"""MCTS, Gumbel search and random playouts on the game contract (tests/tug.py: returns of ±2 and
twofold, threefold and superko repetition rules), against the plain minimax reference over the `State`
API, which applies the rules through `HistoryState`."""

from __future__ import annotations

import numpy as np
import pytest
from test_contract import random_positions  # positions after random histories
from tug import CASH, LEFT, RIGHT, Tug, TugEvaluator

import rlgames
from rlgames.evaluators import Evaluator
from rlgames.evaluators.rollout import RolloutEvaluator
from rlgames.game import IllegalActionError
from rlgames.jit.rng import below, new_rng_state
from rlgames.playout import run_random_playouts
from rlgames.search.mcts.config import GumbelConfig, MCTSConfig
from rlgames.search.mcts.gumbel import Gumbel, MultiTreeGumbel
from rlgames.search.mcts.puct import MCTS, MultiTreeMCTS
from rlgames.search.mcts.tree import SOLVED, SOLVED_VALUE
from rlgames.search.reference import minimax

RULES = ("twofold", "threefold", "superko")
TUG_VALUE = TugEvaluator()


def each_choice(first: tuple[str, ...], second: tuple[str, ...], default: set[tuple[str, str]]) -> list:
    """The pairs of ``first`` x ``second`` as parameters, those not in ``default`` marked slow: the default
    suite names every choice of each at least once, and the whole product runs under ``-m slow``. Each
    leaf evaluator and each rule (superko a compile-time flag of the tree operations) is a search
    compiled of its own, so the product costs the suite its compile time."""
    assert {a for a, _ in default} == set(first) and {b for _, b in default} == set(second)
    return [pytest.param(a, b, marks=() if (a, b) in default else pytest.mark.slow) for a in first for b in second]


class PythonTug(Evaluator):
    """`TugEvaluator`'s values without a kernel (batched evaluation), and priors on every action, the
    ones that repeat a position the rules forbid included: the search must drop them."""

    def value(self, state) -> float:
        return TUG_VALUE.value(state)

    def policy(self, state) -> np.ndarray:
        return np.array([0.2, 0.3, 0.5])


def action_value(state: rlgames.State, action: int) -> float:
    """The minimax value of ``action`` for the side to move in ``state``."""
    player, child = state.current_player(), state.apply(action)
    if child.is_terminal():
        return state.game.info.value(child.returns()[player])
    value = minimax(child).value
    return value if child.current_player() == player else -value


def check_legal_result(result, state: rlgames.State) -> None:
    """Policy and line over legal moves only (repetition rules included), values in [-1, 1]."""
    legal = state.legal_actions()
    assert result.policy.sum() == pytest.approx(1.0)
    assert np.all(result.policy[np.setdiff1d(np.arange(state.game.num_actions), legal)] == 0)
    assert result.action in legal
    assert -1.0 <= result.value <= 1.0
    line = state
    for action in result.principal_variation:
        assert not line.is_terminal() and action in line.legal_actions()
        line = line.apply(action)


# --- the MCTS-solver against minimax ------------------------------------------------------------------
SOLVERS = {  # UCB1 with each way of valuing leaves: compiled rollouts, a compiled kernel, batches
    "rollouts": (MCTSConfig(simulations=200_000), None),
    "kernel": (MCTSConfig(simulations=200_000), TUG_VALUE),
    "batched": (MCTSConfig(simulations=200_000, batch_size=4), PythonTug()),
}


def check_proof(result, state: rlgames.State) -> None:
    """The proven value is minimax's, the move keeps it, and a proven win or loss is played out."""
    expected = minimax(state).value
    assert result.value == expected, state
    assert action_value(state, result.action) == expected, state
    check_legal_result(result, state)
    assert (result.plies_to_end is not None) == (abs(expected) == 1.0)
    if result.plies_to_end is not None:
        line = state
        for action in result.principal_variation:
            line = line.apply(action)
        assert line.is_terminal() and len(result.principal_variation) == result.plies_to_end


@pytest.mark.parametrize("size", [2, 3])
@pytest.mark.parametrize(
    "search, rule",
    each_choice(tuple(SOLVERS), RULES, {("rollouts", "superko"), ("kernel", "threefold"), ("batched", "twofold")}),
)
def test_solver_proves_the_minimax_value(search, rule, size):
    game = Tug(size=size, rule=rule)
    config, evaluator = SOLVERS[search]
    mcts = MCTS(config, evaluator, seed=size)
    for state in random_positions(game, 12, seed=RULES.index(rule) + 10 * size):
        result = mcts.search(state)
        assert mcts._trees._tree.nodes[0, 0, SOLVED] == 1, state
        assert result.stats.nodes < config.simulations
        check_proof(result, state)


@pytest.mark.parametrize(
    "rule",
    [pytest.param("twofold", marks=pytest.mark.slow), "threefold", pytest.param("superko", marks=pytest.mark.slow)],
)
def test_puct_solver_proves_only_minimax_values(rule):
    # PUCT scores a solved child by its value alone, so that a solved draw can take most visits and
    # leave a proof unfinished (threefold repetitions): whatever it proves must still be exact.
    game = Tug(size=3, rule=rule)
    mcts = MCTS(MCTSConfig(simulations=20_000, selection="puct"), TUG_VALUE, seed=0)
    for state in random_positions(game, 12, seed=3):
        result = mcts.search(state)
        if mcts._trees._tree.nodes[0, 0, SOLVED]:
            check_proof(result, state)
        else:
            check_legal_result(result, state)


def test_only_the_largest_win_solves_a_node_at_once():
    game = Tug(size=2, rule="twofold")
    # Player 1 to move at -1: cashing in wins 1 point (0.5), stepping right repeats the start (a draw),
    # stepping left is open. Four simulations (the root, then each child once) solve the first two
    # children, and a 1-point win is not the best possible: the root stays open.
    state = game.state_from_actions([LEFT])
    mcts = MCTS(MCTSConfig(simulations=4), seed=0)
    result = mcts.search(state)
    tree = mcts._trees._tree
    assert tree.nodes[0, 1:4, SOLVED].tolist() == [0, 1, 1]  # LEFT, RIGHT, CASH
    assert tree.stats[0, 2:4, SOLVED_VALUE].tolist() == [0.0, 0.5]
    assert tree.nodes[0, 0, SOLVED] == 0 and result.plies_to_end is None
    assert MCTS(MCTSConfig(simulations=10_000), seed=0).search(state).value == minimax(state).value == 0.5
    # Player 0 to move at 2: stepping home wins 2 points (1.0), which solves the root at once.
    home = game.state_from_actions([RIGHT, RIGHT])
    result = MCTS(MCTSConfig(simulations=4), seed=0).search(home)
    assert result.value == 1.0 and result.action == RIGHT and result.plies_to_end == 1
    assert result.stats.nodes == 3


# --- legal moves only ----------------------------------------------------------------------------------
@pytest.mark.parametrize(  # the batched search sees priors on the moves superko forbids; a kernel's are the legal
    "search", ["rollouts", pytest.param("kernel", marks=pytest.mark.slow), "batched"]
)
def test_mcts_never_plays_a_superko_illegal_move(search):
    game = Tug(size=3, rule="superko")
    evaluator = {"rollouts": None, "kernel": TUG_VALUE, "batched": PythonTug()}[search]
    config = MCTSConfig(
        simulations=300,
        solver=False,
        selection="uct" if evaluator is None else "puct",
        batch_size=4 if search == "batched" else 1,
        temperature=1.0,
    )
    mcts = MCTS(config, evaluator, seed=1)
    states = random_positions(game, 30, seed=4)
    assert any(len(s.legal_actions()) < 3 for s in states)  # positions with an illegal move
    for state in states:
        check_legal_result(mcts.search(state), state)


def test_tree_reuse_keeps_the_history():
    game = Tug(size=3, rule="superko")
    mcts = MCTS(MCTSConfig(simulations=400, solver=False), seed=2)
    state = game.new_initial_state()
    mcts.search(state)
    mcts.advance(LEFT)
    state = state.apply(LEFT)  # stepping back right would repeat the start
    assert state.legal_actions() == [LEFT, CASH]
    result = mcts.search(state)
    assert result.stats.extra["reused_visits"] > 0
    check_legal_result(result, state)
    with pytest.raises(IllegalActionError, match="repeats"):
        mcts.advance(RIGHT)
    mcts.advance(LEFT)
    state = state.apply(LEFT)
    assert mcts.search(state).stats.extra["reused_visits"] > 0


def test_the_same_position_with_another_history_starts_a_fresh_tree():
    game = Tug(rule="threefold")
    trees = MultiTreeMCTS(MCTSConfig(simulations=200, solver=False), seed=0)
    start = game.new_initial_state()
    trees.search_many([start])
    again = game.state_from_actions([RIGHT, LEFT])  # the start position, seen once before
    assert again.compact == start.compact
    assert trees.search_many([again])[0].stats.extra["reused_visits"] == 0
    assert trees.search_many([again])[0].stats.extra["reused_visits"] == 200


@pytest.mark.parametrize(
    "leaves, rule",
    each_choice(
        ("compiled", "batched"), RULES, {("compiled", "twofold"), ("compiled", "threefold"), ("batched", "superko")}
    ),
)
def test_gumbel_searches_legal_moves_only(leaves, rule):
    game = Tug(size=3, rule=rule)
    states = random_positions(game, 20, seed=7)
    evaluator = TUG_VALUE if leaves == "compiled" else PythonTug()
    for state, result in zip(
        states, MultiTreeGumbel(GumbelConfig(simulations=32), evaluator, seed=0).search_many(states)
    ):
        check_legal_result(result, state)
        assert -1.0 <= result.stats.extra["root_mean"] <= 1.0
    result = Gumbel(GumbelConfig(simulations=16, gumbel_scale=0.0), evaluator, seed=0).search(states[0])
    check_legal_result(result, states[0])


# --- values in [-1, 1] -------------------------------------------------------------------------------------
def test_values_are_returns_over_the_largest_return():
    game = Tug(size=2, rule="twofold")
    home = game.state_from_actions([RIGHT, RIGHT])  # player 0 steps home for 2 points: value 1
    for evaluator in (None, TUG_VALUE, PythonTug()):
        result = MCTS(MCTSConfig(simulations=5000, solver=False), evaluator, seed=0).search(home)
        assert result.action == RIGHT and 0.9 < result.value <= 1.0
    result = Gumbel(GumbelConfig(simulations=32), TUG_VALUE, seed=0).search(home)
    assert result.action == RIGHT and 0.9 < result.value <= 1.0 and 0.0 < result.stats.extra["root_mean"] <= 1.0
    evaluator = RolloutEvaluator(game, rollouts=400, seed=0)
    for value in (evaluator.value(home), evaluator.kernel(home.compact)):
        assert 0.2 < value < 0.8  # 2-point and 1-point wins and draws, halved
    returns = run_random_playouts(game, 500, seed=0).returns
    assert set(returns.tolist()) == {-2, -1, 0, 1, 2}


# --- playouts keep a key stack -------------------------------------------------------------------------------
def replay(state: rlgames.State, rng_state: np.ndarray) -> tuple[rlgames.State, int]:
    """The history playout through the `State` API: a move into a forbidden repetition is redrawn
    among the remaining ones (swapped with the last), drawn repetitions end the game."""
    plies = 0
    while not state.is_terminal():
        actions = [LEFT, RIGHT, CASH]
        while True:
            i = below(rng_state, len(actions))
            try:
                child = state.apply(actions[i])
                break
            except IllegalActionError:
                actions[i] = actions[-1]
                actions.pop()
        state, plies = child, plies + 1
    return state, plies


@pytest.mark.parametrize("rule", RULES)
def test_playouts_follow_the_repetition_rule_from_the_history(rule):
    game = Tug(size=3, rule=rule)
    for seed, state in enumerate(random_positions(game, 20, seed=5)):
        stats = run_random_playouts(game, 1, new_rng_state(seed), state.compact, state.history())
        end, plies = replay(state, new_rng_state(seed))
        assert stats.returns[0] == end.compact[1] and stats.lengths[0] == plies
