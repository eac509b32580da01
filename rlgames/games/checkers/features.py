"""Checkers' NNUE inputs: each piece on its square, seen from one player's side of the board.

``pieces``: 4 kinds (the player's men, the player's kings, the opponent's men, the opponent's kings) on
32 squares, 128 inputs, at most 24 active. Squares are numbered from the player's own side, so that a
man always moves towards higher squares: player 0 reads the squares as they are (bit ``k`` is square
``k + 1``, `rlgames.games.checkers.rules`), player 1 reads them turned half round (bit ``k`` as
``31 - k``). One network then serves both colours, as Stockfish's inputs are read from each side.
"""

from __future__ import annotations

from numba import njit

from rlgames.game import FeatureSet
from rlgames.games.checkers.rules import KINGS0, KINGS1, MEN0, MEN1, NUM_SQUARES
from rlgames.jit.bits import lsb

NUM_INPUTS = 4 * NUM_SQUARES
MOST_ACTIVE = 24


@njit(cache=True)
def features(s, player: int, out) -> int:
    """The active inputs seen by ``player``: ``kind * 32 + square``, the square counted from ``player``'s
    side."""
    boards = (s[MEN0], s[KINGS0], s[MEN1], s[KINGS1]) if player == 0 else (s[MEN1], s[KINGS1], s[MEN0], s[KINGS0])
    n = 0
    for kind in range(4):
        board = boards[kind]
        while board:
            k = lsb(board)
            out[n] = kind * NUM_SQUARES + (k if player == 0 else NUM_SQUARES - 1 - k)
            n += 1
            board &= board - 1
    return n


FEATURE_SETS = {"pieces": FeatureSet(features, NUM_INPUTS, MOST_ACTIVE)}
