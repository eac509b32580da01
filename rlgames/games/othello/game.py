"""Othello's Python facade: `OthelloState` and `Othello` over the kernels of `rules`."""

from __future__ import annotations

import numpy as np

from rlgames.game import (
    TERMINAL,
    Game,
    GameInfo,
    State,
    Symmetry,
    dihedral_symmetries,
)
from rlgames.games.othello.features import FEATURE_SETS
from rlgames.games.othello.rules import (
    _MASK64,
    COLUMNS,
    KERNELS,
    NUM_CELLS,
    PASS,
    SIZE,
    moves_bitboard,
)
from rlgames.jit.bits import popcount

# The squares of each byte of a bitboard: _SQUARES_BY_BYTE[k][b] lists the set bits of byte value b
# placed in byte k, so that the facade turns a move bitboard into actions without a kernel call.
_SQUARES_BY_BYTE = tuple(tuple(tuple(8 * k + i for i in range(8) if b >> i & 1) for b in range(256)) for k in range(8))


def _squares(board: int) -> list[int]:
    """The set bits of a bitboard (signed or unsigned Python int), in increasing order."""
    board &= _MASK64
    squares: list[int] = []
    for by_byte in _SQUARES_BY_BYTE:
        if board & 0xFF:
            squares.extend(by_byte[board & 0xFF])
        board >>= 8
    return squares


def _signed(board: int) -> int:
    """An unsigned 64-bit bitboard as the int64 stored in compact states."""
    return board - (1 << 64) if board >> 63 else board


_START_BLACK = 1 << 28 | 1 << 35  # e4, d5
_START_WHITE = 1 << 27 | 1 << 36  # d4, e5
_START_MOVES = 1 << 19 | 1 << 26 | 1 << 37 | 1 << 44  # d3, c4, f5, e6


class OthelloState(State):
    __slots__ = ()

    def legal_actions(self) -> list[int]:
        player, _, _, _, moves = self.compact
        if player == TERMINAL:
            return []
        return _squares(moves) if moves else [PASS]

    def action_to_string(self, action: int) -> str:
        if action == PASS:
            return "pass"
        if not 0 <= action < NUM_CELLS:
            raise ValueError(f"othello: action {action!r} is out of range [0, {PASS}]")
        return COLUMNS[action % SIZE] + str(action // SIZE + 1)

    def string_to_action(self, text: str) -> int:
        move = text.strip().lower()
        if move == "pass":
            return PASS
        if len(move) != 2 or move[0] not in COLUMNS or move[1] not in "12345678":
            raise ValueError(f"othello: cannot read move {text!r}; expected a cell from a1 to h8, or 'pass'")
        return SIZE * (int(move[1]) - 1) + COLUMNS.index(move[0])

    def board_grid(self) -> np.ndarray:
        _, _, black, white, _ = self.compact
        cells = np.arange(NUM_CELLS, dtype=np.int64)
        return ((black >> cells & 1) + 2 * (white >> cells & 1)).astype(np.int8).reshape(SIZE, SIZE)

    def __str__(self) -> str:
        _, _, black, white, _ = self.compact
        rows = ["  " + " ".join(COLUMNS)]
        for r in range(SIZE):
            squares = (SIZE * r + c for c in range(SIZE))
            marks = ("x" if black >> q & 1 else "o" if white >> q & 1 else "." for q in squares)
            rows.append(f"{r + 1} " + " ".join(marks))
        return "\n".join(rows)


SOLVABLE_EMPTIES = 12
"""The most empty squares of a position the exhaustive solver finishes (`Othello.too_big_to_solve`)."""


class Othello(Game):
    """Othello: outflanked discs turn over; when neither side can move, the most discs wins."""

    name = "othello"
    state_class = OthelloState
    heuristic = ".evaluator:OthelloEvaluator"
    # max_game_length as OpenSpiel's: 60 discs, each pass followed by a disc
    info = GameInfo(name, num_actions=NUM_CELLS + 1, observation_shape=(2, SIZE, SIZE), max_game_length=128)
    kernels = KERNELS
    feature_sets = FEATURE_SETS

    def initial_compact_state(self) -> tuple:
        return (0, 0, _START_BLACK, _START_WHITE, _START_MOVES)

    def state_from_boards(self, black: int, white: int, player: int) -> OthelloState:
        """The position with these discs and ``player`` (0 or 1) to move: bitboards with bit
        ``8 * row + col`` set, unsigned or as int64. It is terminal when neither side has a move."""
        if player not in (0, 1):
            raise ValueError(f"othello: player must be 0 or 1, not {player!r}")
        for label, board in (("black", black), ("white", white)):
            if not -(1 << 63) <= board < 1 << 64:
                raise ValueError(f"othello: the {label} bitboard {board!r} does not fit in 64 bits")
        black, white = _signed(black & _MASK64), _signed(white & _MASK64)
        if black & white:
            raise ValueError(f"othello: squares {_squares(black & white)} hold both a black and a white disc")
        own, opp = (black, white) if player == 0 else (white, black)
        moves = moves_bitboard(own, opp)
        if moves or moves_bitboard(opp, own):
            return OthelloState(self, (player, 0, black, white, moves))
        margin = popcount(black) - popcount(white)
        return OthelloState(self, (TERMINAL, (margin > 0) - (margin < 0), black, white, 0))

    def symmetries(self) -> tuple[Symmetry, ...]:
        return dihedral_symmetries(SIZE, extra_actions=1)

    def too_big_to_solve(self, state: State) -> str | None:
        """Positions with more than `SOLVABLE_EMPTIES` empty squares: measured, 12 empties took the
        exhaustive solver 7.7 million positions and 6 s, and 13 outgrew its 2 GB memo after 36 s."""
        _, _, black, white, _ = state.compact
        empties = NUM_CELLS - popcount(black) - popcount(white)
        if empties <= SOLVABLE_EMPTIES:
            return None
        return (
            f"othello: {empties} empty squares; the exhaustive solver finishes positions with at most "
            f"{SOLVABLE_EMPTIES} (each more empty square multiplies its positions several times)"
        )
