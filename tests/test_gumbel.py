"""Gumbel AlphaZero search: the Sequential Halving schedule, the completed-Q transform and improved
policy, Gumbel-max sampling at one simulation, value-preserving play with a perfect evaluator, chance
nodes, compiled and batched paths, many trees and reproducibility."""

from __future__ import annotations

import numpy as np
import pytest

import rlgames
from rlgames.evaluators import Evaluator
from rlgames.evaluators.base import uniform_policy
from rlgames.games.pig.evaluator import PigEvaluator
from rlgames.games.tic_tac_toe.evaluator import OpenLinesEvaluator
from rlgames.search.mcts.config import GumbelConfig
from rlgames.search.mcts.gumbel import (
    Gumbel,
    MultiTreeGumbel,
    completed_sigma,
    halving_schedule,
)
from rlgames.search.mcts.tree import COUNT, FIRST, PRIOR, VALUE, VISITS
from rlgames.solvers import solve

TTT = rlgames.load_game("tic_tac_toe")
PIG = rlgames.load_game("pig", winscore=20)
UNIQUE_MOVE = [[0, 3, 1, 4], [0, 4, 8, 2], [4, 0, 2], [1, 4, 2], [0, 4, 1], [0, 4, 2]]
"""Tic-tac-toe positions (actions from the start) with one value-preserving move: a win or a block."""
OPEN_LINES = OpenLinesEvaluator()
PIG_LINEAR = PigEvaluator()


class PythonOpenLines(Evaluator):
    """The open-lines values without a kernel (batched path), and no policy (uniform priors)."""

    def value(self, state) -> float:
        return float(OPEN_LINES.kernel(state.compact))


class PythonPig(Evaluator):
    """`PigEvaluator`'s values without a kernel."""

    def value(self, state) -> float:
        return float(PIG_LINEAR.kernel(state.compact))


class Perfect(Evaluator):
    """The exact value of every position, uniform logits."""

    def value(self, state) -> float:
        return float(solve(state).value)

    def policy(self, state) -> np.ndarray:
        return uniform_policy(state)


class FixedPrior(Evaluator):
    """Value 0 and the prior ``weights`` renormalised over the legal actions."""

    def __init__(self, weights: np.ndarray) -> None:
        self.weights = weights

    def value(self, state) -> float:
        return 0.0

    def policy(self, state) -> np.ndarray:
        prior = self.weights * state.legal_action_mask()
        return prior / prior.sum()


def ttt(actions: list[int]):
    return TTT.state_from_actions(actions)


def pig_state(score0: int, score1: int, turn_total: int):
    """Player 0 to move in pig to 20 points."""
    return PIG.state_at(score0, score1, turn_total, decisions=10)


def positions(plies: int) -> list:
    """Every distinct non-terminal tic-tac-toe position 1 to ``plies`` plies from the start."""
    found, frontier = {}, [TTT.new_initial_state()]
    for _ in range(plies):
        children = {c.compact: c for s in frontier for c in map(s.apply, s.legal_actions()) if not c.is_terminal()}
        found.update(children)
        frontier = list(children.values())
    return list(found.values())


def check_result(result, state, simulations: int) -> None:
    assert result.policy.sum() == pytest.approx(1.0)
    assert np.all(result.policy >= 0)
    assert np.all(result.policy[state.legal_action_mask() == 0] == 0)
    assert result.action in state.legal_actions()
    assert result.principal_variation[0] == result.action
    assert -1.0 <= result.value <= 1.0
    assert result.stats.nodes == simulations


def same(a, b) -> bool:
    return (
        np.array_equal(a.policy, b.policy)
        and a.action == b.action
        and a.value == b.value
        and a.principal_variation == b.principal_variation
    )


# --- configuration and schedule ------------------------------------------------------------------------
def test_config_rejects_bad_knobs():
    for knobs in (
        {"simulations": 0},
        {"max_num_considered_actions": 0},
        {"c_visit": -1.0},
        {"c_scale": -0.1},
        {"gumbel_scale": -1.0},
    ):
        with pytest.raises(ValueError):
            GumbelConfig(**knobs)
    with pytest.raises(ValueError, match="evaluator"):
        Gumbel(GumbelConfig(), None, seed=0)


def test_halving_schedule_matches_the_paper():
    # 16 simulations, 4 actions: ceil(log2 4) = 2 phases; floor(16 / (2 * 4)) = 2 visits to each of 4,
    # then floor(16 / (2 * 2)) = 4 visits to each of the best 2 (Danihelka et al. 2022, Algorithm 2).
    slots, survivors = halving_schedule(4, 16)
    assert slots.tolist() == [0, 1, 2, 3] * 2 + [0, 1] * 4
    assert survivors.tolist() == [4] * 8 + [2] * 8
    assert np.bincount(slots).tolist() == [6, 6, 2, 2]
    assert halving_schedule(1, 5)[0].tolist() == [0] * 5
    assert halving_schedule(9, 8)[0].tolist() == list(range(8))  # fewer simulations than actions
    for k in range(1, 17):
        for n in (1, 3, 16, 50, 200):
            slots, survivors = halving_schedule(k, n)
            assert len(slots) == n and np.all(slots < survivors) and np.all(np.diff(survivors) <= 0)
            visits = np.bincount(slots, minlength=k)
            assert np.all(np.diff(visits) <= 0)  # a better-ranked action is never visited less


@pytest.mark.slow  # about 20 s
@pytest.mark.parametrize("evaluator", [OPEN_LINES, PythonOpenLines()])
def test_search_spends_the_budget_by_sequential_halving(evaluator):
    config = GumbelConfig(simulations=16, max_num_considered_actions=4)
    search = Gumbel(config, evaluator, seed=3)
    result = search.search(TTT.new_initial_state())
    assert sorted(search.root_visit_counts().tolist(), reverse=True) == [6, 6, 2, 2, 0, 0, 0, 0, 0]
    assert result.stats.extra["considered_actions"] == 4
    check_result(result, TTT.new_initial_state(), 16)
    one = Gumbel(GumbelConfig(simulations=16, max_num_considered_actions=1), evaluator, seed=3)
    result = one.search(TTT.new_initial_state())
    assert one.root_visit_counts().max() == 16 and one.root_visit_counts()[result.action] == 16


# --- the completed Q-values and the improved policy ------------------------------------------------------
def test_completed_sigma_matches_the_formula():
    prior = np.array([0.5, 0.3, 0.2, 0.0])
    visits = np.array([3, 1, 0, 0])
    value_sum = np.array([1.5, -1.0, 0.0, 0.0])
    raw = 0.2
    # v_mix = (0.2 + 4 * (0.5 * 0.5 + 0.3 * -1) / 0.8) / 5 = -0.01 completes the unvisited actions
    completed = np.array([0.5, -1.0, -0.01, -0.01])
    out = np.empty(4)
    completed_sigma(prior, visits, value_sum, raw, GumbelConfig(rescale_values=False).params(), out)
    np.testing.assert_allclose(out, (50 + 3) * 1.0 * completed)
    completed_sigma(prior, visits, value_sum, raw, GumbelConfig(c_visit=10.0, c_scale=0.1).params(), out)
    np.testing.assert_allclose(out, (10 + 3) * 0.1 * (completed + 1.0) / 1.5)  # min-max to [0, 1]
    unvisited = np.zeros(4, dtype=np.int64)
    completed_sigma(prior, unvisited, value_sum, raw, GumbelConfig(rescale_values=False).params(), out)
    np.testing.assert_allclose(out, 50 * raw)  # nothing visited: every action completed by the raw value


def test_improved_policy_is_softmax_of_logits_plus_sigma():
    config = GumbelConfig(simulations=12, c_scale=0.1, rescale_values=False)
    state = ttt([4])
    trees = MultiTreeGumbel(config, FixedPrior(np.arange(1.0, 10.0)), seed=0)
    result = trees.search_many([state])[0]
    tree, raw = trees._tree, trees._arrays.raw[0, 0]
    first, count = tree.nodes[0, 0, FIRST], tree.nodes[0, 0, COUNT]
    prior = tree.stats[0, first : first + count, PRIOR]
    visits = tree.nodes[0, first : first + count, VISITS]
    q = tree.stats[0, first : first + count, VALUE] / np.maximum(visits, 1)
    v_mix = (raw + visits.sum() * (prior * q)[visits > 0].sum() / prior[visits > 0].sum()) / (1 + visits.sum())
    sigma = (50 + visits.max()) * 0.1 * np.where(visits > 0, q, v_mix)
    logits = np.log(prior) + sigma
    expected = np.exp(logits - logits.max()) / np.exp(logits - logits.max()).sum()
    np.testing.assert_allclose(result.policy[state.legal_actions()], expected)
    assert 0.01 < result.policy.max() < 0.99  # a soft target: the check is not vacuous
    check_result(result, state, 12)


def test_interior_visits_track_the_improved_policy():
    # One root action takes all 50 simulations; below it every value is 0, so pi' is the prior, and the
    # rule argmax pi'(a) - N(a) / (1 + sum N) keeps each N(a) within one visit of sum N * pi'(a).
    config = GumbelConfig(simulations=50, max_num_considered_actions=1)
    trees = MultiTreeGumbel(config, FixedPrior(np.arange(1.0, 10.0)), seed=0)
    result = trees.search_many([TTT.new_initial_state()])[0]
    tree = trees._tree
    child = tree.nodes[0, 0, FIRST] + result.action
    first, count = tree.nodes[0, child, FIRST], tree.nodes[0, child, COUNT]
    visits = tree.nodes[0, first : first + count, VISITS]
    assert visits.sum() == 49
    assert np.all(np.abs(visits - 49 * tree.stats[0, first : first + count, PRIOR]) < 1.0)


# --- Gumbel-max at the root ------------------------------------------------------------------------------
def test_one_simulation_one_action_samples_the_prior():
    weights = np.arange(1.0, 10.0)
    config = GumbelConfig(simulations=1, max_num_considered_actions=1)
    trees = MultiTreeGumbel(config, FixedPrior(weights), seed=11)
    results = trees.search_many([TTT.new_initial_state()] * 3000)
    actions = np.array([r.action for r in results])
    # argmax(g + logits), the root's children being the nine actions in order
    noise = trees._arrays.noise[:, :9]
    assert np.array_equal(actions, np.argmax(noise + np.log(weights / weights.sum()), axis=1))
    frequencies = np.bincount(actions, minlength=9) / len(actions)
    expected = weights / weights.sum()
    assert np.all(np.abs(frequencies - expected) < 4 * np.sqrt(expected * (1 - expected) / len(actions)))
    uniform = MultiTreeGumbel(config, Perfect(), seed=5).search_many([ttt([4])] * 400)
    chosen = np.bincount([r.action for r in uniform], minlength=9)
    assert chosen[4] == 0 and np.all(np.delete(chosen, 4) > 20)  # every legal action, about 50 each


# --- playing strength with a perfect evaluator -----------------------------------------------------------
@pytest.mark.parametrize("simulations", [8, 16, 32])
def test_perfect_evaluator_keeps_the_value_at_small_budgets(simulations):
    states = positions(4)
    results = MultiTreeGumbel(GumbelConfig(simulations=simulations), Perfect(), seed=1).search_many(states)
    preserving = [list(solve(state).value_preserving_actions) for state in states]
    kept = np.mean([r.action in good for r, good in zip(results, preserving)])
    mass = np.mean([r.policy[good].sum() for r, good in zip(results, preserving)])
    assert kept >= 0.97 and mass >= 0.97
    for state, result in zip(states[:50], results):
        check_result(result, state, simulations)


@pytest.mark.parametrize("actions", UNIQUE_MOVE)
def test_perfect_evaluator_finds_the_only_good_move(actions):
    state = ttt(actions)
    (best,) = solve(state).value_preserving_actions
    result = Gumbel(GumbelConfig(simulations=16), Perfect(), seed=0).search(state)
    assert result.action == best
    assert result.policy[best] > 0.99
    assert np.sign(result.value) == solve(state).value or solve(state).value == 0


# --- compiled and batched paths, many trees, chance --------------------------------------------------------
def test_batched_equals_compiled():
    config = GumbelConfig(simulations=300)  # a tree outgrows its first arrays on both paths
    states = [TTT.new_initial_state(), ttt([4]), ttt([0, 4, 8])]
    compiled = MultiTreeGumbel(config, OPEN_LINES, seed=4).search_many(states)
    batched = MultiTreeGumbel(config, PythonOpenLines(), seed=4).search_many(states)
    for state, a, b in zip(states, compiled, batched):
        assert same(a, b)
        check_result(a, state, 300)
    assert batched[0].stats.extra["batches"] <= 301


@pytest.mark.slow  # about 20 s
def test_pig_chance_nodes_on_both_paths():
    states = [pig_state(15, 19, 4), pig_state(0, 0, 0), pig_state(10, 12, 6)]
    config = GumbelConfig(simulations=64)
    compiled = MultiTreeGumbel(config, PIG_LINEAR, seed=2).search_many(states)
    batched = MultiTreeGumbel(config, PythonPig(), seed=2).search_many(states)
    for state, a, b in zip(states, compiled, batched):
        assert same(a, b)
        check_result(a, state, 64)
        assert a.stats.depth >= 2
    assert compiled[0].action == 0  # 15 banked + 4 at stake: rolling wins unless a 1 comes up


def test_search_many_equals_separate_searches():
    states = [ttt(actions) for actions in UNIQUE_MOVE]
    config = GumbelConfig(simulations=8, c_scale=0.1)
    together = MultiTreeGumbel(config, PythonOpenLines(), seed=3).search_many(states)
    assert same(together[0], Gumbel(config, PythonOpenLines(), seed=3).search(states[0]))
    filler = TTT.new_initial_state()
    for i, state in enumerate(states):  # tree i alone among other searches: its own PRNG stream
        alone = MultiTreeGumbel(config, PythonOpenLines(), seed=3).search_many([filler] * i + [state])[i]
        assert same(together[i], alone)


def test_search_is_reproducible_from_a_seed():
    states = [ttt(actions) for actions in [[], [4], [0, 1]]]
    config = GumbelConfig(simulations=4)
    first = MultiTreeGumbel(config, OPEN_LINES, seed=7)
    a = first.search_many(states)
    assert all(same(x, y) for x, y in zip(a, MultiTreeGumbel(config, OPEN_LINES, seed=7).search_many(states)))
    assert not all(same(x, y) for x, y in zip(a, first.search_many(states)))  # the streams moved on
    first.seed(7)
    first.reset()
    assert all(same(x, y) for x, y in zip(a, first.search_many(states)))
    other_seed = MultiTreeGumbel(config, OPEN_LINES, seed=8).search_many(states)
    assert not all(same(x, y) for x, y in zip(a, other_seed))
    deterministic = GumbelConfig(simulations=4, gumbel_scale=0.0)
    b = MultiTreeGumbel(deterministic, OPEN_LINES, seed=1).search_many(states)
    c = MultiTreeGumbel(deterministic, OPEN_LINES, seed=2).search_many(states)
    assert all(same(x, y) for x, y in zip(b, c))


def test_rejects_terminal_and_chance_roots():
    search = Gumbel(GumbelConfig(), OPEN_LINES, seed=0)
    with pytest.raises(ValueError):
        search.search(ttt([0, 3, 1, 4, 2]))
    chance = pig_state(0, 0, 0).apply(0)  # roll
    assert chance.is_chance_node()
    with pytest.raises(ValueError):
        Gumbel(GumbelConfig(), PIG_LINEAR, seed=0).search(chance)
    with pytest.raises(ValueError):
        MultiTreeGumbel(GumbelConfig(), OPEN_LINES, seed=0).search_many([])


def test_the_root_ranks_its_candidates_as_a_stable_argsort():
    """Sequential Halving's ranking of the survivors (`rank_by`) is numpy's stable sort: ties, frequent
    among equal priors and unvisited children, keep the earlier order."""
    from rlgames.search.mcts.gumbel_ops import rank_by

    rng = np.random.default_rng(0)
    for size in (0, 1, 2, 5, 16, 40):
        keys = rng.integers(0, 4, size).astype(np.float64)
        items = rng.permutation(size).astype(np.int64)
        expected = items[np.argsort(keys, kind="stable")]
        rank_by(keys, items)
        assert items.tolist() == expected.tolist() and np.all(np.diff(keys) >= 0)
