"""The readable Python reference of expectiminimax over the `State` API (no pruning, no table), with
the conventions of the compiled search (`rlgames.search.expectiminimax.driver`); `Expectiminimax` also runs
it for evaluators without a compiled kernel (networks), under its budgets."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from rlgames.evaluators.base import Evaluator
from rlgames.game import CHANCE, TERMINAL, State
from rlgames.search.minimax import terminal_value
from rlgames.search.result import SearchResult, SearchStats

LOW, HIGH = -1.0, 1.0
INF = math.inf


class _Budget(NamedTuple):
    """Nodes the reference may still enter, and a `time.perf_counter` deadline."""

    nodes: float
    deadline: float


class OutOfBudget(Exception):
    """The reference search ran out of its `_Budget` after entering ``nodes`` nodes."""

    def __init__(self, nodes: int) -> None:
        super().__init__(f"out of budget after {nodes} nodes")
        self.nodes = nodes


@dataclass
class _Counters:
    nodes: int = 0
    evaluations: int = 0
    budget: _Budget | None = None
    by_turn: bool = False

    def enter(self) -> None:
        """Counts a node; raises `OutOfBudget` once the budget is spent."""
        self.nodes += 1
        budget = self.budget
        if budget is not None and (self.nodes > budget.nodes or time.perf_counter() > budget.deadline):
            raise OutOfBudget(self.nodes)


def expectiminimax(state: State, depth: int | None = None, evaluator: Evaluator | None = None, *,
                   budget: _Budget | None = None, by_turn: bool = False) -> SearchResult:
    """Plain expectiminimax over the `State` API, ``depth`` decisions (``by_turn``: turns, cut off on
    the chance node that ends one) deep (None: to the end of the game, which must then be finite),
    with the conventions of the compiled search and no pruning; raises `OutOfBudget` past a
    ``budget`` (used by `Expectiminimax`).

    It counts nodes as the compiled search does (every state entered, terminal ones included), so that
    without pruning or table both report the same count.
    """
    _check_root(state)
    if depth is not None and (depth < 1 or evaluator is None):
        raise ValueError(f"a depth limit ({depth}) needs depth >= 1 and an evaluator for the cut-off")
    counters = _Counters(budget=budget, by_turn=by_turn)
    start = time.perf_counter()
    value, line = _value(state, state.current_player(), depth, evaluator, counters)
    policy = np.zeros(state.game.num_actions, dtype=np.float64)
    policy[line[0]] = 1.0
    stats = SearchStats(nodes=counters.nodes, depth=len(line) if depth is None else depth,
                        time_s=time.perf_counter() - start, extra={"evaluations": counters.evaluations})
    return SearchResult(action=line[0], value=float(value) + 0.0, policy=policy, principal_variation=line,
                        stats=stats)


def _value(state: State, player: int, depth: int | None, evaluator: Evaluator | None,
           counters: _Counters) -> tuple[float, tuple[int, ...]]:
    """``(value from player's point of view, expected line)``; ``player`` moves at a decision node."""
    counters.enter()
    if state.is_terminal():
        return terminal_value(state, player), ()
    if depth == 0 and (counters.by_turn or not state.is_chance_node()):
        counters.evaluations += 1
        return min(HIGH, max(LOW, evaluator.value(state))), ()
    if state.is_chance_node():
        total, line, likeliest = 0.0, (), -1.0
        for outcome, probability in state.chance_outcomes():
            value, rest = _child(state.apply(outcome), player, depth, evaluator, counters)
            total += probability * value
            if probability > likeliest:
                likeliest, line = probability, (outcome, *rest)
        return total, line
    best, line = -INF, ()
    for action in state.legal_actions():
        child = state.apply(action)
        turn_ends = not counters.by_turn or child.current_player() != player
        value, rest = _child(child, player, None if depth is None else depth - turn_ends, evaluator, counters)
        if value > best:
            best, line = value, (action, *rest)
    return best, line


def _child(child: State, player: int, depth: int | None, evaluator: Evaluator | None,
           counters: _Counters) -> tuple[float, tuple[int, ...]]:
    """The value of ``child`` from ``player``'s point of view: negated only when the other player moves."""
    mover = child.current_player()
    if mover in (player, TERMINAL, CHANCE):
        return _value(child, player, depth, evaluator, counters)
    value, line = _value(child, mover, depth, evaluator, counters)
    return -value, line


def _check_root(state: State) -> None:
    if state.is_terminal() or state.is_chance_node():
        raise ValueError("expectiminimax needs a root where a player is to move (not terminal, not chance)")
