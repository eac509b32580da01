"""Pig, the dice game, exactly as OpenSpiel's ``pig`` (two players, no piglet variant).

On a turn the player rolls a die with ``diceoutcomes`` faces as often as they like, adding each face
to a turn total; rolling a 1 loses the turn total and passes the turn; stopping banks the turn total
and passes the turn. Whoever banks ``winscore`` points wins (+1, the other -1).

Decision actions: 0 rolls (``"roll"``), 1 stops (``"stop"``). Stopping is always legal, even with a
zero turn total; rolling is legal unless the banked score plus the turn total already reaches
``winscore`` (then the player must stop, and wins). After a roll comes a chance node whose outcomes
``0 .. diceoutcomes - 1`` are the faces ``1 .. diceoutcomes`` (``"Roll 1"`` ...), each equally likely.

The horizon: the game also ends, a draw, once ``horizon`` decisions (rolls and stops; chance outcomes
do not count) have been made, i.e. right after the ``horizon``-th decision, even a roll, whose die is
then never thrown. A stop that banks ``winscore`` on that decision still wins.

Compact state: ``(player, return0, score0, score1, turn_total, turn_player, decisions_left, rules)``:
``decisions_left`` counts down from ``horizon`` to 0, and the other parameters ride packed in the last
slot (``winscore | diceoutcomes << 16``), so that the kernels are the same for every parameter set and
the tuple stays short (each slot costs time in every call from Python). Every slot stays below 2**30,
one CPython digit: a wider int takes a slow path to box and unbox, which would slow every ply of the
Python API. `Pig.state_at` builds a position.

Observation: float32[4, winscore + 1], from the point of view of the turn player (the side to move,
or at a chance node the player who rolled): one-hot rows of the turn total, the turn player's score
and the opponent's score, each capped at ``winscore``; row 3 has a single one (column 0) at a chance node
(a whole row of ones saturated a small network's first layer: TD(lambda) could not learn pig).
"""

from __future__ import annotations

from numba import njit

from rlgames.game import (
    CHANCE,
    ILLEGAL,
    TERMINAL,
)

SCORE0, SCORE1, TURN_TOTAL, TURN_PLAYER, DECISIONS_LEFT, RULES = range(2, 8)  # compact slots
ROLL, STOP = 0, 1
MAX_WINSCORE = 10_000
MAX_DICE = 1_000
MAX_HORIZON = 10**9  # below 2**30, as every compact slot must be
GRID_WIDTH = 20  # board_grid() draws scores as bars at most this long


def pack_rules(winscore: int, diceoutcomes: int) -> int:
    """The ``rules`` slot of a compact state."""
    return winscore | diceoutcomes << 16


@njit(cache=True)
def winscore(s) -> int:
    return s[RULES] & 0xFFFF


@njit(cache=True)
def diceoutcomes(s) -> int:
    return s[RULES] >> 16


@njit(cache=True)
def can_roll(s) -> bool:
    """Whether the turn player of the decision node ``s`` may roll (banking would not win yet)."""
    return s[SCORE0 + s[TURN_PLAYER]] + s[TURN_TOTAL] < winscore(s)


@njit(cache=True)
def legal_actions(s, out) -> int:
    if s[0] == TERMINAL:
        return 0
    if s[0] == CHANCE:
        dice = diceoutcomes(s)
        for outcome in range(dice):
            out[outcome] = outcome
        return dice
    if can_roll(s):
        out[0] = ROLL
        out[1] = STOP
        return 2
    out[0] = STOP
    return 1


@njit(cache=True)
def apply(s, action: int):
    code, _, score0, score1, total, turn, left, rules = s
    target = rules & 0xFFFF
    if (
        code == CHANCE
        and not 0 <= action < rules >> 16
        or code == TERMINAL
        or code >= 0
        and not (action == STOP or action == ROLL and (score1 if turn else score0) + total < target)
    ):
        return (ILLEGAL, 0, score0, score1, total, turn, left, rules)
    if code == CHANCE:
        if action == 0:  # a 1: the turn total is lost and the turn passes
            return (1 - turn, 0, score0, score1, 0, 1 - turn, left, rules)
        return (turn, 0, score0, score1, total + action + 1, turn, left, rules)
    left -= 1
    if action == ROLL:
        code = TERMINAL if left == 0 else CHANCE
        return (code, 0, score0, score1, total, turn, left, rules)
    if turn == 0:
        score0 += total
    else:
        score1 += total
    if max(score0, score1) >= target:
        return (TERMINAL, 1 - 2 * turn, score0, score1, 0, 1 - turn, left, rules)
    code = TERMINAL if left == 0 else 1 - turn
    return (code, 0, score0, score1, 0, 1 - turn, left, rules)


@njit(cache=True)
def chance_outcomes(s, actions, probs) -> int:
    if s[0] != CHANCE:
        return 0
    dice = diceoutcomes(s)
    for outcome in range(dice):
        actions[outcome] = outcome
        probs[outcome] = 1.0 / dice
    return dice


@njit(cache=True)
def observer(s) -> int:
    """The turn player at a chance node (the player who rolled), else the side to move (0 once over)."""
    return s[TURN_PLAYER] if s[0] == CHANCE else max(s[0], 0)


@njit(cache=True)
def hash_key(s) -> int:
    """FNV-1a over the game's fields (int64 arithmetic wraps around); the parameters are left out."""
    h = -3750763034362895579  # the FNV-1a 64-bit offset basis, as a signed int64
    for i in (0, SCORE0, SCORE1, TURN_TOTAL, TURN_PLAYER, DECISIONS_LEFT):
        h = (h ^ s[i]) * 1099511628211
    return h


@njit(cache=True)
def observation(s, player, out) -> None:
    """out: float32[4, winscore + 1]; rows: the turn total, ``player``'s score, the opponent's score
    (one-hot, capped at winscore), and a single one in column 0 at a chance node."""
    cap = out.shape[1] - 1
    out[:] = 0.0
    out[0, min(s[TURN_TOTAL], cap)] = 1.0
    out[1, min(s[SCORE0 + player], cap)] = 1.0
    out[2, min(s[SCORE1 - player], cap)] = 1.0
    if s[0] == CHANCE:
        out[3, 0] = 1.0
