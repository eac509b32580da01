"""Move ordering for the compiled alpha-beta: the order in which a node's moves are searched decides
how many of them alpha-beta can cut off.

A move's key, largest first: the transposition table's move; moves the game scores above 0 (its
``move_score`` kernel: captures by MVV-LVA, promotions), by that score; two killer moves per ply
(moves that caused a cut-off at the same ply elsewhere); the history heuristic (``depth**2`` per
cut-off, by player and action; Schaeffer 1989) plus, at the root only, optional prior scores (e.g. an
evaluator's policy). Moves are taken by a selection sort, done only as far as the search goes.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from numba import njit

from rlgames.search.alphabeta.config import KILLER_COL, USE_HISTORY, USE_KILLERS
from rlgames.search.alphabeta.workspace import (
    HISTORY_ROW,
    ORDER_ROW,
    PRIOR_ROW,
    Workspace,
)
from rlgames.search.budget import CUTOFFS

TT_MOVE_KEY, KILLER_KEY = 4e30, 2e30  # above any history or prior score
SCORED_KEY, SCORE_UNIT = 2.5e30, 1e20  # a game-scored move: between the TT move and the killers
PRIOR_KEY = 1e20


def make_order_moves(move_score: Callable[..., float], scored: bool) -> Callable[..., bool]:
    """``order_moves(s, ply, n, first, ws) -> in_order`` for a game whose ``move_score`` kernel is
    used when ``scored`` (a constant of the compiled function: games without one pay nothing).

    It fills the ordering keys of the ``n`` moves of ``ply``, ``first`` (the TT move) first, and says
    whether the keys never increase along the moves: `select_move` can then be skipped."""

    @njit(inline="always")
    def order_moves(s, ply: int, n: int, first: int, ws: Workspace) -> bool:
        control, moves, keys = ws.control, ws.plies[ply], ws.scores[ORDER_ROW + ply]
        killer = control[KILLER_COL]
        killer1, killer2 = (moves[killer], moves[killer + 1]) if control[USE_KILLERS] else (-1, -1)  # -1: none
        use_history = control[USE_HISTORY] != 0
        history, prior = ws.scores[HISTORY_ROW + s[0]], ws.scores[PRIOR_ROW]
        in_order = True
        previous = math.inf
        for i in range(n):
            a = moves[i]
            score = move_score(s, a) if scored else 0.0
            if a == first:
                key = TT_MOVE_KEY
            elif score > 0.0:
                key = SCORED_KEY + SCORE_UNIT * score
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

    return order_moves


@njit(cache=True, inline="always")
def select_move(ply: int, i: int, n: int, ws: Workspace) -> int:
    """Moves the best-keyed move among moves ``i..n-1`` of ``ply`` to position ``i`` and returns it
    (the first of equals)."""
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
    """Move ``a`` of ``ply`` caused a cut-off: it becomes the ply's first killer and gains history."""
    control, row = ws.control, ws.plies[ply]
    control[CUTOFFS] += 1
    killer = control[KILLER_COL]
    if control[USE_KILLERS] and row[killer] != a:
        row[killer + 1] = row[killer]
        row[killer] = a
    if control[USE_HISTORY]:
        d = max(depth, 1)
        ws.scores[HISTORY_ROW + s[0], a] += d * d
