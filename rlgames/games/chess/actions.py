"""OpenSpiel's chess action numbering (AlphaZero's 8x8x73 planes), from the mover's point of view.

A move of the side to move is first seen from its own side: for black, ranks are mirrored (rank r
becomes rank 7 - r; files stay). From square ``(x, y)`` (file, rank) the action is
``(8 * x + y) * 73 + d``, where the destination index ``d`` is

* ``0 .. 8`` -- an underpromotion, ``3 * piece + direction``: piece 0 rook, 1 bishop, 2 knight;
  direction 0 straight ahead, 1 capturing towards the h-file, 2 towards the a-file;
* ``9 + 14 * kind + i`` -- a queen-like move (``kind`` 0 along the file, 1 along the rank, 2 the
  diagonal ``dx == dy``, 3 the anti-diagonal ``dx == -dy``; ``i`` indexes the signed distance
  ``-7 .. -1, 1 .. 7`` of ``dy``, ``dx``, ``dx``, ``dx``), queen promotions included;
* ``65 + k`` -- a knight move, ``k`` indexing OpenSpiel's offsets
  ``(-2,-1), (-2,1), (-1,-2), (-1,2), (2,-1), (2,1), (1,-2), (1,2)``.

Castling has two actions of its own: `QUEENSIDE` (4672, OpenSpiel's "left") and `KINGSIDE` (4673).
So 1.a3 and 1...a6 are both action 89. ``NUM_ACTIONS`` = 4674, OpenSpiel's ``num_distinct_actions``.

Moves inside the kernels are packed ints ``from | to << 6 | promotion << 12`` (real squares; the
promotion a piece code, 0 for none).
"""

from __future__ import annotations

import numpy as np
from numba import njit

PAWN, KNIGHT, BISHOP, ROOK, QUEEN, KING = range(6)
"""Piece codes: compact-state slot ``2 + code`` holds the bitboard of those pieces (both colours)."""

DESTINATIONS = 73
QUEENSIDE, KINGSIDE = 64 * DESTINATIONS, 64 * DESTINATIONS + 1
NUM_ACTIONS = KINGSIDE + 1
KNIGHT_OFFSETS = ((-2, -1), (-2, 1), (-1, -2), (-1, 2), (2, -1), (2, 1), (1, -2), (1, 2))
UNDERPROMOTIONS = (ROOK, BISHOP, KNIGHT)
PROMOTION_DX = (0, 1, -1)


def _distance_index(diff: int) -> int:
    return diff + 7 - (diff > 0)


def _destination(dx: int, dy: int) -> int:
    """The destination index of a queen or knight move (dx, dy), or -1 for any other offset."""
    if (dx, dy) == (0, 0) or max(abs(dx), abs(dy)) > 7:
        return -1
    if dx == 0:
        return 9 + _distance_index(dy)
    if dy == 0:
        return 9 + 14 + _distance_index(dx)
    if dx == dy:
        return 9 + 28 + _distance_index(dx)
    if dx == -dy:
        return 9 + 42 + _distance_index(dx)
    if (dx, dy) in KNIGHT_OFFSETS:
        return 9 + 56 + KNIGHT_OFFSETS.index((dx, dy))
    return -1


def _tables() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``ENCODE[from, to]``: the action of a plain move between squares seen from the mover's side
    (-1: no such move); ``FROM``, ``TO``, ``UNDER``: the squares (-1: off the board) and the
    underpromotion piece (0: none) of every action below `QUEENSIDE`, seen from the mover's side."""
    encode = np.full((64, 64), -1, dtype=np.int64)
    origin = np.full(QUEENSIDE, -1, dtype=np.int64)
    target = np.full(QUEENSIDE, -1, dtype=np.int64)
    under = np.zeros(QUEENSIDE, dtype=np.int64)
    for a in range(64):
        x, y = a % 8, a // 8
        base = (8 * x + y) * DESTINATIONS
        for b in range(64):
            d = _destination(b % 8 - x, b // 8 - y)
            if d >= 0:
                encode[a, b] = base + d
                origin[base + d], target[base + d] = a, b
        if y == 6:
            for d in range(9):
                tx = x + PROMOTION_DX[d % 3]
                if 0 <= tx < 8:
                    origin[base + d], target[base + d], under[base + d] = a, 56 + tx, UNDERPROMOTIONS[d // 3]
    return encode, origin, target, under


ENCODE, FROM, TO, UNDER = _tables()


PROMOTION_DIRECTION = np.array([2, 0, 1], dtype=np.int64)
"""Underpromotion direction by ``to - from - 7`` seen from the mover (7: towards the a-file, 8: ahead,
9: towards the h-file)."""
CASTLE = 1 << 15
"""Flag of a packed castling move (the king's two-file step)."""


@njit(cache=True)
def move_to_action(move: int, colour: int) -> int:
    """The action of the packed legal ``move`` of the side ``colour`` (0 white)."""
    if move & CASTLE:
        return KINGSIDE if move >> 6 & 7 == 6 else QUEENSIDE
    flip = 56 * colour
    frm, to, promotion = (move & 63) ^ flip, (move >> 6 & 63) ^ flip, move >> 12 & 7
    if promotion == 0 or promotion == QUEEN:
        return ENCODE[frm, to]
    return (8 * (frm & 7) + (frm >> 3)) * DESTINATIONS + 3 * (3 - promotion) + PROMOTION_DIRECTION[to - frm - 7]
