"""Checkers' Python facade: `CheckersState` and `Checkers` over the kernels of `rules`, with the notation
checkers players write: squares 1-32 from player 0's side (see `rules`), ``11-15`` for a step, ``22x15``
for a jump and ``22x15x8`` for a multi-jump (one action per jump)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

import numpy as np

from rlgames.game import TERMINAL, Game, GameInfo, Outcome, State
from rlgames.games.checkers.features import FEATURE_SETS
from rlgames.games.checkers.rules import (
    BIT_OF_CELL,
    CELL,
    CROWN,
    DIRECTION_COLS,
    DIRECTION_ROWS,
    JUMPER,
    KERNELS,
    KINGS0,
    KINGS1,
    LANDING,
    MAX_QUIET,
    MEN0,
    MEN1,
    NEIGHBOR,
    NO_JUMPER,
    NUM_ACTIONS,
    NUM_SQUARES,
    QUIET,
    SIZE,
    START0,
    START1,
    can_move,
    sides,
)

COLUMNS = "abcdefgh"
_NUMERIC = re.compile(r"(\d+)(?:-(\d+)|((?:x\d+)+))")
_ALGEBRAIC = re.compile(r"([a-h])([1-8])([a-h])([1-8])")
_EXPECTED = "expected squares 1-32 as 11-15, 22x15 or 22x15x8, or OpenSpiel's c3d4"


def square_number(cell: int) -> int | None:
    """The square number (1-32) of OpenSpiel's cell ``row * 8 + col``; None for a light square."""
    bit = int(BIT_OF_CELL[cell])
    return None if bit < 0 else bit + 1


def _square_bit(text: str, move: str) -> int:
    """The bit of square ``text`` (1-32) of ``move``; raises `ValueError`."""
    number = int(text)
    if not 1 <= number <= NUM_SQUARES:
        raise ValueError(f"checkers: square {number} of move {move!r} is not one of 1-32")
    return number - 1


def _action(source: int, target: int, jump: bool, move: str) -> int:
    """The action moving the piece on bit ``source`` to bit ``target`` by a step or a jump."""
    table = LANDING if jump else NEIGHBOR
    for direction in range(4):
        if table[source, direction] == target:
            return (int(CELL[source]) * 4 + direction) * 2 + int(jump)
    kind = "a jump" if jump else "a diagonal step"
    raise ValueError(f"checkers: in move {move!r}, squares {source + 1} and {target + 1} are not {kind} apart")


def _algebraic_action(match: re.Match[str], move: str) -> int:
    """The action of OpenSpiel's ``c3d4``: the distance tells a step from a jump."""
    (c1, r1), (c2, r2) = (match.group(1), match.group(2)), (match.group(3), match.group(4))
    cells = [(SIZE - int(r)) * SIZE + COLUMNS.index(c) for c, r in ((c1, r1), (c2, r2))]
    bits = [int(BIT_OF_CELL[cell]) for cell in cells]
    if min(bits) < 0:
        raise ValueError(f"checkers: move {move!r} names a light square; pieces stand on the dark ones")
    return _action(bits[0], bits[1], abs(int(r1) - int(r2)) == 2, move)


def parse_move(text: str) -> list[int]:
    """The actions of one move: a step ``11-15``, a jump ``22x15``, a multi-jump ``22x15x8`` (an action
    per jump), or OpenSpiel's ``c3d4``; raises a one-line `ValueError` naming the problem."""
    move = text.strip().lower()
    if match := _ALGEBRAIC.fullmatch(move):
        return [_algebraic_action(match, text)]
    match = _NUMERIC.fullmatch(move)
    if match is None:
        raise ValueError(f"checkers: cannot read move {text!r}; {_EXPECTED}")
    if match.group(2) is not None:
        return [_action(_square_bit(match.group(1), text), _square_bit(match.group(2), text), False, text)]
    squares = [_square_bit(number, text) for number in [match.group(1), *match.group(3).split("x")[1:]]]
    return [_action(a, b, True, text) for a, b in zip(squares, squares[1:])]


def _bits(board: int) -> list[int]:
    """The bits set in a 32-bit board, in increasing order."""
    return [k for k in range(NUM_SQUARES) if board >> k & 1]


class CheckersState(State):
    __slots__ = ()

    def jumper(self) -> int | None:
        """The square (1-32) of the piece in the middle of a multi-jump, which must jump on; else None."""
        jumper = self.compact[JUMPER]
        return None if jumper == NO_JUMPER else jumper + 1

    def moves_without_capture(self) -> int:
        """The actions since the last capture (a draw at `rules.MAX_QUIET`)."""
        return self.compact[QUIET]

    def termination(self) -> str:
        if not self.is_terminal():
            return super().termination()
        return f"{MAX_QUIET} moves without capture" if self.compact[QUIET] >= MAX_QUIET else "no legal move"

    def action_to_string(self, action: int) -> str:
        """``11-15`` for a step, ``22x15`` for a jump; an action no piece could make (off the board, from
        a light square) as OpenSpiel writes it (``a8`9``)."""
        if not 0 <= action < NUM_ACTIONS:
            raise ValueError(f"checkers: action {action!r} is out of range [0, {NUM_ACTIONS})")
        cell, direction, jump = action >> 3, (action >> 1) & 3, action & 1
        source = int(BIT_OF_CELL[cell])
        target = -1 if source < 0 else int((LANDING if jump else NEIGHBOR)[source, direction])
        if target >= 0:
            return f"{source + 1}{'x' if jump else '-'}{target + 1}"
        row, col = divmod(cell, SIZE)
        distance = 1 + jump
        end_row, end_col = row + distance * DIRECTION_ROWS[direction], col + distance * DIRECTION_COLS[direction]
        return f"{chr(97 + col)}{SIZE - row}{chr(97 + end_col)}{SIZE - end_row}"

    def string_to_action(self, text: str) -> int:
        actions = parse_move(text)
        if len(actions) > 1:
            raise ValueError(f"checkers: {text!r} is a multi-jump of {len(actions)} actions; give its jumps one by one")
        return actions[0]

    def board_grid(self) -> np.ndarray:
        """int8[8, 8] on OpenSpiel's board (row 0 at the top): 1 a piece of player 0, 2 one of player 1."""
        grid = np.zeros(SIZE * SIZE, dtype=np.int8)
        s = self.compact
        grid[CELL[_bits(s[MEN0] | s[KINGS0])]] = 1
        grid[CELL[_bits(s[MEN1] | s[KINGS1])]] = 2
        return grid.reshape(SIZE, SIZE)

    def __str__(self) -> str:
        """The board as OpenSpiel draws it, player 0 at the bottom: ``x`` and ``X`` player 0's men and
        kings, ``o`` and ``O`` player 1's, each row followed by its squares' numbers."""
        s = self.compact
        marks = {}
        for board, mark in ((s[MEN0], "x"), (s[KINGS0], "X"), (s[MEN1], "o"), (s[KINGS1], "O")):
            marks.update({int(CELL[k]): mark for k in _bits(board)})
        rows = ["  " + " ".join(COLUMNS)]
        for r in range(SIZE):
            cells = range(r * SIZE, (r + 1) * SIZE)
            drawn = " ".join(marks.get(c, "." if BIT_OF_CELL[c] >= 0 else " ") for c in cells)
            numbers = " ".join(f"{square_number(c):2d}" for c in cells if BIT_OF_CELL[c] >= 0)
            rows.append(f"{SIZE - r} {drawn}   {numbers}")
        return "\n".join(rows)


class Checkers(Game):
    """Checkers (English draughts) as OpenSpiel plays it: mandatory captures, multi-jumps one action
    per jump, a draw after 40 actions without capture, and a loss for a player who cannot move."""

    name = "checkers"
    state_class = CheckersState
    heuristic = ".evaluator:CheckersEvaluator"
    # max_game_length as OpenSpiel's: 23 captures at most, each within 40 actions of the last
    info = GameInfo(name, num_actions=NUM_ACTIONS, observation_shape=(5, SIZE, SIZE), max_game_length=1000)
    kernels = KERNELS
    feature_sets = FEATURE_SETS
    record_format = "pdn"

    def initial_compact_state(self) -> tuple:
        return (0, 0, START0, 0, START1, 0, NO_JUMPER, 0)

    def state_from_moves(self, moves: str | Sequence[str]) -> State:
        """The state after moves in checkers notation, a multi-jump (``22x15x8``) as one move."""
        state = self.new_initial_state()
        for action in self.parse_position_line(moves if isinstance(moves, str) else " ".join(moves))[0]:
            state = state.apply(action)
        return state

    def parse_position_line(self, text: str) -> tuple[tuple[int, ...], int | None]:
        """The actions of a line of moves from the start, a multi-jump as one move; unlabelled. Raises
        `ValueError` naming a bad or illegal move."""
        state, actions = self.new_initial_state(), []
        for move in text.replace(",", " ").split():
            for action in parse_move(move):
                state = state.apply(action)
                actions.append(action)
        return tuple(actions), None

    def state_from_squares(
        self,
        player: int,
        men0: Iterable[int] = (),
        kings0: Iterable[int] = (),
        men1: Iterable[int] = (),
        kings1: Iterable[int] = (),
    ) -> CheckersState:
        """The position with pieces on these squares (1-32) and ``player`` to move, no move made since a
        capture; terminal, lost by ``player``, where ``player`` cannot move."""
        if player not in (0, 1):
            raise ValueError(f"checkers: player must be 0 or 1, not {player!r}")
        boards, taken = [], 0
        for squares in (men0, kings0, men1, kings1):
            board = 0
            for square in squares:
                if not (isinstance(square, int) and 1 <= square <= NUM_SQUARES) or taken >> square - 1 & 1:
                    raise ValueError(f"checkers: square {square!r} is not one of 1-32, or holds two pieces")
                board |= 1 << square - 1
                taken |= 1 << square - 1
            boards.append(board)
        for p, men in ((0, boards[0]), (1, boards[2])):
            if men & int(CROWN[p]):
                raise ValueError(f"checkers: player {p} has a man on its crowning row; it would be a king")
        compact = (player, 0, *boards, NO_JUMPER, 0)
        if not can_move(*sides(compact, player), player):
            compact = (TERMINAL, 2 * player - 1, *boards, NO_JUMPER, 0)
        return CheckersState(self, compact)

    def export_record(
        self,
        actions: Sequence[int],
        *,
        players: tuple[str, str],
        outcome: Outcome,
        event: str = "rlgames",
        round: int | None = None,
    ) -> str:
        from rlgames.games.checkers.pdn import to_pdn

        return to_pdn(self, actions, players=players, outcome=outcome, event=event, round=round)
