"""Reading an MCTS tree after a search: the move to play, the root's value and the principal variation.

The value is the root's mean result for its side to move, or its exact value when the MCTS-solver
solved it. The move: when the root is solved, a child solved at the root's value (a proven win is
played at once); otherwise the most-visited child (ties to the higher mean) or a draw from
``visits ** (1 / temperature)``, among the children not known to be worse than another: a child solved
below a solved sibling, or solved at the worst value (-1), is played only when nothing else is left.
The principal variation follows the children solved at their parent's value under a solved node, the
most-visited ones elsewhere, and stops at a chance node. The policy is the root's visit distribution, or,
after forced playouts, the visits left by KataGo's policy target pruning (`pruned_visits`).
"""

from __future__ import annotations

import math

import numpy as np

from rlgames.game import CHANCE, TERMINAL
from rlgames.jit.rng import sample_index
from rlgames.search.mcts.config import P_C, P_C_BASE, P_FORCED
from rlgames.search.mcts.selection import puct_c
from rlgames.search.mcts.tree import (
    ACTION,
    DEEPEST,
    FIRST,
    POV,
    PRIOR,
    SIZE,
    SOLVED,
    SOLVED_VALUE,
    VALUE,
    VISITS,
    Tree,
    children,
)
from rlgames.search.result import SearchResult, SearchStats


def visit_policy(visits: np.ndarray, temperature: float) -> np.ndarray:
    """``visits ** (1 / temperature)`` normalised; one-hot on the first most-visited entry when
    ``temperature`` is 0. ``visits`` must not be all zero."""
    visits = np.asarray(visits, dtype=np.float64)
    most = visits.max()
    if most <= 0:
        raise ValueError("visit_policy needs at least one visit")
    if temperature == 0:
        policy = np.zeros_like(visits)
        policy[int(np.argmax(visits))] = 1.0
        return policy
    weights = (visits / most) ** (1.0 / temperature)  # scaled first: no overflow for small T
    return weights / weights.sum()


def pruned_visits(tree: Tree, t: int, params: np.ndarray) -> np.ndarray:
    """KataGo's policy target pruning (Wu 2019, section 3.1): the visits of tree ``t``'s root children with
    the forced playouts taken back where they were only forced. Each child but the most-visited gives back
    up to its `forced_visits`, as long as its PUCT score, its priors and values as the search left them,
    stays below the most-visited child's at full visits; a child left with one visit or none is pruned.
    Call it before the root's noise-free priors are restored: the forcing followed the noisy ones."""
    kids = children(tree, t, 0)
    visits = tree.nodes[t, kids, VISITS].astype(np.float64)
    priors = tree.stats[t, kids, PRIOR]
    solved = tree.nodes[t, kids, SOLVED] != 0
    means = np.where(solved, tree.stats[t, kids, SOLVED_VALUE], tree.stats[t, kids, VALUE] / np.maximum(visits, 1.0))
    parent = max(float(tree.nodes[t, 0, VISITS]), 1.0)
    explore = puct_c(parent, params[P_C], params[P_C_BASE]) * math.sqrt(parent)
    best = int(np.argmax(visits))
    best_score = means[best] + explore * priors[best] / (1.0 + visits[best])
    forced = np.sqrt(params[P_FORCED] * priors * visits.sum())
    gap = best_score - means  # a child at or above the best's score gives nothing back
    # the fewest visits n with means + explore * P / (1 + n) < best_score
    fewest = np.where(gap > 0, np.floor(explore * priors / np.where(gap > 0, gap, 1.0)), visits)
    kept = np.minimum(visits, np.maximum(np.ceil(visits - forced), fewest))
    kept[kept <= 1.0] = 0.0
    kept[best] = visits[best]
    return kept


def solved_for_mover(tree: Tree, t: int, node: int) -> float | None:
    """The solved value of ``node`` for its side to move, None while it is not solved."""
    if tree.nodes[t, node, SOLVED] == 0:
        return None
    value = float(tree.stats[t, node, SOLVED_VALUE])
    return value if tree.nodes[t, node, POV] == tree.states[t, node, 0] else -value


def root_value(tree: Tree, t: int) -> float:
    """The root's value for its side to move: exact when solved, else its mean result."""
    solved = solved_for_mover(tree, t, 0)
    if solved is not None:
        return solved + 0.0
    mean = tree.stats[t, 0, VALUE] / tree.nodes[t, 0, VISITS]
    return float(mean if tree.nodes[t, 0, POV] == tree.states[t, 0, 0] else -mean) + 0.0


def choose(tree: Tree, t: int, temperature: float, rng: np.ndarray) -> int:
    """The root child to play (see the module docstring); ``rng`` draws it when ``temperature > 0``."""
    kids = children(tree, t, 0)
    nodes, stats = tree.nodes[t, kids], tree.stats[t, kids]
    visits = nodes[:, VISITS].astype(np.float64)
    solved = nodes[:, SOLVED] != 0
    values = np.where(solved, stats[:, SOLVED_VALUE], np.nan)  # children keep the root mover's view
    wins = values == 1.0
    root = solved_for_mover(tree, t, 0)
    if root is not None:
        candidates = values == root
    else:
        best = values[solved].max() if solved.any() else -1.0
        candidates = ~solved | ((values >= best) & (values > -1.0))
    if not candidates.any():
        candidates = np.ones(len(visits), dtype=bool)
    if temperature > 0 and not wins.any():
        weights = np.where(candidates, visits, 0.0)
        if weights.sum() == 0:
            weights = candidates.astype(np.float64)
        policy = visit_policy(weights, temperature)
        return kids.start + int(sample_index(rng, policy, len(policy)))
    means = stats[:, VALUE] / np.maximum(visits, 1.0)
    order = np.lexsort((-means, -visits))  # most visits first, then the higher mean
    return kids.start + int(next(i for i in order if candidates[i]))


def principal_variation(tree: Tree, t: int, child: int) -> tuple[list[int], int]:
    """The line from the root through ``child``, and the node where it ends."""
    nodes, states, stats = tree.nodes, tree.states, tree.stats
    line, node = [int(nodes[t, child, ACTION])], child
    while states[t, node, 0] not in (TERMINAL, CHANCE) and nodes[t, node, FIRST] >= 0:
        kids = children(tree, t, node)
        value = solved_for_mover(tree, t, node)
        if value is None:
            eligible = nodes[t, kids, VISITS] > 0
        else:
            eligible = (nodes[t, kids, SOLVED] != 0) & (stats[t, kids, SOLVED_VALUE] == value)
        if not eligible.any():
            break
        visits = np.where(eligible, nodes[t, kids, VISITS], -1)
        node = kids.start + int(np.argmax(visits))
        line.append(int(nodes[t, node, ACTION]))
    return line, node


def search_result(
    tree: Tree,
    t: int,
    num_actions: int,
    temperature: float,
    rng: np.ndarray,
    elapsed: float,
    extra: dict[str, float],
    visits: np.ndarray | None = None,
) -> SearchResult:
    """The `SearchResult` of tree ``t``; ``extra`` holds the driver's counters, ``simulations`` first. The
    policy is the distribution of ``visits`` over the root's children (default: their visits)."""
    kids = children(tree, t, 0)
    if visits is None:
        visits = tree.nodes[t, kids, VISITS].astype(np.float64)
    policy = np.zeros(num_actions, dtype=np.float64)
    weights = visits if visits.sum() > 0 else tree.stats[t, kids, PRIOR]
    policy[tree.nodes[t, kids, ACTION]] = weights / weights.sum()
    line, end = principal_variation(tree, t, choose(tree, t, temperature, rng))
    value = root_value(tree, t)
    proven = solved_for_mover(tree, t, 0) is not None and abs(value) == 1.0
    plies_to_end = len(line) if proven and tree.states[t, end, 0] == TERMINAL else None
    simulations = int(extra.pop("simulations"))
    extra = {
        "simulations_per_second": simulations / elapsed if elapsed > 0 else 0.0,
        "tree_nodes": float(tree.meta[t, SIZE]),
        "root_visits": float(tree.nodes[t, 0, VISITS]),
        **extra,
    }
    stats = SearchStats(nodes=simulations, depth=int(tree.meta[t, DEEPEST]), time_s=elapsed, extra=extra)
    return SearchResult(
        action=line[0],
        value=value,
        policy=policy,
        principal_variation=tuple(line),
        stats=stats,
        plies_to_end=plies_to_end,
    )
