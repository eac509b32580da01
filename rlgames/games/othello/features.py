"""Othello's NNUE inputs: the patterns of its lines and corners, an n-tuple network's as Logistello's.

Each pattern is a line of the board (a row, a column, a diagonal of 4 to 8 squares) or a 3x3 corner
block, read as a base-3 number of its squares seen by one player (digit 0 an empty square, 1 the
player's disc, 2 the opponent's). Patterns that a symmetry of the board maps onto one another share
their rows of the first layer (a *class*: the 4 edges, the 4 corners, ...), their squares read in
corresponding orders (but for the two long diagonals: a half turn maps each onto itself backwards),
so that what an edge configuration is worth is learnt from all four edges: 38 patterns in 10 classes,
55,728 rows, and one more input for the stage of the game (the number of empty squares, in 16
buckets). Logistello (Buro 1997) and Edax evaluate with such tables; here they feed the NNUE's
accumulator. Two patterns of one class may select the same row (two empty edges): their rows add, as
an input counted twice.

A line's squares are gathered into consecutive bits by one masked multiplication, as chess engines
gather a file (`_gather`: no two terms of the product share a bit, so nothing carries), a corner
block by three shifts; `TERNARY` turns the gathered bits of each side into the pattern's base-3 digits.
Bit ``8 * row + col`` is square ``(row, col)``, as in `rlgames.games.othello.rules`.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numba import njit

from rlgames.game import FeatureSet
from rlgames.games.othello.rules import BLACK, NUM_CELLS, SIZE, WHITE
from rlgames.jit.bits import popcount


def _images(cells: list[tuple[int, int]]) -> list[list[tuple[int, int]]]:
    """The images of the ordered ``cells`` under the board's 8 symmetries, one per distinct set of
    squares (the first found), each in the order its canonical cells map to."""
    maps: list[Callable[..., tuple[int, int]]] = [  # (r, c); a reflection binds its m as a default
        lambda r, c: (r, c),
        lambda r, c: (c, SIZE - 1 - r),
        lambda r, c: (SIZE - 1 - r, SIZE - 1 - c),
        lambda r, c: (SIZE - 1 - c, r),
    ]
    maps += [lambda r, c, m=m: m(r, SIZE - 1 - c) for m in maps]  # and each reflected
    images: dict[frozenset, list[tuple[int, int]]] = {}
    for m in maps:
        image = [m(r, c) for r, c in cells]
        images.setdefault(frozenset(image), image)
    return list(images.values())


CLASSES: tuple[tuple[str, list[tuple[int, int]]], ...] = (
    ("edge", [(0, c) for c in range(SIZE)]),
    *((f"row {r + 1}", [(r, c) for c in range(SIZE)]) for r in range(1, 4)),
    *((f"diagonal {SIZE - k}", [(i, i + k) for i in range(SIZE - k)]) for k in range(5)),
    ("corner", [(r, c) for r in range(3) for c in range(3)]),
)
"""Each class's canonical pattern, its squares ``(row, col)`` in the order of their base-3 digits:
the edges and the rows 2 to 4 in from them, the diagonals of 8 down to 4 squares, the 3x3 corners."""

PATTERNS = tuple((k, image) for k, (_, cells) in enumerate(CLASSES) for image in _images(cells))
"""``(class, squares)`` of each pattern: 4 of each class but the long diagonals' 2, 38 in all."""
NUM_PATTERNS = len(PATTERNS)
_SIZES = np.array([3 ** len(cells) for _, cells in CLASSES], dtype=np.int64)
OFFSETS = np.concatenate([[0], np.cumsum(_SIZES)]).astype(np.int64)
"""``OFFSETS[k]``: the first row of class ``k``; ``OFFSETS[-1]`` is the stage input's first row."""
STAGES = 16
NUM_FEATURES = int(OFFSETS[-1]) + STAGES  # 55,744
NUM_ACTIVE = NUM_PATTERNS + 1


def _line_magic(cells: list[tuple[int, int]]) -> tuple[int, int]:
    """The mask and multiplier that gather a line's squares into the top byte: a row shifted up; a
    column by the multiplier that puts row ``r`` at bit ``63 - r``; a diagonal, one square per column,
    by the sum of the rows (each square lands on the top byte at its column)."""
    mask = sum(1 << 8 * r + c for r, c in cells)
    rows, cols = {r for r, _ in cells}, {c for _, c in cells}
    if len(rows) == 1:
        return mask, 1 << 56 - 8 * rows.pop()
    if len(cols) == 1:
        return mask, 0x0102040810204080 >> cols.pop()
    return mask, 0x0101010101010101


_LINES = [cells for _, cells in PATTERNS if len(cells) <= SIZE]
_CORNERS = [cells for _, cells in PATTERNS if len(cells) > SIZE]
NUM_LINES = len(_LINES)
MASKS = np.array([_line_magic(cells)[0] for cells in _LINES], dtype=np.uint64)
MAGICS = np.array([_line_magic(cells)[1] for cells in _LINES], dtype=np.uint64)
CORNER_SHIFTS = np.array(
    [8 * min(r for r, _ in cells) + min(c for _, c in cells) for cells in _CORNERS], dtype=np.int64
)
"""A corner block's first square: its three rows of three are ``board >> shift + 8 * i & 7``."""


def _gather_py(board: int, pattern: int) -> int:
    """`_gather`'s and `_corner`'s result in Python ints, for building `TERNARY`."""
    if pattern < NUM_LINES:
        return (board & int(MASKS[pattern])) * int(MAGICS[pattern]) % (1 << 64) >> 56
    shift = int(CORNER_SHIFTS[pattern - NUM_LINES])
    return sum((board >> shift + 8 * i & 7) << 3 * i for i in range(3))


def _ternary() -> np.ndarray:
    """int64[pattern, bits]: the base-3 value of a side's gathered squares (`_gather`), each square's
    digit 1 at its place in the pattern's order; 2 * the opponent's + the player's is the pattern."""
    table = np.zeros((NUM_PATTERNS, 1 << 9), dtype=np.int64)
    for p, cells in enumerate(_LINES + _CORNERS):
        bits = [_gather_py(1 << 8 * r + c, p) for r, c in cells]  # where each square lands
        full = _gather_py(sum(1 << 8 * r + c for r, c in cells), p)
        assert all(b and b & b - 1 == 0 for b in bits) and full == sum(bits) and len(set(bits)) == len(cells)
        for gathered in range(1 << 9):
            table[p, gathered] = sum(3**i for i, b in enumerate(bits) if gathered & b)
    return table


TERNARY = _ternary()
BASES = np.array([OFFSETS[k] for k, _ in PATTERNS], dtype=np.int64)
"""``BASES[p]``: the first row of pattern ``p``'s class (`PATTERNS` lists the lines, then the corners)."""


@njit(cache=True, inline="always")
def _gather(board: np.uint64, p: int) -> int:
    """Line ``p``'s squares of ``board`` as consecutive bits (an index of `TERNARY`)."""
    return (board & MASKS[p]) * MAGICS[p] >> np.uint64(56)


@njit(cache=True, inline="always")
def _corner(board: np.uint64, shift: int) -> int:
    """The 3x3 block from square ``shift`` as 9 bits, three rows of three."""
    rows = np.uint64(7)
    return (
        (board >> np.uint64(shift) & rows)
        | (board >> np.uint64(shift + 5) & rows << np.uint64(3))
        | (board >> np.uint64(shift + 10) & rows << np.uint64(6))
    )


@njit(cache=True)
def patterns(mine: np.uint64, theirs: np.uint64, empties: int, out) -> int:
    """Writes the active inputs seen by the player whose discs are ``mine`` into ``out``: each pattern's
    row (`BASES` + its base-3 value) and the stage's (``empties`` // 4); returns `NUM_ACTIVE`."""
    for p in range(NUM_LINES):
        out[p] = BASES[p] + TERNARY[p, _gather(mine, p)] + 2 * TERNARY[p, _gather(theirs, p)]
    for j in range(NUM_PATTERNS - NUM_LINES):
        p = NUM_LINES + j
        shift = CORNER_SHIFTS[j]
        out[p] = BASES[p] + TERNARY[p, _corner(mine, shift)] + 2 * TERNARY[p, _corner(theirs, shift)]
    out[NUM_PATTERNS] = OFFSETS[-1] + min(STAGES - 1, empties // 4)
    return NUM_ACTIVE


@njit(cache=True)
def features(s, player: int, out) -> int:
    """The NNUE inputs seen by ``player``: the base-3 patterns of the board's lines and corners, rows
    shared by symmetry, and the stage of the game (`patterns`): 39 active of
    55,744. No ``feature_changes``: a move turns discs on up to 8 lines through the square played, and
    summing the 39 rows at each leaf is cheaper than matching the inputs that changed."""
    if player == 1:
        mine, theirs = np.uint64(s[WHITE]), np.uint64(s[BLACK])
    else:
        mine, theirs = np.uint64(s[BLACK]), np.uint64(s[WHITE])
    return patterns(mine, theirs, NUM_CELLS - popcount(mine | theirs), out)


FEATURE_SETS = {"patterns": FeatureSet(features, NUM_FEATURES, NUM_ACTIVE)}
"""The NNUE's inputs by name: the patterns of the lines and corners, and the stage."""
