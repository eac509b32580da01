"""Attack tables for the chess evaluator (`rlgames.games.chess.evaluator`), on int64 bitboards (square a1 = bit 0
.. h8 = bit 63, the sign bit; the bit operations are `rlgames.jit.bits`'): knight and king attacks by square,
and sliders by the classical ray approach (each ray from the square, cut at its first blocker, found with a
bit scan; a sentinel blocker on h8 or a1 spares a branch per ray)."""

from __future__ import annotations

import numpy as np
from numba import njit

from rlgames.games.chess.actions import BISHOP, KNIGHT, ROOK
from rlgames.jit.bits import lsb, msb


def _int64(bits: int) -> int:
    """The signed int64 with the 64 bits of the non-negative ``bits``."""
    return bits - (1 << 64) if bits >= 1 << 63 else bits


def bitboard(squares) -> int:
    """The int64 bitboard of ``squares``."""
    bits = 0
    for q in squares:
        bits |= 1 << int(q)
    return _int64(bits)


def _on_board(f: int, r: int) -> bool:
    return 0 <= f < 8 and 0 <= r < 8


DIRECTIONS = ((0, 1), (1, 0), (1, 1), (-1, 1), (0, -1), (-1, 0), (-1, -1), (1, -1))
"""(file step, rank step) of the rays N, E, NE, NW (square index increasing), S, W, SW, SE
(decreasing)."""


def _ray(q: int, df: int, dr: int) -> int:
    f, r = q % 8 + df, q // 8 + dr
    squares = []
    while _on_board(f, r):
        squares.append(8 * r + f)
        f, r = f + df, r + dr
    return bitboard(squares)


def _steps(q: int, steps) -> int:
    return bitboard(8 * (q // 8 + dr) + q % 8 + df for df, dr in steps if _on_board(q % 8 + df, q // 8 + dr))


RAYS = np.array([[_ray(q, df, dr) for q in range(64)] for df, dr in DIRECTIONS], dtype=np.int64)
"""RAYS[d, q]: the squares from ``q`` (excluded) to the edge in direction ``DIRECTIONS[d]``."""
KNIGHT_ATTACKS = np.array([_steps(q, [(1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2)])
                           for q in range(64)], dtype=np.int64)
KING_ATTACKS = np.array([_steps(q, [(1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1), (1, -1)])
                         for q in range(64)], dtype=np.int64)

_H8 = bitboard([63])
"""The bitboard of h8 (the sign bit): the upward rays' sentinel blocker."""


# ---------------------------------------------------------------------------------------------------
# Attacks.


@njit(cache=True)
def _ray_up(d: int, q: int, occupied: int) -> int:
    """The ray ``d`` (square index increasing) from ``q``, up to and including its first blocker."""
    ray = RAYS[d, q]
    return ray ^ RAYS[d, lsb(ray & occupied | _H8)]  # no blocker: h8, whose upward rays are empty


@njit(cache=True)
def _ray_down(d: int, q: int, occupied: int) -> int:
    """The ray ``d`` (square index decreasing) from ``q``, up to and including its first blocker."""
    ray = RAYS[d, q]
    return ray ^ RAYS[d, msb(ray & occupied | 1)]  # no blocker: a1, whose downward rays are empty


@njit(cache=True)
def bishop_attacks(q: int, occupied: int) -> int:
    """The squares a bishop on ``q`` attacks given the ``occupied`` bitboard."""
    return _ray_up(2, q, occupied) | _ray_up(3, q, occupied) | _ray_down(6, q, occupied) | _ray_down(7, q, occupied)


@njit(cache=True)
def rook_attacks(q: int, occupied: int) -> int:
    """The squares a rook on ``q`` attacks given the ``occupied`` bitboard."""
    return _ray_up(0, q, occupied) | _ray_up(1, q, occupied) | _ray_down(4, q, occupied) | _ray_down(5, q, occupied)


@njit(cache=True)
def piece_attacks(piece: int, q: int, occupied: int) -> int:
    """The squares a knight, bishop, rook or queen (``piece``) on ``q`` attacks."""
    if piece == KNIGHT:
        return KNIGHT_ATTACKS[q]
    if piece == BISHOP:
        return bishop_attacks(q, occupied)
    if piece == ROOK:
        return rook_attacks(q, occupied)
    return bishop_attacks(q, occupied) | rook_attacks(q, occupied)
