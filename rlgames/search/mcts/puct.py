"""Monte Carlo tree search: UCT with compiled random rollouts, PUCT with an evaluator, batched leaf
evaluation over one or many trees, tree reuse, the MCTS-solver and chance nodes.

The tree lives in preallocated arrays (`rlgames.search.mcts.tree`, grown against a timed search's
deadline by `rlgames.search.mcts.room`) and every tree operation is compiled (`rlgames.search.mcts.ops`,
with the UCB1/PUCT selection of `rlgames.search.mcts.selection`); this module holds the configuration and the
Python drivers. How a leaf is evaluated decides the loop:

* **No evaluator** -- random rollouts (``config.rollouts`` per leaf, their mean result), or a compiled
  playout given as ``rollout``: whole simulations run inside one compiled call (`rlgames.search.mcts.run`).
  In a game with a ``repetition`` kernel the random rollouts start from the keys of the leaf's history
  and path; a playout given as ``rollout`` sees only its own positions.
* **An evaluator with a compiled** ``kernel`` -- its values, inside the same compiled loop. The protocol
  has no compiled policy, so the priors are uniform (PUCT then explores by visit counts only).
* **An evaluator without a kernel** (a network) -- simulations run in batches of three phases: a
  compiled ``select_batch`` descends the trees with virtual losses and collects the leaves, one
  ``evaluator.evaluate_batch(states)`` call values them (and gives priors), and a compiled
  ``expand_and_backup_batch`` finishes. Each tree contributes up to ``config.batch_size`` leaves a
  batch; `MultiTreeMCTS.search_many` steps many trees (one per self-play game) together, so that a batch
  holds ``len(states) * batch_size`` leaves. With ``batch_size = 1`` a single search does exactly what
  the compiled loop does with an equal kernel. With ``config.expansion_threshold = N > 1`` (AlphaGo's
  ``n_thr``) and a playout (``rollout``, else random rollouts), ``select_batch`` values a leaf's first
  ``N - 1`` visits by one compiled playout each, and sends it to the evaluator on its N-th.

A search from a root of the tree it already holds continues that tree: `MCTS.advance` (or
`MultiTreeMCTS.advance`) moves the root to the child reached by an action -- a move or a chance
outcome -- and keeps its subtree; ``config.simulations`` more simulations are then run on top of the
visits kept. A search from any other state (or the same position reached by another history)
starts a fresh tree (the arrays are reused).

Results (`SearchResult`, `rlgames.search.mcts.result`): the value is the root's mean result for its
side to move (its exact value when the solver solved the root); the policy is the root's visit
distribution, zero on illegal actions (a move that repeats a position the rules forbid is never a
child); the action prefers a child proven winning, then the most visits (``temperature = 0``, ties to
the higher mean, children known to be worse last) or a draw from ``visits ** (1 / temperature)``; the
principal variation follows the most-visited children (the solved ones under a solved node) and stops
at a chance node. ``stats.nodes`` counts this search's simulations, ``stats.depth`` its deepest descent.
With forced playouts (``config.forced_playouts``) the policy is the visit distribution after KataGo's
policy target pruning (`rlgames.search.mcts.result.pruned_visits`).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence

import numpy as np

from rlgames.evaluators.base import Evaluator
from rlgames.game import Game, GameKernels, State
from rlgames.jit.entry import precompile
from rlgames.jit.rng import new_rng_state, next_u64
from rlgames.playout import make_buffered_playout, make_history_playout
from rlgames.search.mcts.config import (
    MCTSConfig,
)
from rlgames.search.mcts.drivers import OneTree, TreeDriver
from rlgames.search.mcts.ops import make_tree_ops
from rlgames.search.mcts.result import pruned_visits, search_result, visit_policy
from rlgames.search.mcts.room import TreeRoom
from rlgames.search.mcts.run import make_kernel_value, make_rollout_value, make_run
from rlgames.search.mcts.tree import (
    ACTION,
    COUNT,
    DEEPEST,
    FIRST,
    PRIOR,
    READY,
    SIZE,
    SOLVED,
    VISITS,
    compact_subtree,
    key_room,
    new_tree,
    reserve_per_simulation,
    set_history,
    with_key_room,
)
from rlgames.search.result import SearchResult

__all__ = ["INITIAL_CAPACITY", "MCTS", "TIME_CHUNK", "UNLIMITED", "MCTSConfig", "MultiTreeMCTS", "visit_policy"]

INITIAL_CAPACITY = 1024
"""Nodes per tree allocated at first; the arrays double whenever a search needs more."""
UNLIMITED = 2**62
"""Simulations of a search stopped only by its clock or by `MCTS.stop`."""
TIME_CHUNK = 256
"""Simulations per compiled call when a time limit is set (the clock is read between calls)."""


class MultiTreeMCTS(TreeDriver):
    """Many Monte Carlo searches stepped together, one tree per state: `search_many` returns one
    `SearchResult` per state. Tree ``i`` is kept for state ``i`` until a search gives another state
    there (`advance` moves its root along an action, keeping the subtree).

    ``evaluator=None`` evaluates leaves by random rollouts, or by ``rollout``, a compiled playout
    ``(s, rng_state, actions, probs) -> (s_terminal, plies)`` like `make_buffered_playout`'s. All
    randomness (chance outcomes, rollouts, noise, temperature) comes from one PRNG seeded by ``seed``.
    """

    def __init__(
        self,
        config: MCTSConfig = MCTSConfig(),
        evaluator: Evaluator | None = None,
        *,
        seed: int,
        rollout: Callable | None = None,
    ) -> None:
        if rollout is not None and evaluator is not None and config.expansion_threshold == 1:
            raise ValueError("rollout replaces the evaluator: give one or the other (or an expansion_threshold)")
        if config.expansion_threshold > 1 and (evaluator is None or evaluator.kernel is not None):
            raise ValueError("expansion_threshold needs an evaluator without a compiled kernel (a network)")
        if config.rave and evaluator is not None and evaluator.kernel is None:
            raise ValueError("rave needs leaves valued in compiled code: rollouts or an evaluator with a kernel")
        self.config = config
        self.evaluator = evaluator
        self._rollout = rollout
        self._batched = evaluator is not None and evaluator.kernel is None
        self._params = config.params()
        self._rng = new_rng_state(seed)
        self._stopped = False

    def seed(self, seed: int) -> None:
        """Restarts the PRNG from ``seed``."""
        self._rng = new_rng_state(seed)

    def reset(self) -> None:
        """Forgets the trees (the arrays are kept): the next search starts afresh."""
        if self._tree is not None:
            self._tree.meta[:, SIZE] = 0

    # --- the searches ---------------------------------------------------------------------------
    def search_many(self, states: Sequence[State], *, start: float | None = None) -> list[SearchResult]:
        """Searches every state (each with a player to move) with ``config.simulations`` simulations;
        the stats' ``time_s`` is the time of the whole call. ``start`` (a `time.perf_counter` reading,
        default now) is when the move's clock started: ``config.time_limit`` counts from there, so that
        a caller's work for the move (moving the root) is inside the budget."""
        start = time.perf_counter() if start is None else start
        self._stopped = False
        self._prepare(states)
        assert self._tree is not None and self._game is not None  # built by `_prepare`
        reused = self._tree.nodes[:, 0, VISITS].copy()
        self._tree.meta[:, DEEPEST] = 0
        done = np.zeros(len(states), dtype=np.int64)
        deadline = start + self.config.time_limit if self.config.time_limit is not None else math.inf
        if deadline < math.inf:
            self._tree = self._room.for_search(self._tree, deadline)
        sizes, started = self._tree.meta[:, SIZE].copy(), time.perf_counter()
        clean_priors = self._add_root_noise(done, deadline) if self.config.root_noise else None
        batches = self._simulate(self.config.simulations, done, deadline)
        if deadline < math.inf:
            self._room.searched(self._tree, sizes, time.perf_counter() - started)
        targets: list[np.ndarray | None] = [None] * len(states)
        if self.config.forced_playouts > 0:  # pruned under the priors that forced the visits
            targets = [pruned_visits(self._tree, t, self._params) for t in range(len(states))]
        if clean_priors is not None:  # the arrays may have grown: restore into the current ones
            for t, (first, priors) in enumerate(clean_priors):
                self._tree.stats[t, first : first + len(priors), PRIOR] = priors
        elapsed = time.perf_counter() - start
        results = []
        for t in range(len(states)):
            extra = {"simulations": done[t], "reused_visits": float(reused[t])}
            if self._batched:
                extra["batches"] = float(batches)
            temperature = self.config.temperature
            result = search_result(
                self._tree, t, self._game.num_actions, temperature, self._rng, elapsed, extra, targets[t]
            )
            results.append(result)
        return results

    def advance(self, index: int, action: int) -> None:
        """Moves the root of tree ``index`` along ``action`` (a move, or an outcome at a chance root),
        keeping the subtree below it; raises `IllegalActionError` for an illegal action."""
        tree = self._tree
        if tree is None or not 0 <= index < tree.meta.shape[0] or (root := self._roots[index]) is None:
            raise ValueError(f"no tree {index}: search first")
        assert self._game is not None  # built with the tree
        state = root.apply(action)
        child = self._child(index, 0, action) if tree.meta[index, SIZE] else -1
        self._tree = tree = with_key_room(tree, key_room(self._game, [state]))
        if child < 0:
            self._set_root(index, state)
            return
        self._room.move_root(tree, index, child)
        tree.states[index, 0] = state.compact
        tree.nodes[index, 0, READY] = 1
        set_history(tree, index, state.history())
        self._roots[index] = state

    def play_action(self, index: int, result: SearchResult, explore: bool, rng: np.random.Generator) -> int:
        """AlphaZero's self-play move: drawn from the visit distribution (temperature 1) when ``explore``
        and the search proved nothing, else the search's most-visited move."""
        if explore and result.plies_to_end is None:
            return int(rng.choice(len(result.policy), p=result.policy))
        return result.action

    # --- setting up ---------------------------------------------------------------------------------
    def _prepare(self, states: Sequence[State]) -> None:
        self._trees_for(states, "MCTS")
        assert self._tree is not None  # built by `_trees_for`
        for t, state in enumerate(states):
            if not (self._tree.meta[t, SIZE] and self._roots[t] == state):
                self._set_root(t, state)

    def _build(self, game: Game, num_trees: int) -> None:
        state_size = len(game.initial_compact_state())
        kernels = game.kernels
        self._game = game
        rave = {"num_actions": game.num_actions, "playout_room": game.max_game_length} if self.config.rave else {}
        self._tree = new_tree(num_trees, INITIAL_CAPACITY, state_size, kernels.max_actions, **rave)
        thresholded = self._batched and self.config.expansion_threshold > 1
        playouts = self._playout_value(kernels) if thresholded else None
        self._ops = make_tree_ops(kernels, state_size, playout_value=playouts)
        # compiled now rather than inside the first timed search that follows an `advance`
        precompile(compact_subtree, self._tree, 0, 0, np.zeros(1, dtype=np.int64))
        self._room = TreeRoom(reserve_per_simulation(kernels))
        if not self._batched:
            if self.evaluator is not None:
                leaf_value = make_kernel_value(self.evaluator.kernel)
            else:
                leaf_value = self._playout_value(kernels)
            self._run = make_run(kernels, state_size, leaf_value)

    def _playout_value(self, kernels: GameKernels) -> Callable[..., tuple]:
        """The compiled leaf value of one playout: ``rollout``'s, else random rollouts (from the leaf's
        history in a game with a ``repetition`` kernel)."""
        if self._rollout is not None:
            return make_rollout_value(self._rollout, kernels.max_return)
        if kernels.provides("repetition") and not self._batched:
            return make_rollout_value(make_history_playout(kernels), kernels.max_return, True)
        return make_rollout_value(make_buffered_playout(kernels), kernels.max_return)

    def _ensure_room(self, simulations_per_tree: int, deadline: float) -> bool:
        """Whether the trees have room for that many more simulations each, grown if need be (`TreeRoom`);
        False where growing them would not end before ``deadline``."""
        assert self._tree is not None  # built by `_prepare`
        grown = self._room.for_simulations(self._tree, simulations_per_tree, deadline)
        if grown is None:
            return False
        self._tree = grown
        return True

    # --- running simulations -----------------------------------------------------------------------
    def _simulate(self, target: int, done: np.ndarray, deadline: float) -> int:
        """Runs simulations until every tree has ``target`` (or a solved root) or the deadline passes;
        returns the number of evaluator batches."""
        if self._batched:
            return self._simulate_batched(target, done, deadline)
        self._simulate_compiled(target, done, deadline)
        return 0

    def _simulate_compiled(self, target: int, done: np.ndarray, deadline: float) -> None:
        chunk = target if deadline == math.inf and target < UNLIMITED else TIME_CHUNK
        active = list(range(len(done)))
        assert self._tree is not None  # built by `_prepare`
        while active:
            for t in list(active):
                if done[t] >= target or (self.config.solver and self._tree.nodes[t, 0, SOLVED]):
                    active.remove(t)
                    continue
                # one simulation at least; with no time left to grow the tree, the leaves stay unexpanded
                expanding = self._ensure_room(1, deadline if done[t] else math.inf)
                simulations = self._run(self._tree, t, self._params, self._rng, min(chunk, target - done[t]), expanding)
                done[t] += simulations
                if simulations == 0:  # a solved root, or a tree too full even for the chance outcomes
                    active.remove(t)
            if time.perf_counter() > deadline or self._stopped:
                return

    def _simulate_batched(self, target: int, done: np.ndarray, deadline: float) -> int:
        num_trees, per_tree = len(done), self.config.batch_size
        assert self._tree is not None  # built by `_prepare`
        leaves, owners, rows = (np.empty(num_trees * per_tree, dtype=np.int64) for _ in range(3))
        leaf_states = np.empty((num_trees * per_tree, self._tree.states.shape[2]), dtype=np.int64)
        budget = np.empty(num_trees, dtype=np.int64)
        batches = 0
        while True:
            np.maximum(target - done, 0, out=budget)
            if not self._ensure_room(per_tree, deadline if done.min() else math.inf):  # one batch at least
                return batches
            count, evaluations = self._ops.select_batch(
                self._tree, self._params, self._rng, budget, done, leaves, owners, rows, leaf_states
            )
            if count == 0:
                return batches
            values, priors, use_priors = self._evaluate(leaf_states[:evaluations])
            batches += evaluations > 0
            self._ops.expand_and_backup_batch(
                self._tree, self.config.solver, count, leaves, owners, rows, values, priors, use_priors
            )
            if time.perf_counter() > deadline or self._stopped:
                return batches

    def _add_root_noise(self, done: np.ndarray, deadline: float) -> list[tuple[int, np.ndarray]]:
        """Expands unexpanded roots (one simulation), then mixes Dirichlet noise into every root's
        priors; returns ``(first child, clean priors)`` per tree to restore them."""
        assert self._tree is not None  # built by `_prepare`
        tree = self._tree
        if (tree.nodes[:, 0, FIRST] < 0).any():
            self._simulate(1, done, deadline)
            tree = self._tree
        noise_rng = np.random.default_rng(int(next_u64(self._rng)))
        alpha, epsilon = self.config.dirichlet_alpha, self.config.dirichlet_epsilon
        clean = []
        for t in range(tree.meta.shape[0]):
            first, count = int(tree.nodes[t, 0, FIRST]), int(tree.nodes[t, 0, COUNT])
            priors = tree.stats[t, first : first + count, PRIOR].copy()
            noise = noise_rng.dirichlet(np.full(count, alpha))
            tree.stats[t, first : first + count, PRIOR] = (1.0 - epsilon) * priors + epsilon * noise
            clean.append((first, priors))
        return clean

    def _child(self, t: int, node: int, action: int) -> int:
        """The child of ``node`` reached by ``action``, or -1."""
        children = self._children(t, node)
        assert self._tree is not None  # built by the search before
        hits = np.flatnonzero(self._tree.nodes[t, children, ACTION] == action)
        return children.start + int(hits[0]) if len(hits) else -1


class MCTS(OneTree):
    """Monte Carlo tree search from one state at a time (a `MultiTreeMCTS` of one tree)::

    mcts = MCTS(MCTSConfig(simulations=2000), seed=0)  # UCT with random rollouts
    result = mcts.search(state)
    mcts.advance(result.action)  # keep the subtree for the next search
    """

    _trees: MultiTreeMCTS

    def __init__(
        self,
        config: MCTSConfig = MCTSConfig(),
        evaluator: Evaluator | None = None,
        *,
        seed: int,
        rollout: Callable | None = None,
    ) -> None:
        super().__init__(MultiTreeMCTS(config, evaluator, seed=seed, rollout=rollout))

    def search(self, state: State, *, start: float | None = None) -> SearchResult:
        """Searches ``state`` (a player to move), continuing the tree when ``state`` is its root;
        ``start`` as in `MultiTreeMCTS.search_many`."""
        return self._trees.search_many([state], start=start)[0]

    def advance(self, action: int) -> None:
        """Moves the root along ``action`` (a move, or an outcome at a chance root), keeping its subtree."""
        self._trees.advance(0, action)
