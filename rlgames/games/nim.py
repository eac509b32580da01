"""Nim: players take turns removing objects from heaps (OpenSpiel calls them piles).

A move takes ``take >= 1`` objects from one heap. Normal play: the player who takes the last object
wins; misere play: that player loses. No draws.

Actions are numbered as in OpenSpiel's ``nim``: taking ``take`` objects from heap ``pile`` (0-based)
is action ``(take - 1) * num_heaps + pile``. Like OpenSpiel, ``num_actions = num_heaps * max_heap + 1``;
the last action (``num_heaps * max_heap``) is never legal. Notation as OpenSpiel's,
``"pile:2, take:3;"`` (the pile counted from 1); the short form ``"2:3"`` is accepted as input.

Compact state: ``(player, return0, heap_0, ..., heap_{k-1})``, one slot per heap holding its count.

Observation: float32[num_heaps, max_heap], a thermometer code: ``out[i, j] = 1`` when heap ``i``
holds more than ``j`` objects. The game is impartial, so both sides see the same planes.
"""

from __future__ import annotations

import functools
import re
from typing import Sequence

import numpy as np
from numba import njit
from numba.cpython.unsafe.tuple import (
    tuple_setitem,  # numba's unchecked tuple copy-with-one-slot-replaced
)

from rlgames.game import ILLEGAL, TERMINAL, Game, GameInfo, GameKernels, State

HEAPS = 2  # first heap slot of the compact state
MAX_HEAPS = 20
MAX_HEAP_SIZE = 20  # keeps board_grid() and the observation at most 20 x 20
_FULL_FORM = re.compile(r"pile:(\d+),take:(\d+);?")
_SHORT_FORM = re.compile(r"(\d+):(\d+)")


@njit(cache=True)
def legal_actions(s, out) -> int:
    """Writes ``(take - 1) * k + pile`` for every legal move: take-major order is increasing order."""
    if s[0] == TERMINAL:
        return 0
    k = len(s) - HEAPS
    largest = 0
    for i in range(k):
        largest = max(largest, s[HEAPS + i])
    n = 0
    for take in range(1, largest + 1):
        for pile in range(k):
            if s[HEAPS + pile] >= take:
                out[n] = (take - 1) * k + pile
                n += 1
    return n


@njit(cache=True)
def _apply(s, action: int, misere: bool):
    k = len(s) - HEAPS
    pile, take = action % k, action // k + 1
    player = s[0]
    if player < 0 or action < 0 or take > s[HEAPS + pile]:
        return tuple_setitem(s, 0, ILLEGAL)
    s = tuple_setitem(s, HEAPS + pile, s[HEAPS + pile] - take)
    remaining = 0
    for i in range(k):
        remaining += s[HEAPS + i]
    if remaining > 0:
        return tuple_setitem(s, 0, 1 - player)
    winner = 1 - player if misere else player
    return tuple_setitem(tuple_setitem(s, 0, TERMINAL), 1, 1 - 2 * winner)


@njit(cache=True)
def apply_normal(s, action: int):
    return _apply(s, action, False)


@njit(cache=True)
def apply_misere(s, action: int):
    return _apply(s, action, True)


@njit(cache=True)
def hash_key(s) -> int:
    """FNV-1a over every slot (int64 arithmetic wraps around)."""
    h = -3750763034362895579  # the FNV-1a 64-bit offset basis, as a signed int64
    for value in s:
        h = (h ^ value) * 1099511628211
    return h


@njit(cache=True)
def observation(s, player, out) -> None:
    """out: float32[num_heaps, max_heap], ``out[i, j] = 1`` when heap ``i`` holds more than ``j``; nim is
    impartial, so both players see the same planes."""
    for i in range(out.shape[0]):
        for j in range(out.shape[1]):
            out[i, j] = 1.0 if s[HEAPS + i] > j else 0.0


@functools.cache
def make_kernels(misere: bool, num_actions: int) -> GameKernels:
    """The kernels of normal-play (or misere) nim whose actions number ``num_actions``."""
    apply = apply_misere if misere else apply_normal
    return GameKernels(legal_actions=legal_actions, apply=apply, hash_key=hash_key, observation=observation,
                       max_actions=num_actions)


LEGAL_CACHE_SIZE = 1 << 16  # compact states whose legal actions a game keeps for the Python facade


def _legal_actions(heaps: tuple[int, ...]) -> list[int]:
    """The legal actions on ``heaps``, in increasing order (as the kernel's, take-major)."""
    k = len(heaps)
    return [(take - 1) * k + pile for take in range(1, max(heaps) + 1) for pile in range(k) if heaps[pile] >= take]


class NimState(State):
    __slots__ = ()

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
    heuristic = "rlgames.evaluators.nim:NimEvaluator"

    def __init__(self, heaps: Sequence[int] = (1, 3, 5, 7), misere: bool = False) -> None:
        self.heaps, self.misere = _check_heaps(heaps), _check_misere(misere)
        self.max_heap = max(self.heaps)
        self.kernels = make_kernels(self.misere, len(self.heaps) * self.max_heap + 1)
        self.legal_cache: dict[tuple, list[int]] = {}  # compact state -> legal actions, for the facade
        super().__init__(heaps=self.heaps, misere=self.misere)

    @classmethod
    def describe(cls, heaps: Sequence[int] = (1, 3, 5, 7), misere: bool = False) -> GameInfo:
        heaps, _ = _check_heaps(heaps), _check_misere(misere)
        return GameInfo(cls.name, num_actions=len(heaps) * max(heaps) + 1, observation_shape=(len(heaps), max(heaps)),
                        max_game_length=sum(heaps))

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
