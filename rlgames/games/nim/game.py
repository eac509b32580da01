"""Nim's Python facade: `NimState` and `Nim` over the kernels of `rules`."""

from __future__ import annotations

from typing import Sequence

import numpy as np

from rlgames.game import TERMINAL, Game, GameInfo, State
from rlgames.games.nim.rules import (
    _FULL_FORM,
    _SHORT_FORM,
    HEAPS,
    MAX_HEAP_SIZE,
    MAX_HEAPS,
    make_kernels,
)

LEGAL_CACHE_SIZE = 1 << 16  # compact states whose legal actions a game keeps for the Python facade


def _legal_actions(heaps: tuple[int, ...]) -> list[int]:
    """The legal actions on ``heaps``, in increasing order (as the kernel's, take-major)."""
    k = len(heaps)
    return [(take - 1) * k + pile for take in range(1, max(heaps) + 1) for pile in range(k) if heaps[pile] >= take]


class NimState(State):
    __slots__ = ()
    game: Nim

    def _heaps(self) -> tuple[int, ...]:
        return self.compact[HEAPS:]

    def legal_actions(self) -> list[int]:
        compact = self.compact
        legal = self.game.legal_cache.get(compact)
        if legal is None:
            legal = [] if compact[0] == TERMINAL else _legal_actions(compact[HEAPS:])
            if len(self.game.legal_cache) >= LEGAL_CACHE_SIZE:
                self.game.legal_cache.clear()
            self.game.legal_cache[compact] = legal
        return legal.copy()

    def action_to_string(self, action: int) -> str:
        k = len(self._heaps())
        return f"pile:{action % k + 1}, take:{action // k + 1};"

    def string_to_action(self, text: str) -> int:
        move = "".join(text.split()).lower()
        match = _FULL_FORM.fullmatch(move) or _SHORT_FORM.fullmatch(move)
        if match is None:
            raise ValueError(f"nim: cannot read move {text!r}; expected 'pile:P, take:T;' or 'P:T'")
        pile, take = int(match[1]), int(match[2])
        k, largest = len(self.game.heaps), max(self.game.heaps)
        if not 1 <= pile <= k:
            raise ValueError(f"nim: move {text!r} names pile {pile}; piles are 1 to {k}")
        if not 1 <= take <= largest:
            raise ValueError(f"nim: move {text!r} takes {take}; a move takes 1 to {largest}")
        return (take - 1) * k + pile - 1

    def board_grid(self) -> np.ndarray:
        """int8[num_heaps, max_heap]: row ``i`` holds heap ``i``'s objects as neutral tokens (3)."""
        return (3 * self.observation()).astype(np.int8)

    def __str__(self) -> str:
        player = self.compact[0]
        rule = "misere" if self.game.misere else "normal play"
        head = "game over" if player == TERMINAL else f"player {player} to move"
        rows = [f"pile {i + 1}: {'o' * h if h else '-'}" for i, h in enumerate(self._heaps())]
        return "\n".join([f"{head} ({rule})", *rows])


class Nim(Game):
    """Nim on the heaps ``heaps``; ``misere=True``: the player who takes the last object loses."""

    name = "nim"
    state_class = NimState
    heuristic = ".evaluator:NimEvaluator"

    def __init__(self, heaps: Sequence[int] = (1, 3, 5, 7), misere: bool = False) -> None:
        self.heaps, self.misere = _check_heaps(heaps), _check_misere(misere)
        self.max_heap = max(self.heaps)
        self.kernels = make_kernels(self.misere, len(self.heaps) * self.max_heap + 1)
        self.legal_cache: dict[tuple, list[int]] = {}  # compact state -> legal actions, for the facade
        super().__init__(heaps=self.heaps, misere=self.misere)

    @classmethod
    def describe(cls, heaps: Sequence[int] = (1, 3, 5, 7), misere: bool = False) -> GameInfo:
        heaps, _ = _check_heaps(heaps), _check_misere(misere)
        return GameInfo(
            cls.name,
            num_actions=len(heaps) * max(heaps) + 1,
            observation_shape=(len(heaps), max(heaps)),
            max_game_length=sum(heaps),
        )

    def initial_compact_state(self) -> tuple:
        return (0, 0, *self.heaps)


def _check_misere(misere: bool) -> bool:
    if not isinstance(misere, (bool, np.bool_)):
        raise ValueError(f"nim: misere must be True or False, got {misere!r}")
    return bool(misere)


def _check_heaps(heaps: Sequence[int]) -> tuple[int, ...]:
    """The heap sizes as a tuple of ints; raises `ValueError` naming the problem."""
    if isinstance(heaps, (str, bytes)) or not isinstance(heaps, Sequence | np.ndarray):
        raise ValueError(f"nim: heaps must be a sequence of heap sizes, got {heaps!r}")
    if not 1 <= len(heaps) <= MAX_HEAPS:
        raise ValueError(f"nim: heaps must hold 1 to {MAX_HEAPS} heaps, got {len(heaps)}")
    for h in heaps:
        if isinstance(h, (bool, np.bool_)) or not isinstance(h, (int, np.integer)) or not 1 <= h <= MAX_HEAP_SIZE:
            raise ValueError(f"nim: every heap size must be an int from 1 to {MAX_HEAP_SIZE}, got {h!r} in {heaps!r}")
    return tuple(int(h) for h in heaps)
