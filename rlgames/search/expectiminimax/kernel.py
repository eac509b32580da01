"""The compiled expectiminimax recursion, for `rlgames.search.expectiminimax.driver` (whose docstring states the
conventions: values from the side to move, depth in decisions or turns, Star1 pruning, the table, the
principal variation): the workspace, the triangular PV table and `make_expectiminimax`."""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from typing import NamedTuple

import numpy as np
from numba import njit

from rlgames.game import (
    CHANCE,
    REPETITION_DRAW,
    REPETITION_ILLEGAL,
    RETURN,
    TERMINAL,
    GameKernels,
)
from rlgames.jit.cache import cache_closure
from rlgames.search import pv
from rlgames.search.budget import (
    ABORTED,
    CUTOFFS,
    EVALS,
    TT_HITS,
    out_of_budget,
)
from rlgames.search.expectiminimax.config import (
    AFTERSTATES,
    CHANCE_CUTOFFS,
    FILTER_PASS,
    HISTORY_LEN,
    KEPT,
    OVERFLOW,
    PRUNING,
    PRUNING_LEVELS,
    ROOT_DEPTH,
)
from rlgames.search.pv import update_pv
from rlgames.search.tt import (
    EMPTY,
    bound_flag,
    decides,
    entry_depth,
    entry_flag,
    tt_lookup,
    tt_store,
    tt_value,
)

LOW, HIGH = -1.0, 1.0
INF = math.inf
LAYERS_PER_DECISION = 2
"""Plies reserved per decision: the decision and one chance layer (deeper chains of chance nodes
between two decisions overflow the workspace, and `Expectiminimax.search` raises)."""
LAYERS_PER_TURN = 4
"""Plies reserved per turn when depth counts turns: up to three decisions and one chance layer."""
VIEW_MIX = -7046029254386353131  # 0x9E3779B97F4A7C15: mixes the point of view into TT keys

ALPHABETA, STAR1 = PRUNING_LEVELS["alphabeta"], PRUNING_LEVELS["star1"]


class Workspace(NamedTuple):
    """The preallocated arrays of one search: ``P`` plies, ``A = max_actions``, ``H`` history keys.

    * ``plies`` int64[P + 1, max(A + 1 + P, H + P)], one row per ply: the node's actions or outcomes
      (columns ``[0, A)``), the end of the ply's line (column ``A``) and the triangular PV table's row
      (the line from ply p in columns ``A + 1 + p .. A + 1 + end``); the last row is the key stack of
      a game with a repetition rule (the history's keys, then the key of the position at each ply);
    * ``probs`` float64[P, A]: the outcomes' probabilities of the chance node at each ply;
    * ``tt`` int64[N, 3], the transposition table (`rlgames.search.tt`'s layout);
    * ``control`` int64[CONTROL_SIZE]: counters, the overflow flag, the pruning level and the budgets
      (slots named above and in `rlgames.search.budget`);
    * ``keys`` int64[M] and ``values`` float64[M], the move filter's afterstates (M = 0 without one):
      with ``FILTER_PASS`` set, the search records the key and value of every afterstate of the root's
      turn (``AFTERSTATES`` of them); with ``KEPT`` = k > 0, the root's turn reaches only the
      afterstates whose keys are the first k. The root's turn is its decisions down to the first
      chance node or decision of the other player (its depth is ``ROOT_DEPTH``); an afterstate is
      where it ends (in a search counting decisions: each child of the root).
    """

    plies: np.ndarray
    probs: np.ndarray
    tt: np.ndarray
    control: np.ndarray
    keys: np.ndarray
    values: np.ndarray


@njit(cache=True, inline="always")
def _kept(key: int, keys: np.ndarray, k: int) -> bool:
    for i in range(k):
        if keys[i] == key:
            return True
    return False


@njit(cache=True, inline="always")
def _record(key: int, v: float, ws: Workspace, control: np.ndarray) -> None:
    n = control[AFTERSTATES]
    if n == len(ws.keys):
        control[OVERFLOW] = 1
        return
    ws.keys[n] = key
    ws.values[n] = v
    control[AFTERSTATES] = n + 1


def principal_variation(ws: Workspace) -> tuple[int, ...]:
    """The line from the root of the last search (`rlgames.search.pv`: the table after each row's actions)."""
    end_col = ws.probs.shape[1]
    return pv.principal_variation(ws.plies, end_col + 1, end_col)


def make_expectiminimax(
    kernels: GameKernels, evaluate_kernel: Callable[..., float], *, by_turn: bool = False
) -> Callable[..., float]:
    """The compiled recursion ``value(s, player, depth, ply, alpha, beta, ws) -> float`` for one game
    and one evaluator kernel: the value of ``s`` from ``player``'s point of view (``player`` is
    ``s[0]`` at a decision node), searched ``depth`` more decisions (``by_turn``: turns) deep;
    fail-soft: exact inside ``(alpha, beta)``, a bound outside. Compiled on first call, kept for the
    process and shared by every parameter set of the game (it does not depend on ``max_actions``)."""
    return _compile(
        kernels.legal_actions,
        kernels.apply,
        kernels.chance_outcomes,
        kernels.hash_key,
        evaluate_kernel,
        kernels.repetition,
        kernels.provides("repetition"),
        kernels.max_return,
        kernels.settle,
        kernels.stakes,
        by_turn,
    )


@functools.cache
def _compile(
    legal_actions: Callable[..., int],
    apply: Callable[..., tuple],
    chance_outcomes: Callable[..., int],
    hash_key: Callable[..., int],
    evaluate: Callable[..., float],
    repetition: Callable[..., int],
    repeats: bool,
    max_return: int,
    settle: Callable[..., tuple],
    stakes: Callable[..., float],
    by_turn: bool,
) -> Callable[..., float]:

    @njit
    def value(s, player: int, depth: int, ply: int, alpha: float, beta: float, ws: Workspace) -> float:
        control = ws.control
        if out_of_budget(control):  # counts the node
            return 0.0
        actions, probs = ws.plies[ply], ws.probs[ply]
        actions[len(probs)] = ply  # the line from here is empty so far
        code = s[0]
        if code == TERMINAL:
            return (s[RETURN] if player == 0 else -s[RETURN]) / max_return
        chance = code == CHANCE
        if depth <= 0 and (by_turn or not chance):
            control[EVALS] += 1
            return min(HIGH, max(LOW, evaluate(s))) * stakes(s)
        if ply + 1 >= len(ws.plies) - 1:
            control[OVERFLOW] = 1
            return 0.0
        keys, history = ws.plies[-1], control[HISTORY_LEN]
        if repeats:
            keys[history + ply] = hash_key(s)
        root_turn = not chance and (ply == 0 or (by_turn and depth == control[ROOT_DEPTH]))
        filtering = root_turn and (control[FILTER_PASS] != 0 or control[KEPT] > 0)
        use_tt = len(ws.tt) > 0 and not repeats and not filtering
        key = hash_key(s) ^ (player + 1) * VIEW_MIX if use_tt else 0
        if use_tt:
            info = tt_lookup(ws.tt, key)
            if entry_flag(info) != EMPTY and entry_depth(info) >= depth:
                stored = tt_value(ws.tt, key)
                if decides(entry_flag(info), stored, alpha, beta):
                    control[TT_HITS] += 1
                    return stored
        prune = control[PRUNING] >= ALPHABETA
        star1 = control[PRUNING] >= STAR1
        if chance:
            n = chance_outcomes(s, actions, probs)
            next_depth = depth
        else:
            n = legal_actions(s, actions)
            next_depth = depth if by_turn else depth - 1
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
            s2 = settle(apply(s, a))
            mover = s2[0]
            verdict = repetition(s2, keys, history + ply + 1) if repeats else 0
            if verdict == REPETITION_ILLEGAL:
                continue
            afterstate = filtering and (not by_turn or mover != player)
            if afterstate and control[KEPT] > 0 and not _kept(hash_key(s2), ws.keys, control[KEPT]):
                continue
            if verdict == REPETITION_DRAW:
                ws.plies[ply + 1, len(probs)] = ply + 1
                v = 0.0
            else:  # one call of the recursion (numba types this function again for each one it finds)
                same = mover == player or mover == TERMINAL or mover == CHANCE  # else the other's decision
                turn_ends = by_turn and not chance and mover != player  # unless a chance node led here
                v = value(
                    s2,
                    player if same else mover,
                    next_depth - 1 if turn_ends else next_depth,
                    ply + 1,
                    lo if same else -hi,
                    hi if same else -lo,
                    ws,
                )
                v = v if same else -v
            if control[ABORTED]:
                return 0.0
            if afterstate and control[FILTER_PASS] != 0:
                _record(hash_key(s2), v, ws, control)
            if chance:
                total += p * v
                best = total
                if p > best_p:
                    best_p = p
                    update_pv(ws.plies, a, ply, ws.probs.shape[1] + 1, ws.probs.shape[1])
            elif v > best:
                best = v
                update_pv(ws.plies, a, ply, ws.probs.shape[1] + 1, ws.probs.shape[1])
                alpha = max(alpha, v)
                if alpha >= beta:
                    control[CUTOFFS] += 1
                    break
        if use_tt:
            tt_store(ws.tt, key, best, depth, bound_flag(best, original_alpha, beta), -1)
        return best

    return cache_closure(value)
