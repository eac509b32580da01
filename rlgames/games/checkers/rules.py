"""Checkers (8x8 English draughts) on 32-square bitboards, matching OpenSpiel's ``checkers`` as
``open_spiel`` 2.0.2 plays it (checked against its pyspiel; the C++ of ``open_spiel/games/checkers``).

OpenSpiel's board: row 0 at the top, the dark squares those with ``row + col`` odd. Player 0 (OpenSpiel's
"White", ``o``) starts on rows 5-7 at the bottom, moves up and moves first; player 1 (``+``) starts on
rows 0-2. Action ``((row * 8 + col) * 4 + direction) * 2 + type`` moves the piece on ``(row, col)``;
direction 0 is up-left, 1 up-right, 2 down-right, 3 down-left (``row`` -1, -1, +1, +1; ``col`` -1, +1,
+1, -1), type 0 a step to the next square, 1 a jump over an opponent's piece to the square beyond.

Rules, as OpenSpiel's:

* men move forward only (player 0 directions 0 and 1, player 1 directions 2 and 3), kings either way;
  a man reaching the far row (player 0 row 0, player 1 row 7) is crowned;
* captures are mandatory, but any capture may be chosen; the captured piece leaves at once;
* a multi-jump is a series of single-jump actions by the same player: after a jump that did not crown
  a man, if the piece can jump again the same player moves, restricted to that piece's jumps;
  a man crowned by a jump ends the turn;
* every action, a jump included, adds one to the count of moves without capture, and a jump then sets
  it to 0; when it reaches `MAX_QUIET` (40) the game is drawn (OpenSpiel's
  ``kMaxMovesWithoutCapture``: its ``LegalActions`` is then empty and ``Returns`` 0);
* otherwise a player with no legal action loses (+1 / -1).

The 32 dark squares are numbered 1-32 as checkers players number them, from the side of player 0, who
moves first (Black's side in English draughts, PDN's ``GameType "21"``): square 1 is player 0's bottom
right, OpenSpiel's ``(7, 6)`` (``g1``), squares 1-4 are OpenSpiel's row 7 right to left, 5-8 row 6, and
so on to 29-32 on row 0 (``h8`` is 29, ``b8`` is 32). Player 0 starts on 1-12, player 1 on 21-32, and
player 0's usual first move ``11-15`` is OpenSpiel's ``c3d4``. Bit ``k`` of a bitboard is square
``k + 1``; turning the board half round maps square ``k + 1`` to ``32 - k``, bit ``k`` to bit ``31 - k``.

Compact state: ``(player, return0, men0, kings0, men1, kings1, jumper, quiet)``: the 32-bit boards of
each player's men and kings, ``jumper`` the bit of the piece in the middle of a multi-jump (-1 when
none), ``quiet`` the actions since the last capture.

Besides the four required kernels: `tactical_actions` (the jumps, for quiescence) and `random_playout`, the
generic uniformly random playout (the same moves from the same random stream) without listing the actions.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from rlgames.game import (
    ILLEGAL,
    TERMINAL,
    GameKernels,
    record_move,
)
from rlgames.jit.bits import GOLDEN, lsb, mix64, msb, popcount
from rlgames.jit.rng import below

MEN0, KINGS0, MEN1, KINGS1, JUMPER, QUIET = 2, 3, 4, 5, 6, 7  # compact-state slots
NO_JUMPER = -1
SIZE = 8
NUM_SQUARES = 32
NUM_ACTIONS = SIZE * SIZE * 4 * 2
MAX_ACTIONS = 48  # at most 12 pieces, each with at most 4 moves
MAX_QUIET = 40
FULL = (1 << NUM_SQUARES) - 1
START0 = 0xFFF  # squares 1-12
START1 = 0xFFF << 20  # squares 21-32
CROWN = np.array([0xF << 28, 0xF], dtype=np.int64)
"""The squares where each player's men are crowned: 29-32 for player 0, 1-4 for player 1."""

DIRECTION_ROWS = (-1, -1, 1, 1)
DIRECTION_COLS = (-1, 1, 1, -1)


def square_cell(k: int) -> tuple[int, int]:
    """OpenSpiel's ``(row, col)`` of bit ``k`` (square ``k + 1``)."""
    rank, i = divmod(k, 4)
    return SIZE - 1 - rank, SIZE - 1 - (2 * i + (1 if rank % 2 == 0 else 0))


CELL = np.array([r * SIZE + c for r, c in map(square_cell, range(NUM_SQUARES))], dtype=np.int64)
"""``CELL[k]``: OpenSpiel's ``row * 8 + col`` of bit ``k``; decreasing in ``k``."""
BIT_OF_CELL = np.full(SIZE * SIZE, -1, dtype=np.int64)
BIT_OF_CELL[CELL] = np.arange(NUM_SQUARES)
"""``BIT_OF_CELL[row * 8 + col]``: the bit of a dark square, -1 for a light one."""


def _target(k: int, direction: int, distance: int) -> int:
    """The bit ``distance`` squares from bit ``k`` in ``direction``, -1 off the board."""
    row, col = square_cell(k)
    row, col = row + distance * DIRECTION_ROWS[direction], col + distance * DIRECTION_COLS[direction]
    return int(BIT_OF_CELL[row * SIZE + col]) if 0 <= row < SIZE and 0 <= col < SIZE else -1


NEIGHBOR = np.array([[_target(k, d, 1) for d in range(4)] for k in range(NUM_SQUARES)], dtype=np.int64)
"""``NEIGHBOR[k, d]``: the bit one step from bit ``k`` in direction ``d``, -1 off the board."""
LANDING = np.array([[_target(k, d, 2) for d in range(4)] for k in range(NUM_SQUARES)], dtype=np.int64)
"""``LANDING[k, d]``: the bit a jump from bit ``k`` in direction ``d`` lands on, -1 off the board."""


def _shift_table() -> tuple[tuple[int, int, int, int], ...]:
    """Per direction, ``(squares of even rows with a neighbour that way, the bit shift to it, the same
    for odd rows)``; a row is even or odd by its square numbers (squares 1-4 are row 0)."""
    table = []
    for d in range(4):
        masks, shifts = [0, 0], [0, 0]
        for k in range(NUM_SQUARES):
            if NEIGHBOR[k, d] >= 0:
                masks[k // 4 % 2] |= 1 << k
                shifts[k // 4 % 2] = int(NEIGHBOR[k, d]) - k
        table.append((masks[0], shifts[0], masks[1], shifts[1]))
    return tuple(table)


STEPS = _shift_table()


@njit(cache=True)
def _shift(board: int, shift: int) -> int:
    """``board`` shifted left by ``shift`` bits, or right by ``-shift``."""
    return board << shift if shift > 0 else board >> -shift


@njit(cache=True)
def step(board: int, direction: int) -> int:
    """The squares one step from those of ``board`` in ``direction`` (those off the board dropped)."""
    even, even_shift, odd, odd_shift = STEPS[direction]
    return _shift(board & even, even_shift) | _shift(board & odd, odd_shift)


@njit(cache=True)
def forward(player: int, direction: int) -> bool:
    """Whether ``player``'s men move in ``direction`` (player 0 up, 0 and 1; player 1 down, 2 and 3)."""
    return (direction < 2) == (player == 0)


@njit(cache=True)
def sides(s, player: int) -> tuple[int, int, int, int]:
    """``(men, kings, opponent's pieces, empty squares)`` of ``player`` in ``s``."""
    if player == 0:
        men, kings, opponent = s[MEN0], s[KINGS0], s[MEN1] | s[KINGS1]
    else:
        men, kings, opponent = s[MEN1], s[KINGS1], s[MEN0] | s[KINGS0]
    return men, kings, opponent, FULL & ~(men | kings | opponent)


@njit(cache=True)
def jump_sources(men: int, kings: int, opponent: int, empty: int, player: int, direction: int) -> int:
    """The squares of ``player``'s pieces that can jump in ``direction``."""
    back = direction ^ 2
    movers = kings | men if forward(player, direction) else kings
    return movers & step(step(empty, back) & opponent, back)


@njit(cache=True)
def step_sources(men: int, kings: int, empty: int, player: int, direction: int) -> int:
    """The squares of ``player``'s pieces that can step in ``direction``."""
    movers = kings | men if forward(player, direction) else kings
    return movers & step(empty, direction ^ 2)


@njit(cache=True)
def move_sources(s) -> tuple[int, int, int, int, int]:
    """``(from0, from1, from2, from3, jump)``: the squares the legal moves of the non-terminal ``s``
    start from in each direction, and 1 if they are jumps (then mandatory), 0 if steps."""
    player = s[0]
    men, kings, opponent, empty = sides(s, player)
    j0 = jump_sources(men, kings, opponent, empty, player, 0)
    j1 = jump_sources(men, kings, opponent, empty, player, 1)
    j2 = jump_sources(men, kings, opponent, empty, player, 2)
    j3 = jump_sources(men, kings, opponent, empty, player, 3)
    if s[JUMPER] != NO_JUMPER:
        only = 1 << s[JUMPER]
        j0, j1, j2, j3 = j0 & only, j1 & only, j2 & only, j3 & only
    if j0 | j1 | j2 | j3:
        return j0, j1, j2, j3, 1
    s0 = step_sources(men, kings, empty, player, 0)
    s1 = step_sources(men, kings, empty, player, 1)
    s2 = step_sources(men, kings, empty, player, 2)
    s3 = step_sources(men, kings, empty, player, 3)
    return s0, s1, s2, s3, 0


@njit(cache=True)
def can_move(men: int, kings: int, opponent: int, empty: int, player: int) -> bool:
    """Whether ``player`` has a step or a jump."""
    for direction in range(4):
        if step_sources(men, kings, empty, player, direction):
            return True
        if jump_sources(men, kings, opponent, empty, player, direction):
            return True
    return False


@njit(cache=True)
def write_actions(s, out, jumps_only: bool) -> int:
    """Writes the legal actions of ``s`` (only if they are jumps, when ``jumps_only``) into ``out`` in
    increasing order; returns their number."""
    if s[0] < 0:
        return 0
    f0, f1, f2, f3, jump = move_sources(s)
    if jumps_only and not jump:
        return 0
    squares = f0 | f1 | f2 | f3
    n = 0
    while squares:
        k = msb(squares)  # the highest bit first: OpenSpiel's cells in increasing order
        bit = 1 << k
        squares ^= bit
        base = CELL[k] * 8 + jump
        if f0 & bit:
            out[n] = base
            n += 1
        if f1 & bit:
            out[n] = base + 2
            n += 1
        if f2 & bit:
            out[n] = base + 4
            n += 1
        if f3 & bit:
            out[n] = base + 6
            n += 1
    return n


@njit(cache=True)
def legal_actions(s, out) -> int:
    return write_actions(s, out, False)


@njit(cache=True)
def tactical_actions(s, out) -> int:
    """The jumps, when the side to move has them (then they are all its legal moves): checkers'
    quiescence follows captures."""
    return write_actions(s, out, True)


@njit(cache=True)
def _illegal(s):
    return (ILLEGAL, 0, s[MEN0], s[KINGS0], s[MEN1], s[KINGS1], s[JUMPER], s[QUIET])


@njit(cache=True)
def _is_legal(s, action: int) -> bool:
    """Whether ``action`` is legal in ``s`` (the receiver of `apply`)."""
    if s[0] < 0 or not 0 <= action < NUM_ACTIONS:
        return False
    k = BIT_OF_CELL[action >> 3]
    if k < 0:
        return False
    f0, f1, f2, f3, jump = move_sources(s)
    if action & 1 != jump:
        return False
    direction = (action >> 1) & 3
    sources = f0 if direction == 0 else f1 if direction == 1 else f2 if direction == 2 else f3
    return sources >> k & 1 == 1


@njit(cache=True)
def apply(s, action):
    if not _is_legal(s, action):
        return _illegal(s)
    return play(s, BIT_OF_CELL[action >> 3], (action >> 1) & 3, action & 1)


@njit(cache=True)
def play(s, k: int, direction: int, jump: int):
    """The successor of ``s`` after its side to move's legal move from bit ``k`` in ``direction``, a jump
    if ``jump`` (unchecked: `apply` checks it first)."""
    player = s[0]
    if player == 0:
        men, kings, their_men, their_kings = s[MEN0], s[KINGS0], s[MEN1], s[KINGS1]
    else:
        men, kings, their_men, their_kings = s[MEN1], s[KINGS1], s[MEN0], s[KINGS0]
    bit = 1 << k
    if jump:
        taken = ~(1 << NEIGHBOR[k, direction])
        their_men, their_kings = their_men & taken, their_kings & taken
        to = 1 << LANDING[k, direction]
    else:
        to = 1 << NEIGHBOR[k, direction]
    crowned = False
    if kings & bit:
        kings ^= bit | to
    elif to & CROWN[player]:
        men, kings, crowned = men ^ bit, kings | to, True
    else:
        men ^= bit | to
    quiet = 0 if jump else s[QUIET] + 1
    opponent = their_men | their_kings
    empty = FULL & ~(men | kings | opponent)
    jumper = NO_JUMPER
    if jump and not crowned:
        for d in range(4):
            if jump_sources(men & to, kings & to, opponent, empty, player, d):
                jumper = LANDING[k, direction]
                break
    if player == 0:
        m0, k0, m1, k1 = men, kings, their_men, their_kings
    else:
        m0, k0, m1, k1 = their_men, their_kings, men, kings
    if jumper != NO_JUMPER:
        return (player, 0, m0, k0, m1, k1, jumper, quiet)
    if quiet >= MAX_QUIET:
        return (TERMINAL, 0, m0, k0, m1, k1, NO_JUMPER, quiet)
    if not can_move(their_men, their_kings, men | kings, empty, 1 - player):
        return (TERMINAL, 1 - 2 * player, m0, k0, m1, k1, NO_JUMPER, quiet)
    return (1 - player, 0, m0, k0, m1, k1, NO_JUMPER, quiet)


@njit(cache=True)
def nth_move(f0: int, f1: int, f2: int, f3: int, i: int) -> tuple[int, int]:
    """``(bit, direction)`` of the ``i``-th (from 0) of the moves starting from the squares ``f0`` to
    ``f3`` of each direction, in increasing order of their actions (as `legal_actions` lists them)."""
    squares = f0 | f1 | f2 | f3
    while True:
        k = msb(squares)
        squares ^= 1 << k
        here = (f0 >> k & 1) | (f1 >> k & 1) << 1 | (f2 >> k & 1) << 2 | (f3 >> k & 1) << 3
        count = popcount(here)
        if i < count:
            for _ in range(i):
                here &= here - 1
            return k, lsb(here)
        i -= count


@njit(cache=True)
def random_playout(s, rng_state, actions, probs, moves=None):
    """Uniformly random legal moves to the end of the game: the generic random playout's moves, drawn
    from the same stream (one `below` per move, the index into `legal_actions`' order), without listing
    the actions or checking them again; ``moves`` records them (`rlgames.game.record_move`)."""
    plies = 0
    while s[0] != TERMINAL:
        f0, f1, f2, f3, jump = move_sources(s)
        n = popcount(f0) + popcount(f1) + popcount(f2) + popcount(f3)
        k, direction = nth_move(f0, f1, f2, f3, np.int64(below(rng_state, n)))
        record_move(moves, plies, s[0], CELL[k] * 8 + direction * 2 + jump)
        s = play(s, k, direction, jump)
        plies += 1
    return s, plies


@njit(cache=True)
def hash_key(s) -> int:
    """``mix(mix(player 0's pieces + golden * (1 + turn)) ^ player 1's pieces)`` as int64, where a side's
    pieces are its men and kings in one word and ``turn`` packs the player code, the jumper and the
    count of moves without capture; ``mix`` is the splitmix64 finaliser."""
    turn = (s[0] & 0xFF) | ((s[JUMPER] + 1) << 8) | (s[QUIET] << 16)
    h = mix64(np.uint64(s[MEN0] | s[KINGS0] << 32) + GOLDEN * np.uint64(1 + turn))
    return np.int64(mix64(h ^ np.uint64(s[MEN1] | s[KINGS1] << 32)))


@njit(cache=True)
def observation(s, player, out) -> None:
    """out: float32[5, 8, 8] on OpenSpiel's board: planes 0 and 1 player 0's men and kings, 2 and 3
    player 1's, 4 the empty squares (light ones included). As OpenSpiel's default (``egocentric=False``),
    it is the same for both players, so ``player`` is not read."""
    out.fill(0.0)
    out[4, :, :] = 1.0
    boards = (s[MEN0], s[KINGS0], s[MEN1], s[KINGS1])
    for k in range(NUM_SQUARES):
        row, col = CELL[k] // SIZE, CELL[k] % SIZE
        for plane in range(4):
            if boards[plane] >> k & 1:
                out[plane, row, col] = 1.0
                out[4, row, col] = 0.0


KERNELS = GameKernels(
    legal_actions=legal_actions,
    apply=apply,
    hash_key=hash_key,
    observation=observation,
    tactical_actions=tactical_actions,
    playout=random_playout,
    max_actions=MAX_ACTIONS,
)
