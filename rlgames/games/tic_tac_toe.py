"""Tic-tac-toe on a 3x3 bitboard.

Action ``a = 3 * row + col`` (row 0 at the top), as in OpenSpiel; player 0 plays ``x`` and moves first.
Notation: a column letter and a row number counted from the top, ``a1`` (top left) to ``c3``.

Compact state: ``(player, return0, x, o)`` where ``x`` and ``o`` are 9-bit boards of each side's marks.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from rlgames.game import (
    ILLEGAL,
    TERMINAL,
    Game,
    GameInfo,
    GameKernels,
    State,
    dihedral_symmetries,
)

X, O = 2, 3  # compact-state slots of the two boards
FULL = 0b111_111_111
LINES = np.array(
    [0b000_000_111, 0b000_111_000, 0b111_000_000,  # rows
     0b001_001_001, 0b010_010_010, 0b100_100_100,  # columns
     0b100_010_001, 0b001_010_100],                # diagonals
    dtype=np.int64,
)


@njit(cache=True)
def has_line(board: int) -> bool:
    for line in LINES:
        if board & line == line:
            return True
    return False


@njit(cache=True)
def legal_actions(s, out) -> int:
    n = 0
    if s[0] == TERMINAL:
        return 0
    empty = ~(s[X] | s[O]) & FULL
    for cell in range(9):
        if empty >> cell & 1:
            out[n] = cell
            n += 1
    return n


@njit(cache=True)
def apply(s, action):
    player, _, x, o = s
    if player < 0 or not 0 <= action < 9 or (x | o) >> action & 1:
        return (ILLEGAL, 0, x, o)
    if player == 0:
        x |= 1 << action
        mine = x
    else:
        o |= 1 << action
        mine = o
    if has_line(mine):
        return (TERMINAL, 1 - 2 * player, x, o)
    if x | o == FULL:
        return (TERMINAL, 0, x, o)
    return (1 - player, 0, x, o)


@njit(cache=True)
def hash_key(s) -> int:
    return (s[X] << 9 | s[O]) << 1 | (1 if s[0] == 1 else 0)


@njit(cache=True)
def observation(s, player, out) -> None:
    """out: float32[2, 3, 3], plane 0 ``player``'s marks, plane 1 the opponent's."""
    mine, theirs = (s[O], s[X]) if player == 1 else (s[X], s[O])
    for cell in range(9):
        out[0, cell // 3, cell % 3] = mine >> cell & 1
        out[1, cell // 3, cell % 3] = theirs >> cell & 1


KERNELS = GameKernels(legal_actions=legal_actions, apply=apply, hash_key=hash_key, observation=observation,
                      max_actions=9)

# Legal actions by occupied-cell pattern: the facade answers without calling a kernel.
_LEGAL_BY_OCCUPIED = tuple(tuple(c for c in range(9) if not occupied >> c & 1) for occupied in range(512))


class TicTacToeState(State):
    __slots__ = ()

    def legal_actions(self) -> list[int]:
        player, _, x, o = self.compact
        return [] if player == TERMINAL else list(_LEGAL_BY_OCCUPIED[x | o])


    def action_to_string(self, action: int) -> str:
        return "abc"[action % 3] + str(action // 3 + 1)

    def string_to_action(self, text: str) -> int:
        move = text.strip().lower()
        if len(move) != 2 or move[0] not in "abc" or move[1] not in "123":
            raise ValueError(f"tic_tac_toe: cannot read move {text!r}; expected a cell from a1 to c3")
        return 3 * (int(move[1]) - 1) + "abc".index(move[0])

    def board_grid(self) -> np.ndarray:
        _, _, x, o = self.compact
        cells = np.arange(9)
        return ((x >> cells & 1) + 2 * (o >> cells & 1)).astype(np.int8).reshape(3, 3)

    def __str__(self) -> str:
        _, _, x, o = self.compact
        rows = ["  a b c"]
        for r in range(3):
            marks = ("x" if x >> 3 * r + c & 1 else "o" if o >> 3 * r + c & 1 else "." for c in range(3))
            rows.append(f"{r + 1} " + " ".join(marks))
        return "\n".join(rows)


class TicTacToe(Game):
    """Tic-tac-toe: three in a row, column or diagonal wins; a full board is a draw."""

    name = "tic_tac_toe"
    state_class = TicTacToeState
    heuristic = "rlgames.evaluators.tic_tac_toe:OpenLinesEvaluator"
    info = GameInfo(name, num_actions=9, observation_shape=(2, 3, 3), max_game_length=9)
    kernels = KERNELS

    def initial_compact_state(self) -> tuple:
        return (0, 0, 0, 0)

    def symmetries(self):
        return dihedral_symmetries(3)
