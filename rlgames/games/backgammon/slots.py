"""The compact state of a backgammon position: a tuple of 8 int64, every slot below 2**30.

Points are numbered as in OpenSpiel: *position* ``p`` in 0..23. Player 0 (``x``, OpenSpiel's X) moves
from position 0 up to 23 and bears off past 23 (home board: positions 18..23); player 1 (``o``) moves
from 23 down to 0 and bears off past 0 (home board: 0..5). A player's own *point* number (1..24, the
1-point the last before bearing off, as people and gnubg count) is ``24 - p`` for player 0 and
``p + 1`` for player 1.

========  ==========================================================================================
slot      content
========  ==========================================================================================
0         player code: 0 or 1 to move, `CHANCE`, `TERMINAL` (`ILLEGAL` from a bad apply)
1         player 0's return once over: 0 (a draw at the turn limit), +-1, +-2 (gammon), +-3 (backgammon)
2         `OWNER`: bit p set where player 0's checkers stand on position p (bits 0-23); the doubling
          cube in bits 24-29 (`CUBE` fields, below)
3 .. 6    `COUNTS`: bit k of the number of checkers on position p (whoever owns it) is bit p of slot
          ``COUNTS + k`` (four bit planes of 24 bits: counts 0..15)
7         `META`, bit fields below
========  ==========================================================================================

`META` fields (bits, low to high):

* 0-3, 4-7: the checkers of player 0 and of player 1 on the bar;
* 8-10, 11-13: the dice to play, low die then high die (equal for doubles; 0 when none: chance nodes
  and terminal states);
* 14: the second half of a doubles turn (OpenSpiel plays a double as two actions of two checker moves);
* 15: the turn player: the side to move at a decision node, the player about to roll at a chance node
  (0 at the opening roll, which decides who starts); at a terminal state, the player who would have
  rolled next;
* 16: the opening roll is still to come;
* 17-18: the scoring type (`SCORING_TYPES` index), a rule riding in the state as pig's do, so that
  the kernels serve every parameter set;
* 19-29: the turns left before the turn limit: ``max_player_turns + 1`` at the start, one less after
  the first action of every turn; the game ends, drawn, when it reaches 0 (OpenSpiel's
  ``max_player_turns``, below).

`CUBE` fields of the `OWNER` slot, all 0 without the cube (``Backgammon(cube=True)``, money play):

* 24-26: `cube_level`: 0 without the cube, else 1 + log2 of the cube's value (1..7: the cube 1 to 64);
* 27-28: the cube's owner: 0 centered, 1 + the player who may redouble;
* 29: a double is offered, awaiting the side to move's take or pass.

A decision node without dice is a cube decision: with the `OFFERED` bit the side to move takes or passes,
without it the player about to roll doubles or rolls.

Borne-off checkers are not stored: a player's are 15 minus those on the board and on the bar.

Why so: boxing a slot costs time in every call from Python, so the tuple stays short, and a slot
below 2**30 (one CPython digit) boxes on the fast path. The bit planes give the masks that move
generation needs (occupied, single checkers, blocked points) in a few operations.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from rlgames.jit.bits import popcount

PLAYER, RETURN, OWNER, COUNTS, META = 0, 1, 2, 3, 7
STATE_LENGTH = 8
NUM_POINTS = 24
NUM_CHECKERS = 15
POINTS_MASK = (1 << NUM_POINTS) - 1

BAR_SHIFT = 0  # player p's bar count: bits 4p .. 4p+3
LOW_SHIFT, HIGH_SHIFT = 8, 11
HALF_BIT = 1 << 14
TURN_SHIFT = 15
OPENING_BIT = 1 << 16
SCORING_SHIFT = 17
LEFT_SHIFT = 19
MAX_PLAYER_TURNS = (1 << 11) - 2  # turns left, up to max_player_turns + 1, fill 11 bits

CUBE_SHIFT, CUBE_OWNER_SHIFT = 24, 27
OFFERED = 1 << 29
CUBE_FIELDS = 0x3F << CUBE_SHIFT
MAX_CUBE_LEVEL = 7
"""The largest cube, 64 (level 7): no double beyond it."""

SCORING_TYPES = ("winloss_scoring", "enable_gammons", "full_scoring")
"""OpenSpiel's ``scoring_type`` values, by the index stored in `META`: a win counts 1; a gammon 2;
a gammon 2 and a backgammon 3."""
WINLOSS, GAMMONS, FULL = range(3)

INITIAL_POINTS = ((0, 2), (11, 5), (16, 3), (18, 5))
"""Player 0's opening checkers as (position, count); player 1's mirror them (position 23 - p)."""


@njit(cache=True)
def bar(s, player: int) -> int:
    """Player ``player``'s checkers on the bar."""
    return s[META] >> (BAR_SHIFT + 4 * player) & 15


@njit(cache=True)
def dice_pair(s) -> tuple[int, int]:
    """``(low, high)``: the dice to play, 0 where there are none."""
    return s[META] >> LOW_SHIFT & 7, s[META] >> HIGH_SHIFT & 7


@njit(cache=True)
def turn(s) -> int:
    """The turn player (`META` bit 15)."""
    return s[META] >> TURN_SHIFT & 1


@njit(cache=True, inline="always")
def cube_level(s) -> int:
    """0 without the cube, else 1 + log2 of its value."""
    return s[OWNER] >> CUBE_SHIFT & 7


@njit(cache=True, inline="always")
def cube_value(s) -> int:
    """The cube's value (1 without the cube): what every point of the game is multiplied by."""
    level = cube_level(s)
    return 1 << (level - 1) if level else 1


@njit(cache=True, inline="always")
def cube_owner(s) -> int:
    """The player who owns the cube, -1 where it is centered (or where there is none)."""
    return (s[OWNER] >> CUBE_OWNER_SHIFT & 3) - 1


@njit(cache=True, inline="always")
def cube_fields(level: int, owner: int) -> int:
    """The `CUBE` fields of a cube of ``level`` (1 + log2 of its value) owned by ``owner`` (-1: centered),
    no double offered."""
    return level << CUBE_SHIFT | (owner + 1) << CUBE_OWNER_SHIFT


@njit(cache=True, inline="always")
def max_points(s) -> int:
    """The largest points of a game without the cube under the scoring type of ``s``: 1 (win/loss), 2
    (gammons), 3 (backgammons)."""
    return (s[META] >> SCORING_SHIFT & 3) + 1


@njit(cache=True, inline="always")
def may_double(s, player: int) -> bool:
    """Whether ``player`` may double before its roll: the cube is in play, below 64, centered or its."""
    level = cube_level(s)
    owner = cube_owner(s)
    return 0 < level < MAX_CUBE_LEVEL and (owner < 0 or owner == player)


@njit(cache=True)
def count_at(s, position: int) -> int:
    """The number of checkers (of either player) on ``position``."""
    return (
        s[COUNTS] >> position & 1
        | (s[COUNTS + 1] >> position & 1) << 1
        | (s[COUNTS + 2] >> position & 1) << 2
        | (s[COUNTS + 3] >> position & 1) << 3
    )


@njit(cache=True)
def owner_mask(s, player: int) -> int:
    """The positions where ``player`` has checkers (24-bit mask)."""
    occupied = s[COUNTS] | s[COUNTS + 1] | s[COUNTS + 2] | s[COUNTS + 3]
    return occupied & (s[OWNER] if player == 0 else ~s[OWNER])


@njit(cache=True)
def checkers_left(s, player: int) -> int:
    """``player``'s checkers not borne off (on the board and on the bar)."""
    own = s[OWNER] if player == 0 else ~s[OWNER] & POINTS_MASK
    total = bar(s, player)
    for k in range(4):
        total += popcount(s[COUNTS + k] & own) << k
    return total


def pack_state(
    code: int, ret: int, counts: tuple[np.ndarray, np.ndarray], bars: tuple[int, int], meta: int, cube: int = 0
) -> tuple:
    """A compact state from per-player checker counts by position (``counts[p][position]``), the bar
    counts, the `META` fields other than the bars (``meta``) and the `CUBE` fields (``cube``, already
    shifted). Python-side: for setting positions up."""
    owner, planes = cube, [0, 0, 0, 0]
    for position in range(NUM_POINTS):
        c0, c1 = int(counts[0][position]), int(counts[1][position])
        if c0 and c1:
            raise ValueError(f"backgammon: both players have checkers on position {position}")
        if c0:
            owner |= 1 << position
        for k in range(4):
            planes[k] |= ((c0 or c1) >> k & 1) << position
    meta |= bars[0] << BAR_SHIFT | bars[1] << (BAR_SHIFT + 4)
    return (code, ret, owner, *planes, meta)


def initial_counts() -> tuple[np.ndarray, np.ndarray]:
    """The checkers of both players by position at the start."""
    counts = np.zeros((2, NUM_POINTS), dtype=np.int64)
    for position, n in INITIAL_POINTS:
        counts[0, position] = n
        counts[1, NUM_POINTS - 1 - position] = n
    return counts[0], counts[1]


def start_meta(scoring: int, max_player_turns: int) -> int:
    """The `META` of the start (before the bars): the opening roll to come, no dice, the turn count."""
    return OPENING_BIT | scoring << SCORING_SHIFT | (max_player_turns + 1) << LEFT_SHIFT
