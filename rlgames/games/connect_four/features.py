"""Connect Four's NNUE inputs: the pattern of each of the 69 lines of four, seen by a player (an n-tuple
network's inputs)."""

from __future__ import annotations

import numpy as np
from numba import njit

from rlgames.game import FeatureSet
from rlgames.games.connect_four.rules import (
    HEIGHT,
    MASK,
    WIDTH,
    possible_moves,
    stones_of,
)


def _lines() -> np.ndarray:
    """int64[69, 4]: the bits of the cells of every 4-cell line (24 horizontal, 21 vertical, 24 diagonal)."""
    lines = []
    for dc, dr in ((1, 0), (0, 1), (1, 1), (1, -1)):
        for col in range(WIDTH):
            for row in range(HEIGHT):
                if 0 <= col + 3 * dc < WIDTH and 0 <= row + 3 * dr < HEIGHT:
                    lines.append([7 * (col + i * dc) + row + i * dr for i in range(4)])
    return np.array(lines, dtype=np.int64)


LINES = _lines()
NUM_LINES = len(LINES)  # 69
PATTERNS = 4**4  # a line's 4 cells, each one of 4 cell states
NUM_FEATURES = NUM_LINES * PATTERNS  # 17,664


SPREAD = np.array([sum((x >> i & 1) << 2 * i for i in range(7)) for x in range(1 << 7)], dtype=np.int64)
"""``SPREAD[x]``: the 7 bits of ``x`` moved to the even bits 0, 2, ..., 12."""


@njit(cache=True, inline="always")
def _gather(board: int, first: int, step: int, length: int) -> int:
    """The ``length`` cells of ``board`` from bit ``first`` every ``step`` bits, as consecutive bits from
    bit 0: masked, then multiplied so that cell ``i`` (at bit ``step * i``) moves up by ``top - (step -
    1) * i`` to bit ``top + i``; no two terms of the product share a bit (``step`` is 1, 6, 7 or 8 and
    ``length`` at most 7), so nothing carries. Constant ``step`` and ``length`` fold the loop away."""
    top = (step - 1) * (length - 1)
    mask = multiplier = 0
    for i in range(length):
        mask |= 1 << step * i
        multiplier |= 1 << top - (step - 1) * i
    return ((board >> first) & mask) * multiplier >> top & (1 << length) - 1


@njit(cache=True, inline="always")
def _states(high: int, low: int, first: int, step: int, length: int) -> int:
    """The states of cells gathered as `_gather` does (each cell's 2 bits: a base-4 digit of ``features``),
    from the boards of their high and low bits."""
    return SPREAD[_gather(high, first, step, length)] << 1 | SPREAD[_gather(low, first, step, length)]


@njit(cache=True)
def features(s, player: int, out) -> int:
    """The NNUE inputs seen by ``player``: one per line (`LINES`), ``PATTERNS * line + pattern``, where
    the pattern is a base-4 number of the line's cells (in `LINES` order), each 0 an empty cell no move
    can fill yet, 1 an empty cell playable now, 2 a stone of the viewing player, 3 the opponent's: 69
    active of 17,664, the n-tuple network's inputs (Lucas 2008; Thill et al. 2014 for connect four), in
    which a threat, and whether it can be played now, is a single input. A row's or a column's cells
    are gathered at once (`_states`), each of its lines a byte of them. No ``feature_changes``: a move
    changes the patterns of up to 23 lines in each view, a third of them, and summing the 69 rows at
    each leaf ran 18x faster than updating them at every node (`benchmarks/bench_nnue.py`)."""
    theirs = stones_of(s, 1 - player)
    high, low = s[MASK], theirs | possible_moves(s[MASK])  # the two bits of every cell's state
    for row in range(HEIGHT):
        states = _states(high, low, row, 7, WIDTH)
        for col in range(WIDTH - 3):  # horizontal lines from (col, row)
            line = 6 * col + row
            out[line] = PATTERNS * line + (states >> 2 * col & PATTERNS - 1)
    for col in range(WIDTH):
        states = _states(high, low, 7 * col, 1, HEIGHT)
        for row in range(HEIGHT - 3):  # vertical lines from (col, row) up
            line = 24 + 3 * col + row
            out[line] = PATTERNS * line + (states >> 2 * row & PATTERNS - 1)
    for col in range(WIDTH - 3):
        for row in range(HEIGHT - 3):  # diagonals from (col, row) up to the right
            line = 45 + 3 * col + row
            out[line] = PATTERNS * line + _states(high, low, 7 * col + row, 8, 4)
            line = 57 + 3 * col + row  # from (col, row + 3) down to the right
            out[line] = PATTERNS * line + _states(high, low, 7 * col + row + 3, 6, 4)
    return NUM_LINES


FEATURE_SETS = {"lines": FeatureSet(features, NUM_FEATURES, NUM_LINES)}
"""The NNUE's inputs by name: the pattern of each line of four."""
