"""Bitboards: bit tricks, the attack tables of the leapers, and the sliders' attacks by obstruction
difference.

A bitboard is a set of squares, bit ``sq`` for square ``sq`` (a1 = 0, b1 = 1 .. h8 = 63). Compact
states store them as int64; the kernels work on ``np.uint64`` so that shifts and subtraction wrap as
on unsigned words. The tables are built with numpy at import; numba freezes them into the kernels.

Slider attacks use the *obstruction difference* (Michael Hoffmann's): a line through a square splits
into the squares below it and those above it; the attacks are the squares strictly between the
nearest blocker below and the nearest blocker above, both blockers included. Finding them takes one
most-significant-bit scan, one isolated lowest bit and a subtraction per line, with 3 small masks per
square and line (18 KiB in all, against the 800 KiB of rook magics) and no collision search.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from rlgames.jit.bits import msb

U1 = np.uint64(1)
ALL = np.uint64(0xFFFF_FFFF_FFFF_FFFF)
DARK_SQUARES = 0xAA55_AA55_AA55_AA55  # a1, c1, .. (python-chess's BB_DARK_SQUARES)


@njit(cache=True)
def bit(square: int) -> np.uint64:
    """The bitboard of one square."""
    return U1 << np.uint64(square)


def _steps(square: int, deltas) -> int:
    """The squares one (file, rank) step away from ``square`` for each step in ``deltas``, on the board."""
    file, rank = square % 8, square // 8
    board = 0
    for df, dr in deltas:
        if 0 <= file + df < 8 and 0 <= rank + dr < 8:
            board |= 1 << (8 * (rank + dr) + file + df)
    return board


def _ray(square: int, df: int, dr: int) -> list[int]:
    """The squares from ``square`` (excluded) to the board's edge in direction (df, dr)."""
    file, rank = square % 8 + df, square // 8 + dr
    squares = []
    while 0 <= file < 8 and 0 <= rank < 8:
        squares.append(8 * rank + file)
        file, rank = file + df, rank + dr
    return squares


def _table(function) -> np.ndarray:
    return np.array([function(sq) for sq in range(64)], dtype=np.uint64)


KNIGHT_DELTAS = ((1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2))
KING_DELTAS = ((1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1), (1, -1))
LINES = ((0, 1), (1, 0), (1, 1), (-1, 1))
"""The four lines through a square, by the (file, rank) step of their upper half: file, rank,
diagonal, anti-diagonal. A rook uses lines 0 and 1, a bishop lines 2 and 3."""

KNIGHT = _table(lambda sq: _steps(sq, KNIGHT_DELTAS))
KING = _table(lambda sq: _steps(sq, KING_DELTAS))
PAWN_ATTACKS = np.array(
    [
        _table(lambda sq: _steps(sq, ((-1, 1), (1, 1))) if sq < 56 else 0),
        _table(lambda sq: _steps(sq, ((-1, -1), (1, -1))) if sq >= 8 else 0),
    ]
)
"""``PAWN_ATTACKS[colour, sq]``: the squares a pawn of ``colour`` (0 white) on ``sq`` attacks, which
are also the squares from which an enemy pawn attacks ``sq``."""

UPPER = np.array([[sum(1 << q for q in _ray(sq, df, dr)) for df, dr in LINES] for sq in range(64)], dtype=np.uint64)
LOWER = np.array([[sum(1 << q for q in _ray(sq, -df, -dr)) for df, dr in LINES] for sq in range(64)], dtype=np.uint64)
LINE_EX = UPPER | LOWER
"""``UPPER[sq, line]`` and ``LOWER[sq, line]``: the squares of ``line`` above and below ``sq``."""
ROOK_EMPTY = LINE_EX[:, 0] | LINE_EX[:, 1]
BISHOP_EMPTY = LINE_EX[:, 2] | LINE_EX[:, 3]
"""A rook's and a bishop's attacks on an empty board."""


def _between_and_line() -> tuple[np.ndarray, np.ndarray]:
    between = np.zeros((64, 64), dtype=np.uint64)
    line = np.zeros((64, 64), dtype=np.uint64)
    for a in range(64):
        for k, (df, dr) in enumerate(LINES):
            for sign in (1, -1):
                ray = _ray(a, sign * df, sign * dr)
                for i, b in enumerate(ray):
                    between[a, b] = sum(1 << q for q in ray[:i])
                    line[a, b] = LINE_EX[a, k] | np.uint64(1 << a)
    return between, line


BETWEEN, LINE = _between_and_line()
"""``BETWEEN[a, b]``: the squares strictly between two squares on a line (else none);
``LINE[a, b]``: the whole line through both, edge to edge (else none)."""


@njit(cache=True)
def line_attacks(square: int, occupied: np.uint64, line: int) -> np.uint64:
    """A slider's attacks along one line: from the nearest blocker below to the nearest above."""
    lower = LOWER[square, line] & occupied
    upper = UPPER[square, line] & occupied
    below = ALL << np.uint64(msb(lower | U1))  # the nearest blocker below and everything above it
    above = upper & (~upper + U1)  # the nearest blocker above, alone (0 when there is none)
    return LINE_EX[square, line] & ((above << U1) + below)


@njit(cache=True)
def rook_attacks(square: int, occupied: np.uint64) -> np.uint64:
    return line_attacks(square, occupied, 0) | line_attacks(square, occupied, 1)


@njit(cache=True)
def bishop_attacks(square: int, occupied: np.uint64) -> np.uint64:
    return line_attacks(square, occupied, 2) | line_attacks(square, occupied, 3)
