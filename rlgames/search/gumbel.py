"""Gumbel AlphaZero search: policy improvement with few simulations (Danihelka, Guez, Schrittwieser &
Silver 2022, "Policy improvement by planning with Gumbel", ICLR), over the compiled tree of
`rlgames.search.mcts_tree`, generic over games and batched across many games like `MultiTreeMCTS`.

One search from a root where a player is to move:

1. The root is evaluated and expanded with the evaluator's priors ``pi`` (not a simulation; the
   evaluator is required, priors being the search's starting point). ``logits = log(pi)``.
2. **Root** (the paper's "Sequential Halving with Gumbel"): each root action gets
   Gumbel noise ``g(a)`` (``gumbel_scale * Gumbel(0, 1)``, from the tree's own PRNG stream). The
   ``k = min(max_num_considered_actions, legal actions)`` actions of highest ``g + logits`` are kept and
   the ``simulations`` are spent in rounds: a round visits every surviving action once, a phase repeats
   its round ``max(1, floor(n / (ceil(log2 k) * survivors)))`` times, and then only the best half (at
   least two) by ``g + logits + sigma(completed Q)`` survives; rounds continue on the last two while
   budget remains (the schedule of mctx's ``seq_halving``; `halving_schedule`). The action played is
   the best by the same score among the most-visited actions: the survivor.
3. **Below the root** (the paper's deterministic non-root selection of Full Gumbel MuZero): the child
   maximising ``pi'(a) - N(a) / (1 + sum_b N(b))`` with ``pi' = softmax(logits + sigma(completed Q))``,
   which makes the visit counts track the improved policy. At a chance node an outcome is sampled by its
   probability, as in `mcts_tree`.
4. The leaf is evaluated (a terminal's result, else the evaluator), expanded and backed up with
   `mcts_tree`'s operations (no MCTS-solver: a proven child would break the visit schedule).

**Completed Q** (Appendix D): a visited child's mean result for the mover, an unvisited one's the mixed
value ``v_mix = (v + sum_b N(b) * sum_{visited} pi(b) q(b) / sum_{visited} pi(b)) / (1 + sum_b N(b))``
with ``v`` the evaluator's value of the node. With ``rescale_values`` the completed values are min-max
normalised to [0, 1] over the node's children (as mctx's ``qtransform_completed_by_mix_value``), then
``sigma(q) = (c_visit + max_b N(b)) * c_scale * q``.

Results (`SearchResult`): ``policy`` is the improved policy ``softmax(logits + sigma(completed Q))``
over the legal root actions (the paper's policy-network target), ``action`` the Sequential Halving
winner, ``value`` the improved policy's expected completed Q-value, from the side to move; the
principal variation follows the most-visited children from ``action``. The root's mean result (its own
evaluation and every simulation) is ``stats.extra["root_mean"]``: Sequential Halving spends most of a
small budget on the actions it then drops, so that mean can even have the wrong sign (a won
tic-tac-toe position, a perfect evaluator and 16 simulations give -0.12).

Evaluators with a compiled ``kernel`` run all the searches inside one compiled call, with
uniform priors (the protocol has no compiled policy); the others (networks) are stepped together:
every step selects one leaf per tree and one ``evaluate_batch`` call values all of them, so a search of
``T`` trees makes ``simulations + 1`` calls of up to ``T`` states. Each tree draws from its own PRNG
stream (`tree_rng_state`), so a tree's result does not depend on the other trees nor on the path.
Every search starts a fresh tree (Sequential Halving plans a budget from zero visits).
"""

from __future__ import annotations

import functools
import math
import time
from dataclasses import dataclass
from typing import Callable, NamedTuple, Sequence

import numpy as np
from numba import njit
from numba.np.unsafe.ndarray import to_fixed_tuple

from rlgames.evaluators.base import Evaluator
from rlgames.game import CHANCE, TERMINAL, Game, GameKernels, State
from rlgames.search.mcts import INITIAL_CAPACITY
from rlgames.search.mcts_tree import (
    ACTION,
    COUNT,
    FIRST,
    MAX_DEPTH,
    NUM_PARAMS,
    PARENT,
    POV,
    PRIOR,
    READY,
    SIZE,
    VALUE,
    VIRTUAL,
    VISITS,
    Tree,
    check_roots,
    children,
    grow,
    make_tree_ops,
    new_tree,
    reserve_per_simulation,
    reset_root,
    root_visit_counts,
)
from rlgames.search.result import SearchResult, SearchStats
from rlgames.search.rng import sample_index, uniform

# Slots of the Gumbel parameters (float64).
G_C_VISIT, G_C_SCALE, G_RESCALE, G_GUMBEL_SCALE = range(4)
NUM_GUMBEL_PARAMS = 4
TINY = float(np.finfo(np.float64).tiny)
"""Floor of a prior before its logarithm, so that a zero prior gets a finite logit (as mctx)."""
RESCALE_EPSILON = 1e-8
"""Smallest denominator of the min-max rescaling (mctx's ``epsilon``)."""
NO_SOLVER = np.zeros(NUM_PARAMS)
"""`mcts_tree` parameters for the reused expansion and backup: only ``P_SOLVER`` (off) is read."""


@dataclass(frozen=True, kw_only=True)
class GumbelConfig:
    """Knobs of `Gumbel` and `MultiTreeGumbel` (defaults: Danihelka et al. 2022 and mctx).

    * ``simulations`` -- per search; the method is built for small budgets, 16 by default;
    * ``max_num_considered_actions`` -- ``m``, root actions sampled without replacement by Gumbel-top-k
      (16: mctx's ``gumbel_muzero_policy`` default);
    * ``c_visit``, ``c_scale`` -- ``sigma(q) = (c_visit + max_b N(b)) * c_scale * q``: ``c_visit = 50``
      and ``c_scale = 1`` as in the paper; mctx's ``qtransform_completed_by_mix_value`` defaults to
      ``maxvisit_init = 50`` and ``value_scale = 0.1``, a softer improved policy;
    * ``rescale_values`` -- min-max normalise the completed Q-values over a node's children to [0, 1]
      before ``sigma`` (mctx's default; the paper's Q-values lie in [0, 1]);
    * ``gumbel_scale`` -- multiplies the Gumbel noise: 1 samples actions as the paper does (self-play),
      0 makes the search deterministic (mctx suggests it for evaluation in perfect-information games).
    """

    simulations: int = 16
    max_num_considered_actions: int = 16
    c_visit: float = 50.0
    c_scale: float = 1.0
    rescale_values: bool = True
    gumbel_scale: float = 1.0

    def __post_init__(self) -> None:
        for name in ("simulations", "max_num_considered_actions"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1, got {getattr(self, name)}")
        for name in ("c_visit", "c_scale", "gumbel_scale"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} must be non-negative, got {getattr(self, name)}")

    def params(self) -> np.ndarray:
        """The float64 parameter slots read by the compiled operations."""
        params = np.zeros(NUM_GUMBEL_PARAMS)
        params[G_C_VISIT], params[G_C_SCALE] = self.c_visit, self.c_scale
        params[G_RESCALE], params[G_GUMBEL_SCALE] = self.rescale_values, self.gumbel_scale
        return params


def halving_schedule(num_considered: int, simulations: int) -> tuple[np.ndarray, np.ndarray]:
    """Sequential Halving's plan for ``simulations`` over ``num_considered`` root actions:
    ``(slots, survivors)``, int64[simulations]. Simulation ``i`` visits the action ranked
    ``slots[i]`` among the ``survivors[i]`` best; a round starts where ``slots[i] == 0`` and the
    actions are ranked again there.

    A phase with ``m`` survivors repeats its round ``max(1, floor(n / (ceil(log2 k) * m)))`` times
    (Danihelka et al. 2022, Sequential Halving with Gumbel), then halves ``m`` (never below 2, nor
    below ``k``); as in mctx, phases go on until the budget is spent, the last round possibly cut
    short."""
    phases = max(1, math.ceil(math.log2(num_considered)))
    floor = min(2, num_considered)
    slots: list[int] = []
    survivors: list[int] = []
    alive = num_considered
    while len(slots) < simulations:
        rounds = max(1, simulations // (phases * alive))
        slots.extend(list(range(alive)) * rounds)
        survivors.extend([alive] * (alive * rounds))
        alive = max(floor, alive // 2)
    return np.array(slots[:simulations], dtype=np.int64), np.array(survivors[:simulations], dtype=np.int64)


def tree_rng_state(seed: int, index: int) -> np.ndarray:
    """The PRNG state (``uint64[4]``, see `rlgames.search.rng`) of tree ``index`` under ``seed``:
    independent streams for every pair, from numpy's `SeedSequence`."""
    return np.random.SeedSequence([seed % 2**64, index]).generate_state(4, np.uint64)


class GumbelArrays(NamedTuple):
    """The search state kept beside a `Tree` of ``T`` trees of ``N`` nodes (``A`` = ``max_actions``):

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


class GumbelOps(NamedTuple):
    """The compiled operations of `make_gumbel_ops`."""

    next_leaf: Callable[..., int]
    select_batch: Callable[..., tuple[int, int]]
    finish_batch: Callable[..., None]
    summarize: Callable[..., None]


@functools.cache
def make_gumbel_ops(kernels: GameKernels, state_size: int) -> GumbelOps:
    """Gumbel selection over `mcts_tree`'s arrays for one game, compiled on first call and kept."""
    tree_ops = make_tree_ops(kernels, state_size)
    expand_and_backup_batch = tree_ops.expand_and_backup_batch
    apply, chance_outcomes = kernels.apply, kernels.chance_outcomes
    S, A = state_size, kernels.max_actions

    @njit
    def expand_chance(tree, t, node, s):
        """Adds the outcomes of chance node ``node`` (priors = probabilities), as `mcts_tree` does."""
        n = chance_outcomes(s, tree.actions, tree.probs)
        first = tree.meta[t, SIZE]
        if first + n > tree.nodes.shape[1]:
            raise RuntimeError("Gumbel tree is full: the driver must grow it before searching on")
        for i in range(n):
            c = first + i
            tree.nodes[t, c] = 0
            tree.nodes[t, c, PARENT], tree.nodes[t, c, FIRST] = node, -1
            tree.nodes[t, c, ACTION], tree.nodes[t, c, POV] = tree.actions[i], tree.nodes[t, node, POV]
            tree.stats[t, c, VALUE], tree.stats[t, c, PRIOR] = 0.0, tree.probs[i]
        tree.nodes[t, node, FIRST], tree.nodes[t, node, COUNT] = first, n
        tree.meta[t, SIZE] = first + n

    @njit(inline="always")
    def children_sigma(tree, g, t, node, out):
        first, count = tree.nodes[t, node, FIRST], tree.nodes[t, node, COUNT]
        children = slice(first, first + count)
        completed_sigma(tree.stats[t, children, PRIOR], tree.nodes[t, children, VISITS],
                        tree.stats[t, children, VALUE], g.raw[t, node], g.params, out)

    @njit(inline="always")
    def draw_noise(tree, g, t, rng):
        for i in range(tree.nodes[t, 0, COUNT]):
            g.noise[t, i] = g.params[G_GUMBEL_SCALE] * gumbel(rng)
            g.ranked[t, i] = i
        g.alive[t] = tree.nodes[t, 0, COUNT]

    @njit(inline="always")
    def root_child(tree, g, t, scratch):
        """The root child of this simulation in the Sequential Halving plan; the survivors are ranked
        by ``g + logits + sigma`` at the start of every round."""
        first, count = tree.nodes[t, 0, FIRST], tree.nodes[t, 0, COUNT]
        k = min(count, g.slots.shape[0])
        slot = g.slots[k - 1, g.done[t]]
        if slot == 0:
            sigma = scratch[0, :count]
            children_sigma(tree, g, t, 0, sigma)
            alive = g.alive[t]
            keys = np.empty(alive)
            for j in range(alive):
                i = g.ranked[t, j]
                keys[j] = -(g.noise[t, i] + logit(tree.stats[t, first + i, PRIOR]) + sigma[i])
            order = np.argsort(keys, kind="mergesort")  # stable: ties keep the earlier order
            ranked = g.ranked[t, :alive].copy()
            for j in range(alive):
                g.ranked[t, j] = ranked[order[j]]
            g.alive[t] = g.survivors[k - 1, g.done[t]]
        return first + g.ranked[t, slot]

    @njit(inline="always")
    def interior_child(tree, g, t, node, scratch):
        """The child maximising ``pi'(a) - N(a) / (1 + sum N)``, ``pi' = softmax(logits + sigma)``."""
        first, count = tree.nodes[t, node, FIRST], tree.nodes[t, node, COUNT]
        sigma = scratch[0, :count]
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

    @njit(inline="always")
    def descend(tree, g, t, rng, scratch):
        """The leaf of one simulation; adds a virtual loss on the path (removed by the backup)."""
        nodes, states = tree.nodes, tree.states
        node, depth = 0, 0
        while True:
            s = to_fixed_tuple(states[t, node], S)
            if s[0] == TERMINAL:
                break
            if nodes[t, node, FIRST] < 0:
                if s[0] != CHANCE:
                    break
                expand_chance(tree, t, node, s)
            if s[0] == CHANCE:
                first, count = nodes[t, node, FIRST], nodes[t, node, COUNT]
                child = first + sample_index(rng, tree.stats[t, first : first + count, PRIOR], count)
            elif node == 0:
                child = root_child(tree, g, t, scratch)
            else:
                child = interior_child(tree, g, t, node, scratch)
            nodes[t, node, VIRTUAL] += 1
            if nodes[t, child, READY] == 0:
                s2 = apply(s, nodes[t, child, ACTION])
                for i in range(S):
                    states[t, child, i] = s2[i]
                nodes[t, child, READY] = 1
            node = child
            depth += 1
        nodes[t, node, VIRTUAL] += 1
        tree.meta[t, MAX_DEPTH] = max(tree.meta[t, MAX_DEPTH], depth)
        return node

    @njit
    def next_leaf(tree, g, t, rng, scratch):
        """The next leaf to evaluate in tree ``t``: its unexpanded root first, then one per simulation;
        -1 once the budget is spent."""
        if tree.nodes[t, 0, FIRST] < 0:
            tree.nodes[t, 0, VIRTUAL] += 1
            return 0
        if g.done[t] >= g.slots.shape[1]:
            return -1
        if g.alive[t] == 0:
            draw_noise(tree, g, t, rng)
        leaf = descend(tree, g, t, rng, scratch)
        g.done[t] += 1
        return leaf

    @njit
    def select_batch(tree, g, rngs, leaves, owners, rows, leaf_states):
        """One leaf per unfinished tree (`next_leaf`): leaf ``j`` is node ``leaves[j]`` of tree
        ``owners[j]`` and ``rows[j]`` its row in ``leaf_states``, or -1 when terminal. Returns
        ``(leaves, evaluations)``."""
        scratch = np.empty((1, A))
        count = evaluations = 0
        for t in range(tree.nodes.shape[0]):
            leaf = next_leaf(tree, g, t, rngs[t], scratch)
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
        """Expands and backs up the leaves of `select_batch` (`mcts_tree`'s operation) and keeps the
        evaluator's values of the expanded ones."""
        expand_and_backup_batch(tree, NO_SOLVER, count, leaves, owners, rows, values, priors, use_priors)
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
            completed_q(tree.stats[t, children, PRIOR], nodes[t, children, VISITS],
                        tree.stats[t, children, VALUE], g.raw[t, 0], q)
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

    return GumbelOps(next_leaf, select_batch, finish_batch, summarize)


@functools.cache
def make_gumbel_run(kernels: GameKernels, state_size: int, kernel: Callable[..., float]) -> Callable[..., bool]:
    """A compiled ``run(tree, g, rngs) -> finished`` doing every tree's search (tree ``t`` drawing from
    ``rngs[t]``) with the evaluator kernel ``kernel`` and uniform priors. It stops early, returning
    False, when a tree has fewer than `reserve_per_simulation` free nodes (the driver grows the trees
    and calls again; finished trees are skipped)."""
    tree_ops = make_tree_ops(kernels, state_size)
    expand, known_value, backup = tree_ops.expand, tree_ops.known_value, tree_ops.backup
    next_leaf = make_gumbel_ops(kernels, state_size).next_leaf
    evaluate = kernel
    S, A, reserve = state_size, kernels.max_actions, reserve_per_simulation(kernels)

    @njit
    def run(tree, g, rngs):
        scratch = np.empty((1, A))
        for t in range(tree.nodes.shape[0]):
            while g.done[t] < g.slots.shape[1]:
                if tree.meta[t, SIZE] + reserve > tree.nodes.shape[1]:
                    return False
                leaf = next_leaf(tree, g, t, rngs[t], scratch)
                known, result = known_value(tree, t, leaf)
                if not known:
                    s = to_fixed_tuple(tree.states[t, leaf], S)
                    expand(tree, t, leaf, s)
                    value = min(1.0, max(-1.0, evaluate(s)))
                    g.raw[t, leaf] = value
                    result = value if s[0] == 0 else -value
                backup(tree, t, leaf, result, False)
        return True

    return run


class MultiTreeGumbel:
    """Many Gumbel searches stepped together, one tree per state: `search_many` returns one
    `SearchResult` per state. Tree ``t`` draws its noise and chance outcomes from the stream
    `tree_rng_state` ``(seed, t)``."""

    def __init__(self, config: GumbelConfig, evaluator: Evaluator, *, seed: int) -> None:
        if evaluator is None:
            raise ValueError("Gumbel search needs an evaluator: its priors drive the root's sampling")
        self.config = config
        self.evaluator = evaluator
        self._batched = evaluator.kernel is None
        self._params = config.params()
        self._game: Game | None = None
        self._tree: Tree | None = None
        self.seed(seed)

    def seed(self, seed: int) -> None:
        """Restarts every tree's PRNG stream from ``seed``."""
        self._seed = seed
        self._rngs = np.zeros((0, 4), dtype=np.uint64)

    def reset(self) -> None:
        """Frees the trees' arrays. Every search starts a fresh tree anyway, so no result changes."""
        self._game = self._tree = None

    def search_many(self, states: Sequence[State]) -> list[SearchResult]:
        """Searches every state (each with a player to move) with ``config.simulations`` simulations;
        the stats' ``time_s`` is the time of the whole call."""
        start = time.perf_counter()
        self._prepare(states)
        batches = self._simulate_batched() if self._batched else self._simulate_compiled()
        return self._results(batches, time.perf_counter() - start)

    def root_visit_counts(self, index: int = 0) -> np.ndarray:
        """int64[num_actions]: the visits of each root action of tree ``index`` in the last search."""
        return root_visit_counts(self._tree, index, self._game.num_actions)

    def advance(self, index: int, action: int) -> None:
        """Nothing to keep: every search starts a fresh tree."""

    def play_action(self, index: int, result: SearchResult, explore: bool, rng: np.random.Generator) -> int:
        """The self-play move: when ``explore``, drawn from the root's visit counts; else the improved
        policy's most likely move. Not the Sequential Halving choice, whose noise barely matters once
        ``sigma(completed Q)`` (about 50 logits between best and worst) dominates: on tic-tac-toe, playing
        it in the opening made every self-play game the same draw within 30 iterations, whereas
        Sequential Halving's visits are spread over the considered actions."""
        if not explore:
            return int(np.argmax(result.policy))
        visits = self.root_visit_counts(index).astype(np.float64)
        return int(rng.choice(len(visits), p=visits / visits.sum()))

    # --- setting up ---------------------------------------------------------------------------------
    def _prepare(self, states: Sequence[State]) -> None:
        game = check_roots(states, "Gumbel search")
        if self._tree is None or game != self._game or self._tree.meta.shape[0] != len(states):
            self._build(game, len(states))
        for t, state in enumerate(states):
            reset_root(self._tree, t, state.compact)
        arrays = self._arrays
        arrays.alive[:] = arrays.done[:] = 0
        for index in range(len(self._rngs), len(states)):
            self._rngs = np.vstack([self._rngs, tree_rng_state(self._seed, index)])

    def _build(self, game: Game, num_trees: int) -> None:
        kernels, n = game.kernels, self.config.simulations
        state_size = len(game.initial_compact_state())
        capacity = min(INITIAL_CAPACITY, 1 + (n + 1) * reserve_per_simulation(kernels))
        considered = min(self.config.max_num_considered_actions, kernels.max_actions)
        plans = [halving_schedule(k, n) for k in range(1, considered + 1)]
        self._game = game
        self._tree = new_tree(num_trees, capacity, state_size, kernels.max_actions)
        self._arrays = GumbelArrays(
            raw=np.zeros((num_trees, capacity)),
            noise=np.zeros((num_trees, kernels.max_actions)),
            ranked=np.zeros((num_trees, kernels.max_actions), dtype=np.int64),
            alive=np.zeros(num_trees, dtype=np.int64),
            done=np.zeros(num_trees, dtype=np.int64),
            slots=np.stack([slots for slots, _ in plans]),
            survivors=np.stack([survivors for _, survivors in plans]),
            params=self._params,
        )
        self._ops = make_gumbel_ops(kernels, state_size)
        self._reserve = reserve_per_simulation(kernels)
        if not self._batched:
            self._run = make_gumbel_run(kernels, state_size, self.evaluator.kernel)

    def _grow(self) -> None:
        """Doubles every tree's room (the tree arrays and the node values beside them)."""
        capacity = 2 * self._tree.nodes.shape[1]
        self._tree = grow(self._tree, capacity)
        raw = np.zeros((self._arrays.raw.shape[0], capacity))
        raw[:, : self._arrays.raw.shape[1]] = self._arrays.raw
        self._arrays = self._arrays._replace(raw=raw)

    # --- running simulations -----------------------------------------------------------------------
    def _simulate_compiled(self) -> int:
        while not self._run(self._tree, self._arrays, self._rngs):
            self._grow()
        return 0

    def _simulate_batched(self) -> int:
        num_trees = self._tree.meta.shape[0]
        leaves, owners, rows = (np.empty(num_trees, dtype=np.int64) for _ in range(3))
        leaf_states = np.empty((num_trees, self._tree.states.shape[2]), dtype=np.int64)
        batches = 0
        while True:
            unfinished = self._tree.meta[self._arrays.done < self.config.simulations, SIZE]
            if len(unfinished) and unfinished.max() + self._reserve > self._tree.nodes.shape[1]:
                self._grow()
            count, evaluations = self._ops.select_batch(
                self._tree, self._arrays, self._rngs, leaves, owners, rows, leaf_states)
            if count == 0:
                return batches
            values, priors = self._evaluate(leaf_states[:evaluations])
            batches += evaluations > 0
            self._ops.finish_batch(self._tree, self._arrays, count, leaves, owners, rows, values,
                                   priors, len(priors) > 0)

    def _evaluate(self, leaf_states: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(values, priors)`` of the evaluator for a batch of compact states; no rows of priors when
        there are no states or the evaluator gives none."""
        game, n = self._game, len(leaf_states)
        no_priors = np.zeros((0, game.num_actions))
        if n == 0:
            return np.zeros(0), no_priors
        states = [game.state_class(game, tuple(row)) for row in leaf_states.tolist()]
        values, priors = self.evaluator.evaluate_batch(states)
        values = np.ascontiguousarray(values, dtype=np.float64)
        if values.shape != (n,):
            raise ValueError(f"evaluate_batch returned values of shape {values.shape}, expected ({n},)")
        if priors is None:
            return values, no_priors
        priors = np.ascontiguousarray(priors, dtype=np.float64)
        if priors.shape != (n, game.num_actions):
            raise ValueError(f"evaluate_batch returned priors of shape {priors.shape}, "
                             f"expected ({n}, {game.num_actions})")
        return values, priors

    # --- reading the trees --------------------------------------------------------------------------
    def _children(self, t: int, node: int) -> slice:
        return children(self._tree, t, node)

    def _results(self, batches: int, elapsed: float) -> list[SearchResult]:
        tree, arrays = self._tree, self._arrays
        num_trees = tree.meta.shape[0]
        policies = np.zeros((num_trees, self._game.num_actions))
        lines = np.zeros((num_trees, int(tree.meta[:, MAX_DEPTH].max())), dtype=np.int64)
        values, lengths = np.zeros(num_trees), np.zeros(num_trees, dtype=np.int64)
        self._ops.summarize(tree, arrays, policies, values, lines, lengths)
        root_means = tree.stats[:, 0, VALUE] / tree.nodes[:, 0, VISITS]
        considered = np.minimum(tree.nodes[:, 0, COUNT], arrays.slots.shape[0])
        results = []
        for t in range(num_trees):
            simulations = int(arrays.done[t])
            extra = {
                "simulations_per_second": simulations / elapsed if elapsed > 0 else 0.0,
                "tree_nodes": float(tree.meta[t, SIZE]),
                "considered_actions": float(considered[t]),
                "root_mean": float(root_means[t]),
            }
            if self._batched:
                extra["batches"] = float(batches)
            stats = SearchStats(nodes=simulations, depth=int(tree.meta[t, MAX_DEPTH]), time_s=elapsed,
                                extra=extra)
            line = tuple(lines[t, : lengths[t]].tolist())
            results.append(SearchResult(action=line[0], value=float(values[t]) + 0.0, policy=policies[t],
                                        principal_variation=line, stats=stats))
        return results


class Gumbel:
    """Gumbel AlphaZero search from one state at a time (a `MultiTreeGumbel` of one tree)::

        gumbel = Gumbel(GumbelConfig(simulations=16), evaluator, seed=0)
        result = gumbel.search(state)  # result.policy: the improved policy, a training target
    """

    def __init__(self, config: GumbelConfig, evaluator: Evaluator, *, seed: int) -> None:
        self._trees = MultiTreeGumbel(config, evaluator, seed=seed)

    @property
    def config(self) -> GumbelConfig:
        return self._trees.config

    @property
    def evaluator(self) -> Evaluator:
        return self._trees.evaluator

    def seed(self, seed: int) -> None:
        """Restarts the PRNG stream from ``seed``."""
        self._trees.seed(seed)

    def reset(self) -> None:
        """Frees the tree's arrays (no result changes: every search starts afresh)."""
        self._trees.reset()

    def search(self, state: State) -> SearchResult:
        """Searches ``state`` (a player to move) with ``config.simulations`` simulations."""
        return self._trees.search_many([state])[0]

    def root_visit_counts(self) -> np.ndarray:
        """int64[num_actions]: the visits of each root action in the last search."""
        return self._trees.root_visit_counts(0)
