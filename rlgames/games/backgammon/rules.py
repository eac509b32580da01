"""The compiled face of backgammon: its `GameKernels`, and kernels for evaluators and TD training.

The `GameKernels` (``KERNELS``): `legal_actions`, `apply`, `chance_outcomes`, `hash_key`,
`observation`, `observer`. For other modules (evaluators, TD training), over the compact state of
`slots`:

* `view` ``(s, out)``: ``out`` int64[2, 26], the checkers of the `perspective` player (row 0) and of
  the opponent (row 1), each row from its own player's point of view: index 0..23 that player's points
  1..24 (index 0..5 its home board), 24 its checkers on the bar, 25 those borne off. Each row sums to 15.
* `perspective` ``(s) -> int``: the side to move at a decision node; at a chance node the player about
  to roll (who moves after it); player 0 at the opening roll and at a terminal state.
* `dice` ``(s) -> (low, high, moves)``: at a decision node the dice still to play, low die first, and
  how many checker moves they still allow this turn (4 on the first half of a doubles turn, else 2);
  ``(0, 0, 0)`` elsewhere.

**Chance** (OpenSpiel's): the opening roll has 30 equally likely outcomes, the 15 pairs of different
dice in both orders: an even outcome lets player 0 start, an odd one player 1, who plays those dice.
Every later roll has 36 equally likely outcomes, the ordered pairs of dice (outcome ``k`` shows
``OUTCOME_DICE[k]``; 30..35 are the doubles 1-1..6-6).

**Turns.** After a player's action comes the opponent's roll, except after the first half of a
doubles turn that played two checker moves, which the same player follows with the second half. The
game ends when a player has borne off all 15 checkers (the win counts 1, or 2 for a gammon and 3
for a backgammon under the scoring types that count them), or, drawn, once ``max_player_turns + 1``
turns have begun with an action (OpenSpiel counts a turn at the first action of each turn, and ends
the game when the count passes ``max_player_turns``, even in the middle of a doubles turn).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from rlgames.game import CHANCE, ILLEGAL, TERMINAL, GameKernels
from rlgames.games.backgammon.doubling import apply_cube, before_roll, cube_actions, is_cube_decision, settle, stakes
from rlgames.games.backgammon.generate import MAX_ACTIONS, decision_actions
from rlgames.games.backgammon.moves import (
    LOW_FIRST,
    NO_MOVE,
    decision_is_legal,
    move_checker,
)
from rlgames.games.backgammon.slots import (
    COUNTS,
    GAMMONS,
    HALF_BIT,
    HIGH_SHIFT,
    LEFT_SHIFT,
    LOW_SHIFT,
    META,
    NUM_CHECKERS,
    OFFERED,
    OPENING_BIT,
    OWNER,
    SCORING_SHIFT,
    TURN_SHIFT,
    WINLOSS,
    bar,
    checkers_left,
    count_at,
    cube_value,
    dice_pair,
    owner_mask,
    turn,
)

OUTCOME_DICE = np.array(
    [pair for low in range(1, 7) for high in range(low + 1, 7) for pair in ((low, high), (high, low))]
    + [(d, d) for d in range(1, 7)],
    dtype=np.int64,
)
"""OpenSpiel's chance outcomes: the dice of outcome ``k``, in the order they are written."""
OUTCOME_LOW, OUTCOME_HIGH = OUTCOME_DICE.min(axis=1), OUTCOME_DICE.max(axis=1)
OPENING_OUTCOMES, ROLL_OUTCOMES = 30, 36
HOME = (0x3F << 18, 0x3F)
"""The home board of player 0 and of player 1, as masks of positions."""
DICE_ROW = 8
OBSERVATION_SHAPE = (9, 26)
"""`observation`'s planes: see there."""
TURN_FIELDS = 0x3F << LOW_SHIFT | HALF_BIT | 1 << TURN_SHIFT
"""The `META` fields of a turn (the dice, the doubles half, the turn player), reset when it passes."""
LEFT_UNIT = 1 << LEFT_SHIFT


@njit(cache=True)
def legal_actions(s, out) -> int:
    """The legal actions (the outcomes at a chance node) in increasing order in ``out[:n]``; ``out``
    holds `MAX_ACTIONS` entries, its tail being scratch for decisions."""
    code = s[0]
    if code == CHANCE:
        n = OPENING_OUTCOMES if s[META] & OPENING_BIT else ROLL_OUTCOMES
        for outcome in range(n):
            out[outcome] = outcome
        return n
    if code < 0:
        return 0
    if is_cube_decision(s):
        return cube_actions(s, out)
    return decision_actions(s, out)


@njit(cache=True)
def chance_outcomes(s, actions, probs) -> int:
    """The outcomes of a chance node, all equally likely (30 at the opening roll, else 36)."""
    if s[0] != CHANCE:
        return 0
    n = OPENING_OUTCOMES if s[META] & OPENING_BIT else ROLL_OUTCOMES
    for outcome in range(n):
        actions[outcome] = outcome
        probs[outcome] = 1.0 / n
    return n


@njit(cache=True)
def _illegal(s):
    return (ILLEGAL, 0, s[2], s[3], s[4], s[5], s[6], s[7])


@njit(cache=True)
def _roll(s, action: int):
    """The decision node after chance outcome ``action``."""
    meta = s[META]
    if meta & OPENING_BIT:
        if not 0 <= action < OPENING_OUTCOMES:
            return _illegal(s)
        player = action & 1
        meta = meta & ~(OPENING_BIT | 1 << TURN_SHIFT) | player << TURN_SHIFT
    else:
        if not 0 <= action < ROLL_OUTCOMES:
            return _illegal(s)
        player = meta >> TURN_SHIFT & 1
    meta |= OUTCOME_LOW[action] << LOW_SHIFT | OUTCOME_HIGH[action] << HIGH_SHIFT
    return (player, 0, s[2], s[3], s[4], s[5], s[6], meta)


@njit(cache=True)
def win_points(s, winner: int) -> int:
    """What ``winner``'s win is worth under the state's scoring type: 1, 2 for a gammon (the loser has
    borne off no checker), 3 for a backgammon (a gammon with a loser's checker on the bar or in the
    winner's home board)."""
    scoring = s[META] >> SCORING_SHIFT & 3
    loser = 1 - winner
    if scoring == WINLOSS or checkers_left(s, loser) < NUM_CHECKERS:
        return 1
    if scoring == GAMMONS or not (bar(s, loser) or owner_mask(s, loser) & HOME[winner]):
        return 2
    return 3


@njit(cache=True, inline="always")
def _play(s, action: int):
    """The successor of the decision node ``s`` after the legal ``action``."""
    player, meta = s[0], s[META]
    low, high = dice_pair(s)
    low_first = action >= LOW_FIRST
    code = action - LOW_FIRST if low_first else action
    owner, c0, c1, c2, c3 = s[OWNER], s[COUNTS], s[COUNTS + 1], s[COUNTS + 2], s[COUNTS + 3]
    moves = 0
    for digit, die in ((code % 26, low if low_first else high), (code // 26, high if low_first else low)):
        if digit != NO_MOVE:
            owner, c0, c1, c2, c3, meta = move_checker(owner, c0, c1, c2, c3, meta, player, digit, die)
            moves += 1
    half = meta & HALF_BIT
    if not half:
        meta -= LEFT_UNIT
    after = (CHANCE, 0, owner, c0, c1, c2, c3, meta & ~TURN_FIELDS | (1 - player) << TURN_SHIFT)
    if not (owner_mask(after, player) or bar(after, player)):  # all borne off: a win
        points = win_points(after, player) * cube_value(after)
        return _over(after, points if player == 0 else -points)
    if meta >> LEFT_SHIFT == 0:  # the turn limit: a draw
        return _over(after, 0)
    if not half and low == high and moves == 2:  # the second half of the doubles turn follows
        return (player, 0, owner, c0, c1, c2, c3, meta | HALF_BIT)
    return before_roll(after, 1 - player)


@njit(cache=True)
def _over(s, ret: int):
    return (TERMINAL, ret, s[2], s[3], s[4], s[5], s[6], s[7])


@njit(cache=True)
def apply(s, action: int):
    """The successor after ``action``; a state with player code `ILLEGAL` where it is not legal."""
    code = s[0]
    if code == CHANCE:
        return _roll(s, action)
    if code >= 0 and is_cube_decision(s):
        return apply_cube(s, action)
    if code >= 0 and decision_is_legal(s, action):
        return _play(s, action)
    return _illegal(s)


@njit(cache=True)
def hash_key(s) -> int:
    """FNV-1a over every slot but the return (int64 arithmetic wraps around)."""
    h = -3750763034362895579  # the FNV-1a 64-bit offset basis, as a signed int64
    for i in (0, 2, 3, 4, 5, 6, 7):
        h = (h ^ s[i]) * 1099511628211
    return h


@njit(cache=True)
def perspective(s) -> int:
    """The side to move; at a chance node the player about to roll; 0 at the opening and once over."""
    code = s[0]
    if code >= 0:
        return code
    if code == CHANCE and not s[META] & OPENING_BIT:
        return turn(s)
    return 0


@njit(cache=True)
def observer(s) -> int:
    """The ``observer`` of `GameKernels`: the side to move; at a chance node the player who just moved
    (the opponent of the one about to roll); player 0 at the opening roll and once over."""
    code = s[0]
    if code >= 0:
        return code
    if code == CHANCE and not s[META] & OPENING_BIT:
        return 1 - turn(s)
    return 0


@njit(cache=True)
def dice(s) -> tuple[int, int, int]:
    """``(low, high, moves)``: the dice to play at a decision node and the checker moves they still
    allow this turn (4 on the first half of a doubles turn, else 2); ``(0, 0, 0)`` elsewhere."""
    low, high = dice_pair(s)
    if s[0] < 0 or not low:
        return 0, 0, 0
    return low, high, 4 if low == high and not s[META] & HALF_BIT else 2


@njit(cache=True)
def _index(position: int, player: int) -> int:
    """``player``'s index (own point - 1) of ``position``."""
    return 23 - position if player == 0 else position


@njit(cache=True)
def view(s, out) -> None:
    """Fills ``out`` (int64[2, 26]): row 0 the `perspective` player's checkers, row 1 the opponent's,
    each indexed from its own player's point of view (0..23 points 1..24, 24 bar, 25 borne off)."""
    me = perspective(s)
    out[:] = 0
    for position in range(24):
        n = count_at(s, position)
        if n:
            owner = 1 - (s[OWNER] >> position & 1)
            row = 0 if owner == me else 1
            out[row, _index(position, owner)] = n
    for row, player in ((0, me), (1, 1 - me)):
        out[row, 24] = bar(s, player)
        out[row, 25] = NUM_CHECKERS - checkers_left(s, player)


@njit(cache=True)
def _units(out, row: int, column: int, n: int) -> None:
    out[row, column] = n >= 1
    out[row + 1, column] = n >= 2
    out[row + 2, column] = n >= 3
    out[row + 3, column] = min(max(n - 3, 0), 12) / 12.0


@njit(cache=True)
def observation(s, player, out) -> None:
    """``out``: float32[9, 26], from ``player``'s point of view, every column a place as ``player`` sees
    the board: 0..23 its points 1..24, 24 the bar, 25 borne off.

    * rows 0-3: ``player``'s checkers there, Tesauro's units: at least 1, 2, 3, and (n - 3) / 12
      (capped at 1);
    * rows 4-7: the opponent's checkers, the same units, in the same columns (its bar and borne-off
      checkers in columns 24 and 25);
    * row 8: columns 0-5 the low die to play (one-hot), 6-11 the high die, 12 the second half of a
      doubles turn, 13 ``player`` is on roll (to move, or to roll next), 14 the opponent is, 15 a chance
      node, 16 the opening roll (no one on roll yet), 17 a decision to double or roll, 18 a decision to
      take or drop a double (`doubling`; the cube's value and owner are not shown, as the networks
      value positions for a cube of 1).
    """
    out[:] = 0.0
    for position in range(24):
        n = count_at(s, position)
        if n:
            mine = 1 - (s[OWNER] >> position & 1) == player
            _units(out, 0 if mine else 4, _index(position, player), n)
    for row, who in ((0, player), (4, 1 - player)):
        _units(out, row, 24, bar(s, who))
        _units(out, row, 25, NUM_CHECKERS - checkers_left(s, who))
    low, high, _ = dice(s)
    if low:
        out[DICE_ROW, low - 1] = 1.0
        out[DICE_ROW, 5 + high] = 1.0
    out[DICE_ROW, 12] = s[0] >= 0 and s[META] & HALF_BIT != 0
    opening = s[0] == CHANCE and s[META] & OPENING_BIT != 0
    if s[0] >= 0 or s[0] == CHANCE and not opening:
        out[DICE_ROW, 13 if perspective(s) == player else 14] = 1.0
    out[DICE_ROW, 15] = s[0] == CHANCE
    out[DICE_ROW, 16] = opening
    if is_cube_decision(s):
        out[DICE_ROW, 18 if s[OWNER] & OFFERED else 17] = 1.0


KERNELS = GameKernels(
    legal_actions=legal_actions,
    apply=apply,
    hash_key=hash_key,
    observation=observation,
    max_actions=MAX_ACTIONS,
    chance_outcomes=chance_outcomes,
    observer=observer,
    settle=settle,
    stakes=stakes,
)
