"""A hand-crafted go evaluation: the area score with influence, from the side to move.

The Tromp-Taylor count scores only settled regions, so that early in a game nearly every empty point
counts for no one. Influence fills the gap as the simplest of the classical programs' estimates did: an
empty point outside a settled region counts for the colour whose stones are nearer (Manhattan distance
through empty points), and for no one at equal distance. Both features are fractions of the board's
points, from the side to move; komi and the handicap count against black.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from rlgames.evaluators.base import LinearEvaluator
from rlgames.games.go.rules import SIZE, area_margin, boards, deduction2, has_point, neighbours, side_to_move

_FAR = 1 << 30


@njit(cache=True)
def _distances(own, other, n: int, out) -> None:
    """``out[p]``: the distance from ``own``'s nearest stone to empty point ``p`` through empty points
    (`_FAR` where none reaches it); stones get 0."""
    queue = np.empty(n * n, dtype=np.int64)
    around = np.empty(4, dtype=np.int64)
    head, tail = 0, 0
    for p in range(n * n):
        if has_point(own, p):
            out[p] = 0
            queue[tail] = p
            tail += 1
        else:
            out[p] = _FAR
    while head < tail:
        q = queue[head]
        head += 1
        for i in range(neighbours(q, n, around)):
            r = around[i]
            if out[r] == _FAR and not has_point(other, r):
                out[r] = out[q] + 1
                queue[tail] = r
                tail += 1


@njit(cache=True)
def features(s, out) -> None:
    """``out[0]``: the Tromp-Taylor score (after komi and handicap) and ``out[1]``: the influence margin
    of the empty points, both for the side to move and divided by the board's points."""
    n = s[SIZE]
    black, white = boards(s)
    score = area_margin(black, white, n) - 0.5 * deduction2(s)
    to_black = np.empty(n * n, dtype=np.int64)
    to_white = np.empty(n * n, dtype=np.int64)
    _distances(black, white, n, to_black)
    _distances(white, black, n, to_white)
    influence = 0
    for p in range(n * n):
        if has_point(black, p) or has_point(white, p):
            continue
        b, w = to_black[p], to_white[p]
        if b < _FAR and w < _FAR:  # a region reaching one colour only is already in the score
            influence += (b < w) - (w < b)
    sign = 1.0 if side_to_move(s) == 0 else -1.0
    out[0] = sign * score / (n * n)
    out[1] = sign * influence / (n * n)


class AreaEvaluator(LinearEvaluator):
    """``tanh((score + influence) / 0.1)``: a lead of a tenth of the board is worth ``tanh(1) = 0.76``."""

    feature_names = ("area_score", "influence")
    default_weights = (1.0, 1.0)
    scale = 0.1
    features = features
