"""Gumbel search's compiled parts: the completed Q-values, its two selection functions (Sequential
Halving at the root, the improved policy's deterministic rule below), and the steps that drive them
over `rlgames.search.mcts.ops`' tree operations, which do the descent, the expansion (chance nodes and
repetitions included) and the backup. See `rlgames.search.mcts.gumbel` for the method and its driver."""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from typing import NamedTuple

import numpy as np
from numba import njit

from rlgames.game import CHANCE, TERMINAL, GameKernels
from rlgames.jit.cache import cache_closure
from rlgames.jit.rng import uniform
from rlgames.jit.unsafe import to_fixed_tuple
from rlgames.search.mcts.config import (
    G_C_SCALE,
    G_C_VISIT,
    G_GUMBEL_SCALE,
    G_RESCALE,
)
from rlgames.search.mcts.ops import TreeOps, make_tree_ops
from rlgames.search.mcts.tree import (
    ACTION,
    COUNT,
    FIRST,
    PRIOR,
    SIZE,
    VALUE,
    VIRTUAL,
    VISITS,
    reserve_per_simulation,
)

TINY = float(np.finfo(np.float64).tiny)
"""Floor of a prior before its logarithm, so that a zero prior gets a finite logit (as mctx)."""
RESCALE_EPSILON = 1e-8
"""Smallest denominator of the min-max rescaling (mctx's ``epsilon``)."""


class GumbelArrays(NamedTuple):
    """The search state kept beside a `Tree` of ``T`` trees of ``N`` nodes (``A`` = ``max_actions``),
    the selection functions' ``ctx``:

    * ``raw`` float64[T, N]: the evaluator's value of each expanded decision node, for its side to move;
    * ``noise`` float64[T, A]: ``g`` of each root child, in the children's order;
    * ``ranked`` int64[T, A]: root children (as offsets from the first) in Sequential Halving's order;
      the first ``alive[t]`` survive;
    * ``alive`` int64[T]: survivors, 0 until the root's noise is drawn;
    * ``done`` int64[T]: simulations of the current search;
    * ``slots``, ``survivors`` int64[K, n]: `halving_schedule` for ``k = 1 .. K`` considered actions;
    * ``params`` float64[4]: `GumbelConfig.params`.
    """

    raw: np.ndarray
    noise: np.ndarray
    ranked: np.ndarray
    alive: np.ndarray
    done: np.ndarray
    slots: np.ndarray
    survivors: np.ndarray
    params: np.ndarray


@njit(cache=True)
def completed_q(prior, visits, value_sum, raw_value, out) -> None:
    """``out[i]``: the completed Q-value of child ``i`` for children with priors ``prior``, visits
    ``visits`` and result sums ``value_sum`` (for the parent's mover), the parent's own evaluation being
    ``raw_value``: the child's mean if visited, else the mixed value ``v_mix`` (Appendix D)."""
    total, mass, weighted = 0, 0.0, 0.0
    for i in range(len(prior)):
        if visits[i] > 0:
            p = max(prior[i], TINY)
            mass += p
            weighted += p * value_sum[i] / visits[i]
            total += visits[i]
    mixed = raw_value if total == 0 else (raw_value + total * weighted / mass) / (1.0 + total)
    for i in range(len(prior)):
        out[i] = value_sum[i] / visits[i] if visits[i] > 0 else mixed


@njit(cache=True)
def completed_sigma(prior, visits, value_sum, raw_value, params, out) -> None:
    """``out[i] = sigma(completed Q of child i)`` (arguments as `completed_q`), min-max rescaled first
    when ``params[G_RESCALE]``."""
    completed_q(prior, visits, value_sum, raw_value, out)
    low, high = out.min(), out.max()
    scale = (params[G_C_VISIT] + visits.max()) * params[G_C_SCALE]
    rescale = params[G_RESCALE] != 0.0
    for i in range(len(prior)):
        out[i] = scale * ((out[i] - low) / max(high - low, RESCALE_EPSILON) if rescale else out[i])


@njit(cache=True)
def logit(prior: float) -> float:
    return math.log(max(prior, TINY))


@njit(cache=True)
def gumbel(rng) -> float:
    """A standard Gumbel draw, ``-log(-log(u))`` for ``u`` uniform in (0, 1)."""
    u = uniform(rng)
    while u == 0.0:
        u = uniform(rng)
    return -math.log(-math.log(u))


@njit(inline="always")
def children_sigma(tree, g, t, node, out):
    first, count = tree.nodes[t, node, FIRST], tree.nodes[t, node, COUNT]
    children = slice(first, first + count)
    completed_sigma(
        tree.stats[t, children, PRIOR],
        tree.nodes[t, children, VISITS],
        tree.stats[t, children, VALUE],
        g.raw[t, node],
        g.params,
        out,
    )


@njit(inline="always")
def draw_noise(tree, g, t, rng):
    for i in range(tree.nodes[t, 0, COUNT]):
        g.noise[t, i] = g.params[G_GUMBEL_SCALE] * gumbel(rng)
        g.ranked[t, i] = i
    g.alive[t] = tree.nodes[t, 0, COUNT]


@njit
def rank_by(keys, items):
    """Sorts ``items`` by ascending ``keys`` in place (both), stably: ties keep the earlier order. An
    insertion sort, over the root's few candidates: numba's stable ``argsort`` compiles for seconds."""
    for j in range(1, keys.shape[0]):
        key, item, i = keys[j], items[j], j - 1
        while i >= 0 and keys[i] > key:
            keys[i + 1], items[i + 1] = keys[i], items[i]
            i -= 1
        keys[i + 1], items[i + 1] = key, item


@njit(inline="always")
def sequential_halving_child(tree, t, node, g):
    """The root's selection: its child of this simulation in the Sequential Halving plan; the survivors
    are ranked by ``g + logits + sigma`` at the start of every round."""
    first, count = tree.nodes[t, node, FIRST], tree.nodes[t, node, COUNT]
    k = min(count, g.slots.shape[0])
    slot = g.slots[k - 1, g.done[t]]
    if slot == 0:
        sigma = tree.probs[:count]
        children_sigma(tree, g, t, node, sigma)
        alive = g.alive[t]
        keys = np.empty(alive)
        for j in range(alive):
            i = g.ranked[t, j]
            keys[j] = -(g.noise[t, i] + logit(tree.stats[t, first + i, PRIOR]) + sigma[i])
        rank_by(keys, g.ranked[t, :alive])
        g.alive[t] = g.survivors[k - 1, g.done[t]]
    return first + g.ranked[t, slot]


@njit(inline="always")
def improved_policy_child(tree, t, node, g):
    """The interior nodes' selection: the child maximising ``pi'(a) - N(a) / (1 + sum N)``, with
    ``pi' = softmax(logits + sigma)``."""
    first, count = tree.nodes[t, node, FIRST], tree.nodes[t, node, COUNT]
    sigma = tree.probs[:count]
    children_sigma(tree, g, t, node, sigma)
    top, total_visits = -math.inf, 0.0
    for i in range(count):
        sigma[i] += logit(tree.stats[t, first + i, PRIOR])
        top = max(top, sigma[i])
        total_visits += tree.nodes[t, first + i, VISITS]
    norm = 0.0
    for i in range(count):
        sigma[i] = math.exp(sigma[i] - top)
        norm += sigma[i]
    best, best_score = first, -math.inf
    for i in range(count):
        score = sigma[i] / norm - tree.nodes[t, first + i, VISITS] / (1.0 + total_visits)
        if score > best_score:
            best, best_score = first + i, score
    return best


class GumbelOps(NamedTuple):
    """The compiled operations of `make_gumbel_ops`."""

    next_leaf: Callable[..., int]
    select_batch: Callable[..., tuple[int, int]]
    finish_batch: Callable[..., None]
    summarize: Callable[..., None]


def gumbel_tree_ops(kernels: GameKernels, state_size: int) -> TreeOps:
    """`mcts_ops`' tree operations with Gumbel search's two selection functions."""
    return make_tree_ops(kernels, state_size, sequential_halving_child, improved_policy_child)


@functools.cache
def make_gumbel_ops(kernels: GameKernels, state_size: int) -> GumbelOps:
    """Gumbel search's steps over `mcts_ops`' tree operations for one game, compiled on first call and
    kept."""
    tree_ops = gumbel_tree_ops(kernels, state_size)
    descend, expand_and_backup_batch = tree_ops.select, tree_ops.expand_and_backup_batch
    A = kernels.max_actions

    @njit
    def next_leaf(tree, g, t, rng):
        """The next leaf to evaluate in tree ``t``: its unexpanded root first, then one per simulation;
        -1 once the budget is spent."""
        if tree.nodes[t, 0, FIRST] < 0:
            tree.nodes[t, 0, VIRTUAL] += 1
            return 0
        if g.done[t] >= g.slots.shape[1]:
            return -1
        if g.alive[t] == 0:
            draw_noise(tree, g, t, rng)
        leaf = descend(tree, t, g, rng)
        g.done[t] += 1
        return leaf

    @njit
    def select_batch(tree, g, rngs, leaves, owners, rows, leaf_states):
        """One leaf per unfinished tree (`next_leaf`): leaf ``j`` is node ``leaves[j]`` of tree
        ``owners[j]`` and ``rows[j]`` its row in ``leaf_states``, or -1 when terminal. Returns
        ``(leaves, evaluations)``."""
        count = evaluations = 0
        for t in range(tree.nodes.shape[0]):
            leaf = next_leaf(tree, g, t, rngs[t])
            if leaf < 0:
                continue
            leaves[count], owners[count], rows[count] = leaf, t, -1
            if tree.states[t, leaf, 0] != TERMINAL:
                rows[count] = evaluations
                leaf_states[evaluations] = tree.states[t, leaf]
                evaluations += 1
            count += 1
        return count, evaluations

    @njit
    def finish_batch(tree, g, count, leaves, owners, rows, values, priors, use_priors):
        """Expands and backs up the leaves of `select_batch` (no MCTS-solver: a solved child would
        break the visit schedule) and keeps the evaluator's values of the expanded ones."""
        expand_and_backup_batch(tree, False, count, leaves, owners, rows, values, priors, use_priors)
        for j in range(count):
            if rows[j] >= 0:
                g.raw[owners[j], leaves[j]] = min(1.0, max(-1.0, values[rows[j]]))

    @njit
    def summarize(tree, g, policies, values, lines, lengths):
        """For every tree ``t`` after its search: ``policies[t]`` the improved policy over the game's
        actions (zero on illegal ones), ``values[t]`` its expected completed Q-value, and
        ``lines[t, :lengths[t]]`` the principal variation, which starts with the action played: the
        best ``g + logits + sigma`` among the most-visited."""
        scratch = np.empty((2, A))
        nodes = tree.nodes
        for t in range(nodes.shape[0]):
            first, count = nodes[t, 0, FIRST], nodes[t, 0, COUNT]
            improved, q = scratch[0, :count], scratch[1, :count]
            children_sigma(tree, g, t, 0, improved)
            children = slice(first, first + count)
            completed_q(
                tree.stats[t, children, PRIOR],
                nodes[t, children, VISITS],
                tree.stats[t, children, VALUE],
                g.raw[t, 0],
                q,
            )
            for i in range(count):
                improved[i] += logit(tree.stats[t, first + i, PRIOR])
            most, top = nodes[t, children, VISITS].max(), improved.max()
            norm = np.exp(improved - top).sum()
            node, best_score, values[t] = first, -math.inf, 0.0
            for i in range(count):
                p = math.exp(improved[i] - top) / norm
                policies[t, nodes[t, first + i, ACTION]] = p
                values[t] += p * q[i]
                score = g.noise[t, i] + improved[i]
                if nodes[t, first + i, VISITS] == most and score > best_score:
                    node, best_score = first + i, score
            lines[t, 0], length = nodes[t, node, ACTION], 1
            while length < lines.shape[1] and tree.states[t, node, 0] != CHANCE and nodes[t, node, FIRST] >= 0:
                child = first_child = nodes[t, node, FIRST]
                for c in range(first_child, first_child + nodes[t, node, COUNT]):
                    if nodes[t, c, VISITS] > nodes[t, child, VISITS]:
                        child = c
                if nodes[t, child, VISITS] == 0:
                    break
                node = child
                lines[t, length], length = nodes[t, node, ACTION], length + 1
            lengths[t] = length

    return GumbelOps(
        cache_closure(next_leaf), cache_closure(select_batch), cache_closure(finish_batch), cache_closure(summarize)
    )


@functools.cache
def make_gumbel_run(kernels: GameKernels, state_size: int, kernel: Callable[..., float]) -> Callable[..., bool]:
    """A compiled ``run(tree, g, rngs) -> finished`` doing every tree's search (tree ``t`` drawing from
    ``rngs[t]``) with the evaluator kernel ``kernel`` and uniform priors. It stops early, returning
    False, when a tree has fewer than `reserve_per_simulation` free nodes (the driver grows the trees
    and calls again; finished trees are skipped)."""
    tree_ops = gumbel_tree_ops(kernels, state_size)
    expand, known_value, backup = tree_ops.expand, tree_ops.known_value, tree_ops.backup
    next_leaf = make_gumbel_ops(kernels, state_size).next_leaf
    evaluate = kernel
    S, reserve = state_size, reserve_per_simulation(kernels)

    @njit
    def run(tree, g, rngs):
        for t in range(tree.nodes.shape[0]):
            while g.done[t] < g.slots.shape[1]:
                if tree.meta[t, SIZE] + reserve > tree.nodes.shape[1]:
                    return False
                leaf = next_leaf(tree, g, t, rngs[t])
                known, result = known_value(tree, t, leaf)
                if not known:
                    s = to_fixed_tuple(tree.states[t, leaf], S)
                    expand(tree, t, leaf, s)
                    value = min(1.0, max(-1.0, evaluate(s)))
                    g.raw[t, leaf] = value
                    result = value if s[0] == 0 else -value
                backup(tree, t, leaf, result, False)
        return True

    return cache_closure(run)
