"""A hand-crafted othello evaluation in the spirit of the classic ones (Rosenbloom's IAGO, the usual
course evaluators): mobility and corners dominate, discs count little until the end.

Every feature is a difference, the side to move's count minus the opponent's, so swapping the colours
of a position negates every feature:

* ``disc_difference`` -- discs;
* ``mobility`` -- legal moves (the mover's are cached in the compact state, 0 when it must pass);
* ``corners`` -- corner discs;
* ``x_squares`` -- discs on an X-square (b2, g2, b7, g7) whose diagonal corner is empty: they give the
  corner away;
* ``c_squares`` -- discs on a C-square (the edge squares next to a corner) whose corner is empty;
* ``positional`` -- the sum of the classic square-weight table `POSITION_WEIGHTS` (corners 100,
  X-squares -50, ...) over the player's discs;
* ``stable`` -- edge-anchored stable discs, an approximation (a lower bound) of the discs that can
  never be flipped: the discs of a completely filled edge (an edge disc can only be outflanked along
  its edge, and a full edge has no empty square to play on), and the unbroken run of a player's discs
  along an edge starting from a corner the player owns. Stable interior discs are not detected.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from rlgames.evaluators.base import LinearEvaluator
from rlgames.games.othello.rules import BLACK, MOVES, SIZE, WHITE, moves_bitboard
from rlgames.jit.bits import popcount

POSITION_WEIGHTS = np.array(
    [
        [100, -20, 10, 5, 5, 10, -20, 100],
        [-20, -50, -2, -2, -2, -2, -50, -20],
        [10, -2, -1, -1, -1, -1, -2, 10],
        [5, -2, -1, -1, -1, -1, -2, 5],
        [5, -2, -1, -1, -1, -1, -2, 5],
        [10, -2, -1, -1, -1, -1, -2, 10],
        [-20, -50, -2, -2, -2, -2, -50, -20],
        [100, -20, 10, 5, 5, 10, -20, 100],
    ],
    dtype=np.int64,
)
"""The classic square weights, row 0 the top row (a1 is square 0, top left)."""


def _board(squares) -> int:
    """The int64 bitboard of ``squares`` (bit 63, h8, is the sign bit)."""
    return int(np.array(sum(1 << int(q) for q in squares), dtype=np.uint64).view(np.int64))


CORNERS = np.array([0, 7, 56, 63], dtype=np.int64)
CORNER_BOARD = _board(CORNERS)
X_SQUARES = np.array([_board([9]), _board([14]), _board([49]), _board([54])], dtype=np.int64)
"""The X-square of each corner of `CORNERS`, as bitboards."""
C_SQUARES = np.array([_board([1, 8]), _board([6, 15]), _board([48, 57]), _board([55, 62])], dtype=np.int64)
"""The two C-squares of each corner of `CORNERS`, as bitboards."""
_VALUES = np.unique(POSITION_WEIGHTS)
WEIGHT_VALUES = _VALUES.astype(np.float64)
WEIGHT_GROUPS = np.array([_board(np.flatnonzero(POSITION_WEIGHTS.ravel() == v)) for v in _VALUES], dtype=np.int64)
"""``WEIGHT_GROUPS[i]``: the squares whose table weight is ``WEIGHT_VALUES[i]``."""
EDGES = np.array(
    [
        list(range(SIZE)),  # row 1, a1 to h1
        list(range(SIZE * (SIZE - 1), SIZE * SIZE)),  # row 8
        list(range(0, SIZE * SIZE, SIZE)),  # column a
        list(range(SIZE - 1, SIZE * SIZE, SIZE)),  # column h
    ],
    dtype=np.int64,
)
"""The squares of each edge, from one corner to the other."""
EDGE_BOARDS = np.array([_board(edge) for edge in EDGES], dtype=np.int64)


@njit(cache=True)
def stable_edge_discs(own: int, opp: int) -> int:
    """The bitboard of ``own`` discs stable along an edge: on a full edge, or in an unbroken run of
    ``own`` discs from a corner (see the module docstring)."""
    stable = 0
    for e in range(EDGES.shape[0]):
        line = EDGE_BOARDS[e]
        if (own | opp) & line == line:
            stable |= own & line
            continue
        for start, step in ((0, 1), (SIZE - 1, -1)):
            i = start
            while 0 <= i < SIZE and own >> EDGES[e, i] & 1:
                stable |= 1 << EDGES[e, i]
                i += step
    return stable


@njit(cache=True)
def positional(board: int) -> float:
    """The sum of `POSITION_WEIGHTS` over the discs of ``board``."""
    total = 0.0
    for i in range(WEIGHT_GROUPS.shape[0]):
        total += WEIGHT_VALUES[i] * popcount(board & WEIGHT_GROUPS[i])
    return total


@njit(cache=True)
def features(s, out) -> None:
    """The features of the non-terminal compact state ``s``: the side to move's count minus the
    opponent's, in the order ``(disc_difference, mobility, corners, x_squares, c_squares, positional,
    stable)``."""
    own, opp = (s[BLACK], s[WHITE]) if s[0] == 0 else (s[WHITE], s[BLACK])
    empty_corner_x = 0
    empty_corner_c = 0
    for i in range(CORNERS.shape[0]):
        if not (own | opp) >> CORNERS[i] & 1:
            empty_corner_x |= X_SQUARES[i]
            empty_corner_c |= C_SQUARES[i]
    out[0] = popcount(own) - popcount(opp)
    out[1] = popcount(s[MOVES]) - popcount(moves_bitboard(opp, own))
    out[2] = popcount(own & CORNER_BOARD) - popcount(opp & CORNER_BOARD)
    out[3] = popcount(own & empty_corner_x) - popcount(opp & empty_corner_x)
    out[4] = popcount(own & empty_corner_c) - popcount(opp & empty_corner_c)
    out[5] = positional(own) - positional(opp)
    out[6] = popcount(stable_edge_discs(own, opp)) - popcount(stable_edge_discs(opp, own))


class OthelloEvaluator(LinearEvaluator):
    """``tanh(weights . features / 40)`` from the side to move (see the module docstring).

    Default weights: a corner 25, a move of mobility 2, a stable disc 4, an X-square next to an empty
    corner -10 and a C-square -4, the square table at a tenth, a disc a quarter.
    """

    feature_names = ("disc_difference", "mobility", "corners", "x_squares", "c_squares", "positional", "stable")
    default_weights = (0.25, 2.0, 25.0, -10.0, -4.0, 0.1, 4.0)
    scale = 40.0
    features = features
