"""Backgammon's hand-crafted baselines as evaluators: `BackgammonEvaluator` (the heuristic of
`rlgames.games.backgammon.evaluator_terms`) and `PubevalEvaluator` (Tesauro's pubeval).

Both read the board through the rules' ``view`` kernel (the rows of the ``perspective`` player and of
its opponent) and give values from the game's ``observer``:

* at a decision node, the side to move, who is on roll (its dice already rolled, which neither
  evaluator looks at);
* at a chance node, where the next player is about to roll, the player who *moved into* it: these are
  the afterstates that TD-Gammon's 1-ply search compares. At the opening roll, where no one has moved,
  player 0, scored as if on roll (heuristic) or as if it had just moved (pubeval).

Values are expected results divided by the game's largest return (`max_points`: 1, 2 or 3 by the
scoring type the state carries), as search scores terminal states. The heuristic values gammons and
backgammons where the scoring type counts them (`evaluator_terms.equity`: the expected points, the
cubeless money equity, so that it plays to win gammons and to save them); at win/loss scoring its
values are those of the win/loss heuristic, bit for bit. Pubeval, a win/loss evaluation as
published, does not model gammons: its values are at most ``1 / max_points`` in size, that of a sure
single win. Terminal states are scored by the searches, never by these kernels.

For the doubling cube, which needs the chance of winning (`rlgames.games.backgammon.cube`),
`pubeval_win` reads one from pubeval: in contact a logistic of its score, fitted to its own games
(`PUBEVAL_WIN_SLOPE`); in a race the race formula's, as pubeval's race weights choose among the moves
of one roll but do not rank positions (the same fit over races has a negative slope).

Pubeval's score is not a probability: `pubeval_squash` maps it monotonically into [-1, 1] by
``tanh(score / PUBEVAL_SCALE)`` with `PUBEVAL_SCALE` = 10: after its own moves in pubeval self-play
the mover's scores run from about -27 to 23 (1st to 99th percentile; race scores spread wider than
contact scores, whose median is about +13), so the squash spans most of the range without
saturating. Its values lean toward the player who just moved (contact scores are mostly positive):
pubeval is a move chooser, and 1-ply move choice is unchanged by the squash.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence

import numpy as np
from numba import njit

from rlgames.evaluators.base import Evaluator, LinearEvaluator
from rlgames.evaluators.outcomes import flip_outcomes
from rlgames.game import CHANCE, PLAYER, State
from rlgames.games.backgammon.evaluator_terms import (
    DEFAULT_WEIGHTS,
    FEATURE_NAMES,
    KEITH_LEAD,
    KEITH_TOTAL,
    NUM_FEATURES,
    RACE,
    SCALE,
    equity,
    evaluate,
    features,
    gammon_chances,
    is_race,
    pubeval,
    race_value,
)
from rlgames.games.backgammon.rules import observer, perspective, view
from rlgames.games.backgammon.slots import META, OPENING_BIT, max_points
from rlgames.jit.cache import cache_closure

PUBEVAL_SCALE = 10.0
"""`pubeval_squash`'s scale: a score of 10 is worth tanh(1) = 0.76."""
PUBEVAL_WIN_SLOPE, PUBEVAL_WIN_OFFSET = 0.0608, -0.728
"""``P(the mover wins) = sigmoid(slope * score + offset)`` in contact: the maximum-likelihood fit over
the 166,114 contact positions before a roll of 3,000 games of 1-ply pubeval against itself
(``python benchmarks/calibrate_pubeval.py --games 3000 --seed 0``). A score of 0 is worth 33%, the
median contact score (+13) 52%."""
ROW = 26
"""A row of `view`: 24 points, the bar, the borne-off checkers."""


@njit(cache=True, inline="always")
def board(s):
    """int64[2, 26]: the rows of the `perspective` player and of its opponent (`view`)."""
    rows = np.empty((2, ROW), dtype=np.int64)
    view(s, rows)
    return rows


@njit(cache=True)
def state_features(s, out) -> None:
    """The heuristic's features of the non-terminal ``s`` from the `perspective` player (the side to
    move at a decision node, the player about to roll at a chance node) into ``out``."""
    rows = board(s)
    features(rows[0], rows[1], out)


@njit(cache=True)
def heuristic_value(s, weights, scale: float) -> float:
    """The heuristic's value of the non-terminal ``s`` from its `observer`, with contact ``weights``
    and ``scale``: the expected points for the player on roll under the state's scoring type
    (`equity`), negated at a chance node (whose observer is the player who just moved), over
    `max_points`."""
    points = max_points(s)
    rows = board(s)
    value = equity(rows[0], rows[1], weights, scale, points)
    if observer(s) != perspective(s):
        value = -value
    return value / points


@njit(cache=True)
def heuristic_outcomes(s, weights, scale: float, out) -> None:
    """The heuristic's outcome probabilities of the non-terminal ``s`` for its `observer` into ``out``
    (`rlgames.evaluators.outcomes`' 2R - 1 of them, R the state's `max_points`): P(win) from `evaluate`
    read as ``2 P(win) - 1``, the gammons and backgammons given a win or a loss by `gammon_chances`, so
    that their expected return over R is `heuristic_value`."""
    points = max_points(s)
    rows = board(s)
    own, opp = rows[0], rows[1]
    win = (1.0 + evaluate(own, opp, weights, scale)) / 2.0
    race = is_race(own, opp)
    gammon_won, backgammon_won = gammon_chances(opp, own, False, race)
    gammon_lost, backgammon_lost = gammon_chances(own, opp, True, race)
    mine = np.empty(2 * points - 1)
    mine[0] = win
    if points >= 2:
        mine[1], mine[points] = win * gammon_won, (1.0 - win) * gammon_lost
    if points == 3:
        mine[2], mine[4] = mine[1] * backgammon_won, mine[3] * backgammon_lost
    if observer(s) != perspective(s):
        flip_outcomes(mine, points, out)
    else:
        out[:] = mine


_DEFAULT_WEIGHTS = np.array(DEFAULT_WEIGHTS)


@njit(cache=True)
def heuristic_kernel(s) -> float:
    """`heuristic_value` with the default weights: `BackgammonEvaluator`'s kernel."""
    return heuristic_value(s, _DEFAULT_WEIGHTS, SCALE)


@functools.cache
def make_heuristic_kernel(weights: tuple[float, ...], scale: float) -> Callable[..., float]:
    """An njit ``(s) -> float``: `heuristic_value` with ``weights`` and ``scale`` frozen into the code,
    shared by every evaluator that has them."""
    frozen = np.array(weights, dtype=np.float64)

    @njit
    def kernel(s) -> float:
        return heuristic_value(s, frozen, scale)

    return cache_closure(kernel)


@njit(cache=True, inline="always")
def pubeval_squash(score: float) -> float:
    """Pubeval's score in [-1, 1], monotone: ``tanh(score / PUBEVAL_SCALE)``."""
    return math.tanh(score / PUBEVAL_SCALE)


@njit(cache=True)
def pubeval_kernel(s) -> float:
    """Pubeval's value of the non-terminal ``s`` from its `observer`, over `max_points`: at a decision
    node minus the squashed score of the board for the player who just moved (the opponent of the
    side to move); at a chance node the squashed score for the player who just moved (player 0 at
    the opening roll)."""
    rows = board(s)
    if s[PLAYER] != CHANCE:
        value = -pubeval_squash(pubeval(rows[1], rows[0]))
    elif observer(s) == perspective(s):  # the opening roll
        value = pubeval_squash(pubeval(rows[0], rows[1]))
    else:
        value = pubeval_squash(pubeval(rows[1], rows[0]))
    return value / max_points(s)


@njit(cache=True)
def pubeval_win(s) -> float:
    """The chance that the player who moved into the chance node ``s`` wins, read from pubeval: in
    contact `PUBEVAL_WIN_SLOPE`'s logistic of its score, in a race the race formula's for the roller,
    complemented."""
    rows = board(s)  # row 0: the player about to roll, row 1: the player who moved
    f = np.empty(NUM_FEATURES)
    features(rows[0], rows[1], f)
    if f[RACE] > 0.0:
        return (1.0 - race_value(rows[0], f[KEITH_LEAD], f[KEITH_TOTAL])) / 2.0
    return 1.0 / (1.0 + math.exp(-(PUBEVAL_WIN_SLOPE * pubeval(rows[1], rows[0]) + PUBEVAL_WIN_OFFSET)))


class BackgammonEvaluator(LinearEvaluator):
    """The hand-crafted backgammon evaluation (`rlgames.games.backgammon.evaluator_terms`): in contact
    ``tanh(weights . features / 50)`` for the player on roll, in a race the Keith-count race formula,
    completed with the gammons and backgammons won and lost where they count (`equity`); from the
    state's observer (see the module docstring).

    ``weights`` replace the contact weights (in pips, `FEATURE_NAMES` order; default
    `DEFAULT_WEIGHTS`); `feature_values` and `score` are those of the contact formula, from the
    `perspective` player, and `value` switches to the race formula in a race.
    """

    scores_chance_nodes = True
    has_outcomes = True
    """It gives the outcome probabilities its values are the expected return of (`outcomes`), for the cube."""
    feature_names = FEATURE_NAMES
    default_weights = DEFAULT_WEIGHTS
    scale = SCALE
    features = state_features

    def value(self, state: State) -> float:
        return float(self.kernel(state.compact))

    def outcomes(self, states: Sequence[State]) -> np.ndarray:
        """float64[B, 2R - 1]: the outcome probabilities of non-terminal ``states`` for their observer
        (`heuristic_outcomes`, R the scoring type's largest points)."""
        if not states:
            return np.zeros((0, 1))
        points = max_points(states[0].compact)
        out = np.empty((len(states), 2 * points - 1))
        for row, state in zip(out, states):
            if state.is_terminal():
                raise ValueError("backgammon: a terminal state has no outcome probabilities, only its return")
            heuristic_outcomes(state.compact, self.weights, self.scale, row)
        return out

    @property
    def kernel(self) -> Callable[..., float]:
        weights = tuple(self.weights.tolist())
        if weights == DEFAULT_WEIGHTS:
            return heuristic_kernel
        return make_heuristic_kernel(weights, self.scale)


class PubevalEvaluator(Evaluator):
    """Tesauro's pubeval, squashed into [-1, 1] (`pubeval_kernel`), from the state's observer; no
    policy. The benchmark of the backgammon-learning literature: a 1-ply search with it plays
    pubeval's moves."""

    scores_chance_nodes = True
    has_outcomes = True
    """It gives the chance of winning at a chance node (`outcomes`), for the cube's decisions."""

    def value(self, state: State) -> float:
        return float(pubeval_kernel(state.compact))

    def outcomes(self, states: Sequence[State]) -> np.ndarray:
        """float64[B, 1]: the chance that the player who moved into each chance node wins (`pubeval_win`),
        the one outcome of single games (`rlgames.evaluators.outcomes`)."""
        if any(not state.is_chance_node() or state.compact[META] & OPENING_BIT for state in states):
            raise ValueError("backgammon: pubeval's chance of winning is read before a roll, after the opening")
        return np.array([[pubeval_win(state.compact)] for state in states])

    @property
    def kernel(self) -> Callable[..., float]:
        return pubeval_kernel

    def __repr__(self) -> str:
        return "PubevalEvaluator()"
