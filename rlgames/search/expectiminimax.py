"""Depth-limited expectiminimax for games with chance nodes, compiled over any game's kernels.

E-MINIMAX of the lecture notes in negamax form: a decision node takes the maximum of its children's
values (negated where the other player moves next), a chance node the probability-weighted mean of
its outcomes' values, a terminal state its exact return. On a deterministic game it is negamax.

Conventions:

* **Values** are in [-1, 1], from the point of view of the side to move. At a chance node the point
  of view is that of the player who moved into it (pig: the turn player, who rolled): the kernels do
  not say whose turn it is at a chance node. A child's value is negated only when the player to move
  changes (pig: rolling a 1 passes the turn, rolling anything else keeps it).
* **Depth counts decisions**: every decision node lowers the remaining depth by one, chance layers
  are free. The cut-off therefore always falls on a decision node, the only kind an evaluator accepts
  (its compiled ``kernel`` is called there, the value clipped to [-1, 1]); chance nodes are always
  expanded. In pig a depth of ``horizon - decisions`` searches the whole remaining game.
* **Pruning** (`ExpectiminimaxConfig.pruning`; it changes the value only by rounding): fail-soft
  alpha-beta at decision nodes and Ballard's Star1 at chance nodes (B. W. Ballard, "The *-minimax
  search procedure for trees containing chance nodes", Artificial Intelligence 21(3), 1983), which uses the known bounds
  ``L = -1``, ``U = 1`` of every value. After outcomes with probabilities ``p_1 .. p_k`` and values
  ``v_1 .. v_k``, with ``S = sum p_i v_i`` and ``R = 1 - sum p_i``, the chance node's value lies in
  ``[S + R L, S + R U]``: it is cut off once ``S + R U <= alpha`` (returning that upper bound) or
  ``S + R L >= beta`` (returning that lower bound). The next outcome, of probability ``p``, is
  searched with the window ``(max(L, (alpha - S - (R - p) U) / p), min(U, (beta - S - (R - p) L) / p))``,
  outside which it would cause one of these cut-offs.
* **Transposition table** (optional): key, depth, bound flag and value, replacement by depth. The key
  mixes `GameKernels.hash_key` with the point of view (which a chance node's state need not
  determine). An entry answers a probe when it was searched at least as deep and its bound (exact,
  lower, upper) decides the window, so depth-limited values may differ from a search without it
  (they come from deeper searches); full-depth values are exact either way.
* **Principal variation**: the expected line from the root, replayable with `State.apply`: the best
  decision at a decision node and, at a chance node, its most likely outcome (the first of equally
  likely ones), each followed by the line below it. Below a pruned node or a table hit the line is
  cut short, and with pruning the line under a chance node comes from windowed searches.

`make_expectiminimax` builds the compiled recursion for one game and one evaluator kernel;
`Expectiminimax` is the driver; `expectiminimax` is the readable Python reference (no pruning).
"""

from __future__ import annotations

import functools
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Literal, NamedTuple

import numpy as np
from numba import njit

from rlgames.evaluators.base import Evaluator
from rlgames.game import CHANCE, RETURN, TERMINAL, GameKernels, State
from rlgames.search.budget import NO_DEADLINE, over_budget
from rlgames.search.result import SearchResult, SearchStats
from rlgames.search.tt import EMPTY, EXACT, LOWER, UPPER, table_slots, tt_slot

LOW, HIGH = -1.0, 1.0
"""The bounds of every value, which Star1 relies on."""
INF = math.inf
MAX_DEPTH = 500
LAYERS_PER_DECISION = 2
"""Plies reserved per decision: the decision and one chance layer (deeper chains of chance nodes
between two decisions overflow the workspace, and `Expectiminimax.search` raises)."""
VIEW_MIX = -7046029254386353131  # 0x9E3779B97F4A7C15: mixes the point of view into TT keys

# Slots of `Workspace.control`.
NODES, CUTOFFS, CHANCE_CUTOFFS, EVALS, TT_HITS, OVERFLOW, PRUNING, NODE_LIMIT, DEADLINE, ABORTED = range(10)
CONTROL_SIZE = 10
PRUNING_LEVELS = {"none": 0, "alphabeta": 1, "star1": 2}
ALPHABETA, STAR1 = PRUNING_LEVELS["alphabeta"], PRUNING_LEVELS["star1"]
TT_KEY, TT_INFO = 0, 1  # columns of `Workspace.tt`; info = depth << 2 | flag
TT_ENTRY_BYTES = 8 + 8 + 8  # key, depth and flag (`Workspace.tt`), value (`Workspace.tt_values`)


class Workspace(NamedTuple):
    """The preallocated arrays of one search: ``P`` plies, ``A = max_actions``, ``N`` TT slots.

    * ``plies`` int64[P, A + 1 + P], one row per ply: the node's actions or outcomes (columns
      ``[0, A)``), the end of the ply's line (column ``A``) and the triangular PV table's row (the line
      from ply p in columns ``A + 1 + p .. A + 1 + end``);
    * ``probs`` float64[P, A]: the outcomes' probabilities of the chance node at each ply;
    * ``tt`` int64[N, 2] (key, ``depth << 2 | flag``) and ``tt_values`` float64[N];
    * ``control`` int64[10]: counters, the overflow flag, the pruning level and the budgets: a node
      limit, a ``time.perf_counter_ns()`` deadline and the flag set when either runs out (slots named above).
    """

    plies: np.ndarray
    probs: np.ndarray
    tt: np.ndarray
    tt_values: np.ndarray
    control: np.ndarray


@njit(cache=True, inline="always")
def update_pv(a: int, ply: int, ws: Workspace) -> None:
    """The line from ``ply``: ``a`` followed by the line from ``ply + 1``."""
    end_col = ws.probs.shape[1]
    row, below = ws.plies[ply], ws.plies[ply + 1]
    row[end_col + 1 + ply] = a
    end = below[end_col]
    for p in range(ply + 1, end):
        row[end_col + 1 + p] = below[end_col + 1 + p]
    row[end_col] = max(end, ply + 1)


@njit(cache=True, inline="always")
def tt_probe(key: int, depth: int, alpha: float, beta: float, ws: Workspace) -> float:
    """The stored value when an entry of ``key`` at least ``depth`` deep decides the window; else NaN."""
    slot = tt_slot(key, len(ws.tt) - 1)
    info = ws.tt[slot, TT_INFO]
    flag = info & 3
    if flag == EMPTY or ws.tt[slot, TT_KEY] != key or info >> 2 < depth:
        return np.nan
    value = ws.tt_values[slot]
    if flag == EXACT or (flag == LOWER and value >= beta) or (flag == UPPER and value <= alpha):
        return value
    return np.nan


@njit(cache=True, inline="always")
def tt_store(key: int, depth: int, value: float, flag: int, ws: Workspace) -> None:
    """Stores an entry unless its slot holds another position searched deeper."""
    slot = tt_slot(key, len(ws.tt) - 1)
    info = ws.tt[slot, TT_INFO]
    if info & 3 != EMPTY and ws.tt[slot, TT_KEY] != key and info >> 2 > depth:
        return
    ws.tt[slot, TT_KEY] = key
    ws.tt[slot, TT_INFO] = depth << 2 | flag
    ws.tt_values[slot] = value


@njit(inline="always")
def out_of_budget(control) -> bool:
    """Counts a node; whether the node limit or, read every 4096 nodes, the deadline has been passed
    (then ``control[ABORTED]`` is set)."""
    control[NODES] += 1
    if over_budget(control[NODES], control[NODE_LIMIT], control[DEADLINE]):
        control[ABORTED] = 1
    return control[ABORTED] != 0


def principal_variation(ws: Workspace) -> tuple[int, ...]:
    """The line from the root of the last search."""
    end_col = ws.probs.shape[1]
    return tuple(ws.plies[0, end_col + 1 : end_col + 1 + ws.plies[0, end_col]].tolist())


def make_expectiminimax(kernels: GameKernels, evaluate_kernel: Callable[..., float]) -> Callable[..., float]:
    """The compiled recursion ``value(s, player, depth, ply, alpha, beta, ws) -> float`` for one game
    and one evaluator kernel: the value of ``s`` from ``player``'s point of view (``player`` is
    ``s[0]`` at a decision node), searched ``depth`` more decisions deep; fail-soft: exact inside
    ``(alpha, beta)``, a bound outside. Compiled on first call, kept for the process and shared by
    every parameter set of the game (it does not depend on ``max_actions``)."""
    return _compile(kernels.legal_actions, kernels.apply, kernels.chance_outcomes, kernels.hash_key,
                    evaluate_kernel)


@functools.cache
def _compile(legal_actions: Callable[..., int], apply: Callable[..., tuple], chance_outcomes: Callable[..., int],
             hash_key: Callable[..., int], evaluate: Callable[..., float]) -> Callable[..., float]:

    @njit
    def value(s, player: int, depth: int, ply: int, alpha: float, beta: float, ws: Workspace) -> float:
        control = ws.control
        if out_of_budget(control):  # counts the node
            return 0.0
        actions, probs = ws.plies[ply], ws.probs[ply]
        actions[len(probs)] = ply  # the line from here is empty so far
        code = s[0]
        if code == TERMINAL:
            return float(s[RETURN] if player == 0 else -s[RETURN])
        chance = code == CHANCE
        if not chance and depth <= 0:
            control[EVALS] += 1
            return min(HIGH, max(LOW, evaluate(s)))
        if ply + 1 >= len(ws.plies):
            control[OVERFLOW] = 1
            return 0.0
        use_tt = len(ws.tt) > 0
        key = hash_key(s) ^ (player + 1) * VIEW_MIX if use_tt else 0
        if use_tt:
            stored = tt_probe(key, depth, alpha, beta, ws)
            if not np.isnan(stored):
                control[TT_HITS] += 1
                return stored
        prune = control[PRUNING] >= ALPHABETA
        star1 = control[PRUNING] >= STAR1
        if chance:
            n = chance_outcomes(s, actions, probs)
            next_depth = depth
        else:
            n = legal_actions(s, actions)
            next_depth = depth - 1
        original_alpha = alpha
        lo, hi = -INF, INF
        best, best_p, total, remaining = -INF, -1.0, 0.0, 1.0
        for i in range(n):
            p = 1.0
            if chance:
                if star1 and total + remaining * HIGH <= alpha:  # Star1: the value cannot reach alpha
                    best = total + remaining * HIGH
                    control[CHANCE_CUTOFFS] += 1
                    break
                if star1 and total + remaining * LOW >= beta:  # Star1: the value stays above beta
                    best = total + remaining * LOW
                    control[CHANCE_CUTOFFS] += 1
                    break
                p = probs[i]
                remaining -= p
                if star1:
                    lo = max(LOW, (alpha - total - remaining * HIGH) / p)
                    hi = min(HIGH, (beta - total - remaining * LOW) / p)
            elif prune:
                lo, hi = alpha, beta
            a = actions[i]
            s2 = apply(s, a)
            mover = s2[0]
            if mover == player or mover == TERMINAL or mover == CHANCE:
                v = value(s2, player, next_depth, ply + 1, lo, hi, ws)
            else:
                v = -value(s2, mover, next_depth, ply + 1, -hi, -lo, ws)
            if control[ABORTED]:
                return 0.0
            if chance:
                total += p * v
                best = total
                if p > best_p:
                    best_p = p
                    update_pv(a, ply, ws)
            elif v > best:
                best = v
                update_pv(a, ply, ws)
                alpha = max(alpha, v)
                if alpha >= beta:
                    control[CUTOFFS] += 1
                    break
        if use_tt:
            flag = UPPER if best <= original_alpha else LOWER if best >= beta else EXACT
            tt_store(key, depth, best, flag, ws)
        return best

    return value


@dataclass(frozen=True)
class ExpectiminimaxConfig:
    """Knobs of `Expectiminimax`.

    * ``depth`` -- decisions searched (chance layers are free; see the module's notes); None: to the end
      of the game, or as deep as the budgets allow;
    * ``max_nodes`` / ``time_limit`` (seconds) -- budgets over all iterations (None: unlimited): with
      either, the search deepens one decision at a time from depth 1 and returns the deepest iteration
      completed within them (depth 1 is always completed), as `rlgames.search.alphabeta` does;
    * ``pruning`` -- ``"star1"``: alpha-beta at decision nodes and Star1 at chance nodes;
      ``"alphabeta"``: alpha-beta only (a chance node's outcomes are searched with a full window);
      ``"none"``: plain expectiminimax. The value is the same (up to rounding) for all three;
    * ``tt_size_mb`` -- transposition-table memory (0 disables it); 24 bytes per entry, a power of 2.
    """

    depth: int | None = 4
    max_nodes: int | None = None
    time_limit: float | None = None
    pruning: Literal["none", "alphabeta", "star1"] = "star1"
    tt_size_mb: float = 0.0

    def __post_init__(self) -> None:
        if self.depth is not None and not 1 <= self.depth <= MAX_DEPTH:
            raise ValueError(f"depth must be in [1, {MAX_DEPTH}], got {self.depth}")
        if self.max_nodes is not None and self.max_nodes < 1:
            raise ValueError(f"max_nodes must be positive, got {self.max_nodes}")
        if self.time_limit is not None and self.time_limit <= 0:
            raise ValueError(f"time_limit must be positive, got {self.time_limit}")
        if self.pruning not in PRUNING_LEVELS:
            raise ValueError(f"pruning must be one of {sorted(PRUNING_LEVELS)}, got {self.pruning!r}")
        if self.tt_size_mb < 0:
            raise ValueError(f"tt_size_mb must be non-negative, got {self.tt_size_mb}")

    @property
    def budgeted(self) -> bool:
        return self.max_nodes is not None or self.time_limit is not None


class Expectiminimax:
    """Depth-limited expectiminimax with an evaluator at the cut-off; ``search(state)`` returns a
    `SearchResult` whose policy is one-hot on the best action (ties go to the first legal action) and
    whose ``stats.depth`` is the depth of the (deepest completed) search.

    With an evaluator that has a compiled ``kernel`` the search runs in `make_expectiminimax`'s
    compiled code; without one (a network) it falls back to the Python reference `expectiminimax`
    (no pruning, no table). Both honour the budgets.
    """

    def __init__(self, evaluator: Evaluator, config: ExpectiminimaxConfig = ExpectiminimaxConfig()) -> None:
        self.evaluator = evaluator
        self.config = config

    def search(self, state: State) -> SearchResult:
        """Searches ``state``, where a player is to move, ``config.depth`` decisions deep or as deep as
        the budgets allow."""
        _check_root(state)
        config = self.config
        max_depth = min(config.depth or state.game.max_game_length, MAX_DEPTH)
        depths = range(1, max_depth + 1) if config.budgeted else [max_depth]
        if self.evaluator.kernel is None:
            return self._search_reference(state, depths)
        value = make_expectiminimax(state.game.kernels, self.evaluator.kernel)
        ws = self._workspace(state, max_depth)
        start = time.perf_counter_ns()
        deadline = start + int(config.time_limit * 1e9) if config.time_limit is not None else NO_DEADLINE
        best = None
        for depth in depths:
            control = ws.control
            control[ABORTED] = 0
            if best is not None:  # the first iteration always completes
                control[NODE_LIMIT] = config.max_nodes or np.iinfo(np.int64).max
                control[DEADLINE] = deadline
            score = value(state.compact, state.compact[0], depth, 0, -INF, INF, ws)
            if control[OVERFLOW]:
                raise RuntimeError(f"{state.game.name}: more than one chance layer per decision; "
                                   "expectiminimax reserves two plies per decision")
            if control[ABORTED]:
                break
            best = (score, principal_variation(ws), depth)
            if time.perf_counter_ns() >= deadline:
                break
        return self._result(state, *best, ws, (time.perf_counter_ns() - start) * 1e-9)

    def _search_reference(self, state: State, depths: Sequence[int]) -> SearchResult:
        """Iterations of the Python reference under the budgets (an evaluator without a kernel)."""
        config, start, best, nodes = self.config, time.perf_counter(), None, 0
        for depth in depths:
            budget = None
            if best is not None:
                budget = _Budget(config.max_nodes - nodes if config.max_nodes else math.inf,
                                 start + config.time_limit if config.time_limit else math.inf)
            try:
                result = expectiminimax(state, depth, self.evaluator, budget=budget)
            except OutOfBudget as stopped:
                nodes += stopped.nodes
                break
            nodes += result.stats.nodes
            best = result
        stats = replace(best.stats, nodes=nodes, time_s=time.perf_counter() - start)
        return replace(best, stats=stats)

    def _workspace(self, state: State, max_depth: int) -> Workspace:
        config = self.config
        plies = min(state.game.max_game_length, LAYERS_PER_DECISION * max_depth) + 1
        actions = state.game.kernels.max_actions
        control = np.zeros(CONTROL_SIZE, dtype=np.int64)
        control[PRUNING] = PRUNING_LEVELS[config.pruning]
        control[NODE_LIMIT], control[DEADLINE] = np.iinfo(np.int64).max, NO_DEADLINE
        slots = table_slots(config.tt_size_mb, TT_ENTRY_BYTES)
        return Workspace(plies=np.zeros((plies, actions + 1 + plies), dtype=np.int64),
                         probs=np.zeros((plies, actions)), tt=np.zeros((slots, 2), dtype=np.int64),
                         tt_values=np.zeros(slots), control=control)

    def _result(self, state: State, score: float, line: tuple[int, ...], depth: int, ws: Workspace,
                elapsed: float) -> SearchResult:
        counters = ws.control
        policy = np.zeros(state.game.num_actions, dtype=np.float64)
        policy[line[0]] = 1.0
        chance_cutoffs = int(counters[CHANCE_CUTOFFS])
        stats = SearchStats(nodes=int(counters[NODES]), depth=depth,
                            cutoffs=int(counters[CUTOFFS]) + chance_cutoffs, tt_hits=int(counters[TT_HITS]),
                            time_s=elapsed,
                            extra={"evaluations": int(counters[EVALS]), "chance_cutoffs": chance_cutoffs})
        return SearchResult(action=line[0], value=float(score) + 0.0,  # + 0.0 turns -0.0 into 0.0
                            policy=policy, principal_variation=line, stats=stats)


# --- the readable Python reference ------------------------------------------------------------------

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

    def enter(self) -> None:
        """Counts a node; raises `OutOfBudget` once the budget is spent."""
        self.nodes += 1
        budget = self.budget
        if budget is not None and (self.nodes > budget.nodes or time.perf_counter() > budget.deadline):
            raise OutOfBudget(self.nodes)


def expectiminimax(state: State, depth: int | None = None, evaluator: Evaluator | None = None, *,
                   budget: _Budget | None = None) -> SearchResult:
    """Plain expectiminimax over the `State` API, ``depth`` decisions deep (None: to the end of the
    game, which must then be finite), with the conventions of the compiled search and no pruning;
    raises `OutOfBudget` past a ``budget`` (used by `Expectiminimax`).

    It counts nodes as the compiled search does (every state entered, terminal ones included), so that
    without pruning or table both report the same count.
    """
    _check_root(state)
    if depth is not None and (depth < 1 or evaluator is None):
        raise ValueError(f"a depth limit ({depth}) needs depth >= 1 and an evaluator for the cut-off")
    counters = _Counters(budget=budget)
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
        return state.returns()[player], ()
    if state.is_chance_node():
        total, line, likeliest = 0.0, (), -1.0
        for outcome, probability in state.chance_outcomes():
            value, rest = _child(state.apply(outcome), player, depth, evaluator, counters)
            total += probability * value
            if probability > likeliest:
                likeliest, line = probability, (outcome, *rest)
        return total, line
    if depth == 0:
        counters.evaluations += 1
        return min(HIGH, max(LOW, evaluator.value(state))), ()
    best, line = -INF, ()
    for action in state.legal_actions():
        value, rest = _child(state.apply(action), player, None if depth is None else depth - 1, evaluator,
                             counters)
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
