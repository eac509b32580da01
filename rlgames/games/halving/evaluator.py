"""A halving-game evaluation from the binary digits of ``n``.

Write ``n = 2**k * m`` with ``m`` odd (``k`` trailing zero bits). Solving the game backwards shows:

* an odd ``n >= 3`` wins (``k = 0``); ``n = 1`` loses (both moves hand 0, the win, to the opponent);
* an even ``n`` wins iff ``n // 2`` loses (``n - 1`` is odd: a win for the opponent unless it is 1),
  so each factor 2 flips the outcome: for ``m >= 3`` the side to move wins iff ``k`` is even, and for a
  power of two (``m = 1``) iff ``k`` is odd.

Features, from the side to move (the game is impartial: they depend on ``n`` only):

* ``trailing_zeros_parity`` -- +1 when ``k`` is even, -1 when odd: the parity rule for ``m >= 3``;
* ``power_of_two_parity`` -- for a power of two the same +-1, else 0: the correction for ``m = 1``.

With the default weights ``(1, -2)`` the score is +1 exactly when the side to move wins and -1
otherwise, so the sign of the value is the game-theoretic result; learning can only blur it.
"""

from __future__ import annotations

from numba import njit

from rlgames.evaluators.base import LinearEvaluator
from rlgames.games.halving.rules import N


@njit(cache=True)
def features(s, out) -> None:
    """``out[0]``: +1 if ``n`` has an even number of trailing zero bits, else -1; ``out[1]``: the same
    when ``n`` is a power of two, else 0."""
    n = s[N]
    zeros = 0
    while n & 1 == 0:
        n >>= 1
        zeros += 1
    parity = 1.0 if zeros % 2 == 0 else -1.0
    out[0] = parity
    out[1] = parity if n == 1 else 0.0


class HalvingEvaluator(LinearEvaluator):
    """``tanh((parity - 2 * power-of-two parity) / 0.5)`` from the side to move: about +-0.96, with the
    sign of the game-theoretic value (see the module docstring)."""

    feature_names = ("trailing_zeros_parity", "power_of_two_parity")
    default_weights = (1.0, -2.0)
    scale = 0.5
    features = features
