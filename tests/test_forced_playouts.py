"""KataGo's forced playouts and policy target pruning (Wu 2019, section 3.1): every visited root child gets
its ``sqrt(k * P * N)`` visits, and the policy target takes back the visits that were only forced."""

from __future__ import annotations

import math

import numpy as np
import pytest

import rlgames
from rlgames.evaluators import Evaluator
from rlgames.games.tic_tac_toe.evaluator import OpenLinesEvaluator
from rlgames.search.mcts.config import MCTSConfig
from rlgames.search.mcts.puct import MCTS
from rlgames.search.mcts.result import pruned_visits
from rlgames.search.mcts.selection import forced_visits, puct_c
from rlgames.search.mcts.tree import COUNT, FIRST, PRIOR, VALUE, VISITS, children, new_tree, reset_root

TTT = rlgames.load_game("tic_tac_toe")
OPEN_LINES = OpenLinesEvaluator()


class FavouriteCorner(Evaluator):
    """Open-lines values with a sharp prior: 0.9 on the first legal corner, the rest shared evenly, so that
    plain PUCT leaves most other moves with a visit or two."""

    def value(self, state) -> float:
        return float(OPEN_LINES.kernel(state.compact))

    def policy(self, state) -> np.ndarray:
        legal = state.legal_actions()
        favourite = next((a for a in (0, 2, 6, 8) if a in legal), legal[0])
        prior = np.zeros(TTT.num_actions)
        prior[legal] = 0.1 / max(len(legal) - 1, 1)
        prior[favourite] = 0.9 if len(legal) > 1 else 1.0
        return prior


def root_children(mcts: MCTS) -> tuple[np.ndarray, np.ndarray]:
    """The root children's visits and (noise-free) priors."""
    tree = mcts._trees._tree
    kids = children(tree, 0, 0)
    return tree.nodes[0, kids, VISITS].astype(float), tree.stats[0, kids, PRIOR]


def test_every_visited_root_child_gets_its_forced_visits():
    state = TTT.state_from_actions([4])
    k, simulations = 2.0, 400
    plain = MCTS(MCTSConfig(simulations=simulations, selection="puct", solver=False), FavouriteCorner(), seed=0)
    plain.search(state)
    visits, priors = root_children(plain)
    owed = np.sqrt(k * priors * visits.sum())
    assert (visits < owed - 1).any()  # without forcing, some child falls short: the check below can fail
    config = MCTSConfig(simulations=simulations, selection="puct", solver=False, forced_playouts=k)
    forced = MCTS(config, FavouriteCorner(), seed=0)
    result = forced.search(state)
    visits, priors = root_children(forced)
    assert visits.sum() == simulations - 1  # the root's first visit expanded it
    assert np.all(visits >= np.floor(np.sqrt(k * priors * (visits.sum() - 1))))
    assert result.policy.sum() == pytest.approx(1.0)


def reference_pruning(visits, priors, means, parent_visits, c_puct, k):
    """Policy target pruning as the paper says it, one visit at a time: from each child but the most-visited,
    subtract up to its forced playouts while its PUCT score stays below the most-visited child's; then prune
    the children left with a single visit."""
    explore = puct_c(parent_visits, c_puct, 0.0) * math.sqrt(parent_visits)
    best = int(np.argmax(visits))
    best_score = means[best] + explore * priors[best] / (1 + visits[best])
    kept = visits.copy()
    for i in range(len(visits)):
        if i == best:
            continue
        allowed = forced_visits(k, priors[i], visits.sum())
        while kept[i] > 0 and visits[i] - (kept[i] - 1) <= allowed:
            if means[i] + explore * priors[i] / (1 + kept[i] - 1) >= best_score:
                break
            kept[i] -= 1
        if kept[i] <= 1:
            kept[i] = 0
    return kept


@pytest.mark.parametrize(
    "visits, priors, means",
    [
        ([80, 15, 5], [0.6, 0.3, 0.1], [0.5, 0.2, -0.3]),
        ([40, 38, 12, 3, 1], [0.2, 0.3, 0.2, 0.2, 0.1], [0.1, 0.15, -0.2, 0.4, -0.9]),
        ([7, 2, 1], [0.1, 0.6, 0.3], [0.9, -0.5, 0.0]),
    ],
)
def test_pruning_equals_the_papers_one_visit_at_a_time(visits, priors, means):
    visits, priors, means = (np.array(x, dtype=float) for x in (visits, priors, means))
    k, c_puct = 2.0, 1.25
    tree = new_tree(1, 16, len(TTT.initial_compact_state()), TTT.kernels.max_actions)
    reset_root(tree, 0, TTT.initial_compact_state())
    n = len(visits)
    tree.nodes[0, 0, FIRST], tree.nodes[0, 0, COUNT] = 1, n
    tree.nodes[0, 0, VISITS] = int(visits.sum()) + 1
    tree.nodes[0, 1 : n + 1, VISITS] = visits
    tree.stats[0, 1 : n + 1, PRIOR] = priors
    tree.stats[0, 1 : n + 1, VALUE] = means * visits
    params = MCTSConfig(selection="puct", c_puct=c_puct, c_puct_base=None, forced_playouts=k).params()
    expected = reference_pruning(visits, priors, means, visits.sum() + 1, c_puct, k)
    assert np.array_equal(pruned_visits(tree, 0, params), expected)


def test_pruning_keeps_the_first_case_by_hand():
    """Worked by hand: explore = 1.25 * sqrt(101); the second child may give back 6 of its 7 forced visits
    before its PUCT score would reach the first's, and the third falls to one visit and is pruned."""
    tree = new_tree(1, 8, len(TTT.initial_compact_state()), TTT.kernels.max_actions)
    reset_root(tree, 0, TTT.initial_compact_state())
    tree.nodes[0, 0, FIRST], tree.nodes[0, 0, COUNT], tree.nodes[0, 0, VISITS] = 1, 3, 101
    tree.nodes[0, 1:4, VISITS] = (80, 15, 5)
    tree.stats[0, 1:4, PRIOR] = (0.6, 0.3, 0.1)
    tree.stats[0, 1:4, VALUE] = (0.5 * 80, 0.2 * 15, -0.3 * 5)
    params = MCTSConfig(selection="puct", c_puct_base=None, forced_playouts=2.0).params()
    assert pruned_visits(tree, 0, params).tolist() == [80.0, 9.0, 0.0]


def test_forced_playouts_need_puct_and_a_non_negative_k():
    with pytest.raises(ValueError, match="puct"):
        MCTSConfig(selection="uct", forced_playouts=2.0)
    with pytest.raises(ValueError, match="non-negative"):
        MCTSConfig(selection="puct", forced_playouts=-1.0)
