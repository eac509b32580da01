"""Connect Four on a 7-column x 6-row bitboard (Pascal Pons' layout).

Action ``a`` drops a stone in column ``a`` (0 leftmost), as in OpenSpiel's ``connect_four``; player 0
plays ``x`` and moves first. Four in a row, column or diagonal wins; a full board without one is a
draw. Notation: the column digit counted from 1, ``"1"`` to ``"7"``, as in Pons' move strings
(``"4453"`` is the game 3, 3, 4, 2).

Bitboards: 7 bits per column, bit ``7 * col + row`` with row 0 at the bottom; bit 6 of each column is
an always-empty sentinel, so shifted lines never wrap from one column into the next.

Compact state: ``(player, return0, current, mask, plies)`` where ``mask`` holds every stone,
``current`` the stones of the side to move (of the side that would move, once terminal) and ``plies``
the number of stones on the board. The stones of player 0 are ``current`` when ``plies`` is even.

Kernel set: besides the `GameKernels` record ``KERNELS``, these compiled helpers are part of this
module's API for solvers and evaluators, all on plain int64 bitboards:

* ``has_four(stones) -> bool``: whether ``stones`` contain four in a line;
* ``possible_moves(mask) -> int``: the cells a move can fill now (the lowest empty cell of each
  column that is not full);
* ``winning_positions(current, mask) -> int``: the empty cells (playable now or not) that would
  complete a four for the stones ``current``;
* ``can_win_next(s) -> bool``: whether the side to move in compact state ``s`` wins with one move.

An NNUE reads ``features``: the pattern of each of the 69 lines of four (`LINES`), seen by a player.
"""

from __future__ import annotations

from numba import njit

from rlgames.game import (
    ILLEGAL,
    TERMINAL,
    GameKernels,
)

WIDTH, HEIGHT = 7, 6
CURRENT, MASK, PLIES = 2, 3, 4  # compact-state slots
BOTTOM = sum(1 << 7 * col for col in range(WIDTH))  # row 0 of every column
BOARD = BOTTOM * ((1 << HEIGHT) - 1)  # every playable cell (the sentinel row excluded)
TOP = BOTTOM << HEIGHT - 1  # row 5 of every column: a column is full when its top bit is set
NUM_CELLS = WIDTH * HEIGHT


@njit(cache=True)
def has_four(stones: int) -> bool:
    """Whether ``stones`` contain four in a line: shift-and along 1 (vertical), 7 (horizontal),
    6 and 8 (the two diagonals)."""
    for shift in (1, 7, 6, 8):
        pairs = stones & (stones >> shift)
        if pairs & (pairs >> 2 * shift):
            return True
    return False


@njit(cache=True)
def possible_moves(mask: int) -> int:
    """The lowest empty cell of every column that is not full."""
    return (mask + BOTTOM) & BOARD


@njit(cache=True)
def winning_positions(current: int, mask: int) -> int:
    """The empty cells that would complete a four for the stones ``current`` (Pons'
    ``compute_winning_position``). Bits shifted past bit 63 are lost, which is harmless: every board
    bit is below 49."""
    # vertical: three stones right below
    won = (current << 1) & (current << 2) & (current << 3)
    for shift in (7, 6, 8):  # horizontal, the diagonal going down to the right, the one going up
        pairs = (current << shift) & (current << 2 * shift)
        won |= pairs & (current << 3 * shift)  # the three on one side
        won |= pairs & (current >> shift)  # two on one side, one on the other
        pairs = (current >> shift) & (current >> 2 * shift)
        won |= pairs & (current << shift)
        won |= pairs & (current >> 3 * shift)
    return won & (BOARD ^ mask)


@njit(cache=True)
def can_win_next(s) -> bool:
    """Whether the side to move in the (non-terminal) compact state ``s`` has a winning move."""
    return winning_positions(s[CURRENT], s[MASK]) & possible_moves(s[MASK]) != 0


@njit(cache=True)
def legal_actions(s, out) -> int:
    if s[0] == TERMINAL:
        return 0
    n = 0
    for col in range(WIDTH):
        if not s[MASK] >> 7 * col + HEIGHT - 1 & 1:
            out[n] = col
            n += 1
    return n


@njit(cache=True)
def apply(s, action):
    player, _, current, mask, plies = s
    if player < 0 or not 0 <= action < WIDTH or mask >> 7 * action + HEIGHT - 1 & 1:
        return (ILLEGAL, 0, current, mask, plies)
    new_mask = mask | (mask + (1 << 7 * action))
    mover = current | (new_mask ^ mask)  # the stones of the side that just moved
    if has_four(mover):
        return (TERMINAL, 1 - 2 * player, mover ^ new_mask, new_mask, plies + 1)
    if plies + 1 == NUM_CELLS:
        return (TERMINAL, 0, mover ^ new_mask, new_mask, plies + 1)
    return (1 - player, 0, mover ^ new_mask, new_mask, plies + 1)


@njit(cache=True)
def hash_key(s) -> int:
    """``current + mask + BOTTOM``: per column, a 1 bit right above the top stone and, below it, the
    side to move's stones. Unique per board (the side to move follows from the stone count); < 2**49."""
    return s[CURRENT] + s[MASK] + BOTTOM


@njit(cache=True, inline="always")
def stones_of(s, player) -> int:
    """The bitboard of ``player``'s stones (`current` holds those of the player whose turn it is)."""
    return s[CURRENT] if player == s[PLIES] % 2 else s[CURRENT] ^ s[MASK]


@njit(cache=True, inline="always")
def write_plane(bits: int, out) -> None:
    """out: float32[6, 7], the cells of bitboard ``bits``, row 0 the top row."""
    for col in range(WIDTH):
        for row in range(HEIGHT):
            out[HEIGHT - 1 - row, col] = bits >> 7 * col + row & 1


@njit(cache=True)
def observation(s, player, out) -> None:
    """out: float32[2, 6, 7], plane 0 ``player``'s stones, plane 1 the opponent's; row 0 is the top row."""
    mine = stones_of(s, player)
    write_plane(mine, out[0])
    write_plane(mine ^ s[MASK], out[1])


KERNELS = GameKernels(
    legal_actions=legal_actions, apply=apply, hash_key=hash_key, observation=observation, max_actions=WIDTH
)
