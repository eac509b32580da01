"""A hand-crafted connect-four evaluation: open windows, threats and centre control.

Every feature is counted for the side to move ("mover") and for the opponent separately, so that the
weights can value the tempo (a three of the side to move is worth more than one of the side that just
moved). On the 7 x 6 board there are 69 *windows*, the 4-cell segments of a row, column or diagonal
(24 horizontal, 21 vertical, 24 diagonal); a window is *open* for a player when the opponent has no
stone in it.

Features (``feature_names`` order), each counted for the mover then the opponent:

* ``twos`` / ``threes`` -- open windows holding exactly two / three of the player's stones;
* ``threats`` -- empty cells that would complete a four for the player, playable now or later
  (`rlgames.games.connect_four.rules.winning_positions`); a cell shared by several windows counts once;
* ``playable_threats`` -- those threats playable right now: a win on the next move for the mover,
  a cell the mover must block (two of them lose) for the opponent;
* ``centre`` -- the player's stones in the centre column (the column in most windows).
"""

from __future__ import annotations

import itertools

import numpy as np
from numba import njit

from rlgames.evaluators.base import LinearEvaluator
from rlgames.games.connect_four.rules import (
    CURRENT,
    HEIGHT,
    MASK,
    WIDTH,
    possible_moves,
    winning_positions,
)

SHIFTS = np.array([1, 7, 6, 8], dtype=np.int64)
"""The bit offset between neighbouring cells of a line: vertical, horizontal, and the diagonals going
down and up to the right."""


def _window_starts() -> np.ndarray:
    """int64[4]: for each direction of `SHIFTS`, the cells where a window starts (its cell nearest to
    bit 0, the other three at +shift, +2 shift, +3 shift)."""
    starts = []
    for dc, dr in ((0, 1), (1, 0), (1, -1), (1, 1)):
        board = 0
        for col, row in itertools.product(range(WIDTH), range(HEIGHT)):
            if 0 <= col + 3 * dc < WIDTH and 0 <= row + 3 * dr < HEIGHT:
                board |= 1 << 7 * col + row
        starts.append(board)
    return np.array(starts, dtype=np.int64)


WINDOW_STARTS = _window_starts()
CENTRE_COLUMN = ((1 << HEIGHT) - 1) << 7 * (WIDTH // 2)


@njit(cache=True, inline="always")
def bit_count(bits: int) -> int:
    """The number of set bits of a non-negative int64 (a loop over the set bits: boards are sparse)."""
    count = 0
    while bits:
        bits &= bits - 1
        count += 1
    return count


@njit(cache=True, inline="always")
def open_windows(stones: int, blockers: int) -> tuple[int, int]:
    """The windows free of ``blockers`` that hold exactly two, and exactly three, of ``stones``.

    Bit-parallel over all the windows of one direction at once: the four cells of each window are
    added by a bit-sliced adder into the digits ``high, mid, low`` of the count, per start cell."""
    twos = threes = 0
    for k in range(SHIFTS.shape[0]):
        d = SHIFTS[k]
        blocked = blockers | blockers >> d | blockers >> 2 * d | blockers >> 3 * d
        a, b, c, e = stones, stones >> d, stones >> 2 * d, stones >> 3 * d
        sum1, carry1, sum2, carry2 = a ^ b, a & b, c ^ e, c & e
        low, carry = sum1 ^ sum2, sum1 & sum2
        mid = carry1 ^ carry2 ^ carry
        high = (carry1 & carry2) | (carry & (carry1 ^ carry2))
        open_mid = WINDOW_STARTS[k] & ~blocked & ~high & mid
        twos += bit_count(open_mid & ~low)
        threes += bit_count(open_mid & low)
    return twos, threes


@njit(cache=True)
def features(s, out) -> None:
    """The features of the non-terminal compact state ``s`` for the side to move, in the order
    ``(twos, threes, threats, playable_threats, centre)`` x ``(mover, opponent)``."""
    mine = s[CURRENT]
    mask = s[MASK]
    theirs = mine ^ mask
    twos_mine, threes_mine = open_windows(mine, theirs)
    twos_theirs, threes_theirs = open_windows(theirs, mine)
    threats_mine = winning_positions(mine, mask)
    threats_theirs = winning_positions(theirs, mask)
    playable = possible_moves(mask)
    out[0], out[1] = twos_mine, twos_theirs
    out[2], out[3] = threes_mine, threes_theirs
    out[4], out[5] = bit_count(threats_mine), bit_count(threats_theirs)
    out[6], out[7] = bit_count(threats_mine & playable), bit_count(threats_theirs & playable)
    out[8], out[9] = bit_count(mine & CENTRE_COLUMN), bit_count(theirs & CENTRE_COLUMN)


class ConnectFourEvaluator(LinearEvaluator):
    """``tanh(weights . features / 16)`` over open twos and threes, threats and the centre column,
    from the side to move (see the module docstring).

    The default weights: a two is worth 1, a three 4, a threat cell 2 more, a stone in the centre
    column 1.5; the opponent's count the same negatively, except a win on the next move (+30, which
    saturates the value) and a threat the mover must block now (-6; two of them, -12 more, lose).
    """

    feature_names = (
        "twos_mover",
        "twos_opponent",
        "threes_mover",
        "threes_opponent",
        "threats_mover",
        "threats_opponent",
        "playable_threats_mover",
        "playable_threats_opponent",
        "centre_mover",
        "centre_opponent",
    )
    default_weights = (1.0, -1.0, 4.0, -4.0, 2.0, -2.0, 30.0, -6.0, 1.5, -1.5)
    scale = 16.0
    features = features
