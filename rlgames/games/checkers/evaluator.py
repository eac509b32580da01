"""A hand-crafted checkers evaluation in the spirit of Samuel's and the usual course evaluators: material
first (a king worth one and a half men), then the terms that decide between equal material.

Every feature is a difference, the side to move's count minus the opponent's, and each is the same
seen from either side of the board, so swapping the colours of a position (turned half round, the
other player to move) keeps every feature:

* ``men``, ``kings`` -- pieces;
* ``advancement`` -- the rows each man has come from its own back row (0 to 6);
* ``back_rank`` -- men still on their own back row, guarding it against crowning;
* ``centre`` -- pieces on the eight central squares 10, 11, 14, 15, 18, 19, 22, 23;
* ``mobility`` -- steps and jumps each side could make if it were to move (without the rule that a
  capture is mandatory: a cheap count of bit sets);
* ``runaway`` -- men whose forward cone (every square they could reach by moving forward up to their
  crowning row) holds no opponent piece, so that nothing stands between them and a crown.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from rlgames.evaluators.base import LinearEvaluator
from rlgames.games.checkers.rules import (
    FULL,
    KINGS0,
    KINGS1,
    MEN0,
    MEN1,
    NEIGHBOR,
    NUM_SQUARES,
    jump_sources,
    step_sources,
)
from rlgames.jit.bits import lsb, popcount

BACK_RANK = np.array([0xF, 0xF << 28], dtype=np.int64)
"""Each player's back row: squares 1-4 for player 0, 29-32 for player 1."""
CENTRE = sum(1 << (square - 1) for square in (10, 11, 14, 15, 18, 19, 22, 23))
ROWS = np.array([0xF << 4 * r for r in range(8)], dtype=np.int64)
"""The squares of each row counted from player 0's back row (row ``r``: squares ``4r + 1`` to ``4r + 4``)."""


def _cone(player: int, k: int) -> int:
    """The squares a man of ``player`` on bit ``k`` could reach moving forward, as a bitboard."""
    cone, frontier = 0, 1 << k
    while frontier:
        ahead = 0
        for q in range(NUM_SQUARES):
            for d in range(4):
                if frontier >> q & 1 and (d < 2) == (player == 0) and NEIGHBOR[q, d] >= 0:
                    ahead |= 1 << int(NEIGHBOR[q, d])
        cone |= ahead
        frontier = ahead
    return cone


CONES = np.array([[_cone(p, k) for k in range(NUM_SQUARES)] for p in range(2)], dtype=np.int64)
"""``CONES[player, k]``: the forward cone of a man of ``player`` on bit ``k``."""


@njit(cache=True)
def side_features(men: int, kings: int, opponent: int, player: int, out, sign: float) -> None:
    """Adds ``sign`` times ``player``'s counts to ``out`` (see the module docstring)."""
    empty = FULL & ~(men | kings | opponent)
    advancement = 0
    for r in range(8):
        advancement += (r if player == 0 else 7 - r) * popcount(men & ROWS[r])
    moves = 0
    for d in range(4):
        moves += popcount(step_sources(men, kings, empty, player, d))
        moves += popcount(jump_sources(men, kings, opponent, empty, player, d))
    runaway = 0
    rest = men
    while rest:
        if CONES[player, lsb(rest)] & opponent == 0:
            runaway += 1
        rest &= rest - 1
    out[0] += sign * popcount(men)
    out[1] += sign * popcount(kings)
    out[2] += sign * advancement
    out[3] += sign * popcount(men & BACK_RANK[player])
    out[4] += sign * popcount((men | kings) & CENTRE)
    out[5] += sign * moves
    out[6] += sign * runaway


@njit(cache=True)
def features(s, out) -> None:
    """The features of the non-terminal compact state ``s``, the side to move's minus the opponent's, in
    the order ``(men, kings, advancement, back_rank, centre, mobility, runaway)``."""
    out[:] = 0.0
    player = s[0]
    mine = (s[MEN0], s[KINGS0]) if player == 0 else (s[MEN1], s[KINGS1])
    theirs = (s[MEN1], s[KINGS1]) if player == 0 else (s[MEN0], s[KINGS0])
    side_features(mine[0], mine[1], theirs[0] | theirs[1], player, out, 1.0)
    side_features(theirs[0], theirs[1], mine[0] | mine[1], 1 - player, out, -1.0)


class CheckersEvaluator(LinearEvaluator):
    """``tanh(weights . features / 3)`` from the side to move (see the module docstring).

    Default weights, in men: a man 1, a king 1.5, a runaway man 0.5 more, a back-row guard 0.15, a
    central piece 0.1, a move of mobility 0.05, a row of advancement 0.04.
    """

    feature_names = ("men", "kings", "advancement", "back_rank", "centre", "mobility", "runaway")
    default_weights = (1.0, 1.5, 0.04, 0.15, 0.1, 0.05, 0.5)
    scale = 3.0
    features = features
