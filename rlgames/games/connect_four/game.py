"""Connect Four's Python facade: `ConnectFourState` and `ConnectFour` over the kernels of `rules`."""

from __future__ import annotations

from typing import Sequence

import numpy as np

from rlgames.game import (
    PLAYER,
    TERMINAL,
    Encoding,
    Game,
    GameInfo,
    IllegalActionError,
    State,
    Symmetry,
)
from rlgames.games.connect_four.encoding import THREAT_PLANES, threats
from rlgames.games.connect_four.features import FEATURE_SETS
from rlgames.games.connect_four.rules import (
    BOTTOM,
    HEIGHT,
    KERNELS,
    MASK,
    NUM_CELLS,
    TOP,
    WIDTH,
)

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
    feature_sets = FEATURE_SETS
    encodings = {"threats": Encoding(threats, (THREAT_PLANES, HEIGHT, WIDTH), extends_observation=True)}
    heuristic = ".evaluator:ConnectFourEvaluator"
    solver = ".solver:solve"
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
        """The positions of Pascal Pons' test sets named ``sets`` (`rlgames.games.connect_four.data.PONS_SETS`)."""
        from rlgames.games.connect_four.data import load_pons_set

        return [self.state_from_pons(p.moves) for name in sets for p in load_pons_set(name)]

    def symmetries(self) -> tuple[Symmetry, ...]:
        identity = np.arange(WIDTH, dtype=np.int64)
        return (
            Symmetry("identity", identity, lambda x: x),
            Symmetry("mirror", identity[::-1].copy(), lambda x: np.flip(x, -1)),
        )
