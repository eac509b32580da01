"""The doubling cube's rules, for money play (``Backgammon(cube=True)``): its decisions and their actions.

The cube starts centered at 1. Before each roll but the opening one, a player who may double
(`slots.may_double`: the cube centered or its own, and below 64) first decides, at a decision node
without dice: `ROLL` (no double) or `DOUBLE`. After a double the opponent decides: `TAKE` (the cube's
value doubles and the taker owns it: only the taker may redouble; then the doubler rolls) or `DROP` (the
game ends: the doubler wins the cube's value before the double). A game played out is worth its points
(1, or 2 and 3 for a gammon and a backgammon where the scoring type counts them) times the cube's value.
Neither the Jacoby rule nor beavers (options of some money sessions) are played.

The cube's actions follow the checker moves' (OpenSpiel's backgammon has no cube):
``ROLL, DOUBLE, TAKE, DROP = 1352 .. 1355``. A decision node of the cube looks as the chance node of the
roll it precedes, its player code the roller's (or the taker's): `settle` turns the first into that
chance node, for searches that leave the cube's decisions to a formula (`rlgames.games.backgammon.cube`).
"""

from __future__ import annotations

from numba import njit

from rlgames.game import CHANCE, ILLEGAL, TERMINAL
from rlgames.games.backgammon.moves import NUM_ACTIONS
from rlgames.games.backgammon.slots import (
    CUBE_FIELDS,
    LOW_SHIFT,
    MAX_CUBE_LEVEL,
    META,
    OFFERED,
    OWNER,
    cube_fields,
    cube_level,
    cube_value,
    may_double,
)

ROLL, DOUBLE, TAKE, DROP = range(NUM_ACTIONS, NUM_ACTIONS + 4)
NUM_CUBE_ACTIONS = NUM_ACTIONS + 4
"""The actions of the game with the cube: the checker moves', then the cube's four."""
CUBE_ACTION_NAMES = {ROLL: "Roll", DOUBLE: "Double", TAKE: "Take", DROP: "Drop"}


@njit(cache=True, inline="always")
def is_cube_decision(s) -> bool:
    """Whether ``s`` is a decision of the cube (a player to move without dice)."""
    return s[0] >= 0 and s[META] >> LOW_SHIFT & 7 == 0


@njit(cache=True, inline="always")
def is_take_decision(s) -> bool:
    """Whether ``s`` is a double awaiting its take or drop."""
    return s[0] >= 0 and s[OWNER] & OFFERED != 0


@njit(cache=True)
def cube_actions(s, out) -> int:
    """The legal actions of the cube decision ``s`` into ``out[:2]``: ``ROLL, DOUBLE`` before a roll,
    ``TAKE, DROP`` after a double."""
    first = TAKE if s[OWNER] & OFFERED else ROLL
    out[0], out[1] = first, first + 1
    return 2


@njit(cache=True)
def before_roll(s, roller: int):
    """The node before ``roller``'s roll at the chance node ``s``: the chance node itself, or where
    ``roller`` may double, its decision to double or roll."""
    if not may_double(s, roller):
        return s
    return (roller, s[1], s[2], s[3], s[4], s[5], s[6], s[7])


@njit(cache=True)
def apply_cube(s, action: int):
    """The successor of the cube decision ``s`` after ``action``; a state whose player code is `ILLEGAL`
    where it is not legal."""
    player, owner = s[0], s[OWNER]
    if owner & OFFERED:
        doubler = 1 - player
        if action == TAKE:
            owner = owner & ~CUBE_FIELDS | cube_fields(cube_level(s) + 1, player)
            return (CHANCE, 0, owner, s[3], s[4], s[5], s[6], s[7])
        if action == DROP:
            points = cube_value(s)
            return (TERMINAL, points if doubler == 0 else -points, owner, s[3], s[4], s[5], s[6], s[7])
    elif action == ROLL:
        return (CHANCE, 0, owner, s[3], s[4], s[5], s[6], s[7])
    elif action == DOUBLE:
        return (1 - player, 0, owner | OFFERED, s[3], s[4], s[5], s[6], s[7])
    return (ILLEGAL, 0, owner, s[3], s[4], s[5], s[6], s[7])


@njit(cache=True)
def settle(s):
    """The state that search values in place of ``s``: the roll that follows a decision to double or roll
    (searches leave that decision to a formula, `rlgames.games.backgammon.cube`), else ``s`` itself."""
    if is_cube_decision(s) and not s[OWNER] & OFFERED:
        return (CHANCE, 0, s[2], s[3], s[4], s[5], s[6], s[7])
    return s


@njit(cache=True)
def stakes(s) -> float:
    """The share of the largest cube that ``s`` is played for (1 without the cube): what search multiplies
    an evaluator's values by, the evaluator valuing a position for a cube of 1 and the returns counting
    the cube's value."""
    level = cube_level(s)
    return cube_value(s) / (1 << (MAX_CUBE_LEVEL - 1)) if level else 1.0
