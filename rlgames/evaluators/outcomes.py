"""Outcome probabilities: a value head for games scored in whole points, such as backgammon's gammons.

A game whose returns are whole points up to ``R`` (backgammon at full scoring: 1 for a single game, 2 for
a gammon, 3 for a backgammon) can be valued by the probabilities of its outcomes rather than by one
number, as TD-Gammon 2 and gnubg value it: ``2R - 1`` outputs for the player they are valued for,

    P(win), P(win by at least k) for k = 2..R, P(lose by at least k) for k = 2..R,

in that order (P(lose) is 1 - P(win); a draw counts as half a win). Their expected return (the cubeless
money equity) divided by ``R`` is the value in [-1, 1] that search reads; the probabilities themselves are
what the doubling cube's decisions need. Each output is a sigmoid of its own, so the network may say that
a gammon is likelier than the win it refines; `outcome_value` and `consistent` read each probability
capped by the one it refines, as gnubg's sanity checks do.
"""

from __future__ import annotations

import numpy as np
from numba import njit


def outcome_count(points: int) -> int:
    """The outputs of the head for returns of up to ``points``: ``2 * points - 1``."""
    return 2 * points - 1


@njit(cache=True, inline="always")
def outcome_value(o, points: int) -> float:
    """The expected return of the outcomes ``o`` (`outcome_count` of them), divided by ``points``: a value
    in [-1, 1], each probability capped by the one it refines."""
    win = o[0]
    equity, last = win, win
    for k in range(1, points):
        last = min(o[k], last)
        equity += last
    last = 1.0 - win
    equity -= last
    for k in range(1, points):
        last = min(o[points - 1 + k], last)
        equity -= last
    return equity / points


@njit(cache=True)
def flip_outcomes(o, points: int, out) -> None:
    """``out`` = the outcomes ``o`` for the other player: its win is the complement of ``o``'s, its wins by
    k points are ``o``'s losses by k and the other way round (``out`` must not be ``o``)."""
    out[0] = 1.0 - o[0]
    for k in range(1, points):
        out[k] = o[points - 1 + k]
        out[points - 1 + k] = o[k]


@njit(cache=True)
def terminal_outcomes(points_won: float, points: int, out) -> None:
    """``out`` = the outcomes of a finished game whose return is ``points_won`` for the player they are
    for: ones for each outcome it reached, zeros elsewhere; a draw is half a win."""
    out[0] = 0.5 if points_won == 0 else (1.0 if points_won > 0 else 0.0)
    for k in range(1, points):
        out[k] = 1.0 if points_won >= k + 1 else 0.0
        out[points - 1 + k] = 1.0 if points_won <= -(k + 1) else 0.0


def consistent(o: np.ndarray, points: int) -> dict[str, float]:
    """The outcomes ``o`` by name (``win``, ``win_2``... ``lose``, ``lose_2``...: by at least that many
    points), each capped by the one it refines, as `outcome_value` reads them."""
    named, last = {"win": float(o[0])}, float(o[0])
    for k in range(1, points):
        last = min(float(o[k]), last)
        named[f"win_{k + 1}"] = last
    named["lose"] = last = 1.0 - float(o[0])
    for k in range(1, points):
        last = min(float(o[points - 1 + k]), last)
        named[f"lose_{k + 1}"] = last
    return named
