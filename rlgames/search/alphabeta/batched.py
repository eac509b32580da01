"""Alpha-beta over the `State` API for evaluators without a compiled kernel (networks), batching leaves.

A depth-limited fail-soft negamax alpha-beta (numpy only) that calls the evaluator only through
``evaluator.evaluate_batch``:

* **Sibling leaves in one batch.** A node one ply above the cut-off generates all its children and
  evaluates the non-terminal ones in one ``evaluate_batch`` call, then runs the alpha-beta loop over
  the values (a network evaluates a batch of 7 or 60 positions in little more than the time of one).
* **Move ordering by the parent's prior.** A node at least three plies above the cut-off also
  evaluates its non-terminal children in one call, for their priors only: each child orders its own
  children by its prior (stable, ties in `State.legal_actions` order). Nodes two plies above the
  cut-off need no priors for their children, whose leaves are all evaluated anyway. The root's prior
  (at depth >= 2) is ``root_prior`` or, when None, one evaluation of the root. An evaluator whose
  ``evaluate_batch`` returns no priors (None) is asked again only at the cut-off.
* **Scores** as in `rlgames.search.alphabeta.negamax`: the evaluator's value clipped to [-1, 1] at the cut-off,
  a terminal's scaled return, and ``±(WIN - p)`` for the largest win or loss ``p`` plies from the root, so that
  the result's
  value (the score clipped to [-1, 1]) equals `rlgames.search.reference.alphabeta`'s with the same
  evaluator, and a proven result reports ``plies_to_end``.
* **Budgets** (``max_nodes``, ``time_limit``) as in the compiled search: iterative deepening from depth
  1, the first iteration always completed, each later one abandoned as soon as a budget runs out (the
  clock is read at every node and before every evaluator call), and the result is the deepest completed
  iteration's. Each iteration searches the previous one's principal variation first. Without a budget
  the search runs ``depth`` once: shallower iterations would only cost evaluations, as there is no
  transposition table to carry their work over.

Chance nodes are not supported (use expectiminimax).
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from rlgames.evaluators.base import Evaluator
from rlgames.game import State
from rlgames.search.alphabeta.config import MAX_PLY
from rlgames.search.alphabeta.negamax import WIN
from rlgames.search.budget import OutOfBudget
from rlgames.search.reference import terminal_value
from rlgames.search.result import SearchResult, SearchStats


@dataclass
class _Search:
    """One search's evaluator, budgets (for the iteration under way) and counters."""

    evaluator: Evaluator
    node_limit: float = math.inf
    deadline: float = math.inf
    nodes: int = 0
    cutoffs: int = 0
    evaluations: int = 0
    batches: int = 0
    has_policy: bool = True

    def spend(self, nodes: int) -> None:
        """Raises `OutOfBudget` when ``nodes`` more nodes pass the node limit or the deadline has passed."""
        if self.nodes + nodes > self.node_limit or time.perf_counter() > self.deadline:
            raise OutOfBudget

    def evaluate(self, states: Sequence[State], leaves: bool) -> tuple[np.ndarray, np.ndarray | None]:
        """``(values float64[n], priors float64[n, A] or None)``; one evaluator call (``leaves``: the
        states are the search's leaves, nodes counted against the budget)."""
        self.spend(len(states) if leaves else 0)
        values, priors = self.evaluator.evaluate_batch(states)
        self.evaluations += len(states)
        self.batches += 1
        self.has_policy = priors is not None
        return values, priors

    def negamax(
        self,
        state: State,
        depth: int,
        ply: int,
        alpha: float,
        beta: float,
        prior: np.ndarray | None,
        pv: tuple[int, ...] = (),
    ) -> tuple[float, tuple[int, ...]]:
        """``(score from the side to move, principal variation)`` of a non-terminal ``state``; ``pv``
        (when the node lies on the previous iteration's line) is that line from here, searched first."""
        self.spend(1)
        self.nodes += 1
        player = state.current_player()
        actions = _ordered(state.legal_actions(), prior, pv[0] if pv else None)
        children = [state.apply(action) for action in actions]
        inner = [child for child in children if not child.is_terminal()]
        values: np.ndarray | None = None
        priors: np.ndarray | None = None
        if inner and (depth == 1 or (depth >= 3 and self.has_policy)):
            values, priors = self.evaluate(inner, leaves=depth == 1)
        line: tuple[int, ...]
        rest: tuple[int, ...]
        best, line, k = -math.inf, (), 0
        for action, child in zip(actions, children):
            if child.is_terminal():
                self.nodes += 1
                score, rest = terminal_value(child, player), ()
                if abs(score) == 1.0:  # the game's largest win or loss: proven, as in the compiled search
                    score = math.copysign(WIN - ply - 1, score)
            else:
                below = pv[1:] if pv and action == pv[0] else ()
                score, rest = self._child(child, player, depth, ply, alpha, beta, values, priors, k, below)
                k += 1
            if score > best:
                best, line = score, (action, *rest)
                alpha = max(alpha, score)
                if alpha >= beta:
                    self.cutoffs += 1
                    break
        return best, line

    def _child(
        self,
        child: State,
        player: int,
        depth: int,
        ply: int,
        alpha: float,
        beta: float,
        values: np.ndarray | None,
        priors: np.ndarray | None,
        k: int,
        pv: tuple[int, ...],
    ) -> tuple[float, tuple[int, ...]]:
        """The score, for ``player``, of the ``k``-th non-terminal child and its line."""
        same = child.current_player() == player
        if depth == 1:
            self.nodes += 1
            value = min(1.0, max(-1.0, float(values[k])))  # type: ignore[index]
            return (value if same else -value), ()
        prior = None if priors is None else priors[k]
        if same:
            return self.negamax(child, depth - 1, ply + 1, alpha, beta, prior, pv)
        score, rest = self.negamax(child, depth - 1, ply + 1, -beta, -alpha, prior, pv)
        return -score, rest


def _ordered(actions: list[int], prior: np.ndarray | None, first: int | None = None) -> list[int]:
    """``actions`` with ``first`` (when given) first, then by decreasing prior, ties (and everything,
    without a prior) in the given order."""
    if prior is not None:
        actions = sorted(actions, key=lambda action: -prior[action])
    if first is not None and first in actions:
        actions = [first] + [a for a in actions if a != first]
    return actions


def batched_alphabeta(
    state: State,
    *,
    depth: int | None,
    evaluator: Evaluator,
    root_prior: np.ndarray | None = None,
    max_nodes: int | None = None,
    time_limit: float | None = None,
) -> SearchResult:
    """Searches ``state`` to ``depth`` plies (None: to the end of the game, at most `MAX_PLY`), by
    iterative deepening when ``max_nodes`` or ``time_limit`` (seconds) bounds the search.

    The result's policy is one-hot on the action; ``stats.depth`` is the deepest completed iteration;
    ``stats.nodes`` counts every iteration's nodes; ``stats.extra`` counts ``evaluations`` (positions
    passed to the evaluator, including any its cache answers) and ``batches`` (evaluator calls).
    """
    game = state.game
    if state.is_terminal() or state.is_chance_node() or game.has_chance:
        raise ValueError(
            f"batched alpha-beta needs a root where a player is to move in a game without chance; got {state!r}"
        )
    depth = min(game.max_game_length, MAX_PLY) if depth is None else depth
    if not 1 <= depth <= MAX_PLY:
        raise ValueError(f"depth must be in [1, {MAX_PLY}], got {depth}")
    prior = _root_prior(game.num_actions, root_prior)
    search = _Search(evaluator)
    start = time.perf_counter()
    if prior is None and depth > 1:
        prior = _first(search.evaluate([state], leaves=False)[1])
    budgeted = max_nodes is not None or time_limit is not None
    best: tuple[float, tuple[int, ...], int] | None = None
    for iteration in range(1 if budgeted else depth, depth + 1):
        if best is not None:  # the first iteration always completes
            search.node_limit = math.inf if max_nodes is None else max_nodes
            search.deadline = math.inf if time_limit is None else start + time_limit
        try:
            score, line = search.negamax(state, iteration, 0, -math.inf, math.inf, prior, best[1] if best else ())
        except OutOfBudget:
            break
        best = (score, line, iteration)
        if abs(score) > 1.0 and WIN - abs(score) <= iteration:
            break  # a proven result within the horizon: deeper iterations cannot change it
    assert best is not None  # the first iteration always completes
    score, line, completed = best
    return _result(state, score, line, search, completed, time.perf_counter() - start)


def _root_prior(num_actions: int, root_prior: np.ndarray | None) -> np.ndarray | None:
    if root_prior is None:
        return None
    prior = np.asarray(root_prior, dtype=np.float64)
    if prior.shape != (num_actions,):
        raise ValueError(f"root_prior must have shape ({num_actions},), got {prior.shape}")
    return prior


def _first(priors: np.ndarray | None) -> np.ndarray | None:
    return None if priors is None else priors[0]


def _result(
    state: State, score: float, line: tuple[int, ...], search: _Search, depth: int, elapsed: float
) -> SearchResult:
    policy = np.zeros(state.game.num_actions, dtype=np.float64)
    policy[line[0]] = 1.0
    stats = SearchStats(
        nodes=search.nodes,
        depth=depth,
        cutoffs=search.cutoffs,
        time_s=elapsed,
        extra={"evaluations": search.evaluations, "batches": search.batches},
    )
    proven = abs(score) > 1.0
    return SearchResult(
        action=line[0],
        value=float(min(1.0, max(-1.0, score))) + 0.0,
        policy=policy,
        principal_variation=line,
        stats=stats,
        plies_to_end=round(WIN - abs(score)) if proven else None,
    )
