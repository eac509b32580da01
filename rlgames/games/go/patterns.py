"""Hand-written 3x3 shapes for go's pattern playouts, after MoGo's (Gelly, Wang, Munos & Teytaud 2006).

A shape is the 3x3 block around an empty candidate point, the point in its middle, written row by row
from the top with one character a cell: ``X`` the side to move's stone, ``O`` the opponent's, ``.`` empty,
``x`` not the side to move's (the opponent's or empty), ``o`` not the opponent's, ``?`` anything on the
board, ``#`` off the board. Each shape matches in its 8 rotations and reflections, and, unless it is marked
one-sided, with the colours swapped too (a good point for one side is one for the other). The set: the
hane shapes (enclosing, non-cutting, magari, thin), two cuts, and three edge shapes; it is our reading of
the paper's figure, not a copy of MoGo's table.

`PATTERN_TABLE[index]` says whether the block coded as ``index`` matches a shape: the 8 cells around the
point in the order north-west, north, north-east, west, east, south-west, south, south-east, each two
bits (0 empty, 1 the side to move's, 2 the opponent's, 3 off the board), the first cell lowest.
"""

from __future__ import annotations

import numpy as np

SHAPES: tuple[tuple[str, bool], ...] = (
    ("XOX...???", False),  # hane, enclosing
    ("XO....?.?", False),  # hane, non-cutting
    ("XO?X..?.?", False),  # hane, magari
    ("XOO...?.?", True),  # hane, thin: for the side to move only
    ("XO?O.o?o?", False),  # cut: separates two of the opponent's stones diagonal to each other
    ("?X?O.Oxxx", False),  # cut, the other way: between two of the opponent's stones, none behind
    ("X.?O.?###", False),  # edge: under a stone of each colour
    ("?X?x.O###", False),  # edge: hane on the first line
    ("?XOx.x###", False),  # edge: block on the first line
)
"""The shapes, each ``(rows, one_sided)``."""

EMPTY, OWN, ENEMY, OFF = range(4)
_ALLOWED = {
    "X": (OWN,),
    "O": (ENEMY,),
    ".": (EMPTY,),
    "x": (ENEMY, EMPTY),
    "o": (OWN, EMPTY),
    "?": (EMPTY, OWN, ENEMY),
    "#": (OFF,),
}
_AROUND = (0, 1, 2, 3, 5, 6, 7, 8)
"""The cells of a 3x3 block, row by row from the top, that surround its middle (4)."""


def _variants(rows: str) -> list[str]:
    """The 8 rotations and reflections of a shape's 9 cells."""
    grid = np.array(list(rows)).reshape(3, 3)
    out = []
    for k in range(4):
        turned = np.rot90(grid, k)
        out += ["".join(turned.ravel()), "".join(np.fliplr(turned).ravel())]
    return out


def _swapped(rows: str) -> str:
    """The shape for the other colour: ``X`` and ``O``, ``x`` and ``o`` exchanged."""
    return rows.translate(str.maketrans("XOxo", "OXox"))


def build_table(shapes: tuple[tuple[str, bool], ...] = SHAPES) -> np.ndarray:
    """bool[65536]: for each coded block around a point, whether it matches one of ``shapes``."""
    index = np.arange(4**8)
    cells = (index[:, None] >> (2 * np.arange(8))) & 3  # [block, cell]
    table = np.zeros(4**8, dtype=np.bool_)
    for rows, one_sided in shapes:
        if len(rows) != 9 or rows[4] != ".":
            raise ValueError(f"go: a shape is 9 cells with an empty middle, not {rows!r}")
        for variant in set(_variants(rows) + ([] if one_sided else _variants(_swapped(rows)))):
            match = np.ones(len(index), dtype=np.bool_)
            for cell, position in enumerate(_AROUND):
                match &= np.isin(cells[:, cell], _ALLOWED[variant[position]])
            table |= match
    return table


PATTERN_TABLE = build_table()
