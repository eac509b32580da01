"""Halving's Python facade: `HalvingState` and `Halving` over the kernels of `rules`."""

from __future__ import annotations

import numpy as np

from rlgames.game import TERMINAL, Game, GameInfo, State
from rlgames.games.halving.rules import (
    _NOTATION,
    HALVE,
    KERNELS,
    MAX_N,
    SUBTRACT,
)


class HalvingState(State):
    __slots__ = ()

    def legal_actions(self) -> list[int]:
        return [] if self.compact[0] == TERMINAL else [HALVE, SUBTRACT]

    def action_to_string(self, action: int) -> str:
        return _NOTATION[action]

    def string_to_action(self, text: str) -> int:
        move = text.strip()
        if move not in _NOTATION:
            raise ValueError(f"halving: cannot read move {text!r}; expected '/' (halve) or '-' (subtract one)")
        return _NOTATION.index(move)

    def board_grid(self) -> np.ndarray:
        """int8[1, bits]: the binary digits of ``n``, most significant first, a 1 bit as a neutral token."""
        return (3 * self.observation()[::-1]).astype(np.int8).reshape(1, -1)

    def __str__(self) -> str:
        player, _, n = self.compact
        if player == TERMINAL:
            return f"n = 0, game over: player {0 if self.returns()[0] > 0 else 1} wins"
        return f"n = {n}, player {player} to move"


def _check_n(n: int) -> int:
    if isinstance(n, (bool, np.bool_)) or not isinstance(n, (int, np.integer)) or not 1 <= n <= MAX_N:
        raise ValueError(f"halving: n must be an int from 1 to {MAX_N}, got {n!r}")
    return int(n)


class Halving(Game):
    """The halving game from ``n``: replace ``n`` by ``n // 2`` or ``n - 1``; whoever is left with 0 wins."""

    name = "halving"
    small_params = {"n": 40}
    state_class = HalvingState
    heuristic = ".evaluator:HalvingEvaluator"

    kernels = KERNELS

    def __init__(self, n: int = 5) -> None:
        self.n = _check_n(n)
        super().__init__(n=self.n)

    @classmethod
    def describe(cls, n: int = 5) -> GameInfo:
        n = _check_n(n)
        return GameInfo(cls.name, num_actions=2, observation_shape=(n.bit_length(),), max_game_length=n)

    def initial_compact_state(self) -> tuple:
        return (0, 0, self.n)
