"""Gumbel AlphaZero search: policy improvement with few simulations (Danihelka, Guez, Schrittwieser &
Silver 2022, "Policy improvement by planning with Gumbel", ICLR), over MCTS's compiled tree and
operations (`rlgames.search.mcts.ops`) given Gumbel's two selection functions (`rlgames.search.mcts.gumbel_ops`),
generic over games and batched across many games like `MultiTreeMCTS`.

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
   probability, as in MCTS.
4. The leaf is evaluated (a terminal's return divided by the game's largest return, else the
   evaluator), expanded and backed up with MCTS's operations (no MCTS-solver: a solved child would break
   the visit schedule). In a game with a ``repetition`` kernel the expansion drops the moves that repeat
   a position the rules forbid and makes the drawn repetitions terminal, as MCTS's does.

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

import math
import time
from collections.abc import Sequence

import numpy as np

from rlgames.evaluators.base import Evaluator
from rlgames.game import Game, State
from rlgames.search.mcts.config import (
    GumbelConfig,
)
from rlgames.search.mcts.drivers import OneTree, TreeDriver
from rlgames.search.mcts.gumbel_ops import (
    GumbelArrays,
    completed_sigma,
    make_gumbel_ops,
    make_gumbel_run,
)
from rlgames.search.mcts.puct import INITIAL_CAPACITY
from rlgames.search.mcts.tree import (
    COUNT,
    DEEPEST,
    SIZE,
    VALUE,
    VISITS,
    grow,
    new_tree,
    reserve_per_simulation,
)
from rlgames.search.result import SearchResult, SearchStats

__all__ = ["Gumbel", "GumbelConfig", "MultiTreeGumbel", "completed_sigma", "halving_schedule", "tree_rng_state"]


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
    """The PRNG state (``uint64[4]``, see `rlgames.jit.rng`) of tree ``index`` under ``seed``:
    independent streams for every pair, from numpy's `SeedSequence`."""
    return np.random.SeedSequence([seed % 2**64, index]).generate_state(4, np.uint64)


class MultiTreeGumbel(TreeDriver):
    """Many Gumbel searches stepped together, one tree per state: `search_many` returns one
    `SearchResult` per state. Tree ``t`` draws its noise and chance outcomes from the stream
    `tree_rng_state` ``(seed, t)``."""

    evaluator: Evaluator

    def __init__(self, config: GumbelConfig, evaluator: Evaluator, *, seed: int) -> None:
        if evaluator is None:
            raise ValueError("Gumbel search needs an evaluator: its priors drive the root's sampling")
        self.config = config
        self.evaluator = evaluator
        self._batched = evaluator.kernel is None
        self._params = config.params()
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
        self._trees_for(states, "Gumbel search")
        for t, state in enumerate(states):
            self._set_root(t, state)
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
        assert self._tree is not None  # built by `_prepare`
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
        assert self._tree is not None  # built by `_prepare`
        num_trees = self._tree.meta.shape[0]
        leaves, owners, rows = (np.empty(num_trees, dtype=np.int64) for _ in range(3))
        leaf_states = np.empty((num_trees, self._tree.states.shape[2]), dtype=np.int64)
        batches = 0
        while True:
            unfinished = self._tree.meta[self._arrays.done < self.config.simulations, SIZE]
            if len(unfinished) and unfinished.max() + self._reserve > self._tree.nodes.shape[1]:
                self._grow()
            count, evaluations = self._ops.select_batch(
                self._tree, self._arrays, self._rngs, leaves, owners, rows, leaf_states
            )
            if count == 0:
                return batches
            values, priors, use_priors = self._evaluate(leaf_states[:evaluations])
            batches += evaluations > 0
            self._ops.finish_batch(self._tree, self._arrays, count, leaves, owners, rows, values, priors, use_priors)

    # --- reading the trees --------------------------------------------------------------------------
    def _results(self, batches: int, elapsed: float) -> list[SearchResult]:
        tree, arrays, game = self._tree, self._arrays, self._game
        assert tree is not None and game is not None  # built by `_prepare`
        num_trees = tree.meta.shape[0]
        policies = np.zeros((num_trees, game.num_actions))
        lines = np.zeros((num_trees, int(tree.meta[:, DEEPEST].max())), dtype=np.int64)
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
            stats = SearchStats(nodes=simulations, depth=int(tree.meta[t, DEEPEST]), time_s=elapsed, extra=extra)
            line = tuple(lines[t, : lengths[t]].tolist())
            results.append(
                SearchResult(
                    action=line[0],
                    value=float(values[t]) + 0.0,
                    policy=policies[t],
                    principal_variation=line,
                    stats=stats,
                )
            )
        return results


class Gumbel(OneTree):
    """Gumbel AlphaZero search from one state at a time (a `MultiTreeGumbel` of one tree)::

    gumbel = Gumbel(GumbelConfig(simulations=16), evaluator, seed=0)
    result = gumbel.search(state)  # result.policy: the improved policy, a training target
    """

    _trees: MultiTreeGumbel

    def __init__(self, config: GumbelConfig, evaluator: Evaluator, *, seed: int) -> None:
        super().__init__(MultiTreeGumbel(config, evaluator, seed=seed))

    def search(self, state: State) -> SearchResult:
        """Searches ``state`` (a player to move) with ``config.simulations`` simulations."""
        return self._trees.search_many([state])[0]
