"""The principal variation of the compiled searches: a triangular table kept in the rows of a search's
plies array, as in most engines. Row ``p`` holds the line from ply ``p`` in columns ``start + p ..
start + end`` and ``end`` in column ``end_col``; a move that raises alpha at ply ``p`` copies the line
below it after itself (`update_pv`). Alpha-beta and expectiminimax keep their tables at other columns of
their workspaces."""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, inline="always")
def update_pv(plies: np.ndarray, a: int, ply: int, start: int, end_col: int) -> None:
    """The line from ``ply``: ``a`` followed by the line from ``ply + 1``."""
    row, below = plies[ply], plies[ply + 1]
    row[start + ply] = a
    end = below[end_col]
    for p in range(ply + 1, end):
        row[start + p] = below[start + p]
    row[end_col] = max(end, ply + 1)


def principal_variation(plies: np.ndarray, start: int, end_col: int) -> tuple[int, ...]:
    """The line from the root of the last completed search."""
    return tuple(plies[0, start : start + plies[0, end_col]].tolist())
