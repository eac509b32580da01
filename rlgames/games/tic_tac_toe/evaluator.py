"""The lecture notes' tic-tac-toe evaluation: open lines of the side to move minus those of the opponent.

A line (row, column or diagonal) is *open* for a player when the opponent has no mark on it. The notes
score a position for MAX (``x``) as ``e(s) = open(x) - open(o)``: 8 - 8 = 0 on the empty board, and
6 - 4 = 2 once ``x`` holds the centre and ``o`` an edge. Here the features are counted for the side to
move, so the score is the notes' ``e(s)`` when ``x`` is to move and its negation when ``o`` is.
"""

from __future__ import annotations

from numba import njit

from rlgames.evaluators.base import LinearEvaluator
from rlgames.games.tic_tac_toe.rules import LINES, O, X


@njit(cache=True)
def open_lines(theirs: int) -> int:
    """The number of lines without a mark of ``theirs``."""
    count = 0
    for line in LINES:
        if theirs & line == 0:
            count += 1
    return count


@njit(cache=True)
def features(s, out) -> None:
    """``out[0]``: lines open for the side to move, ``out[1]``: lines open for the opponent."""
    mine, theirs = (s[O], s[X]) if s[0] == 1 else (s[X], s[O])
    out[0] = open_lines(theirs)
    out[1] = open_lines(mine)


class OpenLinesEvaluator(LinearEvaluator):
    """``tanh((open lines of the mover - open lines of the opponent) / 8)``; 8 is the number of lines."""

    feature_names = ("open_lines_mover", "open_lines_opponent")
    default_weights = (1.0, -1.0)
    scale = 8.0
    features = features
