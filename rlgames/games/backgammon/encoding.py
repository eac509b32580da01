"""Backgammon's ``expert`` network inputs: TD-Gammon's board, then the hand-crafted evaluator's view of it.

TD-Gammon 0.0 learnt from the raw board alone; TD-Gammon 1.0 gave the same network hand-crafted
features beside it (Tesauro 1992, 1995), as GNU Backgammon's networks still do. `expert` writes the
game's observation (`rules.observation`: Tesauro's four units a point, the bar, the borne-off checkers,
the dice and who is on roll), then `EXPERT_NAMES`, each scaled to about [0, 1], from the point of view
of ``player``: the features of the hand-crafted heuristic (`evaluator_terms.features`; each pair
``*_mine`` / ``*_theirs``), its race formula's and its own chance that ``player`` wins, and its chances
of the gammons and backgammons of either side (`evaluator_terms.gammon_chances`). What the board alone
cannot say without search (the direct shots, the race's normal model, the gammon races) is then one input
away, and the network learns how much each is worth.

``expert_escapes`` adds four terms after those (`ESCAPE_NAMES`): the escapes of each side's rearmost
checker and the containment of each side's points (`rlgames.games.backgammon.escapes`), the blockade
terms GNU Backgammon's networks read beside the board and the heuristic does not compute.

The heuristic's terms are defined for the player on roll (`rules.perspective`); the features are
computed that way and then read from ``player``'s side, so that the same position gives the same inputs
whichever player's features are asked for first.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from rlgames.game import Encoding
from rlgames.games.backgammon.evaluator_terms import (
    ANCHORS_MOVER,
    BLOTS_MOVER,
    HOME_POINTS_MOVER,
    HOME_VALUE,
    KEITH_LEAD,
    KEITH_TOTAL,
    NUM_FEATURES,
    OUTER_POINTS_MOVER,
    OUTER_VALUE,
    PIP_LEAD,
    PRIME_MOVER,
    RACE,
    SCALE,
    SHOT_RISK_MOVER,
    _DEFAULT_WEIGHTS,
    features,
    gammon_chances,
    race_value,
    value_of_features,
)
from rlgames.games.backgammon.escapes import back_escapes, containment
from rlgames.games.backgammon.rules import OBSERVATION_SHAPE, observation, perspective, view
from rlgames.jit.stack import stack_float64, stack_int64

EXPERT_NAMES = (
    "race",
    "pip_lead",
    "keith_lead",
    "keith_total",
    "blots_mine",
    "blots_theirs",
    "shot_risk_mine",
    "shot_risk_theirs",
    "home_points_mine",
    "home_points_theirs",
    "outer_points_mine",
    "outer_points_theirs",
    "anchors_mine",
    "anchors_theirs",
    "prime_mine",
    "prime_theirs",
    "race_win",
    "heuristic_win",
    "gammon_lost",
    "backgammon_lost",
    "gammon_won",
    "backgammon_won",
)
"""The inputs after the observation, in order: 1 in a race; the pip and Keith-count leads of ``player``
(/ 100) and the Keith counts' sum (/ 300); per side, its blots (/ 8), the pips its blots lose to direct
shots (/ 50), its made points at home and on the outer boards (their heuristic worth over the most there
can be), its anchors in the enemy's home board (/ 6) and its longest prime ((L - 1)**2 / 25); the chance
that ``player`` wins by the race formula and by the heuristic; and, should ``player`` lose (win), the
chance of a gammon and of a backgammon given the gammon."""
OBSERVATION_SIZE = OBSERVATION_SHAPE[0] * OBSERVATION_SHAPE[1]
EXPERT_SIZE = OBSERVATION_SIZE + len(EXPERT_NAMES)

_PAIRS = (BLOTS_MOVER, SHOT_RISK_MOVER, HOME_POINTS_MOVER, OUTER_POINTS_MOVER, ANCHORS_MOVER, PRIME_MOVER)
"""The first index of each per-side pair of `evaluator_terms.FEATURE_NAMES`, in `EXPERT_NAMES`' order."""
_PAIR_SCALE = np.array([8.0, 50.0, HOME_VALUE.sum(), OUTER_VALUE.sum(), 6.0, 25.0])


@njit(cache=True)
def expert(s, player, out) -> None:
    """``out``: float32[`EXPERT_SIZE`], the observation of ``s`` from ``player`` (flattened), then
    `EXPERT_NAMES` from ``player``'s side."""
    board = stack_int64(52).reshape((2, 26))
    view(s, board)
    _expert_of_view(s, player, board, out)


@njit(cache=True)
def _expert_of_view(s, player, board, out) -> None:
    """`expert`, given the rules' ``view`` of ``s`` (``board``: the side on roll's row, then the other's)."""
    observation(s, player, out[:OBSERVATION_SIZE].reshape(OBSERVATION_SHAPE))
    roller, other = board[0], board[1]
    f = stack_float64(NUM_FEATURES)
    features(roller, other, f)
    on_roll = perspective(s) == player
    sign = 1.0 if on_roll else -1.0
    x = out[OBSERVATION_SIZE:]
    x[0] = f[RACE]
    x[1] = sign * f[PIP_LEAD] / 100.0
    x[2] = sign * f[KEITH_LEAD] / 100.0
    x[3] = f[KEITH_TOTAL] / 300.0
    for k in range(len(_PAIRS)):
        mine, theirs = (_PAIRS[k], _PAIRS[k] + 1) if on_roll else (_PAIRS[k] + 1, _PAIRS[k])
        x[4 + 2 * k] = f[mine] / _PAIR_SCALE[k]
        x[5 + 2 * k] = f[theirs] / _PAIR_SCALE[k]
    race = race_value(roller, f[KEITH_LEAD], f[KEITH_TOTAL])
    value = value_of_features(roller, f, _DEFAULT_WEIGHTS, SCALE)
    x[16] = (1.0 + sign * race) / 2.0
    x[17] = (1.0 + sign * value) / 2.0
    race_now = f[RACE] > 0.0
    mine_row, theirs_row = (roller, other) if on_roll else (other, roller)
    x[18], x[19] = gammon_chances(mine_row, theirs_row, on_roll, race_now)
    x[20], x[21] = gammon_chances(theirs_row, mine_row, not on_roll, race_now)


ESCAPE_NAMES = ("back_escapes_mine", "back_escapes_theirs", "containment_mine", "containment_theirs")
"""The inputs after `EXPERT_NAMES` in ``expert_escapes``: per side, the escapes of its rearmost checker
and how well its points contain the other's checkers (`rlgames.games.backgammon.escapes`), each in [0, 1]."""
EXPERT_ESCAPES_SIZE = EXPERT_SIZE + len(ESCAPE_NAMES)


@njit(cache=True)
def expert_escapes(s, player, out) -> None:
    """``out``: float32[`EXPERT_ESCAPES_SIZE`], `expert`'s inputs, then `ESCAPE_NAMES` from ``player``'s
    side."""
    board = stack_int64(52).reshape((2, 26))
    view(s, board)
    _expert_of_view(s, player, board, out[:EXPERT_SIZE])
    mine, theirs = (board[0], board[1]) if perspective(s) == player else (board[1], board[0])
    x = out[EXPERT_SIZE:]
    x[0], x[1] = back_escapes(mine, theirs), back_escapes(theirs, mine)
    x[2], x[3] = containment(mine, theirs), containment(theirs, mine)


ENCODINGS = {
    "expert": Encoding(expert, (EXPERT_SIZE,), extends_observation=True),
    "expert_escapes": Encoding(expert_escapes, (EXPERT_ESCAPES_SIZE,), extends_observation=True),
}
