"""The exact nim evaluation: Bouton's nim-sum rule, with the misere correction.

Normal play: the side to move wins iff the nim-sum (the xor of the heap sizes) is not zero (Bouton,
1901). Misere play: the same, except when every heap holds at most one object, where the side to move
wins iff the nim-sum is zero (an even number of single objects: the opponent takes the last one).

The single feature ``nim_sum_rule`` is +1 when the rule says the side to move wins and -1 otherwise;
the scale is small enough (1/32) that ``tanh`` rounds to exactly +-1, so the value is the
game-theoretic value of every position. The compact state does not say whether the play is misere, so
each rule has its own evaluator class; `NimEvaluator.for_game` picks the one for a game.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
from numba import njit

from rlgames.evaluators.base import LinearEvaluator
from rlgames.games.nim.game import Nim
from rlgames.games.nim.rules import HEAPS


@njit(cache=True, inline="always")
def nim_sum_and_largest(s) -> tuple[int, int]:
    """The xor and the maximum of the heap sizes of compact state ``s``."""
    total = 0
    largest = 0
    for i in range(HEAPS, len(s)):
        total ^= s[i]
        largest = max(largest, s[i])
    return total, largest


@njit(cache=True)
def features_normal(s, out) -> None:
    """``out[0]``: +1 when the nim-sum is not zero (the side to move wins), -1 otherwise."""
    total, _ = nim_sum_and_largest(s)
    out[0] = 1.0 if total != 0 else -1.0


@njit(cache=True)
def features_misere(s, out) -> None:
    """``out[0]``: +1 when the side to move wins at misere play, -1 otherwise: the normal-play rule
    unless every heap holds at most one object, where it is reversed."""
    total, largest = nim_sum_and_largest(s)
    out[0] = 1.0 if (total != 0) != (largest <= 1) else -1.0


class NimEvaluator(LinearEvaluator):
    """The exact value of normal-play nim from the side to move: +1 iff the nim-sum is not zero."""

    feature_names = ("nim_sum_rule",)
    default_weights = (1.0,)
    scale = 1.0 / 32.0  # tanh(32) == 1.0 in float64: the value is exactly +-1
    features = features_normal

    @classmethod
    def for_game(cls, game: Nim, weights: Sequence[float] | np.ndarray | None = None) -> NimEvaluator:
        """The evaluator of ``game``'s rule: `MisereNimEvaluator` for misere play, else this one."""
        chosen = MisereNimEvaluator if game.misere else NimEvaluator
        return chosen(weights)


class MisereNimEvaluator(NimEvaluator):
    """The exact value of misere nim from the side to move (see the module docstring)."""

    features = features_misere
