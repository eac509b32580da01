"""Readable reference searches over the `State` API: minimax and alpha-beta, in negamax form.

Both are exact references for the compiled search (`rlgames.search.alphabeta`) and for tests; they are
slow (a Python call per node). Values are from the point of view of the side to move:

* a terminal state is worth its return to the player who moved into it;
* with a depth limit, a non-terminal state at the limit is worth ``evaluator.value(state)``
  (H-MINIMAX of the lecture notes: ``Eval(s)`` if ``Is-Cutoff(s, d)``);
* a child's value is negated when the other player moves there, and kept when the same player moves
  again.

The state may be any object with the `State` methods used here (``current_player``, ``is_terminal``,
``is_chance_node``, ``legal_actions``, ``apply``, ``returns`` and ``game.num_actions``), so that tests
can search hand-built game trees. Chance nodes are not supported (use expectiminimax).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np

from rlgames.evaluators.base import Evaluator
from rlgames.game import State
from rlgames.search.result import SearchResult, SearchStats


@dataclass
class _Counters:
    nodes: int = 0
    cutoffs: int = 0


def minimax(state: State, *, depth: int | None = None, evaluator: Evaluator | None = None) -> SearchResult:
    """Plain minimax (negamax form) to ``depth`` plies, or to the end of the game when ``depth`` is None.

    Ties go to the first action in `State.legal_actions` order; the policy is one-hot on the action.
    """
    _check_root(state, depth, evaluator)
    counters = _Counters()
    start = time.perf_counter()
    value, line = _minimax(state, depth, evaluator, counters)
    return _result(state, value, line, counters, depth, time.perf_counter() - start)


def alphabeta(state: State, *, depth: int | None = None, evaluator: Evaluator | None = None) -> SearchResult:
    """Fail-soft alpha-beta (negamax form): the minimax value and move, visiting fewer nodes.

    Children are searched in `State.legal_actions` order, so the chosen action equals `minimax`'s.
    """
    _check_root(state, depth, evaluator)
    counters = _Counters()
    start = time.perf_counter()
    value, line = _alphabeta(state, depth, -math.inf, math.inf, evaluator, counters)
    return _result(state, value, line, counters, depth, time.perf_counter() - start)


def _minimax(state: State, depth: int | None, evaluator: Evaluator | None, counters: _Counters):
    """``(value from the side to move, principal variation)`` of a non-terminal state."""
    counters.nodes += 1
    if depth == 0:
        return evaluator.value(state), ()
    player = state.current_player()
    best, line = -math.inf, ()
    for action in state.legal_actions():
        child = state.apply(action)
        if child.is_terminal():
            counters.nodes += 1
            value, rest = child.returns()[player], ()
        else:
            value, rest = _minimax(child, None if depth is None else depth - 1, evaluator, counters)
            value = value if child.current_player() == player else -value
        if value > best:
            best, line = value, (action, *rest)
    return best, line


def _alphabeta(state: State, depth: int | None, alpha: float, beta: float, evaluator: Evaluator | None,
               counters: _Counters):
    """``(value, principal variation)``; the value is exact inside ``(alpha, beta)``, a bound outside."""
    counters.nodes += 1
    if depth == 0:
        return evaluator.value(state), ()
    player = state.current_player()
    best, line = -math.inf, ()
    for action in state.legal_actions():
        child = state.apply(action)
        next_depth = None if depth is None else depth - 1
        if child.is_terminal():
            counters.nodes += 1
            value, rest = child.returns()[player], ()
        elif child.current_player() == player:
            value, rest = _alphabeta(child, next_depth, alpha, beta, evaluator, counters)
        else:
            value, rest = _alphabeta(child, next_depth, -beta, -alpha, evaluator, counters)
            value = -value
        if value > best:
            best, line = value, (action, *rest)
            alpha = max(alpha, value)
            if alpha >= beta:
                counters.cutoffs += 1
                break
    return best, line


def _check_root(state: State, depth: int | None, evaluator: Evaluator | None) -> None:
    if state.is_terminal() or state.is_chance_node():
        raise ValueError("search needs a root where a player is to move (not terminal, not chance)")
    if depth is not None and (depth < 1 or evaluator is None):
        raise ValueError(f"a depth limit ({depth}) needs depth >= 1 and an evaluator for the cut-off")


def _result(state: State, value: float, line: tuple[int, ...], counters: _Counters, depth: int | None,
            elapsed: float) -> SearchResult:
    policy = np.zeros(state.game.num_actions, dtype=np.float64)
    policy[line[0]] = 1.0
    stats = SearchStats(nodes=counters.nodes, depth=len(line) if depth is None else depth,
                        cutoffs=counters.cutoffs, time_s=elapsed)
    return SearchResult(action=line[0], value=float(value) + 0.0,  # + 0.0 turns -0.0 into 0.0
                        policy=policy, principal_variation=line, stats=stats)
