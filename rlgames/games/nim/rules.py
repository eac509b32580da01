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

from numba import njit

from rlgames.game import ILLEGAL, TERMINAL, GameKernels
from rlgames.jit.unsafe import (
    tuple_setitem,  # numba's unchecked tuple copy-with-one-slot-replaced
)

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
    return GameKernels(
        legal_actions=legal_actions, apply=apply, hash_key=hash_key, observation=observation, max_actions=num_actions
    )
