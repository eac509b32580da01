"""Backgammon's two hand-crafted evaluations over the two rows of a board: features and a heuristic,
and Tesauro's pubeval.

A board is two int64[26] rows, ``own`` and ``opp``, each indexed from its own player's point of view
(the rules' ``view`` kernel): index 0..23 are that player's points 1..24 (point 1 is the last before
bearing off, the home board is indices 0..5), `BAR` (24) its checkers on the bar, `OFF` (25) those
borne off. The opponent's point ``j + 1`` is the own point ``24 - j``; the opponent's bar is the own
"point 0", the one from which it enters.

**The heuristic** (`heuristic`) is the value in [-1, 1] for the player *on roll* (``own``), dice not
yet known. In a race (no contact, `is_race`) it is `race_value`: the Keith count (`keith_count`: the
pip count plus wastage, Tom Keith's 2004 race count) of each side, and a normal model of the race:
each roll moves 49/6 pips on average with variance 18.47 (`ROLL_MEAN`, `ROLL_VARIANCE`), so the count
difference at the end has a standard deviation of about ``sqrt(18.47 * total / (49/6))`` pips, and the
player on roll is half a roll ahead (`ROLL_PIPS`)::

    z = (keith(opp) - keith(own) + ROLL_PIPS) / sqrt(ROLL_VARIANCE * (keith(own) + keith(opp)) / ROLL_MEAN)
    value = 2 * Phi(z) - 1 = erf(z / sqrt 2)     (1 when the player on roll surely finishes this roll)

In contact it is ``tanh(weights . features / SCALE)``, the weights in pips of race lead
(`DEFAULT_WEIGHTS`, `SCALE` = 50 pips: a 50-pip lead is worth tanh(1) = 0.76). The weights were set
by hand, then adjusted by 1-ply matches against `pubeval` (each side playing the move whose
position its evaluation likes best, win/loss scoring): the first guess won 38% of 2,000 games, the
defaults 51.3% and 50.5% of two runs of 10,000 (standard error 0.5%). The features
(`FEATURE_NAMES`, indices `TEMPO` .. `OFF_OPPONENT`), from the player on roll:

* ``tempo`` -- 1: being on roll is worth half an average roll (4 pips);
* ``race`` -- 1 in a race (no contact), else 0: the switch to `race_value`, not weighted;
* ``pip_lead`` -- the opponent's pip count minus the own (bar = 25 pips per checker), the unit;
* ``keith_lead``, ``keith_total`` -- the Keith counts' difference (opponent's minus own) and sum, the
  race formula's inputs (weight 0 in contact);
* ``blots_*`` -- single checkers on points 1..24;
* ``shot_risk_*`` -- the pips the player's blots lose to direct shots: for each blot, the chance
  that one roll of the enemy hits it directly, ``1 - ((6 - k) / 6)**2`` with ``k`` the enemy points
  (its bar included) 1 to 6 pips behind it (`HIT_CHANCE`; combination shots and blocked points are
  ignored), times the pips it loses if hit (a blot on point p goes back to the bar: 25 - p pips);
* ``home_points_*`` -- made points (two or more checkers) in the player's home board, each worth its
  `HOME_VALUE`;
* ``outer_points_*`` -- made points on points 7..18 (the two outer boards), each worth its
  `OUTER_VALUE`;
* ``anchors_*`` -- made points in the enemy's home board (indices 18..23);
* ``prime_*`` -- ``(L - 1)**2`` for the longest run of ``L`` (at most 6) consecutive made points:
  a run grows in strength faster than its length (2 points 1, a full prime 25);
* ``bar_*`` -- checkers on the bar;
* ``off_*`` -- checkers borne off.

Pairs ``*_mover`` / ``*_opponent`` are the player on roll's and the other's; swapping the rows swaps
each pair and negates ``pip_lead`` and ``keith_lead``. The weights of a pair are opposite, so the
contact score is antisymmetric, except for what being on roll changes: ``tempo`` and the shots (the
player on roll may hit now, the other only after the move, which may cover its blots first).

**Gammons** (`equity`): where gammons count (wins worth up to ``points`` = 2 or 3), the heuristic's
value is read as ``2 P(win) - 1`` for the player on roll and completed into the expected points
(cubeless money equity) with, for each side as the loser, ``G = P(gammon | lost)`` and
``B = P(backgammon | gammon)`` (`gammon_chances`)::

    equity = (2 P(win) - 1) + P(win) G_won (1 + B_won) - (1 - P(win)) G_lost (1 + B_lost)
           = P(win) - P(lose) + P(win gammon) - P(lose gammon) + P(win bg) - P(lose bg)

(``B`` only at 3 points), in [-points, points]; at 1 point it is the value itself, bit for bit. A
loser with a checker off is never gammoned. Otherwise the loser must move `gammon_pips` (every
checker home, then the nearest one off) to save the gammon and `backgammon_pips` (every checker out
of the winner's home board and off the bar) to save the backgammon, before the winner, with its Keith
count, bears off its last checker: the race formula's normal model gives the chance that it does not
(`race_z`, with `SAVE_WASTE`). That is ``G`` in a race and ``B`` everywhere; in contact, where hits
make most gammons, ``G`` is a logistic of the same ``z`` fitted to games (`GAMMON_CONTACT_BIAS`).
The backgammon's race model assumes that the loser runs to save it; the losers of the games that
the constants were fitted to did not (fitted to their races, the offset is 14 pips, not 4), and with
the model the heuristic's backgammons lost to pubeval at 1 ply fell from 122 to 4 in 2,000 games.

**Pubeval** (`pubeval`) is Gerald Tesauro's public linear evaluator, the benchmark opponent of the
backgammon-learning literature: ``score = w . x`` over 122 inputs of the board *after the mover's
move* (the opponent to roll), from the mover's point of view, with one weight vector for races
(`PUBEVAL_RACE`) and one for contact positions (`PUBEVAL_CONTACT`). Source of the weights and the
encoding: Tesauro's ``pubeval.c`` (IBM Research, released in 1993 "as a public service to the
backgammon programming community"), as distributed in GNU Backgammon's ``lib/pub_eval.c`` and BSD's
``games/backgammon/common_source/pubeval.c``. The inputs (`pubeval_inputs`): for each of the mover's
points 24 down to 1 (block ``k`` = point ``24 - k``, inputs ``5k .. 5k + 4``) with ``n`` of the mover's
checkers on it: ``[the opponent has a blot there, n == 1, n >= 2, n == 3, (n - 3) / 2 if n >= 4]``
(the opponent's made points are not encoded); then the opponent's checkers on the bar / 2 and the
mover's borne-off checkers / 15. pubeval.c takes the race flag from the position *before* the move;
`pubeval_score` takes it as an argument, `pubeval` from the board after the move (all a board alone
can tell: a move that breaks contact is then scored with the race weights). A mover with all 15
checkers off scores `PUBEVAL_WIN`.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from rlgames.jit.stack import stack_float64

POINTS, BAR, OFF = 24, 24, 25
"""The board's points (indices 0..23), and the bar and borne-off slots of a row."""
CHECKERS = 15
HOME = 6
"""The home board: indices 0..5."""
OUTER_END = 18
"""Indices HOME..OUTER_END - 1 are the outer boards, OUTER_END..23 the enemy's home board."""

FEATURE_NAMES = (
    "tempo",
    "race",
    "pip_lead",
    "keith_lead",
    "keith_total",
    "blots_mover",
    "blots_opponent",
    "shot_risk_mover",
    "shot_risk_opponent",
    "home_points_mover",
    "home_points_opponent",
    "outer_points_mover",
    "outer_points_opponent",
    "anchors_mover",
    "anchors_opponent",
    "prime_mover",
    "prime_opponent",
    "bar_mover",
    "bar_opponent",
    "off_mover",
    "off_opponent",
)
(
    TEMPO,
    RACE,
    PIP_LEAD,
    KEITH_LEAD,
    KEITH_TOTAL,
    BLOTS_MOVER,
    BLOTS_OPPONENT,
    SHOT_RISK_MOVER,
    SHOT_RISK_OPPONENT,
    HOME_POINTS_MOVER,
    HOME_POINTS_OPPONENT,
    OUTER_POINTS_MOVER,
    OUTER_POINTS_OPPONENT,
    ANCHORS_MOVER,
    ANCHORS_OPPONENT,
    PRIME_MOVER,
    PRIME_OPPONENT,
    BAR_MOVER,
    BAR_OPPONENT,
    OFF_MOVER,
    OFF_OPPONENT,
) = range(len(FEATURE_NAMES))
NUM_FEATURES = len(FEATURE_NAMES)

DEFAULT_WEIGHTS = (
    4.0,  # tempo: the player on roll is half an average roll (49/12 pips) ahead
    0.0,  # race: a switch to the race formula, not a score
    1.0,  # pip_lead: the unit, one pip of race lead
    0.0,
    0.0,  # keith_lead, keith_total: the race formula's inputs
    0.0,
    0.0,  # blots: priced by shot_risk; a blot out of direct range cost nothing measurable
    -0.3,
    1.0,  # shot_risk: the player on roll hits now and gains the pips; its own blots are shot
    #             at only after its move, which may cover them
    5.0,
    -5.0,  # home_points: block the entry of hit checkers and build primes, worth most
    4.0,
    -4.0,  # outer_points: landing spots, and blocks against escaping checkers
    -4.0,
    4.0,  # anchors: safe, but they hold checkers back that should come home (a positive
    #             weight lost the matches against pubeval: they stayed back too long)
    1.0,
    -1.0,  # prime: (L - 1)**2, a full prime traps what is behind it (25 pips more)
    -5.0,
    5.0,  # bar: a checker there must enter before anything else moves (its 25 pips are counted)
    1.0,
    -1.0,  # off: fewer checkers left, fewer rolls to bear them off than the pips say
)
"""The contact weights, in pips of race lead, in `FEATURE_NAMES` order."""
SCALE = 50.0
"""Contact value = tanh(score / SCALE): a 50-pip lead is worth 0.76."""

ROLL_MEAN = 49.0 / 6.0
"""The mean pips of one roll (doubles count four times)."""
ROLL_VARIANCE = 3066.0 / 36.0 - ROLL_MEAN**2
"""The variance of the pips of one roll, 18.47."""
ROLL_PIPS = ROLL_MEAN / 2.0
"""The on-roll advantage of the race formula: half a roll."""

PUBEVAL_WIN = 99999999.0
"""pubeval.c's score of a move that bears off the last checker."""
PUBEVAL_INPUTS = 122
PUBEVAL_RACE = np.array(
    [
        0.00000,
        -0.17160,
        0.27010,
        0.29906,
        -0.08471,
        0.00000,
        -1.40375,
        -1.05121,
        0.07217,
        -0.01351,
        0.00000,
        -1.29506,
        -2.16183,
        0.13246,
        -1.03508,
        0.00000,
        -2.29847,
        -2.34631,
        0.17253,
        0.08302,
        0.00000,
        -1.27266,
        -2.87401,
        -0.07456,
        -0.34240,
        0.00000,
        -1.34640,
        -2.46556,
        -0.13022,
        -0.01591,
        0.00000,
        0.27448,
        0.60015,
        0.48302,
        0.25236,
        0.00000,
        0.39521,
        0.68178,
        0.05281,
        0.09266,
        0.00000,
        0.24855,
        -0.06844,
        -0.37646,
        0.05685,
        0.00000,
        0.17405,
        0.00430,
        0.74427,
        0.00576,
        0.00000,
        0.12392,
        0.31202,
        -0.91035,
        -0.16270,
        0.00000,
        0.01418,
        -0.10839,
        -0.02781,
        -0.88035,
        0.00000,
        1.07274,
        2.00366,
        1.16242,
        0.22520,
        0.00000,
        0.85631,
        1.06349,
        1.49549,
        0.18966,
        0.00000,
        0.37183,
        -0.50352,
        -0.14818,
        0.12039,
        0.00000,
        0.13681,
        0.13978,
        1.11245,
        -0.12707,
        0.00000,
        -0.22082,
        0.20178,
        -0.06285,
        -0.52728,
        0.00000,
        -0.13597,
        -0.19412,
        -0.09308,
        -1.26062,
        0.00000,
        3.05454,
        5.16874,
        1.50680,
        5.35000,
        0.00000,
        2.19605,
        3.85390,
        0.88296,
        2.30052,
        0.00000,
        0.92321,
        1.08744,
        -0.11696,
        -0.78560,
        0.00000,
        -0.09795,
        -0.83050,
        -1.09167,
        -4.94251,
        0.00000,
        -1.00316,
        -3.66465,
        -2.56906,
        -9.67677,
        0.00000,
        -2.77982,
        -7.26713,
        -3.40177,
        -12.32252,
        0.00000,
        3.42040,
    ]
)
"""Tesauro's race weights (``wr`` of pubeval.c)."""
PUBEVAL_CONTACT = np.array(
    [
        0.25696,
        -0.66937,
        -1.66135,
        -2.02487,
        -2.53398,
        -0.16092,
        -1.11725,
        -1.06654,
        -0.92830,
        -1.99558,
        -1.10388,
        -0.80802,
        0.09856,
        -0.62086,
        -1.27999,
        -0.59220,
        -0.73667,
        0.89032,
        -0.38933,
        -1.59847,
        -1.50197,
        -0.60966,
        1.56166,
        -0.47389,
        -1.80390,
        -0.83425,
        -0.97741,
        -1.41371,
        0.24500,
        0.10970,
        -1.36476,
        -1.05572,
        1.15420,
        0.11069,
        -0.38319,
        -0.74816,
        -0.59244,
        0.81116,
        -0.39511,
        0.11424,
        -0.73169,
        -0.56074,
        1.09792,
        0.15977,
        0.13786,
        -1.18435,
        -0.43363,
        1.06169,
        -0.21329,
        0.04798,
        -0.94373,
        -0.22982,
        1.22737,
        -0.13099,
        -0.06295,
        -0.75882,
        -0.13658,
        1.78389,
        0.30416,
        0.36797,
        -0.69851,
        0.13003,
        1.23070,
        0.40868,
        -0.21081,
        -0.64073,
        0.31061,
        1.59554,
        0.65718,
        0.25429,
        -0.80789,
        0.08240,
        1.78964,
        0.54304,
        0.41174,
        -1.06161,
        0.07851,
        2.01451,
        0.49786,
        0.91936,
        -0.90750,
        0.05941,
        1.83120,
        0.58722,
        1.28777,
        -0.83711,
        -0.33248,
        2.64983,
        0.52698,
        0.82132,
        -0.58897,
        -1.18223,
        3.35809,
        0.62017,
        0.57353,
        -0.07276,
        -0.36214,
        4.37655,
        0.45481,
        0.21746,
        0.10504,
        -0.61977,
        3.54001,
        0.04612,
        -0.18108,
        0.63211,
        -0.87046,
        2.47673,
        -0.48016,
        -1.27157,
        0.86505,
        -1.11342,
        1.24612,
        -0.82385,
        -2.77082,
        1.23606,
        -1.59529,
        0.10438,
        -1.30206,
        -4.11520,
        5.62596,
        -2.75800,
    ]
)
"""Tesauro's contact weights (``wc`` of pubeval.c)."""


# --- the board ------------------------------------------------------------------------------------

HOME_VALUE = np.array([0.4, 0.6, 0.9, 1.2, 1.4, 1.2])
"""The worth of a made point in the home board, points 1..6: the 5-point first, then the 4- and
6-points; the 1- and 2-points, made early, take their checkers out of play."""
OUTER_VALUE = np.array([1.5, 1.0, 0.7] + [0.6] * 9)
"""The worth of a made point on points 7..18: the bar point first (with the 4-, 5- and 6-points it
primes), then the 8- and 9-points, builders for the home board."""
HIT_CHANCE = np.array([1.0 - ((HOME - m.bit_count()) / HOME) ** 2 for m in range(1 << HOME)])
"""The chance that one roll shows a number in a set of distances 1..6, given as a 6-bit mask: that
a blot is hit directly from the enemy points at those distances."""


@njit(cache=True, inline="always")
def pip_count(row) -> int:
    """The pips the player of ``row`` still has to move: point p counts p, the bar 25."""
    total = (POINTS + 1) * row[BAR]
    for i in range(POINTS):
        total += (i + 1) * row[i]
    return total


@njit(cache=True, inline="always")
def back_index(row) -> int:
    """The index of the player's rearmost checker (`BAR` for the bar), -1 when all are off (a scan
    without early exit: it has no branch to mispredict)."""
    back = -1
    for i in range(BAR + 1):
        back = i if row[i] > 0 else back
    return back


@njit(cache=True, inline="always")
def passed(back_own: int, back_opp: int) -> bool:
    """Whether two rearmost checkers, at own index ``back_own`` and the opponent's ``back_opp``, have
    passed each other (own point p and the opponent's point q with p + q < 25)."""
    return back_own + back_opp < POINTS - 1


@njit(cache=True)
def is_race(own, opp) -> bool:
    """Whether no checker can ever hit or block one of the other side: the rearmost checkers have
    `passed` each other."""
    return passed(back_index(own), back_index(opp))


@njit(cache=True, inline="always")
def keith_count(row, pips: int) -> int:
    """Tom Keith's race count of ``row`` with ``pips`` its pip count: the pips plus 2 per checker
    beyond one on point 1, 1 per checker beyond one on point 2 and beyond three on point 3, and 1 per
    empty point among 4, 5 and 6."""
    count = pips + 2 * max(row[0] - 1, 0) + max(row[1] - 1, 0) + max(row[2] - 3, 0)
    for i in range(3, HOME):
        count += row[i] == 0
    return count


@njit(cache=True)
def finishes_this_roll(row) -> bool:
    """Whether every roll bears off all the checkers left: one in the home board, or two on points
    1 and 1 or 1 and 2."""
    left = CHECKERS - row[OFF]
    pips = pip_count(row)
    return (left == 1 and pips <= HOME) or (left == 2 and pips <= 3)


@njit(cache=True, inline="always")
def occupied(row) -> int:
    """A mask with bit i set where the player has a checker on index i (0..24, the bar included)."""
    mask = 0
    for i in range(BAR + 1):
        mask |= (row[i] > 0) << i
    return mask


@njit(cache=True, inline="always")
def direct_hit_chance(enemy_mask: int, index: int) -> float:
    """The chance that a roll of the enemy hits a blot on own ``index`` directly: a number among the
    distances to the enemy's checkers 1 to 6 pips behind it, on the enemy's indices ``24 - index ..
    29 - index`` (its bar is 24) of its `occupied` mask ``enemy_mask``."""
    return HIT_CHANCE[enemy_mask >> (POINTS - index) & (1 << HOME) - 1]


@njit(cache=True, inline="always")
def _side(row, enemy_mask: int, out, slot: int) -> tuple[int, int]:
    """The per-player features of ``row`` into ``out[first + slot]`` for each pair's first index
    (slot 0 for the player on roll, 1 for the other), in one pass over the points; returns the pip
    count and the `back_index`."""
    pips = (POINTS + 1) * row[BAR]
    back = BAR if row[BAR] > 0 else -1
    blots = anchors = run = longest = 0
    risk = home = outer = 0.0
    for i in range(POINTS):
        n = row[i]
        pips += (i + 1) * n
        back = max(back, i if n > 0 else -1)
        if n >= 2:
            run += 1
            longest = max(longest, run)
            if i < HOME:
                home += HOME_VALUE[i]
            elif i < OUTER_END:
                outer += OUTER_VALUE[i - HOME]
            else:
                anchors += 1
        else:
            run = 0
            if n == 1:
                blots += 1
                risk += direct_hit_chance(enemy_mask, i) * (POINTS - i)
    prime = min(longest, HOME)
    out[BLOTS_MOVER + slot] = blots
    out[SHOT_RISK_MOVER + slot] = risk
    out[HOME_POINTS_MOVER + slot] = home
    out[OUTER_POINTS_MOVER + slot] = outer
    out[ANCHORS_MOVER + slot] = anchors
    out[PRIME_MOVER + slot] = (prime - 1) ** 2 if prime > 0 else 0
    out[BAR_MOVER + slot] = row[BAR]
    out[OFF_MOVER + slot] = row[OFF]
    return pips, back


# --- the heuristic --------------------------------------------------------------------------------


@njit(cache=True)
def features(own, opp, out) -> None:
    """The features (`FEATURE_NAMES` order) of the board ``own``/``opp`` for the player on roll,
    ``own``, into ``out`` (float64[NUM_FEATURES])."""
    pips_own, back_own = _side(own, occupied(opp), out, 0)
    pips_opp, back_opp = _side(opp, occupied(own), out, 1)
    keith_own, keith_opp = keith_count(own, pips_own), keith_count(opp, pips_opp)
    out[TEMPO] = 1.0
    out[RACE] = 1.0 if passed(back_own, back_opp) else 0.0
    out[PIP_LEAD] = pips_opp - pips_own
    out[KEITH_LEAD] = keith_opp - keith_own
    out[KEITH_TOTAL] = keith_own + keith_opp


@njit(cache=True)
def race_value(own, keith_lead: float, keith_total: float) -> float:
    """The value in [-1, 1] of a race for the player on roll, ``own`` (see the module docstring):
    ``2 Phi(z) - 1`` of the normal model, 1 when it surely finishes this roll."""
    if finishes_this_roll(own):
        return 1.0
    spread = math.sqrt(ROLL_VARIANCE * max(keith_total, 1.0) / ROLL_MEAN)
    return math.erf((keith_lead + ROLL_PIPS) / (spread * math.sqrt(2.0)))


@njit(cache=True)
def evaluate(own, opp, weights, scale: float) -> float:
    """The heuristic with contact ``weights`` (float64[NUM_FEATURES], pips) and ``scale``: the value
    in [-1, 1] of the board for the player on roll, ``own``."""
    f = stack_float64(NUM_FEATURES)
    features(own, opp, f)
    return value_of_features(own, f, weights, scale)


@njit(cache=True, inline="always")
def value_of_features(own, f, weights, scale: float) -> float:
    """`evaluate` from the board's `features` ``f``, already computed for the player on roll, ``own``."""
    if f[RACE] > 0.0:
        return race_value(own, f[KEITH_LEAD], f[KEITH_TOTAL])
    score = 0.0
    for i in range(NUM_FEATURES):
        score += weights[i] * f[i]
    return math.tanh(score / scale)


_DEFAULT_WEIGHTS = np.array(DEFAULT_WEIGHTS)


@njit(cache=True)
def heuristic(own, opp) -> float:
    """The hand-crafted value in [-1, 1] of the board for the player on roll, ``own`` (dice not yet
    rolled): `race_value` in a race, ``tanh(DEFAULT_WEIGHTS . features / SCALE)`` in contact."""
    return evaluate(own, opp, _DEFAULT_WEIGHTS, SCALE)


# --- gammons --------------------------------------------------------------------------------------

GAMMON_PIPS_BAR = POINTS + 1 - HOME
"""The pips that bring a checker from the bar into the home board (to point 6): 19."""
BACKGAMMON_PIPS_BAR = POINTS + 1 - OUTER_END
"""The pips that take a checker from the bar out of the enemy's home board (to own point 18): 7."""
SAVE_WASTE = ROLL_PIPS
"""The pips a loser wastes on the roll that saves a gammon or a backgammon, added to what it must
move: half a roll, as the last roll of a race is half used on average. The maximum-likelihood offset
over the 11,402 race positions that the loser reached with no checker off in 2,000 games of
``expectiminimax(plies=1)`` with this heuristic against pubeval at full scoring (the arena, seed 0,
no random openings) is 3.9 pips."""
GAMMON_CONTACT_BIAS, GAMMON_CONTACT_SLOPE = 0.07, 0.34
"""P(gammon | lost) in contact is ``logistic(bias + slope * z)`` of the gammon race's `race_z`: the
logistic regression (0.066, 0.339) over the 94,383 contact positions, the loser with no checker off,
of the games that measured `SAVE_WASTE`. It gives 25% at the start (z = -3.4) and 85% when the
winner bears off its last checkers (z = 5): hits and closed boards make gammons that the race count
alone never sees."""


@njit(cache=True, inline="always")
def gammon_pips(row) -> int:
    """The pips the player of ``row`` must move to save a gammon: every checker into its home board
    (``p - 6`` from point ``p``, `GAMMON_PIPS_BAR` from the bar), then the nearest one off (its
    point; 6 when none is home yet)."""
    total = GAMMON_PIPS_BAR * row[BAR]
    nearest = HOME
    for i in range(POINTS - 1, -1, -1):
        if row[i] > 0:
            if i < HOME:
                nearest = i + 1
            else:
                total += (i + 1 - HOME) * row[i]
    return total + nearest


@njit(cache=True, inline="always")
def backgammon_pips(row) -> int:
    """The pips the player of ``row`` must move to save a backgammon: every checker out of the enemy's
    home board (``p - 18`` from own point ``p`` > 18, `BACKGAMMON_PIPS_BAR` from the bar); 0 when
    none is there."""
    total = BACKGAMMON_PIPS_BAR * row[BAR]
    for i in range(OUTER_END, POINTS):
        total += (i + 1 - OUTER_END) * row[i]
    return total


@njit(cache=True, inline="always")
def race_z(need: float, count: float, loser_on_roll: bool) -> float:
    """The normal race model's ``z`` (the module docstring) of the race between a loser that must
    move ``need`` pips (plus `SAVE_WASTE`) and the winner's Keith ``count``: the winner's lead in
    standard deviations, the player on roll half a roll (`ROLL_PIPS`) ahead."""
    need += SAVE_WASTE
    spread = math.sqrt(ROLL_VARIANCE * max(need + count, 1.0) / ROLL_MEAN)
    return (need - count + (-ROLL_PIPS if loser_on_roll else ROLL_PIPS)) / spread


@njit(cache=True, inline="always")
def normal_cdf(z: float) -> float:
    """Phi(z), the standard normal distribution function."""
    return 0.5 * (1.0 + math.erf(z / math.sqrt(2.0)))


@njit(cache=True)
def gammon_chances(loser, winner, loser_on_roll: bool, race: bool) -> tuple[float, float]:
    """``(P(gammon | lost), P(backgammon | gammon))`` for the player of ``loser``, should it lose to
    ``winner``: none once it has borne off a checker; in a race, the normal model's chance that the
    winner bears off all before the loser has moved `gammon_pips` (`backgammon_pips`), certain when
    the winner on roll `finishes_this_roll`; in contact, the gammon by `GAMMON_CONTACT_BIAS` and
    `GAMMON_CONTACT_SLOPE`, the backgammon by the race model."""
    if loser[OFF] > 0:
        return 0.0, 0.0
    escape = backgammon_pips(loser)
    if race and not loser_on_roll and finishes_this_roll(winner):
        return 1.0, 1.0 if escape > 0 else 0.0
    count = keith_count(winner, pip_count(winner))
    z = race_z(gammon_pips(loser), count, loser_on_roll)
    if race:
        gammon = normal_cdf(z)
    else:
        gammon = 1.0 / (1.0 + math.exp(-(GAMMON_CONTACT_BIAS + GAMMON_CONTACT_SLOPE * z)))
    if escape == 0:
        return gammon, 0.0
    return gammon, normal_cdf(race_z(escape, count, loser_on_roll))


@njit(cache=True, inline="always")
def extra_points(loser, winner, loser_on_roll: bool, race: bool, points: int) -> float:
    """The points beyond 1 that a win over ``loser`` is expected to bring, given the win, when wins
    count up to ``points`` (2: a gammon counts 2; 3: a backgammon 3)."""
    gammon, backgammon = gammon_chances(loser, winner, loser_on_roll, race)
    return gammon * (1.0 + backgammon) if points == 3 else gammon


@njit(cache=True)
def equity(own, opp, weights, scale: float, points: int) -> float:
    """The heuristic's expected points for the player on roll, ``own``, when wins count up to
    ``points``, in [-points, points]: `evaluate` read as ``2 P(win) - 1`` (exactly it when
    ``points`` is 1), plus the expected gammons and backgammons won, less those lost."""
    value = evaluate(own, opp, weights, scale)
    if points == 1:
        return value
    race = is_race(own, opp)
    win = (1.0 + value) / 2.0
    won = extra_points(opp, own, False, race, points)
    lost = extra_points(own, opp, True, race, points)
    return value + win * won - (1.0 - win) * lost


# --- pubeval --------------------------------------------------------------------------------------


@njit(cache=True, inline="always")
def _block(n: int, blot: bool) -> tuple[float, float, float, float, float]:
    """The five inputs of one point holding ``n`` of the mover's checkers, ``blot`` whether a single
    checker of the opponent's stands there."""
    return (
        1.0 if blot else 0.0,
        1.0 if n == 1 else 0.0,
        1.0 if n >= 2 else 0.0,
        1.0 if n == 3 else 0.0,
        (n - 3) / 2.0 if n >= 4 else 0.0,
    )


@njit(cache=True)
def pubeval_inputs(mover, opp, x) -> None:
    """Tesauro's 122 inputs (the module docstring) of the board after ``mover``'s move into ``x``:
    block ``k`` is the mover's point 24 - k, which is the opponent's point k + 1."""
    for k in range(POINTS):
        x[5 * k : 5 * k + 5] = _block(mover[POINTS - 1 - k], opp[k] == 1)
    x[5 * POINTS] = opp[BAR] / 2.0
    x[5 * POINTS + 1] = mover[OFF] / CHECKERS


@njit(cache=True)
def pubeval_score(mover, opp, race: bool) -> float:
    """Tesauro's pubeval score of the board after ``mover``'s move (the opponent to roll), from the
    mover's point of view, with his weights for a race or for contact (``race``, which pubeval.c takes
    from the position *before* the move): ``weights . pubeval_inputs``, larger is better, unbounded
    (about -30 .. 25 after pubeval's own moves; `PUBEVAL_WIN` when all the mover's checkers are off)."""
    if mover[OFF] == CHECKERS:
        return PUBEVAL_WIN
    w = PUBEVAL_RACE if race else PUBEVAL_CONTACT
    score = w[5 * POINTS] * opp[BAR] / 2.0 + w[5 * POINTS + 1] * mover[OFF] / CHECKERS
    for k in range(POINTS):
        blot, single, made, three, spare = _block(mover[POINTS - 1 - k], opp[k] == 1)
        base = 5 * k
        score += w[base] * blot + w[base + 1] * single + w[base + 2] * made + w[base + 3] * three + w[base + 4] * spare
    return score


@njit(cache=True)
def pubeval(mover, opp) -> float:
    """`pubeval_score` with the race flag taken from the board itself (`is_race`), all a board alone
    can tell: a move that breaks contact is scored with the race weights, where pubeval.c would use
    the contact ones. A search that knows the position before the move calls `pubeval_score`."""
    return pubeval_score(mover, opp, is_race(mover, opp))
