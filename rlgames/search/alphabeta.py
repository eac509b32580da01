"""Compiled negamax alpha-beta, generic over a game's kernels.

`make_alphabeta` closes over one game's `GameKernels` and one compiled evaluator and returns numba
functions; `AlphaBeta` is the Python driver (iterative deepening, budgets, the `SearchResult`).

The search, per node (negamax, fail-soft):

* **Scores.** Internally a score is a float from the side to move: the evaluator's value clipped to
  [-1, 1] at the cut-off, 0 for a draw, ``WIN - p`` for a win whose final position lies ``p`` plies
  from the root and ``-(WIN - p)`` for such a loss. ``WIN = 1000`` and no search goes past `MAX_PLY`
  plies, so every proven score has ``|score| >= WIN - MAX_PLY > 1``: the evaluator stays strictly
  inside the proven scores, faster wins score higher and slower losses are preferred to faster ones.
  `AlphaBeta` maps a score to the result's value by clipping it to [-1, 1] (a proven win is 1, a proven
  loss -1; any monotone map commutes with max and min, so this equals plain minimax with ±1 returns)
  and reports ``WIN - |score|`` as ``plies_to_end``.
* **Transposition table** of fixed size (key, value, depth, bound flag, best move), indexed by
  a mix of `GameKernels.hash_key`, replacement by depth (a slot holding another position is taken over
  only by a search at least as deep; the same position always overwrites it). Win scores are stored
  relative to the node (``WIN - plies from the node``) and converted back at the probing ply. An entry
  cuts the search off when it is at least as deep and its bound (exact, lower, upper) decides the
  window; otherwise its move is searched first.
* **Move ordering:** the TT move, then two killer moves per ply (moves that caused a cut-off at the
  same ply elsewhere), then the history heuristic (``depth**2`` per cut-off, by player and action;
  Schaeffer 1989) plus, at the root only, optional prior scores (e.g. an evaluator's policy).
* **Quiescence hook:** at depth 0 a position with ``is_quiet(s) == False`` is searched further (all its
  moves) until it is quiet or ``quiescence_depth`` extra plies are used; then it is evaluated.
* **Budgets:** the search aborts once the node counter reaches the node limit (checked at every node)
  or, every 4096 nodes, once ``time.perf_counter_ns()`` (read through ``numba.objmode``, far dearer
  than a node) passes the deadline. The driver discards an aborted iteration and returns the deepest
  completed one.
* **Principal variation** from a triangular PV table, extended past TT cut-offs with TT moves.
* **Nodes** (``SearchStats.nodes``): the root, every interior position and every position evaluated at
  the horizon; a terminal child is scored by its parent and not counted.

Games with chance nodes are refused (they use expectiminimax).

Speed (what sets the recursion apart from a straightforward version; ``benchmarks/bench_alphabeta.py``
measures it): the recursion runs without numba's reference counting (``_nrt=False``, see
`make_alphabeta`); the workspace is four arrays, as every array argument costs 7-9 machine words per
call; a leaf is evaluated by its parent, without a call; the move-ordering keys are checked once per
node, and the moves are taken as generated when the keys would not reorder them (with the ordering
heuristics off, always); a TT entry (key, packed info, score bits) fills 24 contiguous bytes, one cache
line on most probes.
"""

from __future__ import annotations

import functools
import math
import time
from dataclasses import dataclass
from typing import Callable, NamedTuple

import numpy as np
from numba import njit

from rlgames.evaluators.base import Evaluator
from rlgames.game import TERMINAL, GameKernels, State
from rlgames.search.batched_alphabeta import batched_alphabeta
from rlgames.search.budget import NO_DEADLINE, over_budget
from rlgames.search.result import SearchResult, SearchStats
from rlgames.search.tt import EMPTY, EXACT, LOWER, UPPER, bits_float, float_bits, table_slots, tt_slot

WIN = 1000.0
"""Internal score of a win on the last ply; a win ``p`` plies from the root scores ``WIN - p``."""
MAX_PLY = 500
"""The deepest ply any search reaches (depth plus quiescence plies)."""
PROVEN = WIN - MAX_PLY
"""Scores at least this large in absolute value are proven wins or losses."""
INF = 1e9

TT_MOVE_KEY, KILLER_KEY = 4e30, 2e30  # move-ordering keys above any history or prior score
PRIOR_KEY = 1e20

# Slots of `Workspace.control`: counters first, then settings.
NODES, CUTOFFS, TT_HITS, EVALS, QUIESCENCE_NODES, ABORTED = range(6)
NODE_LIMIT, DEADLINE, QUIESCENCE_DEPTH, USE_KILLERS, USE_HISTORY, KILLER_COL, PV_LEN_COL, PV_COL = range(6, 14)
CONTROL_SIZE = 14
HISTORY_ROW, PRIOR_ROW, ORDER_ROW = 0, 2, 3  # rows of `Workspace.scores`
TT_KEY, TT_INFO, TT_VALUE = 0, 1, 2  # columns of `Workspace.tt`
DEPTH_BIAS = 1 << 15  # TT depths are stored biased, as quiescence depths are negative


class Workspace(NamedTuple):
    """The preallocated arrays of one search: ``P`` plies, ``A = max_actions``, ``N`` TT slots.

    Few arrays, because every array passed to a numba call costs: the recursion passes each array as
    7 to 9 machine words (pointers, shape, strides), so four arrays already make most of a call's cost.

    * ``plies`` int64[P + 1, A + 3 + P + 1], one row per ply: the ply's moves (columns ``[0, A)``,
      reordered as they are searched), two killer moves (``control[KILLER_COL]`` and the next column),
      the end of the ply's principal variation (``control[PV_LEN_COL]``) and the triangular PV table's
      row (from ``control[PV_COL]``: the line from ply p sits in columns ``PV_COL + p .. PV_COL + end``);
    * ``scores`` float64[3 + P, max(A, num_actions)]: the history table of each player (rows 0, 1), the
      root prior (row 2) and the ordering keys of each ply's moves (row ``3 + ply``);
    * ``tt`` int64[N, 3], one 24-byte entry per slot, so that a probe touches one cache line: the key,
      the packed ``(depth + DEPTH_BIAS) << 32 | flag << 24 | (move + 1)`` and the score's float64 bits
      (proven scores relative to the node);
    * ``control`` int64[14]: the counters and the settings (slots named above); ``DEADLINE`` is a
      ``time.perf_counter_ns()`` reading.
    """

    plies: np.ndarray
    scores: np.ndarray
    tt: np.ndarray
    control: np.ndarray


class CompiledAlphaBeta(NamedTuple):
    """``search(s, depth, ws) -> score`` searches root ``s`` to ``depth`` (then `principal_variation`
    reads the line and ``ws.control[ABORTED]`` says whether a budget ran out);
    ``negamax(s, depth, ply, alpha, beta, ws) -> score`` is the recursion."""

    search: Callable[..., float]
    negamax: Callable[..., float]


@njit(cache=True)
def always_quiet(s) -> bool:
    """The default quiescence test: every position is quiet (no quiescence search)."""
    return True


@njit(cache=True, inline="always")
def tt_depth(info: int) -> int:
    return (info >> 32) - DEPTH_BIAS


@njit(cache=True, inline="always")
def tt_flag(info: int) -> int:
    return (info >> 24) & 0xFF


@njit(cache=True, inline="always")
def tt_move(info: int) -> int:
    return (info & 0xFFFFFF) - 1


@njit(cache=True, inline="always")
def score_to_tt(score: float, ply: int) -> float:
    """A proven score relative to the node (plies counted from it) instead of from the root."""
    if score >= PROVEN:
        return score + ply
    if score <= -PROVEN:
        return score - ply
    return score


@njit(cache=True, inline="always")
def score_from_tt(score: float, ply: int) -> float:
    if score >= PROVEN:
        return score - ply
    if score <= -PROVEN:
        return score + ply
    return score


@njit(cache=True, inline="always")
def terminal_score(s2, mover: int, ply: int) -> float:
    """The score of terminal state ``s2``, reached at ``ply``, for ``mover`` who played into it."""
    ret = s2[1] if mover == 0 else -s2[1]
    if ret == 0:
        return 0.0
    return (WIN - ply) if ret > 0 else -(WIN - ply)


@njit(inline="always")
def out_of_budget(control) -> bool:
    """Counts a node; whether a budget has run out (then ``control[ABORTED]`` is set)."""
    control[NODES] += 1
    if over_budget(control[NODES], control[NODE_LIMIT], control[DEADLINE]):
        control[ABORTED] = 1
    return control[ABORTED] != 0


@njit(cache=True, inline="always")
def order_moves(s, ply: int, n: int, first: int, ws: Workspace) -> bool:
    """Fills the ordering keys of the ``n`` moves of ``ply``; ``first`` (the TT move) goes first.
    Returns whether the keys never increase along the moves: `select_move` would then take the moves
    as they stand, and can be skipped."""
    control, moves, keys = ws.control, ws.plies[ply], ws.scores[ORDER_ROW + ply]
    killer = control[KILLER_COL]
    killer1, killer2 = (moves[killer], moves[killer + 1]) if control[USE_KILLERS] else (-1, -1)  # -1: none
    use_history = control[USE_HISTORY] != 0
    history, prior = ws.scores[HISTORY_ROW + s[0]], ws.scores[PRIOR_ROW]
    in_order = True
    previous = math.inf
    for i in range(n):
        a = moves[i]
        if a == first:
            key = TT_MOVE_KEY
        elif a == killer1:
            key = KILLER_KEY
        elif a == killer2:
            key = KILLER_KEY * 0.5
        else:
            key = history[a] if use_history else 0.0
            if ply == 0:
                key += PRIOR_KEY * prior[a]
        keys[i] = key
        in_order = in_order and key <= previous
        previous = key
    return in_order


@njit(cache=True, inline="always")
def select_move(ply: int, i: int, n: int, ws: Workspace) -> int:
    """Moves the best-keyed move among moves ``i..n-1`` of ``ply`` to position ``i`` and returns it
    (the first of equals: a selection sort, done as far as the search goes)."""
    moves, keys = ws.plies[ply], ws.scores[ORDER_ROW + ply]
    best, best_key = i, keys[i]
    for j in range(i + 1, n):
        if keys[j] > best_key:
            best, best_key = j, keys[j]
    if best != i:
        moves[i], moves[best] = moves[best], moves[i]
        keys[i], keys[best] = keys[best], keys[i]
    return moves[i]


@njit(cache=True, inline="always")
def record_cutoff(s, a: int, depth: int, ply: int, ws: Workspace) -> None:
    control, row = ws.control, ws.plies[ply]
    control[CUTOFFS] += 1
    killer = control[KILLER_COL]
    if control[USE_KILLERS] and row[killer] != a:
        row[killer + 1] = row[killer]
        row[killer] = a
    if control[USE_HISTORY]:
        d = max(depth, 1)
        ws.scores[HISTORY_ROW + s[0], a] += d * d


@njit(cache=True, inline="always")
def update_pv(a: int, ply: int, ws: Workspace) -> None:
    """The line from ``ply``: move ``a`` followed by the line from ``ply + 1``."""
    pv_len, pv = ws.control[PV_LEN_COL], ws.control[PV_COL]
    row, below = ws.plies[ply], ws.plies[ply + 1]
    row[pv + ply] = a
    end = below[pv_len]
    for p in range(ply + 1, end):
        row[pv + p] = below[pv + p]
    row[pv_len] = max(end, ply + 1)


@njit(cache=True, inline="always")
def tt_store(key: int, score: float, depth: int, flag: int, move: int, ply: int, ws: Workspace) -> None:
    """Stores an entry unless its slot holds another position searched deeper (replacement by depth)."""
    tt = ws.tt
    slot = tt_slot(key, len(tt) - 1)
    info = tt[slot, TT_INFO]
    if tt_flag(info) != EMPTY and tt[slot, TT_KEY] != key and tt_depth(info) > depth:
        return
    tt[slot, TT_KEY] = key
    tt[slot, TT_INFO] = (depth + DEPTH_BIAS) << 32 | flag << 24 | (move + 1)
    tt[slot, TT_VALUE] = float_bits(score_to_tt(score, ply))


def with_nrt(kernel: Callable) -> Callable:
    """``kernel`` behind a forwarding njit function compiled with numba's runtime (NRT).

    A function that a ``_nrt=False`` function (the recursion) compiles is compiled without NRT too,
    unless its own options say otherwise: a kernel that allocates would then fail to compile, and one
    compiled there would be kept (and cached on disk) without reference counting. The forwarding
    function says ``_nrt=True``, so the kernels behind it are compiled as anywhere else; LLVM inlines it.
    """

    @njit(_nrt=True)
    def call(*args):
        return kernel(*args)

    return call


def principal_variation(ws: Workspace) -> tuple[int, ...]:
    """The line from the root of the last completed search."""
    start = ws.control[PV_COL]
    return tuple(ws.plies[0, start : start + ws.plies[0, ws.control[PV_LEN_COL]]].tolist())


@functools.cache
def make_alphabeta(kernels: GameKernels, evaluate_kernel: Callable[..., float],
                   is_quiet: Callable[..., bool] = always_quiet) -> CompiledAlphaBeta:
    """The compiled alpha-beta for one game and one evaluator kernel (``(s) -> value`` from the side
    to move), compiled on first call and kept for the process (numba does not cache
    closures on disk)."""
    legal_actions = with_nrt(kernels.legal_actions)
    apply = with_nrt(kernels.apply)
    hash_key = with_nrt(kernels.hash_key)
    evaluate = with_nrt(evaluate_kernel)
    quiet = with_nrt(is_quiet)

    @njit(inline="always")
    def is_leaf(s, depth: int, control) -> bool:
        """Whether a node at ``depth`` is evaluated: past the horizon, once quiet or out of quiescence plies."""
        return depth <= 0 and (-depth >= control[QUIESCENCE_DEPTH] or quiet(s))

    @njit(inline="always")
    def leaf_value(s, ply: int, ws: Workspace) -> float:
        """Visits leaf ``s`` at ``ply`` (a node, as any other): its clipped value from the side to move."""
        control = ws.control
        ws.plies[ply, control[PV_LEN_COL]] = ply
        if out_of_budget(control):
            return 0.0
        control[EVALS] += 1
        return min(1.0, max(-1.0, evaluate(s)))

    # No reference counting in the recursion (`_nrt=False`): it only reads and writes the arrays
    # the caller holds, so counting references to them (an atomic add and subtract per array per
    # call) bought nothing and cost much of the time. It also means the recursion cannot allocate:
    # numba refuses to compile an allocation here ("NRT required but not enabled").
    @njit(_nrt=False)
    def negamax(s, depth: int, ply: int, alpha: float, beta: float, ws: Workspace) -> float:
        control = ws.control
        if is_leaf(s, depth, control):
            return leaf_value(s, ply, ws)
        ws.plies[ply, control[PV_LEN_COL]] = ply
        if out_of_budget(control):
            return 0.0
        if depth <= 0:
            control[QUIESCENCE_NODES] += 1
        tt = ws.tt
        use_tt = len(tt) > 0
        key = hash_key(s)
        first = -1
        if use_tt:
            slot = tt_slot(key, len(tt) - 1)
            info = tt[slot, TT_INFO]
            if tt_flag(info) != EMPTY and tt[slot, TT_KEY] == key:
                first = tt_move(info)
                if ply > 0 and tt_depth(info) >= depth:
                    score = score_from_tt(bits_float(tt[slot, TT_VALUE]), ply)
                    flag = tt_flag(info)
                    if flag == EXACT or (flag == LOWER and score >= beta) or (flag == UPPER and score <= alpha):
                        control[TT_HITS] += 1
                        return score
        n = legal_actions(s, ws.plies[ply])
        in_order = order_moves(s, ply, n, first, ws)
        mover = s[0]
        original_alpha = alpha
        best, best_move = -INF, -1
        for i in range(n):
            a = ws.plies[ply, i] if in_order else select_move(ply, i, n, ws)
            s2 = apply(s, a)
            if s2[0] == TERMINAL:
                ws.plies[ply + 1, control[PV_LEN_COL]] = ply + 1
                score = terminal_score(s2, mover, ply + 1)
            elif is_leaf(s2, depth - 1, control):  # evaluated here: most nodes are leaves, and a call costs
                value = leaf_value(s2, ply + 1, ws)
                score = value if s2[0] == mover else -value
            elif s2[0] == mover:
                score = negamax(s2, depth - 1, ply + 1, alpha, beta, ws)
            else:
                score = -negamax(s2, depth - 1, ply + 1, -beta, -alpha, ws)
            if control[ABORTED]:
                return 0.0
            if score > best:
                best, best_move = score, a
                update_pv(a, ply, ws)
                alpha = max(alpha, score)
                if alpha >= beta:
                    record_cutoff(s, a, depth, ply, ws)
                    break
        if use_tt:
            flag = UPPER if best <= original_alpha else LOWER if best >= beta else EXACT
            tt_store(key, best, depth, flag, best_move, ply, ws)
        return best

    @njit
    def extend_pv(s, ws: Workspace) -> None:
        """Follows the PV from the root, then TT moves (of exact entries) past its end while legal."""
        row, pv, pv_len = ws.plies[0], ws.control[PV_COL], ws.control[PV_LEN_COL]
        end = row[pv_len]
        for p in range(end):
            s = apply(s, row[pv + p])
        tt = ws.tt
        if len(tt) == 0:
            return
        buffer = ws.plies[1]  # scratch: the search is over
        while s[0] != TERMINAL and pv + end < len(row):
            key = hash_key(s)
            slot = tt_slot(key, len(tt) - 1)
            info = tt[slot, TT_INFO]
            if tt_flag(info) != EXACT or tt[slot, TT_KEY] != key:
                return
            move = tt_move(info)
            n = legal_actions(s, buffer)
            if move < 0 or not np.any(buffer[:n] == move):
                return
            row[pv + end] = move
            end += 1
            row[pv_len] = end
            s = apply(s, move)

    @njit
    def search(s, depth: int, ws: Workspace) -> float:
        ws.control[ABORTED] = 0
        score = negamax(s, depth, 0, -INF, INF, ws)
        if not ws.control[ABORTED]:
            extend_pv(s, ws)
        return score

    return CompiledAlphaBeta(search, negamax)


@dataclass(frozen=True)
class AlphaBetaConfig:
    """Knobs of `AlphaBeta`.

    * ``depth`` -- the deepest iteration, in plies (None: up to ``game.max_game_length``);
    * ``max_nodes`` / ``time_limit`` (seconds) -- budgets over all iterations (None: unlimited); the
      result is the deepest iteration completed within them (at least depth 1 is always completed);
    * ``tt_size_mb`` -- transposition-table memory (0 disables it); 24 bytes per entry, a power of 2;
    * ``use_killers``, ``use_history`` -- move-ordering heuristics;
    * ``quiescence_depth`` -- extra plies allowed past the depth limit while ``is_quiet`` says no;
    * ``iterative_deepening`` -- False searches the final depth only (one search, as a plain fixed-depth
      alpha-beta does, e.g. to compare searches at equal depth); that search always completes, so the
      budgets then do not apply.
    """

    depth: int | None = None
    max_nodes: int | None = None
    time_limit: float | None = None
    tt_size_mb: float = 16.0
    use_killers: bool = True
    use_history: bool = True
    quiescence_depth: int = 0
    iterative_deepening: bool = True

    def __post_init__(self) -> None:
        if self.depth is not None and not 1 <= self.depth <= MAX_PLY - self.quiescence_depth:
            raise ValueError(f"depth must be in [1, {MAX_PLY - self.quiescence_depth}], got {self.depth}")
        if self.max_nodes is not None and self.max_nodes < 1:
            raise ValueError(f"max_nodes must be positive, got {self.max_nodes}")
        if self.time_limit is not None and self.time_limit <= 0:
            raise ValueError(f"time_limit must be positive, got {self.time_limit}")
        if self.tt_size_mb < 0 or self.quiescence_depth < 0:
            raise ValueError("tt_size_mb and quiescence_depth must be non-negative")


TT_ENTRY_BYTES = 8 + 8 + 8  # key, packed depth/flag/move, value


class AlphaBeta:
    """Iterative-deepening alpha-beta with an evaluator at the cut-off; ``search(state)`` returns a
    `SearchResult` whose policy is one-hot on the chosen action.

    With an evaluator that has a compiled ``kernel`` the search runs in `make_alphabeta`'s compiled
    code; without one (a network) it runs `batched_alphabeta`, which evaluates each node's children in
    one batch and orders moves by the evaluator's priors. Both honour ``depth``, ``max_nodes`` and
    ``time_limit`` alike (the deepest iteration completed within the budgets); the batched search has
    no table, killers or history, and runs a fixed depth without budgets once.
    """

    def __init__(self, evaluator: Evaluator, config: AlphaBetaConfig = AlphaBetaConfig(), *,
                 is_quiet: Callable[..., bool] = always_quiet) -> None:
        self.evaluator = evaluator
        self.config = config
        self.is_quiet = is_quiet

    def search(self, state: State, *, root_prior: np.ndarray | None = None) -> SearchResult:
        """Searches ``state`` (a player to move); ``root_prior`` (float[num_actions], e.g. a policy)
        orders the root's moves after the TT move and killers."""
        if state.game.has_chance:
            raise ValueError(f"{state.game.name} has chance nodes: alpha-beta searches deterministic games "
                             f"(use expectiminimax)")
        if state.is_terminal():
            raise ValueError("alpha-beta needs a root where a player is to move; the game is over")
        kernel = self.evaluator.kernel
        if kernel is None:  # a network: sibling leaves are evaluated together, one batch per parent
            config = self.config
            return batched_alphabeta(state, depth=config.depth, evaluator=self.evaluator, root_prior=root_prior,
                                     max_nodes=config.max_nodes, time_limit=config.time_limit)
        compiled = make_alphabeta(state.game.kernels, kernel, self.is_quiet)
        return self._iterate(state, compiled, root_prior)

    def _iterate(self, state: State, compiled: CompiledAlphaBeta,
                 root_prior: np.ndarray | None) -> SearchResult:
        config = self.config
        max_depth = min(config.depth or state.game.max_game_length, state.game.max_game_length)
        ws = self._workspace(state, max_depth, root_prior)
        start = time.perf_counter_ns()
        deadline = start + int(config.time_limit * 1e9) if config.time_limit is not None else NO_DEADLINE
        best: tuple[float, tuple[int, ...], int] | None = None
        node_limit = ws.control[NODE_LIMIT]
        ws.control[NODE_LIMIT] = np.iinfo(np.int64).max  # the first iteration always completes
        for depth in range(1 if config.iterative_deepening else max_depth, max_depth + 1):
            ws.control[DEADLINE] = NO_DEADLINE if best is None else deadline
            score = compiled.search(state.compact, depth, ws)
            ws.control[NODE_LIMIT] = node_limit
            if ws.control[ABORTED]:
                break
            best = (score, principal_variation(ws), depth)
            if abs(score) >= PROVEN and WIN - abs(score) <= depth:
                break  # a proven result within the horizon: deeper iterations cannot change it
            if time.perf_counter_ns() >= deadline:
                break
        return self._result(state, *best, ws, (time.perf_counter_ns() - start) * 1e-9)

    def _workspace(self, state: State, max_depth: int, root_prior: np.ndarray | None) -> Workspace:
        config = self.config
        plies = min(max_depth + config.quiescence_depth, MAX_PLY) + 1
        actions, num_actions = state.game.kernels.max_actions, state.game.num_actions
        scores = np.zeros((ORDER_ROW + plies, max(actions, num_actions)))
        if root_prior is not None:
            prior = np.asarray(root_prior, dtype=np.float64)
            if prior.shape != (num_actions,):
                raise ValueError(f"root_prior must have shape ({num_actions},), got {prior.shape}")
            scores[PRIOR_ROW, :num_actions] = prior
        control = np.zeros(CONTROL_SIZE, dtype=np.int64)
        control[NODE_LIMIT] = config.max_nodes or np.iinfo(np.int64).max
        control[DEADLINE] = NO_DEADLINE
        control[QUIESCENCE_DEPTH] = config.quiescence_depth
        control[USE_KILLERS], control[USE_HISTORY] = config.use_killers, config.use_history
        control[KILLER_COL], control[PV_LEN_COL], control[PV_COL] = actions, actions + 2, actions + 3
        ply_rows = np.zeros((plies + 1, actions + 3 + plies + 1), dtype=np.int64)
        ply_rows[:, actions : actions + 2] = -1  # no killers yet
        slots = table_slots(config.tt_size_mb, TT_ENTRY_BYTES)
        return Workspace(plies=ply_rows, scores=scores, tt=np.zeros((slots, 3), dtype=np.int64), control=control)

    def _result(self, state: State, score: float, line: tuple[int, ...], depth: int, ws: Workspace,
                elapsed: float) -> SearchResult:
        counters = ws.control
        policy = np.zeros(state.game.num_actions, dtype=np.float64)
        policy[line[0]] = 1.0
        stats = SearchStats(
            nodes=int(counters[NODES]), depth=depth, cutoffs=int(counters[CUTOFFS]),
            tt_hits=int(counters[TT_HITS]), time_s=elapsed,
            extra={"evaluations": int(counters[EVALS]), "quiescence_nodes": int(counters[QUIESCENCE_NODES])},
        )
        value = float(min(1.0, max(-1.0, score))) + 0.0  # + 0.0 turns -0.0 into 0.0
        plies_to_end = int(WIN - abs(score)) if abs(score) >= PROVEN else None
        return SearchResult(action=line[0], value=value, policy=policy, principal_variation=line, stats=stats,
                            plies_to_end=plies_to_end)
