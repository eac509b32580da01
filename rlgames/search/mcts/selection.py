"""MCTS's action selection: the UCB1 and PUCT formulas, and the compiled rule that picks a child.

A selection function ``select(tree, t, node, ctx) -> child`` chooses the child of decision node ``node``
of tree ``t`` that a descent follows; ``ctx`` is whatever the search keeps for it (here the float64
parameters of `MCTSConfig.params`, for Gumbel its `GumbelArrays`). `rlgames.search.mcts.ops.make_tree_ops`
takes one for the root and one for the interior nodes, as mctx's ``search`` takes
``root_action_selection_fn`` and ``interior_action_selection_fn``, so that MCTS and Gumbel share every
other tree operation. Selection functions are inlined into the descent (``inline="always"``). MCTS's
must not allocate: `rlgames.search.mcts.run`'s loop, which inlines it, runs without numba's runtime.
"""

from __future__ import annotations

import math

from numba import njit

from rlgames.search.mcts.config import (
    P_C,
    P_C_BASE,
    P_FORCED,
    P_PUCT,
    P_RAVE,
    P_UNVISITED,
)
from rlgames.search.mcts.tree import (
    AMAF_VALUE,
    AMAF_VISITS,
    COUNT,
    FIRST,
    PRIOR,
    SOLVED,
    SOLVED_VALUE,
    VALUE,
    VIRTUAL,
    VISITS,
)


@njit(cache=True)
def ucb1(total_utility: float, visits: float, parent_visits: float, c: float) -> float:
    """UCB1 as in the notes: ``U(n) / N(n) + C * sqrt(ln N(parent) / N(n))`` (Auer et al. 2002, used
    for trees by Kocsis & Szepesvari 2006); ``visits`` must be positive."""
    return ucb1_from_log(total_utility, visits, math.log(parent_visits), c)


@njit(cache=True)
def ucb1_from_log(total_utility: float, visits: float, log_parent_visits: float, c: float) -> float:
    """`ucb1` given ``ln N(parent)``, which selection computes once for all the children."""
    return total_utility / visits + c * math.sqrt(log_parent_visits / visits)


@njit(cache=True)
def puct_score(q: float, prior: float, visits: float, parent_visits: float, c: float) -> float:
    """AlphaZero's ``Q + c * P * sqrt(N(parent)) / (1 + N(child))`` (Silver et al. 2018)."""
    return q + c * prior * math.sqrt(parent_visits) / (1.0 + visits)


@njit(cache=True)
def puct_c(parent_visits: float, c_init: float, c_base: float) -> float:
    """AlphaZero's exploration rate ``c_init + log((1 + N + c_base) / c_base)``; ``c_init`` when
    ``c_base`` is 0 (a constant ``c_puct``)."""
    if c_base <= 0.0:
        return c_init
    return c_init + math.log((1.0 + parent_visits + c_base) / c_base)


@njit(cache=True)
def rave_beta(visits: float, equivalence: float) -> float:
    """The weight of the AMAF value, MoGo's hand-selected schedule ``sqrt(k / (3 N + k))`` (Gelly &
    Silver 2007): 1 before the first visit, 1/2 at ``k / 3`` visits."""
    return math.sqrt(equivalence / (3.0 * visits + equivalence))


@njit(cache=True)
def forced_visits(k: float, prior: float, total_visits: float) -> float:
    """KataGo's forced playouts of a root child, ``sqrt(k * P * N)`` with ``N`` the root children's visits
    (Wu 2019, section 3.1)."""
    return math.sqrt(k * prior * total_visits)


@njit(inline="always")
def forced_child(tree, t, node, k):
    """The first unsolved child of ``node`` visited at least once but fewer than its `forced_visits`
    times (virtual losses counting as visits), or -1."""
    nodes, stats = tree.nodes, tree.stats
    first = nodes[t, node, FIRST]
    total = 0.0
    for child in range(first, first + nodes[t, node, COUNT]):
        total += nodes[t, child, VISITS] + nodes[t, child, VIRTUAL]
    for child in range(first, first + nodes[t, node, COUNT]):
        visits = float(nodes[t, child, VISITS] + nodes[t, child, VIRTUAL])
        if nodes[t, child, SOLVED] == 0 and 0.0 < visits < forced_visits(k, stats[t, child, PRIOR], total):
            return child
    return -1


@njit(inline="always")
def uct_or_puct_child(tree, t, node, params):
    """The child of highest UCB1 or PUCT score (``params[P_PUCT]``), unvisited children first under
    UCB1 (the first of them, without scoring the rest), a solved child scored by its exact value; virtual
    losses count as lost visits. With RAVE (``params[P_RAVE]``, the equivalence ``k``) a child with AMAF
    results is scored on ``(1 - beta) * Q + beta * Q_amaf`` (`rave_beta`), visited or not. At the root,
    with forced playouts (``params[P_FORCED]``, KataGo's ``k``), a child owed forced visits comes first
    (`forced_child`)."""
    nodes, stats = tree.nodes, tree.stats
    if node == 0 and params[P_FORCED] > 0.0:
        forced = forced_child(tree, t, node, params[P_FORCED])
        if forced >= 0:
            return forced
    parent_visits = max(float(nodes[t, node, VISITS] + nodes[t, node, VIRTUAL]), 1.0)
    puct = params[P_PUCT] != 0.0
    c = puct_c(parent_visits, params[P_C], params[P_C_BASE]) if puct else params[P_C]
    equivalence = params[P_RAVE]
    log_parent_visits = math.log(parent_visits)
    first = nodes[t, node, FIRST]
    best, best_score = first, -math.inf
    for child in range(first, first + nodes[t, node, COUNT]):
        virtual = nodes[t, child, VIRTUAL]
        visits = float(nodes[t, child, VISITS] + virtual)
        total = stats[t, child, VALUE] - virtual
        amaf_visits = nodes[t, child, AMAF_VISITS] if equivalence > 0.0 else 0
        if nodes[t, child, SOLVED] != 0:
            score = stats[t, child, SOLVED_VALUE]
        elif amaf_visits > 0:
            beta = rave_beta(visits, equivalence)
            q = beta * stats[t, child, AMAF_VALUE] / amaf_visits + (1.0 - beta) * (total / max(visits, 1.0))
            if puct:
                score = puct_score(q, stats[t, child, PRIOR], visits, parent_visits, c)
            else:
                score = q + c * math.sqrt(log_parent_visits / max(visits, 1.0))
        elif puct:
            q = total / visits if visits > 0.0 else params[P_UNVISITED]
            score = puct_score(q, stats[t, child, PRIOR], visits, parent_visits, c)
        elif visits == 0.0:
            score = math.inf
        else:
            score = ucb1_from_log(total, visits, log_parent_visits, c)
        if score > best_score:
            best, best_score = child, score
            if score == math.inf:
                break  # an unvisited child: none after it can score higher
    return best
