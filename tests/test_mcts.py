"""Monte Carlo tree search: the UCB1 formula, convergence to the exact solvers' moves, the MCTS-solver,
chance nodes, batched and multi-tree evaluation, tree reuse and reproducibility."""

from __future__ import annotations

import math
import time

import numpy as np
import pytest
from numba import njit

import rlgames
from rlgames.evaluators import Evaluator
from rlgames.games.tic_tac_toe.evaluator import OpenLinesEvaluator
from rlgames.jit.rng import new_rng_state
from rlgames.playout import make_buffered_playout
from rlgames.search.mcts.config import MCTSConfig
from rlgames.search.mcts.ops import make_tree_ops
from rlgames.search.mcts.puct import MCTS, MultiTreeMCTS, visit_policy
from rlgames.search.mcts.room import TreeRoom, grown_bytes
from rlgames.search.mcts.run import make_rollout_value, make_run
from rlgames.search.mcts.selection import ucb1
from rlgames.search.mcts.tree import (
    ACTION,
    COUNT,
    FIRST,
    PARENT,
    PRIOR,
    READY,
    SIZE,
    VALUE,
    VISITS,
    new_tree,
    reset_root,
)
from rlgames.solvers import solve

TTT = rlgames.load_game("tic_tac_toe")
PIG = rlgames.load_game("pig", winscore=20)
UNIQUE_MOVE = [[0, 3, 1, 4], [0, 4, 8, 2], [4, 0, 2], [1, 4, 2], [0, 4, 1], [0, 4, 2]]
"""Tic-tac-toe positions (actions from the start) with one value-preserving move: a win or a block."""
WON = [[0, 3, 1, 4], [0, 4, 8, 2], [0, 1, 4, 2]]
LOST = [[0, 3, 1], [4, 1, 0], [0, 1, 3]]
OPEN_LINES = OpenLinesEvaluator()


class PythonOpenLines(Evaluator):
    """The open-lines values computed by the same compiled kernel, but without a kernel of its own: MCTS
    must evaluate it in batches from Python. It has no policy (uniform priors)."""

    def value(self, state) -> float:
        return float(OPEN_LINES.kernel(state.compact))


def ttt(actions: list[int]):
    return TTT.state_from_actions(actions)


def check_policy(result, state) -> None:
    assert result.policy.sum() == pytest.approx(1.0)
    assert np.all(result.policy >= 0)
    assert np.all(result.policy[state.legal_action_mask() == 0] == 0)
    assert result.action in state.legal_actions()
    assert -1.0 <= result.value <= 1.0


# --- the selection formula --------------------------------------------------------------------------
def test_ucb1_matches_the_notes_worked_example():
    # U(A) = 60, N(A) = 79; U(B) = 1, N(B) = 10; U(C) = 2, N(C) = 11; N(parent) = 100; C = 1.4
    assert ucb1(60.0, 79.0, 100.0, 1.4) == pytest.approx(1.098, abs=5e-4)
    assert ucb1(1.0, 10.0, 100.0, 1.4) == pytest.approx(1.05, abs=5e-3)
    assert ucb1(2.0, 11.0, 100.0, 1.4) == pytest.approx(1.088, abs=5e-4)


def notes_tree(c: float) -> tuple[int, list[int]]:
    """The notes' example as a compiled tree: a root visited 100 times whose children A, B, C have
    utilities 60, 1, 2 over 79, 10, 11 visits; returns the selected leaf and the children's indices."""
    tree = new_tree(1, 16, 4, TTT.kernels.max_actions)
    reset_root(tree, 0, TTT.new_initial_state().compact)
    tree.nodes[0, 0, FIRST], tree.nodes[0, 0, COUNT], tree.nodes[0, 0, VISITS] = 1, 3, 100
    for child, (action, utility, visits) in enumerate([(0, 60, 79), (4, 1, 10), (8, 2, 11)], start=1):
        tree.nodes[0, child, ACTION], tree.nodes[0, child, VISITS] = action, visits
        tree.nodes[0, child, FIRST] = -1
        tree.stats[0, child, VALUE] = utility
    tree.meta[0, SIZE] = 4
    params = MCTSConfig(uct_c=c).params()
    leaf = make_tree_ops(TTT.kernels, 4).select(tree, 0, params, new_rng_state(0))
    assert tree.nodes[0, leaf, READY] == 1  # the child's state was computed on the way down
    return leaf, [1, 2, 3]


def test_select_follows_ucb1_in_the_notes_example():
    leaf, (a, _, c) = notes_tree(1.4)
    assert leaf == a  # UCB1: A 1.098 > C 1.088 > B 1.05
    leaf, (_, _, c) = notes_tree(1.5)
    assert leaf == c  # more exploration: A 1.121, B 1.118, C 1.152


def test_visit_policy_temperature():
    visits = np.array([1.0, 3.0, 0.0, 4.0])
    assert visit_policy(visits, 0).tolist() == [0, 0, 0, 1]
    assert visit_policy(visits, 1) == pytest.approx(visits / 8)
    assert visit_policy(visits, 0.5) == pytest.approx(visits**2 / 26)
    assert visit_policy(np.array([1e6, 2e6]), 0.01).sum() == pytest.approx(1.0)  # no overflow


def test_config_rejects_bad_knobs():
    with pytest.raises(ValueError):
        MCTSConfig(simulations=0)
    with pytest.raises(ValueError):
        MCTSConfig(selection="ucb")
    with pytest.raises(ValueError):
        MCTSConfig(dirichlet_epsilon=1.5)


# --- UCT with random rollouts -----------------------------------------------------------------------
@pytest.mark.parametrize("actions", UNIQUE_MOVE)
@pytest.mark.parametrize("solver", [False, True])
def test_uct_finds_the_only_good_move(actions, solver):
    state = ttt(actions)
    (best,) = solve(state).value_preserving_actions
    result = MCTS(MCTSConfig(simulations=2000, solver=solver), seed=1).search(state)
    assert result.action == best
    assert result.principal_variation[0] == best
    check_policy(result, state)


@pytest.mark.parametrize("actions", WON + LOST)
def test_root_value_sign_agrees_with_the_solver(actions):
    state = ttt(actions)
    expected = solve(state).value
    result = MCTS(MCTSConfig(simulations=3000, solver=False), seed=2).search(state)
    assert np.sign(result.value) == expected
    assert result.plies_to_end is None


@pytest.mark.parametrize("actions", WON + LOST)
def test_solver_proves_wins_and_losses(actions):
    state = ttt(actions)
    solution = solve(state)
    result = MCTS(MCTSConfig(simulations=20_000), seed=3).search(state)
    assert result.value == solution.value
    assert result.plies_to_end is not None and result.plies_to_end >= solution.plies_to_end
    assert result.stats.nodes < 20_000  # the proven root ended the search
    if solution.value == 1:
        assert result.action in solution.value_preserving_actions
    line = state
    for action in result.principal_variation:
        line = line.apply(action)
    assert line.is_terminal()


def test_solver_proves_a_win_in_one_and_plays_it():
    state = ttt([0, 1, 4, 2])  # x wins at once on 8 (and later on 3, 5, 6)
    result = MCTS(MCTSConfig(simulations=2000), seed=4).search(state)
    assert result.value == 1.0
    assert result.action in solve(state).value_preserving_actions


def test_search_is_reproducible_from_a_seed():
    state = ttt([4])
    config = MCTSConfig(simulations=500, temperature=1.0)
    first, second = MCTS(config, seed=7), MCTS(config, seed=7)
    a, b = first.search(state), second.search(state)
    assert np.array_equal(a.policy, b.policy) and a.action == b.action and a.value == b.value
    first.seed(7)
    first.reset()
    c = first.search(state)
    assert np.array_equal(a.policy, c.policy)
    assert not np.array_equal(a.policy, MCTS(config, seed=8).search(state).policy)


def test_tree_reuse_keeps_the_chosen_subtree():
    config = MCTSConfig(simulations=1000, solver=False)
    mcts = MCTS(config, seed=5)
    state = TTT.new_initial_state()
    result = mcts.search(state)
    kept = mcts.root_visit_counts()[result.action]
    assert kept > 0
    mcts.advance(result.action)
    state = state.apply(result.action)
    after = mcts.search(state)
    assert after.stats.extra["reused_visits"] == kept
    assert after.stats.extra["root_visits"] == kept + config.simulations
    reply = after.action
    grandchild_visits = mcts.root_visit_counts()[reply]
    mcts.advance(reply)
    assert mcts.search(state.apply(reply)).stats.extra["reused_visits"] == grandchild_visits


def subtree(tree, node: int, path: tuple[int, ...] = ()) -> dict:
    """``{actions from node: (visits, value sum, compact state or None)}`` of tree 0's subtree."""
    nodes = tree.nodes[0]
    ready = nodes[node, READY] != 0
    found = {
        path: (
            int(nodes[node, VISITS]),
            float(tree.stats[0, node, VALUE]),
            tuple(tree.states[0, node]) if ready else None,
        )
    }
    first = nodes[node, FIRST]
    for child in range(first, first + nodes[node, COUNT]) if first >= 0 else ():
        found |= subtree(tree, child, path + (int(nodes[child, ACTION]),))
    return found


def test_advance_keeps_exactly_the_subtree_of_the_move():
    game = rlgames.load_game("connect_four")
    trees = MultiTreeMCTS(MCTSConfig(simulations=5000, solver=False), seed=3)
    state = game.new_initial_state()
    for _ in range(2):
        action = trees.search_many([state])[0].action
        tree = trees._tree
        child = next(
            c
            for c in range(tree.nodes[0, 0, FIRST], tree.nodes[0, 0, FIRST] + tree.nodes[0, 0, COUNT])
            if tree.nodes[0, c, ACTION] == action
        )
        kept = subtree(tree, child)
        trees.advance(0, action)
        state = state.apply(action)
        tree = trees._tree
        assert subtree(tree, 0) == kept and tree.meta[0, SIZE] == len(kept) > 1000
        nodes = tree.nodes[0, : len(kept)]
        assert nodes[0, PARENT] == -1 and nodes[0, ACTION] == -1
        for i in range(1, len(kept)):  # every node is among its parent's children
            parent = nodes[i, PARENT]
            assert nodes[parent, FIRST] <= i < nodes[parent, FIRST] + nodes[parent, COUNT]


def test_a_full_tree_simulates_on_without_expanding_leaves():
    """A timed search that has no time left to grow its tree goes on scoring leaves where they are."""
    game = rlgames.load_game("connect_four")
    kernels, compact = game.kernels, game.initial_compact_state()
    tree = new_tree(1, 200, len(compact), kernels.max_actions)
    reset_root(tree, 0, compact)
    run = make_run(kernels, len(compact), make_rollout_value(make_buffered_playout(kernels), kernels.max_return))
    params, rng = MCTSConfig(solver=False).params(), new_rng_state(0)
    expanded = run(tree, 0, params, rng, 10**6, True)  # stops once fewer than a simulation's nodes are free
    size = int(tree.meta[0, SIZE])
    assert 0 < expanded < 200 and size + 3 * kernels.max_actions > 200
    assert run(tree, 0, params, rng, 500, False) == 500
    assert tree.meta[0, SIZE] == size and tree.nodes[0, 0, VISITS] == expanded + 500


def test_search_from_another_state_starts_afresh():
    mcts = MCTS(MCTSConfig(simulations=300, solver=False), seed=6)
    mcts.search(TTT.new_initial_state())
    result = mcts.search(ttt([0, 4]))
    assert result.stats.extra["reused_visits"] == 0
    assert result.stats.extra["root_visits"] == 300
    with pytest.raises(rlgames.IllegalActionError):
        mcts.advance(0)  # occupied


def test_rejects_terminal_and_chance_roots():
    mcts = MCTS(MCTSConfig(simulations=10), seed=0)
    with pytest.raises(ValueError):
        mcts.search(ttt([0, 3, 1, 4, 2]))
    with pytest.raises(ValueError):
        mcts.search(PIG.new_initial_state().apply(0))


# --- chance nodes -----------------------------------------------------------------------------------
def pig_state(score0: int, score1: int, turn_total: int):
    """Player 0 to move in pig to 20 points."""
    return PIG.state_at(score0, score1, turn_total, decisions=10)


def test_pig_rolls_when_one_more_roll_wins():
    # 15 banked + 4 this turn: any face but a 1 takes the total past 20 (then the only move, stop, wins);
    # stopping at 19 hands the turn to an opponent on 19 who wins with 5 rolls in 6.
    state = pig_state(15, 19, 4)
    result = MCTS(MCTSConfig(simulations=3000), seed=0).search(state)
    assert result.action == 0  # roll
    assert result.value > 0.3
    check_policy(result, state)


def test_pig_from_the_start_with_rollouts_and_tree_reuse():
    mcts = MCTS(MCTSConfig(simulations=300), seed=1)
    state = PIG.new_initial_state()
    for _ in range(6):  # through chance nodes: advance along the decision and the die
        if state.is_chance_node():
            outcome = 3  # a 4
            state = state.apply(outcome)
            mcts.advance(outcome)
            continue
        result = mcts.search(state)
        check_policy(result, state)
        assert result.stats.depth >= 2
        mcts.advance(result.action)
        state = state.apply(result.action)


class PigHeuristic(Evaluator):
    """A Python-only pig evaluator: the banked lead of the side to move, scaled."""

    def value(self, state) -> float:
        s = state.compact
        me = s[5]
        return (s[2 + me] + s[4] - s[3 - me]) / 20.0


def test_pig_batched_with_a_python_evaluator():
    state = pig_state(15, 19, 4)
    config = MCTSConfig(simulations=2000, selection="puct", batch_size=4)
    result = MCTS(config, PigHeuristic(), seed=2).search(state)
    assert result.action == 0
    check_policy(result, state)
    assert result.stats.extra["batches"] < 2000


# --- evaluators, batches and many trees --------------------------------------------------------------
@pytest.mark.parametrize("selection", ["uct", "puct"])
def test_batch_of_one_equals_the_compiled_path(selection):
    config = MCTSConfig(simulations=600, selection=selection, solver=False)
    for actions in [[], [4], [0, 4, 8]]:
        state = ttt(actions)
        compiled = MCTS(config, OPEN_LINES, seed=0).search(state)
        batched = MCTS(config, PythonOpenLines(), seed=0).search(state)
        assert np.array_equal(compiled.policy, batched.policy)
        assert compiled.value == batched.value
        assert compiled.principal_variation == batched.principal_variation
        assert batched.stats.nodes == compiled.stats.nodes == 600
        assert batched.stats.extra["batches"] <= 600  # a batch of terminal leaves needs no evaluator


@pytest.mark.parametrize("actions", UNIQUE_MOVE)
def test_virtual_loss_batches_find_the_only_good_move(actions):
    state = ttt(actions)
    (best,) = solve(state).value_preserving_actions
    config = MCTSConfig(simulations=1000, selection="puct", batch_size=8, solver=False)
    result = MCTS(config, PythonOpenLines(), seed=0).search(state)
    assert result.action == best
    assert result.stats.nodes == 1000
    assert result.stats.extra["batches"] < 1000 / 4  # most batches were (nearly) full
    check_policy(result, state)


class CountingOpenLines(PythonOpenLines):
    """`PythonOpenLines` counting the positions sent to it."""

    def __init__(self) -> None:
        self.positions = 0

    def evaluate_batch(self, states):
        self.positions += len(states)
        return super().evaluate_batch(states)


@pytest.mark.parametrize("threshold", [1, 3, 6])
def test_expansion_threshold_sends_a_leaf_to_the_evaluator_on_its_nth_visit(threshold):
    """AlphaGo's n_thr: a non-root leaf is evaluated, and expanded, on its n-th visit, the visits before
    valued by playouts; every evaluation is one expansion, so the evaluator sees fewer positions."""
    evaluator = CountingOpenLines()
    config = MCTSConfig(simulations=500, selection="puct", batch_size=4, solver=False, expansion_threshold=threshold)
    mcts = MCTS(config, evaluator, seed=0)
    result = mcts.search(ttt([4]))
    tree = mcts._trees._tree
    visited = [n for n in range(1, int(tree.meta[0, SIZE])) if tree.nodes[0, n, VISITS] and tree.states[0, n, 0] >= 0]
    expanded = [n for n in visited if tree.nodes[0, n, FIRST] >= 0]  # non-terminal nodes, visited
    waiting = [n for n in visited if tree.nodes[0, n, FIRST] < 0]
    assert result.stats.nodes == 500 and expanded and (threshold > 1 or not waiting)
    assert all(tree.nodes[0, n, VISITS] >= threshold for n in expanded)
    assert all(tree.nodes[0, n, VISITS] < threshold for n in waiting)
    assert evaluator.positions == len(expanded) + 1  # and the root's
    if threshold > 1:
        assert waiting and evaluator.positions < 500 / threshold


@pytest.mark.parametrize("actions", UNIQUE_MOVE)
def test_an_expansion_threshold_still_finds_the_only_good_move(actions):
    state = ttt(actions)
    (best,) = solve(state).value_preserving_actions
    config = MCTSConfig(simulations=1000, selection="puct", batch_size=8, solver=False, expansion_threshold=4)
    assert MCTS(config, PythonOpenLines(), seed=0).search(state).action == best


def test_an_expansion_threshold_needs_a_batched_evaluator():
    with pytest.raises(ValueError, match="at least 1"):
        MCTSConfig(expansion_threshold=0)
    config = MCTSConfig(selection="puct", expansion_threshold=2)
    for evaluator in (None, OPEN_LINES):  # rollouts alone, or an evaluator valued in compiled code
        with pytest.raises(ValueError, match="expansion_threshold needs an evaluator without a compiled kernel"):
            MCTS(config, evaluator, seed=0)
    with pytest.raises(ValueError, match="rollout replaces the evaluator"):
        MCTS(MCTSConfig(selection="puct"), PythonOpenLines(), seed=0, rollout=no_rollout)
    assert MCTS(config, PythonOpenLines(), seed=0, rollout=no_rollout).search(ttt([4])).stats.nodes == 800


def test_search_many_equals_one_search_per_state():
    states = [ttt(actions) for actions in UNIQUE_MOVE]
    config = MCTSConfig(simulations=400, selection="puct", solver=False)
    together = MultiTreeMCTS(config, PythonOpenLines(), seed=0).search_many(states)
    for state, result in zip(states, together):
        alone = MCTS(config, PythonOpenLines(), seed=0).search(state)
        assert np.array_equal(result.policy, alone.policy)
        assert result.value == alone.value
    assert together[0].stats.extra["batches"] <= 400  # one batch holds a leaf of every tree


def test_search_many_with_batches_and_reuse():
    states = [ttt(actions) for actions in UNIQUE_MOVE]
    config = MCTSConfig(simulations=1000, selection="puct", batch_size=4)
    trees = MultiTreeMCTS(config, PythonOpenLines(), seed=0)
    results = trees.search_many(states)
    for state, result in zip(states, results):
        assert result.action == solve(state).value_preserving_actions[0]
        check_policy(result, state)
    trees.advance(2, results[2].action)
    kept = int(trees.root_visit_counts(2).sum())
    states[2] = states[2].apply(results[2].action)
    again = trees.search_many(states)
    assert again[2].stats.extra["reused_visits"] >= kept
    check_policy(again[2], states[2])


def test_root_noise_is_reproducible_and_restores_the_priors():
    state = ttt([4])
    plain = MCTSConfig(simulations=300, selection="puct", solver=False)
    noisy = MCTSConfig(simulations=300, selection="puct", solver=False, root_noise=True, dirichlet_alpha=0.3)
    base = MCTS(plain, OPEN_LINES, seed=0).search(state)
    silent = MCTSConfig(simulations=300, selection="puct", solver=False, root_noise=True, dirichlet_epsilon=0.0)
    assert np.array_equal(MCTS(silent, OPEN_LINES, seed=0).search(state).policy, base.policy)
    a = MCTS(noisy, OPEN_LINES, seed=1).search(state)
    assert np.array_equal(a.policy, MCTS(noisy, OPEN_LINES, seed=1).search(state).policy)
    assert not np.array_equal(a.policy, base.policy)
    mcts = MCTS(noisy, OPEN_LINES, seed=1)
    mcts.search(state)
    priors = mcts._trees._tree.stats[0, 1:9, PRIOR]
    assert priors == pytest.approx(np.full(8, 1 / 8))


def test_a_growth_is_planned_by_the_bytes_of_the_new_arrays():
    """Growing to many times the capacity (go's wide expansions) takes as long as the new arrays' bytes: a
    plan by the old arrays' had a 0.1 s search spend 0.5 s growing its tree."""
    tree = new_tree(1, 1024, 15, 82)
    old = tree.nodes.nbytes + tree.stats.nbytes + tree.states.nbytes
    assert grown_bytes(tree, 8192) == 8 * old
    room = TreeRoom(reserve=100)
    room._seconds_per_byte = 1e-6  # slow memory, so that the plan decides, not the clock
    deadline = time.perf_counter() + 3 * old * 1e-6  # time for three times the old bytes
    assert room.for_simulations(tree, 80, deadline) is None  # 8,000 nodes: nearly eight times as many bytes
    grown = room.for_simulations(tree, 15, deadline)  # 1,500 nodes: a doubling
    assert grown is not None and grown.nodes.shape[1] == 2048


def test_time_limit_stops_the_search():
    config = MCTSConfig(simulations=10**7, time_limit=0.05, solver=False)
    result = MCTS(config, seed=0).search(TTT.new_initial_state())
    assert result.stats.nodes < 10**7
    assert result.stats.time_s < 1.0
    assert result.stats.extra["simulations_per_second"] > 0
    assert math.isfinite(result.value)


@njit
def no_rollout(s, rng_state, actions, probs, moves=None):
    """A pluggable 'playout' that stops at once: every non-terminal leaf scores 0."""
    return s, 0


def test_pluggable_rollout_and_several_rollouts_per_leaf():
    state = TTT.new_initial_state()
    flat = MCTS(MCTSConfig(simulations=50, solver=False), seed=0, rollout=no_rollout).search(state)
    assert flat.value == 0.0  # no terminal position within reach of 50 simulations
    averaged = MCTS(MCTSConfig(simulations=200, rollouts=8), seed=0).search(state)
    check_policy(averaged, state)
    assert averaged.value not in (-1.0, 0.0, 1.0)
