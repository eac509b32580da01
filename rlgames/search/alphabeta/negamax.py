"""The compiled negamax alpha-beta recursion, generic over a game's kernels (`AlphaBeta` drives it).

Per node (negamax, fail-soft):

* **Scores** are floats from the side to move: the evaluator's value clipped to [-1, 1] at the
  cut-off; a terminal's return scaled into a value (``return / max_return``), except that a win or loss
  of the game's largest return ``p`` plies from the root scores ``±(WIN - p)``. ``WIN = 1000`` and no
  search goes past `MAX_PLY` plies, so such proven scores have ``|score| >= PROVEN > 1``: faster wins
  score higher, slower losses are preferred. Clipping a score to [-1, 1] is monotone, so the result
  equals plain minimax on values (`rlgames.search.reference`).
* **Transposition table** (`rlgames.search.tt`): proven scores are stored relative to the node. An
  entry at least as deep whose bound decides the window cuts the search off; otherwise its move is
  searched first. Move ordering: `rlgames.search.alphabeta.ordering`.
* **Quiescence:** past the horizon, a game with ``tactical_actions`` lets the side to move stand pat
  (take the evaluation) or play a tactical move, for up to ``quiescence_depth`` plies, so that the
  evaluation is not taken in the middle of an exchange (the horizon effect). A game without them
  keeps the ``is_quiet`` hook: a position that is not quiet is searched further, every move.
* **Repetition:** for a game with a ``repetition`` kernel the search keeps the key stack (history,
  then the path) and asks the kernel about every child: a drawn repetition scores 0, a forbidden one
  is skipped. A score that depends on a repetition of a position above the node is not stored in
  the table (entries stay true on other paths, up to the graph-history interaction every engine has).
* **Null move** (a game with ``null_move``, when ``null_reduction > 0``): before searching its moves a
  node gives the opponent a free move, searched ``1 + null_reduction`` plies shallower with a null
  window; if even that fails high, the node is cut off (Beal 1989; Heinz 1999 for R = 2 or 3).
* **Late-move reductions** (when ``late_move_reduction`` R > 0): at a node at least `LMR_MIN_DEPTH`
  deep, a move after the first `LMR_FULL_MOVES` (the table's move, captures and killers come first)
  that the game does not score as tactical (``move_score`` not positive) and that passes the turn is
  searched R plies shallower with a null window at alpha; only if it beats alpha is it searched again
  at full depth with the full window (the scheme of Fruit and Stockfish). Unsound (a reduced search
  may miss a deep refutation), so off by default; it pays in chess, whose late quiet moves rarely
  matter.
* **Budgets** (`rlgames.search.budget`): the search aborts once the node limit or the deadline passes.
* **Nodes:** the root, every interior position and every position evaluated past the horizon; a
  terminal child is scored by its parent and not counted.

Speed: the recursion runs without numba's reference counting (``_nrt=False``); a leaf is evaluated by
its parent, without a call; the kernels a game leaves out are compile-time constants that cost
nothing.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, NamedTuple

import numpy as np
from numba import njit

from rlgames.game import (
    ILLEGAL,
    REPETITION_DRAW,
    REPETITION_ILLEGAL,
    TERMINAL,
    GameKernels,
)
from rlgames.jit.cache import cache_closure
from rlgames.jit.nrt import with_nrt
from rlgames.search.alphabeta.config import (
    HISTORY_LEN,
    LATE_MOVE_REDUCTION,
    LMR_RESEARCHES,
    MAX_PLY,
    NULL_COL,
    NULL_CUTOFFS,
    NULL_REDUCTION,
    PV_COL,
    PV_LEN_COL,
    QUIESCENCE_DEPTH,
    QUIESCENCE_NODES,
    REPEAT_COL,
)
from rlgames.search.alphabeta.hooks import evaluation_hooks
from rlgames.search.alphabeta.ordering import (
    make_order_moves,
    record_cutoff,
    select_move,
)
from rlgames.search.alphabeta.workspace import NO_REPEAT, Workspace
from rlgames.search.budget import ABORTED, EVALS, TT_HITS, out_of_budget
from rlgames.search.pv import update_pv
from rlgames.search.tt import (
    EMPTY,
    EXACT,
    bound_flag,
    decides,
    entry_depth,
    entry_flag,
    entry_move,
    tt_lookup,
    tt_store,
    tt_value,
)

if TYPE_CHECKING:
    from rlgames.evaluators.nnue_incremental import Incremental

WIN = 1000.0
"""Internal score of a win on the last ply; a win ``p`` plies from the root scores ``WIN - p``."""
PROVEN = WIN - MAX_PLY
"""Scores at least this large in absolute value are proven wins or losses."""
INF = 1e9
FORBIDDEN = -2 * INF
"""`settled`'s word for a child the rules forbid (below every score)."""
NULL_WINDOW = 1e-9
LMR_FULL_MOVES = 3
"""Moves searched at full depth before late-move reductions start (the table's move, then the best-ordered)."""
LMR_MIN_DEPTH = 3
"""The shallowest remaining depth at which late moves are reduced."""


class CompiledAlphaBeta(NamedTuple):
    """``search(s, depth, ws) -> score`` searches root ``s`` to ``depth`` (the line is then in the
    workspace, and ``ws.control[ABORTED]`` says whether a budget ran out: the score and the line are
    then those of the best root move searched to the end, the line empty where none was);
    ``negamax(s, depth, ply, alpha, beta, ws) -> score`` is the recursion."""

    search: Callable[..., float]
    negamax: Callable[..., float]


@njit(cache=True)
def always_quiet(s) -> bool:
    """The default quiescence test: every position is quiet."""
    return True


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


@functools.cache
def make_alphabeta(
    kernels: GameKernels,
    evaluate_kernel: Callable[..., float],
    is_quiet: Callable[..., bool] = always_quiet,
    incremental: Incremental | None = None,
) -> CompiledAlphaBeta:
    """The compiled alpha-beta for one game and one evaluator kernel (``(s) -> value`` from the side
    to move), compiled on first call, kept for the process and cached on disk (`rlgames.jit.cache`).
    With an ``incremental`` evaluator (an NNUE's accumulators, `EvalWorkspace.accumulators`), the
    root's entry is computed once and each child's from its parent's as the search enters it, and
    values are read from them instead of calling ``evaluate_kernel``."""
    legal_actions, apply, hash_key = (
        with_nrt(kernels.legal_actions),
        with_nrt(kernels.apply),
        with_nrt(kernels.hash_key),
    )
    evaluate, quiet = with_nrt(evaluate_kernel), with_nrt(is_quiet)
    tactical_actions, repetition = with_nrt(kernels.tactical_actions), with_nrt(kernels.repetition)
    null_move = with_nrt(kernels.null_move)
    move_score = with_nrt(kernels.move_score)
    order_moves = make_order_moves(move_score, kernels.provides("move_score"))
    tactical, repeats = kernels.provides("tactical_actions"), kernels.provides("repetition")
    nulls, max_return = kernels.provides("null_move"), kernels.max_return
    static_value, enter_child, enter_root = evaluation_hooks(evaluate, incremental)

    @njit(inline="always")
    def terminal_score(s2, mover: int, ply: int) -> float:
        """The score of terminal ``s2``, reached at ``ply``, for ``mover`` who played into it."""
        ret = s2[1] if mover == 0 else -s2[1]
        if ret >= max_return:
            return WIN - ply
        if ret <= -max_return:
            return -(WIN - ply)
        return ret / max_return

    @njit(inline="always")
    def is_leaf(s, depth: int, control) -> bool:
        """Whether a node at ``depth`` is evaluated: past the horizon, with no quiescence plies left or
        (games without tactical moves) once quiet."""
        if tactical:
            return depth <= 0 and -depth >= control[QUIESCENCE_DEPTH]
        return depth <= 0 and (-depth >= control[QUIESCENCE_DEPTH] or quiet(s))

    @njit(inline="always")
    def enter(s, ply: int, ws: Workspace) -> bool:
        """Visits ``s`` at ``ply``: its line is empty so far, its key goes on the key stack; whether a
        budget has run out."""
        control = ws.control
        ws.plies[ply, control[PV_LEN_COL]] = ply
        if repeats:
            ws.plies[-1, control[HISTORY_LEN] + ply] = hash_key(s)
            ws.plies[ply, control[REPEAT_COL]] = NO_REPEAT
        return out_of_budget(control)

    @njit(inline="always")
    def leaf_value(s, ply: int, ws: Workspace) -> float:
        """Visits leaf ``s`` at ``ply`` (a node, as any other): its clipped value from the side to move."""
        control = ws.control
        ws.plies[ply, control[PV_LEN_COL]] = ply
        if out_of_budget(control):
            return 0.0
        control[EVALS] += 1
        return min(1.0, max(-1.0, static_value(s, ply, ws)))

    @njit(inline="always")
    def judge(s2, ply: int, ws: Workspace) -> int:
        """The repetition verdict on child ``s2`` of the node at ``ply``; a drawn repetition records
        the earliest key-stack index it matched (the node's value then depends on the path)."""
        control = ws.control
        keys, n = ws.plies[-1], control[HISTORY_LEN] + ply + 1
        verdict = repetition(s2, keys, n)
        if verdict == REPETITION_DRAW:
            key = hash_key(s2)
            for j in range(n):
                if keys[j] == key:
                    row = ws.plies[ply]
                    row[control[REPEAT_COL]] = min(row[control[REPEAT_COL]], j)
                    break
            ws.plies[ply + 1, control[PV_LEN_COL]] = ply + 1
        return verdict

    @njit(inline="always")
    def settled(s2, mover: int, ply: int, ws: Workspace) -> float:
        """The score of child ``s2`` of the node at ``ply`` where the rules settle it without a search:
        a terminal's, or a drawn repetition's 0; `FORBIDDEN` where the rules forbid the repetition;
        NaN where ``s2`` must be searched."""
        if repeats:
            verdict = judge(s2, ply, ws)
            if verdict == REPETITION_ILLEGAL:
                return FORBIDDEN
            if verdict == REPETITION_DRAW:
                return 0.0
        if s2[0] == TERMINAL:
            ws.plies[ply + 1, ws.control[PV_LEN_COL]] = ply + 1
            return terminal_score(s2, mover, ply + 1)
        return np.nan

    @njit(inline="always")
    def merge_repeats(ply: int, ws: Workspace) -> None:
        """The node at ``ply`` inherits the earliest repetition its child's subtree reached."""
        col = ws.control[REPEAT_COL]
        ws.plies[ply, col] = min(ws.plies[ply, col], ws.plies[ply + 1, col])

    @njit(_nrt=False)  # type: ignore[call-overload]  # _nrt: a numba option missing from its stubs
    def quiesce(s, depth: int, ply: int, alpha: float, beta: float, ws: Workspace) -> float:
        """Quiescence (games with tactical moves): stand pat, or play a tactical move."""
        control = ws.control
        if enter(s, ply, ws):
            return 0.0
        control[QUIESCENCE_NODES] += 1
        control[EVALS] += 1
        best = min(1.0, max(-1.0, static_value(s, ply, ws)))
        if best >= beta or -depth >= control[QUIESCENCE_DEPTH]:
            return best
        alpha = max(alpha, best)
        n = tactical_actions(s, ws.plies[ply])
        in_order = order_moves(s, ply, n, -1, ws)
        mover = s[0]
        for i in range(n):
            a = ws.plies[ply, i] if in_order else select_move(ply, i, n, ws)
            s2 = apply(s, a)
            score = settled(s2, mover, ply, ws)
            if score == FORBIDDEN:
                continue
            if np.isnan(score):
                enter_child(s, s2, ply, ws)
                same = s2[0] == mover  # one call of the recursion (see negamax)
                value = quiesce(s2, depth - 1, ply + 1, alpha if same else -beta, beta if same else -alpha, ws)
                score = value if same else -value
                if repeats:
                    merge_repeats(ply, ws)
            if control[ABORTED]:
                return 0.0
            if score > best:
                best = score
                update_pv(ws.plies, a, ply, ws.control[PV_COL], ws.control[PV_LEN_COL])
                alpha = max(alpha, score)
                if alpha >= beta:
                    break
        return best

    @njit(inline="always")
    def reduced(s, s2, a: int, i: int, depth: int, alpha: float, control) -> bool:
        """Whether move ``a``, the ``i``-th searched at a node ``depth`` deep, is a late move to reduce."""
        return (
            control[LATE_MOVE_REDUCTION] > 0
            and i >= LMR_FULL_MOVES
            and depth >= LMR_MIN_DEPTH
            and s2[0] != s[0]
            and alpha > -INF
            and abs(alpha) < PROVEN
            and move_score(s, a) <= 0.0
        )

    @njit(inline="always")
    def null_move_cuts(s, depth: int, ply: int, beta: float, ws: Workspace) -> bool:
        """Whether a null move from ``s`` fails high (the node is then cut off at ``beta``)."""
        control, row = ws.control, ws.plies[ply]
        reduction = control[NULL_REDUCTION]
        if (
            reduction == 0
            or ply == 0
            or depth <= reduction
            or abs(beta) >= PROVEN
            or ws.plies[ply - 1, control[NULL_COL]]
        ):
            return False
        s2 = null_move(s)
        if s2[0] == ILLEGAL:
            return False
        row[control[NULL_COL]] = 1
        enter_child(s, s2, ply, ws)
        score = -negamax(s2, depth - 1 - reduction, ply + 1, -beta, -beta + NULL_WINDOW, ws)
        row[control[NULL_COL]] = 0
        if score >= beta and not control[ABORTED]:
            control[NULL_CUTOFFS] += 1
            return True
        return False

    # No reference counting in the recursion (`_nrt=False`): it only reads and writes the arrays
    # the caller holds, so counting references to them (an atomic add and subtract per array per
    # call) bought nothing and cost much of the time. It also means the recursion cannot allocate:
    # numba refuses to compile an allocation here ("NRT required but not enabled").
    @njit(_nrt=False)  # type: ignore[call-overload]  # _nrt: a numba option missing from its stubs
    def negamax(s, depth: int, ply: int, alpha: float, beta: float, ws: Workspace) -> float:
        control = ws.control
        if is_leaf(s, depth, control):
            return leaf_value(s, ply, ws)
        if tactical and depth <= 0:
            return quiesce(s, depth, ply, alpha, beta, ws)
        if enter(s, ply, ws):
            return 0.0
        if depth <= 0:
            control[QUIESCENCE_NODES] += 1
        tt = ws.tt
        use_tt = len(tt) > 0
        key = hash_key(s)
        first = -1
        if use_tt:
            info = tt_lookup(tt, key)
            if entry_flag(info) != EMPTY:
                first = entry_move(info)
                if ply > 0 and entry_depth(info) >= depth:
                    score = score_from_tt(tt_value(tt, key), ply)
                    if decides(entry_flag(info), score, alpha, beta):
                        control[TT_HITS] += 1
                        return score
        if nulls and null_move_cuts(s, depth, ply, beta, ws):
            return beta
        if control[ABORTED]:
            return 0.0
        n = legal_actions(s, ws.plies[ply])
        in_order = order_moves(s, ply, n, first, ws)
        mover = s[0]
        original_alpha = alpha
        best, best_move = -INF, -1
        for i in range(n):
            a = ws.plies[ply, i] if in_order else select_move(ply, i, n, ws)
            s2 = apply(s, a)
            score = settled(s2, mover, ply, ws)
            if score == FORBIDDEN:
                continue
            if np.isnan(score):
                enter_child(s, s2, ply, ws)
            if np.isnan(score) and is_leaf(s2, depth - 1, control):  # evaluated here: most nodes are leaves
                value = leaf_value(s2, ply + 1, ws)
                score = value if s2[0] == mover else -value
            elif np.isnan(score):
                # One call of the recursion for every way of searching a child: numba types this whole
                # function again for each call of itself it finds, most of its compile time. A late move
                # is looked at shallower with a null window first, and searched in full if it beats alpha.
                late = reduced(s, s2, a, i, depth, alpha, control)  # then s2's mover is the opponent
                same = s2[0] == mover
                depth2 = depth - 1 - control[LATE_MOVE_REDUCTION] if late else depth - 1
                low, high = (-alpha - NULL_WINDOW, -alpha) if late else (alpha, beta) if same else (-beta, -alpha)
                while True:
                    value = negamax(s2, depth2, ply + 1, low, high, ws)
                    score = value if same else -value
                    if not late or score <= alpha or control[ABORTED]:
                        break
                    control[LMR_RESEARCHES] += 1
                    late, depth2, low, high = False, depth - 1, -beta, -alpha
                if repeats:
                    merge_repeats(ply, ws)
            if control[ABORTED]:  # the root keeps its best completed move (`CompiledAlphaBeta`)
                return best if ply == 0 else 0.0
            if score > best:
                best, best_move = score, a
                update_pv(ws.plies, a, ply, ws.control[PV_COL], ws.control[PV_LEN_COL])
                alpha = max(alpha, score)
                if alpha >= beta:
                    record_cutoff(s, a, depth, ply, ws)
                    break
        if use_tt and (not repeats or ws.plies[ply, control[REPEAT_COL]] >= control[HISTORY_LEN] + ply):
            tt_store(tt, key, score_to_tt(best, ply), depth, bound_flag(best, original_alpha, beta), best_move)
        return best

    @njit
    def extend_pv(s, ws: Workspace) -> None:
        """Follows the PV from the root, then TT moves (of exact entries) past its end while legal."""
        row, pv, pv_len = ws.plies[0], ws.control[PV_COL], ws.control[PV_LEN_COL]
        end = row[pv_len]
        for p in range(end):
            s = apply(s, row[pv + p])
        tt = ws.tt
        if len(tt) == 0 or repeats:  # past the line, a repetition would go unnoticed
            return
        buffer = ws.plies[1]  # scratch: the search is over
        while s[0] != TERMINAL and pv + end < len(row):
            info = tt_lookup(tt, hash_key(s))
            move = entry_move(info)
            if entry_flag(info) != EXACT or move < 0:
                return
            n = legal_actions(s, buffer)
            if not np.any(buffer[:n] == move):
                return
            row[pv + end] = move
            end += 1
            row[pv_len] = end
            s = apply(s, move)

    @njit(nogil=True)  # another thread may stop it meanwhile (`AlphaBeta.stop`)
    def search(s, depth: int, ws: Workspace) -> float:
        ws.control[ABORTED] = 0
        enter_root(s, ws)
        root_ply = np.int64(0)  # not a literal 0: one compiled version of the recursion, to cache it
        score = negamax(s, depth, root_ply, -INF, INF, ws)
        if not ws.control[ABORTED]:
            extend_pv(s, ws)
        return score

    return CompiledAlphaBeta(cache_closure(search), negamax)
