"""Monte Carlo tree search: UCT with compiled random rollouts, PUCT with an evaluator, batched leaf
evaluation over one or many trees, tree reuse, the MCTS-solver and chance nodes.

The tree lives in preallocated arrays and every tree operation is compiled (`rlgames.search.mcts_tree`);
this module holds the configuration and the Python drivers. How a leaf is evaluated decides the loop:

* **No evaluator** -- random rollouts (``config.rollouts`` per leaf, their mean result), or a compiled
  playout given as ``rollout``: whole simulations run inside one compiled call.
* **An evaluator with a compiled** ``kernel`` -- its values, inside the same compiled loop. The protocol
  has no compiled policy, so the priors are uniform (PUCT then explores by visit counts only).
* **An evaluator without a kernel** (a network) -- simulations run in batches of three phases: a
  compiled ``select_batch`` descends the trees with virtual losses and collects the leaves, one
  ``evaluator.evaluate_batch(states)`` call values them (and gives priors), and a compiled
  ``expand_and_backup_batch`` finishes. Each tree contributes up to ``config.batch_size`` leaves a
  batch; `MultiTreeMCTS.search_many` steps many trees (one per self-play game) together, so that a batch
  holds ``len(states) * batch_size`` leaves. With ``batch_size = 1`` a single search does exactly what
  the compiled loop does with an equal kernel.

A search from a root of the tree it already holds continues that tree: `MCTS.advance` (or
`MultiTreeMCTS.advance`) moves the root to the child reached by an action -- a move or a chance
outcome -- and keeps its subtree; ``config.simulations`` more simulations are then run on top of the
visits kept. A search from any other state starts a fresh tree (the arrays are reused).

Results (`SearchResult`): the value is the root's mean result for its side to move (the proven result
when the solver proved the root); the policy is the root's visit distribution, zero on illegal actions;
the action prefers a child proven winning, then the most visits (``temperature = 0``, ties to the higher
mean, proven losses last) or a draw from ``visits ** (1 / temperature)`` (see `visit_policy`); the
principal variation follows the most-visited children (the proven ones under a proven node) and stops at
a chance node. ``stats.nodes`` counts this search's simulations, ``stats.depth`` its deepest selection.
"""

from __future__ import annotations

import functools
import math
import time
from dataclasses import dataclass
from typing import Callable, Literal, Sequence

import numpy as np
from numba import njit

from rlgames.evaluators.base import Evaluator
from rlgames.game import CHANCE, TERMINAL, Game, State, precompile
from rlgames.search.mcts_tree import (
    ACTION,
    COUNT,
    FIRST,
    MAX_DEPTH,
    NODE_COLUMNS,
    NUM_PARAMS,
    P_C,
    P_C_BASE,
    P_PUCT,
    P_ROLLOUTS,
    P_SOLVER,
    P_UNVISITED,
    POV,
    PRIOR,
    PROVEN,
    PROVEN_DRAW,
    PROVEN_LOSS,
    PROVEN_WIN,
    READY,
    SIZE,
    STAT_COLUMNS,
    UNPROVEN,
    VALUE,
    VISITS,
    Tree,
    check_roots,
    children,
    grow,
    make_run,
    make_tree_ops,
    new_tree,
    reserve_per_simulation,
    reset_root,
    root_visit_counts,
)
from rlgames.search.playout import make_buffered_playout
from rlgames.search.result import SearchResult, SearchStats
from rlgames.search.rng import new_rng_state, next_u64, sample_index

INITIAL_CAPACITY = 1024
"""Nodes per tree allocated at first; the arrays double whenever a search needs more."""
TIME_CHUNK = 256
"""Simulations per compiled call when a time limit is set (the clock is read between calls)."""


@dataclass(frozen=True, kw_only=True)
class MCTSConfig:
    """Knobs of `MCTS` and `MultiTreeMCTS`.

    * ``simulations`` -- per search (AlphaZero: 800, Silver et al. 2018); ``time_limit`` (seconds, or
      None) stops earlier;
    * ``selection`` -- ``"uct"``: UCB1 ``mean + uct_c * sqrt(ln N(parent) / N(child))``, unvisited children
      first (Kocsis & Szepesvari 2006). ``uct_c`` defaults to ``2 * sqrt(2)``: UCB1's ``sqrt(2)`` (Auer et
      al. 2002; the notes' ``C = 1.4`` for win rates in [0, 1]) rescaled to results in [-1, 1];
      OpenSpiel's MCTSBot uses 2. ``"puct"``: AlphaZero's ``Q + c(N) * P * sqrt(N(parent)) / (1 + N(child))``
      with ``c(N) = c_puct + log((1 + N + c_puct_base) / c_puct_base)``, ``c_puct = 1.25`` and
      ``c_puct_base = 19652`` (Silver et al. 2018, pseudocode; ``c_puct_base = None`` keeps ``c_puct``
      constant) and ``Q = unvisited_value`` for an unvisited child (0, as in that pseudocode);
    * ``rollouts`` -- random rollouts per leaf without an evaluator;
    * ``batch_size`` -- leaves per tree and batch for an evaluator without a compiled kernel (virtual
      losses keep them apart);
    * ``solver`` -- the MCTS-solver (Winands, Bjornsson & Saito 2008): proven wins, losses and draws
      are backed up and a proven root ends the search;
    * ``root_noise`` -- mixes ``Dirichlet(dirichlet_alpha)`` noise into the root priors with weight
      ``dirichlet_epsilon`` (AlphaZero: alpha 0.3 for chess, 0.15 shogi, 0.03 Go; epsilon 0.25). It
      acts through the priors, so under PUCT only; the stored priors are restored after the search;
    * ``temperature`` -- of the final move choice: 0 plays the most-visited child, T > 0 draws from
      ``visits ** (1 / T)`` (AlphaZero self-play: 1 for the first moves, then 0).
    """

    simulations: int = 800
    time_limit: float | None = None
    selection: Literal["uct", "puct"] = "uct"
    uct_c: float = 2.0 * math.sqrt(2.0)
    c_puct: float = 1.25
    c_puct_base: float | None = 19652.0
    unvisited_value: float = 0.0
    rollouts: int = 1
    batch_size: int = 1
    solver: bool = True
    root_noise: bool = False
    dirichlet_alpha: float = 0.3
    dirichlet_epsilon: float = 0.25
    temperature: float = 0.0

    def __post_init__(self) -> None:
        if self.selection not in ("uct", "puct"):
            raise ValueError(f"selection must be 'uct' or 'puct', got {self.selection!r}")
        for name in ("simulations", "rollouts", "batch_size"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1, got {getattr(self, name)}")
        for name in ("uct_c", "c_puct", "temperature"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} must be non-negative, got {getattr(self, name)}")
        if self.time_limit is not None and self.time_limit <= 0:
            raise ValueError(f"time_limit must be positive, got {self.time_limit}")
        if self.c_puct_base is not None and self.c_puct_base <= 0:
            raise ValueError(f"c_puct_base must be positive or None, got {self.c_puct_base}")
        if not -1.0 <= self.unvisited_value <= 1.0:
            raise ValueError(f"unvisited_value must be in [-1, 1], got {self.unvisited_value}")
        if self.dirichlet_alpha <= 0 or not 0.0 <= self.dirichlet_epsilon <= 1.0:
            raise ValueError("dirichlet_alpha must be positive and dirichlet_epsilon in [0, 1]")

    def params(self) -> np.ndarray:
        """The float64 parameter slots read by the compiled tree operations."""
        params = np.zeros(NUM_PARAMS, dtype=np.float64)
        puct = self.selection == "puct"
        params[P_C] = self.c_puct if puct else self.uct_c
        params[P_C_BASE] = self.c_puct_base or 0.0
        params[P_PUCT] = puct
        params[P_SOLVER] = self.solver
        params[P_UNVISITED] = self.unvisited_value
        params[P_ROLLOUTS] = self.rollouts
        return params


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


@functools.cache
def make_rollout_value(playout: Callable) -> Callable[..., float]:
    """A compiled leaf value: the mean player-0 result of ``rollouts`` calls of ``playout(s, rng,
    actions, probs) -> (s_terminal, plies)``."""
    run_playout = playout

    @njit
    def leaf_value(s, rng, actions, probs, rollouts):
        total = 0.0
        for _ in range(rollouts):
            end, _ = run_playout(s, rng, actions, probs)
            total += end[1]
        return total / rollouts

    return leaf_value


@functools.cache
def make_kernel_value(kernel: Callable) -> Callable[..., float]:
    """A compiled leaf value from an evaluator kernel (side to move), clipped and turned to player 0's."""
    evaluate = kernel

    @njit
    def leaf_value(s, rng, actions, probs, rollouts):
        value = min(1.0, max(-1.0, evaluate(s)))
        return value if s[0] == 0 else -value

    return leaf_value


class MultiTreeMCTS:
    """Many Monte Carlo searches stepped together, one tree per state: `search_many` returns one
    `SearchResult` per state. Tree ``i`` is kept for state ``i`` until a search gives another state
    there (`advance` moves its root along an action, keeping the subtree).

    ``evaluator=None`` evaluates leaves by random rollouts, or by ``rollout``, a compiled playout
    ``(s, rng_state, actions, probs) -> (s_terminal, plies)`` like `make_buffered_playout`'s. All
    randomness (chance outcomes, rollouts, noise, temperature) comes from one PRNG seeded by ``seed``.
    """

    def __init__(self, config: MCTSConfig = MCTSConfig(), evaluator: Evaluator | None = None, *, seed: int,
                 rollout: Callable | None = None) -> None:
        if rollout is not None and evaluator is not None:
            raise ValueError("rollout replaces the evaluator: give one or the other")
        self.config = config
        self.evaluator = evaluator
        self._rollout = rollout
        self._batched = evaluator is not None and evaluator.kernel is None
        self._params = config.params()
        self._rng = new_rng_state(seed)
        self._game: Game | None = None
        self._tree: Tree | None = None
        self._grow_seconds_per_node = 0.0  # measured at each growth, to keep one from passing a deadline

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
        self._prepare(states)
        reused = self._tree.nodes[:, 0, VISITS].copy()
        self._tree.meta[:, MAX_DEPTH] = 0
        done = np.zeros(len(states), dtype=np.int64)
        deadline = start + self.config.time_limit if self.config.time_limit is not None else math.inf
        clean_priors = self._add_root_noise(done, deadline) if self.config.root_noise else None
        batches = self._simulate(self.config.simulations, done, deadline)
        if clean_priors is not None:  # the arrays may have grown: restore into the current ones
            for t, (first, priors) in enumerate(clean_priors):
                self._tree.stats[t, first : first + len(priors), PRIOR] = priors
        elapsed = time.perf_counter() - start
        return [self._result(t, state, int(done[t]), int(reused[t]), batches, elapsed)
                for t, state in enumerate(states)]

    def advance(self, index: int, action: int) -> None:
        """Moves the root of tree ``index`` along ``action`` (a move, or an outcome at a chance root),
        keeping the subtree below it; raises `IllegalActionError` for an illegal action."""
        tree = self._tree
        if tree is None or not 0 <= index < tree.meta.shape[0]:
            raise ValueError(f"no tree {index}: search first")
        root = self._game.state_class(self._game, tuple(tree.states[index, 0].tolist()))
        compact = root.apply(action).compact
        child = self._child(index, 0, action)
        if child < 0:
            reset_root(tree, index, compact)
            return
        self._ops.compact_subtree(tree, index, child, *self._compaction_buffers(int(tree.meta[index, SIZE])))
        tree.states[index, 0] = compact
        tree.nodes[index, 0, READY] = 1

    def root_visit_counts(self, index: int = 0) -> np.ndarray:
        """int64[num_actions]: the visits of each root action of tree ``index`` (0 if unexpanded)."""
        return root_visit_counts(self._tree, index, self._game.num_actions)

    def play_action(self, index: int, result: SearchResult, explore: bool, rng: np.random.Generator) -> int:
        """AlphaZero's self-play move: drawn from the visit distribution (temperature 1) when ``explore``
        and the search proved nothing, else the search's most-visited move."""
        if explore and result.plies_to_end is None:
            return int(rng.choice(len(result.policy), p=result.policy))
        return result.action

    # --- setting up ---------------------------------------------------------------------------------
    def _prepare(self, states: Sequence[State]) -> None:
        game = check_roots(states, "MCTS")
        if self._tree is None or game != self._game or self._tree.meta.shape[0] != len(states):
            self._build(game, len(states))
        tree = self._tree
        for t, state in enumerate(states):
            if not (tree.meta[t, SIZE] and tuple(tree.states[t, 0].tolist()) == tuple(state.compact)):
                reset_root(tree, t, state.compact)

    def _build(self, game: Game, num_trees: int) -> None:
        state_size = len(game.initial_compact_state())
        self._game = game
        self._tree = new_tree(num_trees, INITIAL_CAPACITY, state_size, game.kernels.max_actions)
        self._ops = make_tree_ops(game.kernels, state_size)
        # compiled now rather than inside the first timed search that follows an `advance`
        precompile(self._ops.compact_subtree, self._tree, 0, 0, *self._compaction_buffers(1))
        self._reserve = reserve_per_simulation(game.kernels)
        if not self._batched:
            if self.evaluator is not None:
                leaf_value = make_kernel_value(self.evaluator.kernel)
            else:
                leaf_value = make_rollout_value(self._rollout or make_buffered_playout(game.kernels))
            self._run = make_run(game.kernels, state_size, leaf_value)

    def _compaction_buffers(self, size: int) -> tuple[np.ndarray, ...]:
        """Scratch arrays for `compact_subtree` of a tree of ``size`` nodes."""
        return (np.empty((size, NODE_COLUMNS), dtype=np.int64), np.empty((size, STAT_COLUMNS)),
                np.empty((size, self._tree.states.shape[2]), dtype=np.int64), np.empty(size, dtype=np.int64))

    def _ensure_room(self, simulations_per_tree: int, deadline: float) -> bool:
        """Grows the trees (doubling) unless each has room for that many more simulations; returns False,
        growing nothing, when the last growth's pace says this one would end after ``deadline``."""
        tree = self._tree
        needed = int(tree.meta[:, SIZE].max()) + simulations_per_tree * self._reserve
        capacity = tree.nodes.shape[1]
        if needed <= capacity:
            return True
        if time.perf_counter() + self._grow_seconds_per_node * capacity > deadline:
            return False
        started = time.perf_counter()
        self._tree = grow(tree, max(2 * capacity, needed))
        self._grow_seconds_per_node = (time.perf_counter() - started) / capacity
        return True

    # --- running simulations -----------------------------------------------------------------------
    def _simulate(self, target: int, done: np.ndarray, deadline: float) -> int:
        """Runs simulations until every tree has ``target`` (or a proven root) or the deadline passes;
        returns the number of evaluator batches."""
        if self._batched:
            return self._simulate_batched(target, done, deadline)
        self._simulate_compiled(target, done, deadline)
        return 0

    def _simulate_compiled(self, target: int, done: np.ndarray, deadline: float) -> None:
        chunk = target if deadline == math.inf else TIME_CHUNK
        active = list(range(len(done)))
        while active:
            for t in list(active):
                if done[t] >= target or (self.config.solver and self._tree.nodes[t, 0, PROVEN] != UNPROVEN):
                    active.remove(t)
                    continue
                if not self._ensure_room(1, deadline if done[t] else math.inf):  # one simulation at least
                    return
                done[t] += self._run(self._tree, t, self._params, self._rng, min(chunk, target - done[t]))
            if time.perf_counter() > deadline:
                return

    def _simulate_batched(self, target: int, done: np.ndarray, deadline: float) -> int:
        num_trees, per_tree = len(done), self.config.batch_size
        leaves, owners, rows = (np.empty(num_trees * per_tree, dtype=np.int64) for _ in range(3))
        leaf_states = np.empty((num_trees * per_tree, self._tree.states.shape[2]), dtype=np.int64)
        budget = np.empty(num_trees, dtype=np.int64)
        batches = 0
        while True:
            np.maximum(target - done, 0, out=budget)
            if not self._ensure_room(per_tree, deadline if done.min() else math.inf):  # one batch at least
                return batches
            count, evaluations = self._ops.select_batch(
                self._tree, self._params, self._rng, budget, done, leaves, owners, rows, leaf_states)
            if count == 0:
                return batches
            values, priors, use_priors = self._evaluate(leaf_states[:evaluations])
            batches += evaluations > 0
            self._ops.expand_and_backup_batch(
                self._tree, self._params, count, leaves, owners, rows, values, priors, use_priors)
            if time.perf_counter() > deadline:
                return batches

    def _evaluate(self, leaf_states: np.ndarray) -> tuple[np.ndarray, np.ndarray, bool]:
        """``(values, priors, use_priors)`` of the evaluator for a batch of compact states."""
        game, n = self._game, len(leaf_states)
        no_priors = np.zeros((0, game.num_actions))
        if n == 0:
            return np.zeros(0), no_priors, False
        states = [game.state_class(game, tuple(row)) for row in leaf_states.tolist()]
        values, priors = self.evaluator.evaluate_batch(states)
        values = np.ascontiguousarray(values, dtype=np.float64)
        if values.shape != (n,):
            raise ValueError(f"evaluate_batch returned values of shape {values.shape}, expected ({n},)")
        if priors is None:
            return values, no_priors, False
        priors = np.ascontiguousarray(priors, dtype=np.float64)
        if priors.shape != (n, game.num_actions):
            raise ValueError(f"evaluate_batch returned priors of shape {priors.shape}, "
                             f"expected ({n}, {game.num_actions})")
        return values, priors, True

    def _add_root_noise(self, done: np.ndarray, deadline: float) -> list[tuple[int, np.ndarray]]:
        """Expands unexpanded roots (one simulation), then mixes Dirichlet noise into every root's
        priors; returns ``(first child, clean priors)`` per tree to restore them."""
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

    # --- reading the tree ---------------------------------------------------------------------------
    def _children(self, t: int, node: int) -> slice:
        return children(self._tree, t, node)

    def _child(self, t: int, node: int, action: int) -> int:
        """The child of ``node`` reached by ``action``, or -1."""
        children = self._children(t, node)
        hits = np.flatnonzero(self._tree.nodes[t, children, ACTION] == action)
        return children.start + int(hits[0]) if len(hits) else -1

    def _proven_for_mover(self, t: int, node: int) -> int:
        """The PROVEN code of ``node`` from the point of view of its side to move."""
        nodes = self._tree.nodes
        code = int(nodes[t, node, PROVEN])
        if code == UNPROVEN or nodes[t, node, POV] == self._tree.states[t, node, 0]:
            return code
        return 2 * PROVEN_DRAW - code

    def _root_value(self, t: int) -> float:
        code = self._proven_for_mover(t, 0)
        if code != UNPROVEN:
            return float(code - PROVEN_DRAW)
        nodes, mean = self._tree.nodes, self._tree.stats[t, 0, VALUE] / self._tree.nodes[t, 0, VISITS]
        return float(mean if nodes[t, 0, POV] == self._tree.states[t, 0, 0] else -mean) + 0.0

    def _choose(self, t: int) -> int:
        """The root child to play: a proven win, else by visits and temperature, proven losses last."""
        children = self._children(t, 0)
        nodes, stats = self._tree.nodes[t, children], self._tree.stats[t, children]
        codes, visits = nodes[:, PROVEN], nodes[:, VISITS].astype(np.float64)
        wins = codes == PROVEN_WIN  # children keep the root mover's point of view
        candidates = wins if wins.any() else codes != PROVEN_LOSS
        if not candidates.any():
            candidates = np.ones(len(codes), dtype=bool)
        if self.config.temperature > 0 and not wins.any():
            weights = np.where(candidates, visits, 0.0)
            if weights.sum() == 0:
                weights = candidates.astype(np.float64)
            policy = visit_policy(weights, self.config.temperature)
            return children.start + int(sample_index(self._rng, policy, len(policy)))
        means = stats[:, VALUE] / np.maximum(visits, 1.0)
        order = np.lexsort((-means, -visits))  # most visits first, then the higher mean
        return children.start + int(next(i for i in order if candidates[i]))

    def _principal_variation(self, t: int, child: int) -> tuple[list[int], int]:
        """The line from the root through ``child``, and the node where it ends."""
        nodes, states = self._tree.nodes, self._tree.states
        line, node = [int(nodes[t, child, ACTION])], child
        while states[t, node, 0] not in (TERMINAL, CHANCE) and nodes[t, node, FIRST] >= 0:
            children = self._children(t, node)
            code = self._proven_for_mover(t, node)
            eligible = nodes[t, children, PROVEN] == code if code != UNPROVEN else nodes[t, children, VISITS] > 0
            if not eligible.any():
                break
            visits = np.where(eligible, nodes[t, children, VISITS], -1)
            node = children.start + int(np.argmax(visits))
            line.append(int(nodes[t, node, ACTION]))
        return line, node

    def _result(self, t: int, state: State, simulations: int, reused: int, batches: int,
                elapsed: float) -> SearchResult:
        tree, game = self._tree, self._game
        children = self._children(t, 0)
        visits = tree.nodes[t, children, VISITS].astype(np.float64)
        policy = np.zeros(game.num_actions, dtype=np.float64)
        weights = visits if visits.sum() > 0 else tree.stats[t, children, PRIOR]
        policy[tree.nodes[t, children, ACTION]] = weights / weights.sum()
        line, end = self._principal_variation(t, self._choose(t))
        value = self._root_value(t)
        proven = self._proven_for_mover(t, 0) != UNPROVEN and abs(value) == 1.0
        plies_to_end = len(line) if proven and tree.states[t, end, 0] == TERMINAL else None
        extra = {
            "simulations_per_second": simulations / elapsed if elapsed > 0 else 0.0,
            "tree_nodes": float(tree.meta[t, SIZE]),
            "root_visits": float(tree.nodes[t, 0, VISITS]),
            "reused_visits": float(reused),
        }
        if self._batched:
            extra["batches"] = float(batches)
        stats = SearchStats(nodes=simulations, depth=int(tree.meta[t, MAX_DEPTH]), time_s=elapsed, extra=extra)
        return SearchResult(action=line[0], value=value, policy=policy, principal_variation=tuple(line),
                            stats=stats, plies_to_end=plies_to_end)


class MCTS:
    """Monte Carlo tree search from one state at a time (a `MultiTreeMCTS` of one tree)::

        mcts = MCTS(MCTSConfig(simulations=2000), seed=0)  # UCT with random rollouts
        result = mcts.search(state)
        mcts.advance(result.action)  # keep the subtree for the next search
    """

    def __init__(self, config: MCTSConfig = MCTSConfig(), evaluator: Evaluator | None = None, *, seed: int,
                 rollout: Callable | None = None) -> None:
        self._trees = MultiTreeMCTS(config, evaluator, seed=seed, rollout=rollout)

    @property
    def config(self) -> MCTSConfig:
        return self._trees.config

    @property
    def evaluator(self) -> Evaluator | None:
        return self._trees.evaluator

    def seed(self, seed: int) -> None:
        """Restarts the PRNG from ``seed``."""
        self._trees.seed(seed)

    def reset(self) -> None:
        """Forgets the tree: the next search starts afresh."""
        self._trees.reset()

    def search(self, state: State, *, start: float | None = None) -> SearchResult:
        """Searches ``state`` (a player to move), continuing the tree when ``state`` is its root;
        ``start`` as in `MultiTreeMCTS.search_many`."""
        return self._trees.search_many([state], start=start)[0]

    def advance(self, action: int) -> None:
        """Moves the root along ``action`` (a move, or an outcome at a chance root), keeping its subtree."""
        self._trees.advance(0, action)

    def root_visit_counts(self) -> np.ndarray:
        """int64[num_actions]: the visits of each root action."""
        return self._trees.root_visit_counts(0)
