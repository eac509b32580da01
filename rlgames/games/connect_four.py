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

from typing import Sequence

import numpy as np
from numba import njit

from rlgames.game import (
    ILLEGAL,
    PLAYER,
    TERMINAL,
    Game,
    GameInfo,
    GameKernels,
    IllegalActionError,
    State,
    Symmetry,
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


@njit(cache=True)
def observation(s, player, out) -> None:
    """out: float32[2, 6, 7], plane 0 ``player``'s stones, plane 1 the opponent's; row 0 is the top row."""
    current_is_mine = player == s[PLIES] % 2  # `current` holds the stones of the player whose turn it is
    mine = s[CURRENT] if current_is_mine else s[CURRENT] ^ s[MASK]
    theirs = mine ^ s[MASK]
    for col in range(WIDTH):
        for row in range(HEIGHT):
            bit = 7 * col + row
            out[0, HEIGHT - 1 - row, col] = mine >> bit & 1
            out[1, HEIGHT - 1 - row, col] = theirs >> bit & 1


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
PATTERNS = 4 ** 4  # a line's 4 cells, each one of 4 cell states
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
    theirs = s[CURRENT] ^ s[MASK] if player == s[PLIES] % 2 else s[CURRENT]
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


KERNELS = GameKernels(legal_actions=legal_actions, apply=apply, hash_key=hash_key, observation=observation,
                      max_actions=WIDTH, features=features, num_features=NUM_FEATURES,
                      max_active_features=NUM_LINES)


_TOP_BITS = tuple(1 << 7 * col + HEIGHT - 1 for col in range(WIDTH))
# mask & TOP -> the columns that are not full: the facade answers without calling a kernel.
_LEGAL_BY_TOP = {
    sum(_TOP_BITS[c] for c in range(WIDTH) if full >> c & 1): tuple(c for c in range(WIDTH) if not full >> c & 1)
    for full in range(1 << WIDTH)
}
_DIGITS = "1234567"


def _stones_by_player(compact: tuple) -> tuple[int, int]:
    """The stone bitboards of player 0 and of player 1."""
    _, _, current, mask, plies = compact
    return (current, current ^ mask) if plies % 2 == 0 else (current ^ mask, current)


class ConnectFourState(State):
    __slots__ = ()

    def legal_actions(self) -> list[int]:
        compact = self.compact
        return [] if compact[PLAYER] == TERMINAL else [*_LEGAL_BY_TOP[compact[MASK] & TOP]]


    def hash_key(self) -> int:
        _, _, current, mask, _ = self.compact
        return current + mask + BOTTOM  # as the hash_key kernel

    def action_to_string(self, action: int) -> str:
        return str(action + 1)

    def string_to_action(self, text: str) -> int:
        move = text.strip()
        if len(move) != 1 or move not in _DIGITS:
            raise ValueError(f"connect_four: cannot read move {text!r}; expected a column from 1 to 7")
        return int(move) - 1

    def board_grid(self) -> np.ndarray:
        """int8[6, 7], row 0 the top row: 1 a stone of player 0, 2 a stone of player 1."""
        stones0, stones1 = _stones_by_player(self.compact)
        bits = 7 * np.arange(WIDTH) + np.arange(HEIGHT - 1, -1, -1)[:, None]  # [6, 7]
        return ((stones0 >> bits & 1) + 2 * (stones1 >> bits & 1)).astype(np.int8)

    def __str__(self) -> str:
        marks = ".xo"
        rows = [" ".join(marks[v] for v in row) for row in self.board_grid()]
        return "\n".join([*rows, " ".join(_DIGITS)])


class ConnectFour(Game):
    """Connect Four, 6 rows x 7 columns: four in a line wins; a full board is a draw."""

    name = "connect_four"
    state_class = ConnectFourState
    info = GameInfo(name, num_actions=WIDTH, observation_shape=(2, HEIGHT, WIDTH), max_game_length=NUM_CELLS)
    kernels = KERNELS
    heuristic = "rlgames.evaluators.connect_four:ConnectFourEvaluator"
    solver = "rlgames.solvers.connect_four:solve"
    move_separator = ""  # Pons' notation: 4453

    def initial_compact_state(self) -> tuple:
        return (0, 0, 0, 0, 0)

    def state_from_moves(self, moves: str | Sequence[str]) -> State:
        """Like `Game.state_from_moves`, and also reads a Pons string without separators, ``"4453"``."""
        if isinstance(moves, str) and len(moves.replace(",", " ").split()) == 1:
            return self.state_from_pons(moves.strip())
        return super().state_from_moves(moves)

    def state_from_pons(self, moves: str) -> State:
        """The position after a Pons move string: one digit 1-7 per move, the column from the left.

        Raises `ValueError` on a character that is not such a digit and `IllegalActionError` on a move
        into a full column or after the game is over.
        """
        state = self.new_initial_state()
        for i, digit in enumerate(moves):
            where = f"move {i + 1} ({digit!r}) of {moves!r}"
            if digit not in _DIGITS:
                raise ValueError(f"connect_four: {where} is not a column digit 1-7")
            if state.is_terminal():
                raise IllegalActionError(f"connect_four: {where} comes after the game is over")
            action = int(digit) - 1
            if not state.is_legal(action):
                raise IllegalActionError(f"connect_four: {where} is played in a full column")
            state = state.apply(action)
        return state

    def parse_position_line(self, text: str) -> tuple[tuple[int, ...], int | None]:
        """A line of Pons' benchmark files: moves in his notation (``4453``), possibly followed by the
        position's score, the label."""
        fields = text.split()
        if len(fields) not in (1, 2) or (len(fields) == 2 and not fields[1].lstrip("+-").isdigit()):
            raise ValueError(f"{self.name}: expected '<moves> [score]' in Pons' notation, got {text!r}")
        self.state_from_pons(fields[0])  # checks every move
        return tuple(int(digit) - 1 for digit in fields[0]), int(fields[1]) if len(fields) == 2 else None

    def benchmark_positions(self, sets: Sequence[str]) -> list[State]:
        """The positions of Pascal Pons' test sets named ``sets`` (`rlgames.datasets.PONS_SETS`)."""
        from rlgames.datasets import load_pons_set

        return [self.state_from_pons(p.moves) for name in sets for p in load_pons_set(name)]

    def symmetries(self) -> tuple[Symmetry, ...]:
        identity = np.arange(WIDTH, dtype=np.int64)
        return (
            Symmetry("identity", identity, lambda x: x),
            Symmetry("mirror", identity[::-1].copy(), lambda x: np.flip(x, -1)),
        )
