"""Othello (reversi) on an 8x8 bitboard, with passes, matching OpenSpiel's ``othello``.

Action ``a = 8 * row + col`` (row 0 at the top) places a disc there; action ``PASS = 64`` is the pass, the
only legal action when the side to move has no move while the game goes on. Player 0 is black (``x``)
and moves first; the start position has white on d4 and e5, black on e4 and d5.
Notation, as OpenSpiel's: a column letter and a row number counted from the top, ``a1`` (top left) to
``h8``, and ``pass``.

End of game, as in OpenSpiel: after each disc placed, if neither side has a move the game is over and the
side with more discs wins (+1 / -1, 0 for equal counts); otherwise the turn goes to the opponent, who
passes when they have no move. A pass never ends the game.

Bitboards: bit ``a`` is square ``a``; the 64-bit board is stored as an int64 (bit 63, h8, is the sign
bit). Kernels work on ``np.uint64`` so that right shifts are logical.

Compact state: ``(player, return0, black, white, moves)``; ``moves`` is the legal-move bitboard of the
side to move (0 when it must pass, and once the game is over), cached so that the facade lists the
legal actions without calling a kernel.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from rlgames.game import (
    ILLEGAL,
    TERMINAL,
    GameKernels,
)
from rlgames.jit.bits import GOLDEN, mix64, popcount

BLACK, WHITE, MOVES = 2, 3, 4  # compact-state slots: the two boards and the side to move's moves
PASS = 64
SIZE = 8
NUM_CELLS = SIZE * SIZE
COLUMNS = "abcdefgh"
_MASK64 = (1 << 64) - 1

_NOT_A = np.uint64(0xFEFE_FEFE_FEFE_FEFE)  # every square but column a
_NOT_H = np.uint64(0x7F7F_7F7F_7F7F_7F7F)  # every square but column h
_ALL = np.uint64(0xFFFF_FFFF_FFFF_FFFF)
# The 8 directions as bit shifts (positive: left shift, towards h8) and the mask that drops the
# squares a shift wrapped around the board's side: E, SE, S, SW, W, NW, N, NE.
_SHIFTS = np.array([1, 9, 8, 7, -1, -9, -8, -7], dtype=np.int64)
_EDGES = np.array([_NOT_A, _NOT_A, _ALL, _NOT_H, _NOT_H, _NOT_H, _ALL, _NOT_A], dtype=np.uint64)


@njit(cache=True)
def _shift(board: np.uint64, direction: int) -> np.uint64:
    """``board`` moved one step in ``direction`` (an index into ``_SHIFTS``), off-board squares dropped."""
    step = _SHIFTS[direction]
    if step > 0:
        return (board << np.uint64(step)) & _EDGES[direction]
    return (board >> np.uint64(-step)) & _EDGES[direction]


@njit(cache=True)
def _moves(own: np.uint64, opp: np.uint64) -> np.uint64:
    """The legal-move bitboard of ``own`` against ``opp`` (dumb7fill in the 8 directions)."""
    empty = ~(own | opp)
    moves = np.uint64(0)
    for direction in range(8):
        run = _shift(own, direction) & opp
        for _ in range(5):  # a run of opponent discs is at most 6 long
            run |= _shift(run, direction) & opp
        moves |= _shift(run, direction) & empty
    return moves


@njit(cache=True)
def _flips(own: np.uint64, opp: np.uint64, square: int) -> np.uint64:
    """The opponent discs turned over when ``own`` plays on the empty ``square``."""
    disc = np.uint64(1) << np.uint64(square)
    flipped = np.uint64(0)
    for direction in range(8):
        run = _shift(disc, direction) & opp
        for _ in range(5):
            run |= _shift(run, direction) & opp
        if _shift(run, direction) & own:  # the run ends on one of our discs
            flipped |= run
    return flipped


@njit(cache=True)
def moves_bitboard(own: int, opp: int) -> int:
    """int64 bitboard of the squares where the side owning ``own`` may play (int64 bitboards)."""
    return np.int64(_moves(np.uint64(own), np.uint64(opp)))


@njit(cache=True)
def flips(own: int, opp: int, square: int) -> int:
    """int64 bitboard of the ``opp`` discs turned over when ``own`` plays on ``square`` (0 if none)."""
    return np.int64(_flips(np.uint64(own), np.uint64(opp), square))


@njit(cache=True)
def legal_actions(s, out) -> int:
    if s[0] == TERMINAL:
        return 0
    moves = np.uint64(s[MOVES])
    if moves == 0:
        out[0] = PASS
        return 1
    n = 0
    for square in range(NUM_CELLS):
        if (moves >> np.uint64(square)) & np.uint64(1):
            out[n] = square
            n += 1
    return n


@njit(cache=True)
def apply(s, action):
    player = s[0]
    if player < 0 or not 0 <= action <= PASS or (s[MOVES] != 0 if action == PASS else not s[MOVES] >> action & 1):
        return (ILLEGAL, 0, s[BLACK], s[WHITE], s[MOVES])
    black = np.uint64(s[BLACK])
    white = np.uint64(s[WHITE])
    own, opp = (black, white) if player == 0 else (white, black)
    if action == PASS:
        return (1 - player, 0, s[BLACK], s[WHITE], np.int64(_moves(opp, own)))
    flipped = _flips(own, opp, action)
    own ^= flipped | (np.uint64(1) << np.uint64(action))
    opp ^= flipped
    black, white = (own, opp) if player == 0 else (opp, own)
    b, w = np.int64(black), np.int64(white)
    next_moves = _moves(opp, own)
    if next_moves:
        return (1 - player, 0, b, w, np.int64(next_moves))
    if _moves(own, opp):  # the opponent must pass
        return (1 - player, 0, b, w, 0)
    margin = popcount(black) - popcount(white)
    return (TERMINAL, 1 if margin > 0 else (-1 if margin < 0 else 0), b, w, 0)


@njit(cache=True)
def hash_key(s) -> int:
    """``mix(mix(black + golden * (1 + side)) ^ white)`` as int64, where ``mix`` is the splitmix64
    finaliser, ``golden`` the 64-bit golden-ratio constant and ``side`` 1 when player 1 is to move."""
    side = np.uint64(1) if s[0] == 1 else np.uint64(0)
    h = mix64(np.uint64(s[BLACK]) + GOLDEN * (np.uint64(1) + side))
    return np.int64(mix64(h ^ np.uint64(s[WHITE])))


@njit(cache=True)
def observation(s, player, out) -> None:
    """out: float32[2, 8, 8], plane 0 ``player``'s discs, plane 1 the opponent's."""
    mine, theirs = (s[WHITE], s[BLACK]) if player == 1 else (s[BLACK], s[WHITE])
    mine_u, theirs_u = np.uint64(mine), np.uint64(theirs)
    for square in range(NUM_CELLS):
        out[0, square // SIZE, square % SIZE] = (mine_u >> np.uint64(square)) & np.uint64(1)
        out[1, square // SIZE, square % SIZE] = (theirs_u >> np.uint64(square)) & np.uint64(1)


KERNELS = GameKernels(
    legal_actions=legal_actions, apply=apply, hash_key=hash_key, observation=observation, max_actions=PASS + 1
)
