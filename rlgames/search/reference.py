"""Readable reference searches over the `State` API, as OpenSpiel keeps its in one ``minimax.py``: minimax
and alpha-beta in negamax form, and expectiminimax with chance nodes.

Both are exact references for the compiled search (`rlgames.search.alphabeta.driver`) and for tests; they are
slow (a Python call per node). Values are from the point of view of the side to move:

* a terminal state is worth its return to the player who moved into it, scaled into a value
  (`GameInfo.value`: ``return / max_return``);
* with a depth limit, a non-terminal state at the limit is worth ``evaluator.value(state)``
  (H-MINIMAX of the lecture notes: ``Eval(s)`` if ``Is-Cutoff(s, d)``), or with ``quiescence_depth``
  plies of quiescence, the best of standing pat on that value and playing one of
  `State.tactical_actions` (the compiled search's quiescence, written plainly);
* a child's value is negated when the other player moves there, and kept when the same player moves
  again.

The state may be any object with the `State` methods used here (``current_player``, ``is_terminal``,
``is_chance_node``, ``legal_actions``, ``apply``, ``returns``, ``game.num_actions`` and ``game.info``),
so that tests can search hand-built game trees. Chance nodes are not supported there: `expectiminimax`
(no pruning, no table) takes them, with the conventions of the compiled search
(`rlgames.search.expectiminimax.driver`), which also runs it for evaluators without a compiled kernel
(networks), under its `Budget`.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from rlgames.evaluators.base import Evaluator
from rlgames.game import CHANCE, TERMINAL, State
from rlgames.search.budget import OutOfBudget
from rlgames.search.result import SearchResult, SearchStats


@dataclass
class _Counters:
    nodes: int = 0
    cutoffs: int = 0
    quiescence_depth: int = 0


def terminal_value(child: State, player: int) -> float:
    """The value of terminal ``child`` for ``player``: its return scaled into [-1, 1]."""
    return child.game.info.value(child.returns()[player])


def quiescence(
    state: State, evaluator: Evaluator, plies: int, counters: _Counters | None = None
) -> tuple[float, tuple[int, ...]]:
    """``(value, line)`` of ``state`` past the horizon: the better of standing pat on the evaluator's
    value and each tactical move, for up to ``plies`` more plies."""
    if counters is not None:
        counters.nodes += 1
    line: tuple[int, ...]
    rest: tuple[int, ...]
    best, line = evaluator.value(state), ()
    if plies == 0:
        return best, line
    player = state.current_player()
    for action in state.tactical_actions():
        child = state.apply(action)
        if child.is_terminal():
            value, rest = terminal_value(child, player), ()
        else:
            value, rest = quiescence(child, evaluator, plies - 1, counters)
            value = value if child.current_player() == player else -value
        if value > best:
            best, line = value, (action, *rest)
    return best, line


def minimax(
    state: State, *, depth: int | None = None, evaluator: Evaluator | None = None, quiescence_depth: int = 0
) -> SearchResult:
    """Plain minimax (negamax form) to ``depth`` plies, or to the end of the game when ``depth`` is None.

    Ties go to the first action in `State.legal_actions` order; the policy is one-hot on the action.
    """
    _check_root(state, depth, evaluator)
    counters = _Counters(quiescence_depth=quiescence_depth)
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


def _minimax(
    state: State, depth: int | None, evaluator: Evaluator | None, counters: _Counters
) -> tuple[float, tuple[int, ...]]:
    """``(value from the side to move, principal variation)`` of a non-terminal state."""
    counters.nodes += 1
    if depth == 0:
        counters.nodes -= 1
        assert evaluator is not None  # a depth limit comes with one (_check_root)
        return quiescence(state, evaluator, counters.quiescence_depth, counters)
    player = state.current_player()
    line: tuple[int, ...]
    rest: tuple[int, ...]
    best, line = -math.inf, ()
    for action in state.legal_actions():
        child = state.apply(action)
        if child.is_terminal():
            counters.nodes += 1
            value, rest = terminal_value(child, player), ()
        else:
            value, rest = _minimax(child, None if depth is None else depth - 1, evaluator, counters)
            value = value if child.current_player() == player else -value
        if value > best:
            best, line = value, (action, *rest)
    return best, line


def _alphabeta(
    state: State, depth: int | None, alpha: float, beta: float, evaluator: Evaluator | None, counters: _Counters
) -> tuple[float, tuple[int, ...]]:
    """``(value, principal variation)``; the value is exact inside ``(alpha, beta)``, a bound outside."""
    counters.nodes += 1
    if depth == 0:
        assert evaluator is not None  # a depth limit comes with one (_check_root)
        return evaluator.value(state), ()
    player = state.current_player()
    line: tuple[int, ...]
    rest: tuple[int, ...]
    best, line = -math.inf, ()
    for action in state.legal_actions():
        child = state.apply(action)
        next_depth = None if depth is None else depth - 1
        if child.is_terminal():
            counters.nodes += 1
            value, rest = terminal_value(child, player), ()
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


def _result(
    state: State, value: float, line: tuple[int, ...], counters: _Counters, depth: int | None, elapsed: float
) -> SearchResult:
    policy = np.zeros(state.game.num_actions, dtype=np.float64)
    policy[line[0]] = 1.0
    stats = SearchStats(
        nodes=counters.nodes, depth=len(line) if depth is None else depth, cutoffs=counters.cutoffs, time_s=elapsed
    )
    return SearchResult(
        action=line[0],
        value=float(value) + 0.0,  # + 0.0 turns -0.0 into 0.0
        policy=policy,
        principal_variation=line,
        stats=stats,
    )


# --- expectiminimax -------------------------------------------------------------------------------

LOW, HIGH = -1.0, 1.0
INF = math.inf


class Budget(NamedTuple):
    """Nodes expectiminimax may still enter, and a `time.perf_counter` deadline."""

    nodes: float
    deadline: float


@dataclass
class _ChanceCounters:
    nodes: int = 0
    evaluations: int = 0
    budget: Budget | None = None
    by_turn: bool = False

    def enter(self) -> None:
        """Counts a node; raises `OutOfBudget` once the budget is spent."""
        self.nodes += 1
        budget = self.budget
        if budget is not None and (self.nodes > budget.nodes or time.perf_counter() > budget.deadline):
            raise OutOfBudget(self.nodes)


def expectiminimax(
    state: State,
    depth: int | None = None,
    evaluator: Evaluator | None = None,
    *,
    budget: Budget | None = None,
    by_turn: bool = False,
) -> SearchResult:
    """Plain expectiminimax over the `State` API, ``depth`` decisions (``by_turn``: turns, cut off on
    the chance node that ends one) deep (None: to the end of the game, which must then be finite),
    with the conventions of the compiled search and no pruning; raises `OutOfBudget` past a
    ``budget`` (used by `Expectiminimax`).

    It counts nodes as the compiled search does (every state entered, terminal ones included), so that
    without pruning or table both report the same count.
    """
    check_decision_root(state)
    if depth is not None and (depth < 1 or evaluator is None):
        raise ValueError(f"a depth limit ({depth}) needs depth >= 1 and an evaluator for the cut-off")
    counters = _ChanceCounters(budget=budget, by_turn=by_turn)
    start = time.perf_counter()
    value, line = _value(state, state.current_player(), depth, evaluator, counters)
    policy = np.zeros(state.game.num_actions, dtype=np.float64)
    policy[line[0]] = 1.0
    stats = SearchStats(
        nodes=counters.nodes,
        depth=len(line) if depth is None else depth,
        time_s=time.perf_counter() - start,
        extra={"evaluations": counters.evaluations},
    )
    return SearchResult(action=line[0], value=float(value) + 0.0, policy=policy, principal_variation=line, stats=stats)


def _value(
    state: State, player: int, depth: int | None, evaluator: Evaluator | None, counters: _ChanceCounters
) -> tuple[float, tuple[int, ...]]:
    """``(value from player's point of view, expected line)``; ``player`` moves at a decision node."""
    counters.enter()
    if state.is_terminal():
        return terminal_value(state, player), ()
    if depth == 0 and (counters.by_turn or not state.is_chance_node()):
        counters.evaluations += 1
        assert evaluator is not None  # a depth limit comes with one (expectiminimax checks)
        return min(HIGH, max(LOW, evaluator.value(state))) * state.stakes(), ()
    line: tuple[int, ...]
    if state.is_chance_node():
        total, line, likeliest = 0.0, (), -1.0
        for outcome, probability in state.chance_outcomes():
            value, rest = _child(state.apply(outcome).settled(), player, depth, evaluator, counters)
            total += probability * value
            if probability > likeliest:
                likeliest, line = probability, (outcome, *rest)
        return total, line
    best, line = -INF, ()
    for action in state.legal_actions():
        child = state.apply(action).settled()
        turn_ends = not counters.by_turn or child.current_player() != player
        value, rest = _child(child, player, None if depth is None else depth - turn_ends, evaluator, counters)
        if value > best:
            best, line = value, (action, *rest)
    return best, line


def _child(
    child: State, player: int, depth: int | None, evaluator: Evaluator | None, counters: _ChanceCounters
) -> tuple[float, tuple[int, ...]]:
    """The value of ``child`` from ``player``'s point of view: negated only when the other player moves."""
    mover = child.current_player()
    if mover in (player, TERMINAL, CHANCE):
        return _value(child, player, depth, evaluator, counters)
    value, line = _value(child, mover, depth, evaluator, counters)
    return -value, line


def check_decision_root(state: State) -> None:
    if state.is_terminal() or state.is_chance_node():
        raise ValueError("expectiminimax needs a root where a player is to move (not terminal, not chance)")
    if state.settled().compact != state.compact:
        raise ValueError(
            f"{state.game.name}: this decision is taken by a formula, not by search (Game.formula_decision)"
        )
