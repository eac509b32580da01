"""Move generation over bit masks, and OpenSpiel's action encoding.

**Actions.** OpenSpiel packs two checker moves into one action, naming each by the position it starts
from: 0..23, 24 for the bar, 25 for no move::

    action = second * 26 + first + 676 * low_die_first        (0 <= action < 1352)

``low_die_first`` is 0 when the first move uses the high die (always, for doubles, unless both moves
are passes); the second move uses the other die. A single move is ``first`` with ``second = 25``; the
pass (no move at all) is 1351. A doubles roll is played as two consecutive actions of the same player,
two checker moves each (the second half only when the first played two).

**Legal actions** (OpenSpiel's rules, reproduced exactly): every ordered pair of checker moves that
can be played with the two dice, the high die first and the low die first (so ``a`` then ``b`` and
``b`` then ``a`` are two actions when both orders are possible, even where they reach the same
position); if no pair can be played, every single move with the high die, else with the low die; if
none, the pass. Quirk: the first half of a doubles turn is chosen among pairs without looking at
the second half, so a pair that leaves no move for the second half is legal even where another would
have let all four dice be played.

A checker on the bar must enter first (into the opponent's home board); a point held by two or more
opposing checkers is blocked; landing on a single opposing checker hits it onto the bar. Bearing off
needs every checker in the home board: a die equal to the distance bears that checker off, and a
larger die bears off from the highest occupied point when no checker stands further back.

**Relative coordinates.** Generation runs on masks from the mover's point of view: bit ``r`` (0..23)
is the mover's point ``r + 1`` (player 0: position ``23 - r``; player 1: position ``r``), bit 24 the
bar; a move with die ``d`` goes from ``r`` to ``r - d``, and off the board below 0.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from rlgames.games.backgammon.slots import (
    BAR_SHIFT,
    COUNTS,
    HIGH_SHIFT,
    LOW_SHIFT,
    META,
    OWNER,
    POINTS_MASK,
    bar,
)
from rlgames.jit.unsafe import trailing_zeros

NUM_ACTIONS = 1352
LOW_FIRST = 676  # 26 ** 2: added when the first move uses the low die
BAR, NO_MOVE = 24, 25  # the "positions" of an action's digits for the bar and for no move
BAR_BIT = 1 << BAR
SINGLE = NO_MOVE * 26  # a single move from position p: SINGLE + p (+ LOW_FIRST)
PASS = NO_MOVE * 26 + NO_MOVE + LOW_FIRST  # 1351
MAX_LEGAL = 450
"""A bound on the legal actions: two orders of the dice, times at most 15 starting places (bar and
points, one checker at least each) for the first move and 15 for the second."""

REVERSE12 = np.array([int(f"{i:012b}"[::-1], 2) for i in range(1 << 12)], dtype=np.int64)
HIGHEST6 = np.array([max(i.bit_length() - 1, 0) for i in range(64)], dtype=np.int64)


@njit(cache=True)
def reverse24(x: int) -> int:
    """The 24-bit mask ``x`` with bit ``i`` moved to bit ``23 - i``."""
    return REVERSE12[x & 0xFFF] << 12 | REVERSE12[x >> 12 & 0xFFF]


@njit(cache=True)
def board_masks(s, player: int) -> tuple[int, int, int]:
    """``(mine, single, blocked)`` as masks of positions: where ``player`` has checkers, where it has
    exactly one, and the points held by two or more opposing checkers."""
    many = s[COUNTS + 1] | s[COUNTS + 2] | s[COUNTS + 3]
    own = s[OWNER] if player == 0 else ~s[OWNER] & POINTS_MASK
    return (s[COUNTS] | many) & own, s[COUNTS] & ~many & own, many & ~own & POINTS_MASK


@njit(cache=True)
def relative_masks(s, player: int) -> tuple[int, int, int]:
    """`board_masks` in ``player``'s relative coordinates."""
    mine, single, blocked = board_masks(s, player)
    if player == 0:
        return reverse24(mine), reverse24(single), reverse24(blocked)
    return mine, single, blocked


@njit(cache=True, inline="always")
def sources(die: int, mine: int, blocked: int, on_bar: int) -> int:
    """The relative places (bit 24: the bar) from which a checker can move ``die`` pips."""
    if on_bar:
        return 0 if blocked >> (BAR - die) & 1 else BAR_BIT
    result = mine & ~(blocked << die) & POINTS_MASK & ~((1 << die) - 1)
    if mine < 64:  # every checker home: bearing off
        if mine >> (die - 1) & 1:
            result |= 1 << (die - 1)
        elif 0 < mine < 1 << (die - 1):
            result |= 1 << HIGHEST6[mine]
    return result


@njit(cache=True, inline="always")
def after_move(source: int, die: int, mine: int, single: int, on_bar: int) -> tuple[int, int]:
    """``(mine, on_bar)`` after a checker leaves relative place ``source`` with ``die``."""
    if source == BAR:
        return mine | 1 << (BAR - die), on_bar - 1
    if single >> source & 1:
        mine &= ~(1 << source)
    if source >= die:
        mine |= 1 << (source - die)
    return mine, on_bar


@njit(cache=True)
def to_absolute(place: int, player: int) -> int:
    """The position (24: the bar) of ``player``'s relative place."""
    return place if player == 1 or place == BAR else 23 - place


to_relative = to_absolute
"""``player``'s relative place of a position (the map is its own inverse)."""


@njit(cache=True)
def absolute_mask(mask: int, player: int) -> int:
    """A 25-bit relative mask of ``player``'s as positions (bit 24, the bar, unchanged)."""
    return mask if player == 1 else reverse24(mask & POINTS_MASK) | (mask & BAR_BIT)


@njit(cache=True)
def _has_pair(d1: int, d2: int, mine: int, single: int, blocked: int, on_bar: int) -> bool:
    first = sources(d1, mine, blocked, on_bar)
    while first:
        a = trailing_zeros(first)
        first &= first - 1
        mine2, bar2 = after_move(a, d1, mine, single, on_bar)
        if sources(d2, mine2, blocked, bar2):
            return True
    return False


@njit(cache=True, inline="always")
def decision_is_legal(s, action: int) -> bool:
    """Whether ``action`` is legal at the decision node ``s`` (the judgement of `decision_actions`,
    made without listing them all: a pair is checked move by move)."""
    if not 0 <= action < NUM_ACTIONS:
        return False
    player = s[0]
    low, high = s[META] >> LOW_SHIFT & 7, s[META] >> HIGH_SHIFT & 7
    low_first = action >= LOW_FIRST
    if low_first and low == high and action != PASS:
        return False
    code = action - LOW_FIRST if low_first else action
    first, second = code % 26, code // 26
    d1, d2 = (low, high) if low_first else (high, low)
    on_bar = bar(s, player)
    mine, single, blocked = relative_masks(s, player)
    if first == NO_MOVE:  # the pass
        return action == PASS and not sources(high, mine, blocked, on_bar) and not sources(low, mine, blocked, on_bar)
    a = to_relative(first, player)
    if not sources(d1, mine, blocked, on_bar) >> a & 1:
        return False
    if second == NO_MOVE:  # a single move: no pair at all, and the high die when it can move
        if low_first and sources(high, mine, blocked, on_bar):
            return False
        return not _has_pair(high, low, mine, single, blocked, on_bar) and not _has_pair(
            low, high, mine, single, blocked, on_bar
        )
    mine2, bar2 = after_move(a, d1, mine, single, on_bar)
    return sources(d2, mine2, blocked, bar2) >> to_relative(second, player) & 1 == 1


@njit(cache=True)
def move_checker(
    owner: int, c0: int, c1: int, c2: int, c3: int, meta: int, player: int, source: int, die: int
) -> tuple[int, int, int, int, int, int]:
    """``(owner, c0, c1, c2, c3, meta)`` (the board slots) after ``player`` moves a checker ``die`` pips
    from position ``source`` (`BAR`: the bar), hitting a single opposing checker where it lands; the
    move is assumed legal. The counts change by bit-sliced decrement and increment (borrow and carry
    run through the four planes)."""
    if source == BAR:
        meta -= 1 << (BAR_SHIFT + 4 * player)
        target = die - 1 if player == 0 else BAR - die
    else:
        bit = 1 << source
        c0, borrow = c0 ^ bit, ~c0 & bit
        c1, borrow = c1 ^ borrow, ~c1 & borrow
        c2, borrow = c2 ^ borrow, ~c2 & borrow
        c3 ^= borrow
        if player == 0 and not (c0 | c1 | c2 | c3) & bit:
            owner ^= bit
        target = source + die if player == 0 else source - die
        if not 0 <= target < BAR:  # borne off
            return owner, c0, c1, c2, c3, meta
    bit = 1 << target
    theirs = owner if player == 1 else ~owner
    if (c0 | c1 | c2 | c3) & theirs & bit:  # a single opposing checker: hit it, the count stays 1
        meta += 1 << (BAR_SHIFT + 4 * (1 - player))
        return owner ^ bit, c0, c1, c2, c3, meta
    c0, carry = c0 ^ bit, c0 & bit
    c1, carry = c1 ^ carry, c1 & carry
    c2, carry = c2 ^ carry, c2 & carry
    return owner | bit if player == 0 else owner, c0, c1, c2, c3 ^ carry, meta
