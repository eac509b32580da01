"""Tug: a test game for the parts of the game contract that the shipped games do not use -- returns
of ±2, a repetition rule, and a tactical move for quiescence.

A marker sits on cells ``-size .. size`` (0 at the start); player 0 pulls it right, player 1 left.
A move steps it one cell left (action 0) or right (action 1), or cashes in (action 2, always legal).
Stepping onto a goal (``±(size + 1)``) wins 2 points for the goal's owner (player 0 owns the right);
cashing in ends the game and wins 1 point for the side the marker is on (a draw at 0). Positions
repeat, and ``rule`` says what a repetition does:

* ``"twofold"`` -- a position seen before on the game's path is a draw (as engines score repetitions
  in search);
* ``"threefold"`` -- its third occurrence is a draw (FIDE's and OpenSpiel's chess rule);
* ``"superko"`` -- a move into a position seen before is illegal (go's positional superko).

Cashing in is the tactical move: quiescence search follows it past the horizon. Passing is the null
move (``extras=True``), never legal as a move. `TugEvaluator` values
a position by the marker's place, from the side to move.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from rlgames.evaluators.base import Evaluator
from rlgames.game import (
    ILLEGAL,
    NO_REPETITION,
    REPETITION_DRAW,
    REPETITION_ILLEGAL,
    TERMINAL,
    Game,
    GameInfo,
    GameKernels,
    HistoryState,
)
from rlgames.jit.unsafe import tuple_setitem

X, SIZE, RULE = 2, 3, 4  # compact state: (player, return0, marker, size, rule)
LEFT, RIGHT, CASH = 0, 1, 2
RULES = ("twofold", "threefold", "superko")


@njit(cache=True)
def legal_actions(s, out) -> int:
    if s[0] == TERMINAL:
        return 0
    for a in range(3):
        out[a] = a
    return 3


@njit(cache=True)
def apply(s, action: int):
    player = s[0]
    if player < 0 or action < 0 or action > CASH:
        return tuple_setitem(s, 0, ILLEGAL)
    if action == CASH:
        x = s[X]
        return tuple_setitem(tuple_setitem(s, 0, TERMINAL), 1, (x > 0) - (x < 0))
    x = s[X] + (1 if action == RIGHT else -1)
    if abs(x) > s[SIZE]:
        return tuple_setitem(tuple_setitem(tuple_setitem(s, 0, TERMINAL), 1, 2 if x > 0 else -2), X, x)
    return tuple_setitem(tuple_setitem(s, 0, 1 - player), X, x)


@njit(cache=True)
def hash_key(s) -> int:
    return (s[X] + 64) * 8 + s[0] + 4  # player codes are -4 to 1


@njit(cache=True)
def observation(s, player, out) -> None:
    """out: float32[1, 2 * size + 1], the marker's cell, mirrored for player 1."""
    x = s[X] if player == 0 else -s[X]
    out[0, x + s[SIZE]] = 1.0


@njit(cache=True)
def tactical_actions(s, out) -> int:
    if s[0] == TERMINAL:
        return 0
    out[0] = CASH
    return 1


@njit(cache=True)
def repetition(s, keys, n) -> int:
    if s[0] == TERMINAL:
        return NO_REPETITION
    key = hash_key(s)
    seen = 0
    for i in range(n):
        seen += keys[i] == key
    if s[RULE] == 2:
        return REPETITION_ILLEGAL if seen else NO_REPETITION
    return REPETITION_DRAW if seen >= 1 + s[RULE] else NO_REPETITION


@njit(cache=True)
def null_move(s):
    return tuple_setitem(s, 0, 1 - s[0]) if s[0] >= 0 else tuple_setitem(s, 0, ILLEGAL)


@njit(cache=True)
def move_score(s, action) -> float:
    return 1.0 if action == CASH else 0.0


KERNELS = GameKernels(
    legal_actions=legal_actions,
    apply=apply,
    hash_key=hash_key,
    observation=observation,
    max_actions=3,
    tactical_actions=tactical_actions,
    repetition=repetition,
)
EXTRA_KERNELS = KERNELS._replace(null_move=null_move, move_score=move_score)


class TugState(HistoryState):
    __slots__ = ()

    def __str__(self) -> str:
        return f"marker at {self.compact[X]}, player {self.compact[0]} to move"


class Tug(Game):
    """Tug on cells ``-size .. size`` under a repetition ``rule``; ``extras``: with a null move (a pass)
    and a move-ordering score (cashing in first), for the searches' optional hooks."""

    name = "tug"
    state_class = TugState

    def __init__(self, size: int = 2, rule: str = "twofold", extras: bool = False) -> None:
        self.size, self.rule = size, rule
        self.kernels = EXTRA_KERNELS if extras else KERNELS
        super().__init__(size=size, rule=rule, extras=extras)

    @classmethod
    def describe(cls, size: int = 2, rule: str = "twofold", extras: bool = False) -> GameInfo:
        if rule not in RULES:
            raise ValueError(f"tug: rule must be one of {RULES}, got {rule!r}")
        positions = 2 * (2 * size + 1)
        return GameInfo(
            cls.name,
            num_actions=3,
            observation_shape=(1, 2 * size + 1),
            max_game_length=3 * positions + 1,
            utility=(-2, 2),
            history_dependent=True,
            repetition_illegal=rule == RULES[2],
        )

    def initial_compact_state(self) -> tuple:
        return (0, 0, 0, self.size, RULES.index(self.rule))


@njit(cache=True)
def tug_value(s) -> float:
    """The marker's place from the side to move, in (-1, 1)."""
    x = s[X] / (s[SIZE] + 1)
    return x if s[0] == 0 else -x


class TugEvaluator(Evaluator):
    """The marker's place from the side to move (`tug_value`)."""

    def value(self, state) -> float:
        return float(tug_value(state.compact))

    def policy(self, state) -> np.ndarray:
        return state.legal_action_mask() / max(1, len(state.legal_actions()))

    @property
    def kernel(self):
        return tug_value
