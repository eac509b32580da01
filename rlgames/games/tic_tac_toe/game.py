"""Tic-tac-toe's Python facade: `TicTacToeState` and `TicTacToe` over the kernels of `rules`."""

from __future__ import annotations

import numpy as np

from rlgames.game import (
    TERMINAL,
    Game,
    GameInfo,
    State,
    dihedral_symmetries,
)
from rlgames.games.tic_tac_toe.rules import (
    KERNELS,
)

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
    heuristic = ".evaluator:OpenLinesEvaluator"
    info = GameInfo(name, num_actions=9, observation_shape=(2, 3, 3), max_game_length=9)
    kernels = KERNELS

    def initial_compact_state(self) -> tuple:
        return (0, 0, 0, 0)

    def symmetries(self):
        return dihedral_symmetries(3)
