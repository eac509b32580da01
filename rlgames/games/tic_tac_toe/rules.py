"""Tic-tac-toe on a 3x3 bitboard.

Action ``a = 3 * row + col`` (row 0 at the top), as in OpenSpiel; player 0 plays ``x`` and moves first.
Notation: a column letter and a row number counted from the top, ``a1`` (top left) to ``c3``.

Compact state: ``(player, return0, x, o)`` where ``x`` and ``o`` are 9-bit boards of each side's marks.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from rlgames.game import (
    ILLEGAL,
    TERMINAL,
    GameKernels,
)

X, O = 2, 3  # noqa: E741 -- the compact-state slots of the two boards, named by their marks
FULL = 0b111_111_111
LINES = np.array(
    [
        0b000_000_111,
        0b000_111_000,
        0b111_000_000,  # rows
        0b001_001_001,
        0b010_010_010,
        0b100_100_100,  # columns
        0b100_010_001,
        0b001_010_100,
    ],  # diagonals
    dtype=np.int64,
)


@njit(cache=True)
def has_line(board: int) -> bool:
    for line in LINES:
        if board & line == line:
            return True
    return False


@njit(cache=True)
def legal_actions(s, out) -> int:
    n = 0
    if s[0] == TERMINAL:
        return 0
    empty = ~(s[X] | s[O]) & FULL
    for cell in range(9):
        if empty >> cell & 1:
            out[n] = cell
            n += 1
    return n


@njit(cache=True)
def apply(s, action):
    player, _, x, o = s
    if player < 0 or not 0 <= action < 9 or (x | o) >> action & 1:
        return (ILLEGAL, 0, x, o)
    if player == 0:
        x |= 1 << action
        mine = x
    else:
        o |= 1 << action
        mine = o
    if has_line(mine):
        return (TERMINAL, 1 - 2 * player, x, o)
    if x | o == FULL:
        return (TERMINAL, 0, x, o)
    return (1 - player, 0, x, o)


@njit(cache=True)
def hash_key(s) -> int:
    return (s[X] << 9 | s[O]) << 1 | (1 if s[0] == 1 else 0)


@njit(cache=True)
def observation(s, player, out) -> None:
    """out: float32[2, 3, 3], plane 0 ``player``'s marks, plane 1 the opponent's."""
    mine, theirs = (s[O], s[X]) if player == 1 else (s[X], s[O])
    for cell in range(9):
        out[0, cell // 3, cell % 3] = mine >> cell & 1
        out[1, cell // 3, cell % 3] = theirs >> cell & 1


KERNELS = GameKernels(
    legal_actions=legal_actions, apply=apply, hash_key=hash_key, observation=observation, max_actions=9
)
