"""A pig evaluation: the score race, the turn total against the "hold at 20" rule, and the target.

Features are from the point of view of the *turn player* (the side to move, or at a chance node the
player who rolled: `PigState.observer`'s convention), in units of the target ``W = winscore``; with
``mine``, ``theirs`` the banked scores and ``t`` the turn total:

* ``score_difference`` -- ``(mine - theirs) / W``;
* ``turn_total`` -- ``t / W``, points at stake this turn;
* ``held_turn_total`` -- ``t / W`` once ``t`` reaches the hold threshold, else 0: the classic "hold at
  20" rule (20 points for ``W = 100``, ``W / 5`` rounded in general) banks it now, so it is nearly
  safe;
* ``closeness`` -- ``((mine + t) / W)**2 - (theirs / W)**2``: the race grows sharper near the target;
* ``can_win_by_holding`` -- 1 when ``mine + t >= W`` (stopping wins now), else 0.
"""

from __future__ import annotations

from numba import njit

from rlgames.evaluators.base import LinearEvaluator
from rlgames.games.pig.rules import SCORE0, TURN_PLAYER, TURN_TOTAL, winscore


@njit(cache=True, inline="always")
def hold_threshold(winscore: int) -> int:
    """The "hold at 20" turn total scaled to the target: ``winscore / 5`` rounded, at least 1."""
    return max(1, (winscore + 2) // 5)


@njit(cache=True)
def features(s, out) -> None:
    """The features of the non-terminal compact state ``s`` (decision or chance node) from the turn
    player, in ``PigEvaluator.feature_names`` order."""
    turn = s[TURN_PLAYER]
    mine, theirs, total, target = s[SCORE0 + turn], s[SCORE0 + 1 - turn], s[TURN_TOTAL], winscore(s)
    w = float(target)
    out[0] = (mine - theirs) / w
    out[1] = total / w
    out[2] = total / w if total >= hold_threshold(target) else 0.0
    out[3] = ((mine + total) / w) ** 2 - (theirs / w) ** 2
    out[4] = 1.0 if mine + total >= target else 0.0


class PigEvaluator(LinearEvaluator):
    """``tanh(weights . features)`` from the turn player (see the module docstring).

    Default weights: banked points count 2 per target, the turn total 1 (1.5 once the hold rule would
    bank it: a 1 can still wipe out a smaller one), the closeness 1, and a win by stopping 3.
    """

    scores_chance_nodes = True  # the features read the turn player, who rolled into a chance node

    feature_names = ("score_difference", "turn_total", "held_turn_total", "closeness", "can_win_by_holding")
    default_weights = (2.0, 1.0, 0.5, 1.0, 3.0)
    scale = 1.0
    features = features
