"""Escapes and containment: how freely a checker moves past the points the enemy has made.

A checker is held by the enemy's made points (two or more checkers) in front of it. Its **escapes** are
the rolls, of the 36, with which it can play the whole roll by itself, every point it lands on open: both
dice of a non-double in one of the two orders (the total's point open, and the first die's), the four
steps of a double (a step past 12 pips counts as open). They depend only on which of the 12 points in
front of it are made, so `ESCAPES` tabulates them for the 4,096 patterns. GNU Backgammon's networks read
inputs of this kind beside the board (its back-escapes and containment inputs), and so can rlgames'
(`rlgames.games.backgammon.encoding`'s ``expert_escapes``):

* `back_escapes`: the escapes of a side's rearmost checker (from the bar where one is there): how
  trapped its last checker is;
* `containment`: 1 - the fewest escapes, over the 12 points at the far end of the enemy's path (its points
  13 to 24) and its bar, that an enemy checker standing there would have: how well a side's points hold
  the enemy's checkers back, whether or not one stands there now.

Rows are the rules' (`rlgames.games.backgammon.evaluator_terms`): index 0..23 a side's points 1..24 from its
own side, 24 its bar; a checker moves down the indices, and the enemy's index ``j`` is the own ``23 - j``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

AHEAD = 12
"""The points in front of a checker that its escapes look at."""
ROLLS = 36


def _escapes_of(pattern: int) -> int:
    """The escapes through ``pattern``: bit ``k`` set where the point ``k + 1`` pips ahead is made by the
    enemy (a readable count, run once per pattern to fill `ESCAPES`)."""

    def open_at(pips: int) -> bool:
        return pips > AHEAD or not pattern >> (pips - 1) & 1

    count = 0
    for first in range(1, 7):
        for second in range(1, 7):
            if first == second:
                count += all(open_at(step * first) for step in range(1, 5))
            else:
                count += open_at(first + second) and (open_at(first) or open_at(second))
    return count


ESCAPES = np.array([_escapes_of(pattern) for pattern in range(1 << AHEAD)], dtype=np.int64)
"""int64[4096]: the escapes through each pattern of made points ahead (`_escapes_of`), of 36 rolls."""


@njit(cache=True)
def blocked_ahead(index: int, enemy) -> int:
    """The pattern (bit ``k``: the point ``k + 1`` pips ahead made) in front of a checker at own ``index``
    (24: the bar) of the side whose enemy's row is ``enemy``."""
    pattern = 0
    for k in range(AHEAD):
        point = index - 1 - k
        if point >= 0 and enemy[23 - point] >= 2:
            pattern |= 1 << k
    return pattern


@njit(cache=True)
def back_escapes(own, enemy) -> float:
    """The escapes of ``own``'s rearmost checker (on the bar if one is there), / 36; 1 with none left."""
    for index in range(24, -1, -1):
        if own[index] > 0:
            return ESCAPES[blocked_ahead(index, enemy)] / ROLLS
    return 1.0


@njit(cache=True)
def containment(own, enemy) -> float:
    """How well ``own``'s made points hold the enemy back: 1 - the fewest escapes / 36 of an enemy
    checker on its points 13..24 or its bar."""
    fewest = ROLLS
    for index in range(12, 25):
        fewest = min(fewest, ESCAPES[blocked_ahead(index, own)])
    return 1.0 - fewest / ROLLS
