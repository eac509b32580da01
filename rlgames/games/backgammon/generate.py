"""Listing the legal actions of a decision node, in increasing order, without sorting.

An action is ``26 * second + first`` (plus 676 when the low die moves first, see `moves`), so in
increasing order the actions of one order of the dice run by their second move, then by their first.
The listing takes the case of the position:

* two or more checkers on the bar: the pair that enters two (if both entry points are open);
* one on the bar: it enters first, then any checker moves; the second moves are listed in order;
* no checker on the bar, and none can bear off even after the first move (the common case): the
  second moves after first move ``a`` are the moves open in the position, less ``a`` if its checker
  was alone, plus the one from where ``a`` lands. So for a second move ``b`` open in the position the
  pairs are every first move but ``b``'s lone checker, and otherwise the one first move landing on
  ``b``: each row of pairs is copied from the list of first moves by vector instructions of a fixed
  width (`_copy_row`), without a branch per pair, rows of both kinds taking the same path;
* otherwise (bearing off): every pair is marked in a table of 25 words, one per second move, then
  read out in order.

The list of first moves and the table are scratch kept in ``out[TABLE:]``, past any list of legal
actions (`MAX_LEGAL`) and the margin that the copies may write past it, so the buffers hold
`MAX_ACTIONS` entries.

When no pair can be played the single moves follow (high die first), else the pass.
"""

from __future__ import annotations

from numba import njit

from rlgames.games.backgammon.moves import (
    BAR,
    LOW_FIRST,
    MAX_LEGAL,
    PASS,
    SINGLE,
    absolute_mask,
    after_move,
    board_masks,
    relative_masks,
    reverse24,
    sources,
    to_absolute,
)
from rlgames.games.backgammon.slots import HIGH_SHIFT, LOW_SHIFT, META, POINTS_MASK, bar
from rlgames.jit.bits import popcount
from rlgames.jit.nrt import borrowed
from rlgames.jit.unsafe import trailing_zeros
from rlgames.jit.vector import fixed_add_copy

ROW = 8
"""The width of the copies that write a row of `_open_pairs`, doubled past ``ROW`` first moves (there
are at most 15): while a row is written, entries up to ``4 * ROW - 2`` past the list written so far
may be overwritten."""
TABLE = MAX_LEGAL + 4 * ROW
"""Where the scratch words start in the buffer of `decision_actions`."""
MAX_ACTIONS = TABLE + 4 * ROW
"""The size of the kernels' action buffers: `MAX_LEGAL` actions, a margin, then the scratch words (25
for `_marked_pairs`, up to ``4 * ROW - 1`` read by `_open_pairs`)."""
BOTH_FROM_BAR = 26 * BAR + BAR
HOME_0, HOME_1 = 0x3F << 18, 0x3F
"""The home boards of player 0 and of player 1, as masks of positions."""


_copy_row = fixed_add_copy(ROW)
"""``_copy_row(out, at, source, base)``: ``out[at:at + ROW] = base + out[source:source + ROW]``, vectorised."""


@njit(cache=True, inline="always")
def _copy_list(out, at: int, source: int, base: int, wide: bool) -> None:
    """`_copy_row`, twice as wide if ``wide``."""
    _copy_row(out, at, source, base)
    if wide:
        _copy_row(out, at + ROW, source + ROW, base)


@njit(cache=True)
def _open(die: int, blocked: int) -> int:
    """The relative places from which ``die`` moves onto a point that is not blocked (no bearing off)."""
    return ~(blocked << die) & POINTS_MASK & ~((1 << die) - 1)


@njit(cache=True, inline="always")
def _entering(d1: int, d2: int, mine: int, blocked: int, player: int, offset: int, out, n: int) -> int:
    """The pairs of a player with one checker on the bar: it enters with ``d1``, then ``d2`` moves any
    checker (none can bear off: the entered one is outside the home board)."""
    if blocked >> (BAR - d1) & 1:
        return n
    second = absolute_mask((mine | 1 << (BAR - d1)) & _open(d2, blocked), player)
    while second:
        out[n] = offset + 26 * trailing_zeros(second) + BAR
        second &= second - 1
        n += 1
    return n


@njit(cache=True, inline="always")
def _unblocked(die: int, blocked: int, player: int) -> int:
    """The positions from which ``player`` moves ``die`` pips onto a point that is not blocked (no
    bearing off): player 0 moves up, player 1 down."""
    if player == 0:
        return ~(blocked >> die) & POINTS_MASK >> die
    return ~(blocked << die) & POINTS_MASK & ~((1 << die) - 1)


@njit(cache=True, inline="always")
def _open_pairs(d1: int, d2: int, mine: int, single: int, blocked: int, player: int, offset: int, out, n: int) -> int:
    """The pairs with ``d1`` then ``d2`` where no checker is on the bar and none can bear off, from masks
    of positions: for each second move ``b`` (in increasing order), every first move but ``b``'s lone
    checker when ``b`` was open before the first move, else the one first move landing on ``b``.

    The first moves are listed in the scratch words, and a row is copied from there `ROW` entries wide,
    the entries past its end to be overwritten: a row of the first kind is the list (then its tail
    from the skipped entry on, where one is skipped), one of the second kind the entry of its first
    move. The kinds of rows alternate unpredictably, so they take the same path."""
    first = mine & _unblocked(d1, blocked, player)
    second = mine & _unblocked(d2, blocked, player)
    landed = first << d1 if player == 0 else first >> d1
    landing = landed & _unblocked(d2, blocked, player) & ~second  # second moves made by the first one
    step = -d1 if player == 0 else d1  # first move = second move + step, on a landing row
    k = 0
    rest = first
    while rest:
        out[TABLE + k] = trailing_zeros(rest)
        rest &= rest - 1
        k += 1
    lone = single & first
    rows = second | landing
    wide = k > ROW
    while rows:
        b = trailing_zeros(rows)
        rows &= rows - 1
        land = landing >> b & 1
        skip = lone >> b & 1  # b's lone checker: its first move is not in the row (never on a landing row)
        a = b + step if land else b  # the first move on a landing row
        index = popcount(first & ((1 << a) - 1))  # a's index in the list of first moves, if there
        base = offset + 26 * b
        _copy_list(out, n, TABLE + (index if land else 0), base, wide)
        _copy_list(out, n + index, TABLE + index + skip, base, wide)  # the tail (a no-op unless skip)
        n += 1 if land else k - skip
    return n


@njit(cache=True, inline="always")
def _marked_pairs(d1: int, d2: int, mine: int, single: int, blocked: int, player: int, offset: int, out, n: int) -> int:
    """The pairs with ``d1`` then ``d2`` in any position without checkers on the bar, through the table:
    bit ``a`` of ``out[TABLE + b]`` marks first move ``a`` with second move ``b``."""
    for b in range(TABLE, TABLE + 25):
        out[b] = 0
    rows = 0
    first = sources(d1, mine, blocked, 0)
    while first:
        a = trailing_zeros(first)
        first &= first - 1
        after, _ = after_move(a, d1, mine, single, 0)
        second = absolute_mask(sources(d2, after, blocked, 0), player)
        bit = 1 << to_absolute(a, player)
        rows |= second
        while second:
            out[TABLE + trailing_zeros(second)] |= bit
            second &= second - 1
    while rows:
        b = trailing_zeros(rows)
        rows &= rows - 1
        firsts = out[TABLE + b]
        while firsts:
            out[n] = offset + 26 * b + trailing_zeros(firsts)
            firsts &= firsts - 1
            n += 1
    return n


@njit(cache=True, inline="always")
def _pairs(
    d1: int, d2: int, mine: int, single: int, blocked: int, on_bar: int, player: int, offset: int, out, n: int
) -> int:
    """Appends the pairs with ``d1`` then ``d2`` (actions ``offset + 26 * second + first``) in order, from
    relative masks, in a position with checkers on the bar or where checkers may bear off."""
    if on_bar >= 2:
        if not (blocked >> (BAR - d1) & 1 or blocked >> (BAR - d2) & 1):
            out[n] = offset + BOTH_FROM_BAR
            n += 1
        return n
    if on_bar:
        return _entering(d1, d2, mine, blocked, player, offset, out, n)
    return _marked_pairs(d1, d2, mine, single, blocked, player, offset, out, n)


@njit(cache=True, inline="always")
def _stay_outside(mine: int, single: int, player: int) -> bool:
    """Whether ``player`` has two checkers or more outside its home board (masks of positions), so that
    none can bear off in a pair of moves."""
    home = HOME_0 if player == 0 else HOME_1
    outside, outside_single = mine & ~home, single & ~home
    return outside & (outside - 1) != 0 or outside & ~outside_single != 0


@njit(cache=True, inline="always")
def _all_pairs(s, player: int, low: int, high: int, out) -> int:
    """Writes every pair of moves, those with the high die first then (unless doubles) the low die first."""
    on_bar = bar(s, player)
    mine, single, blocked = board_masks(s, player)
    if not on_bar and _stay_outside(mine, single, player):  # the common case
        n = _open_pairs(high, low, mine, single, blocked, player, 0, out, 0)
        if low != high:
            n = _open_pairs(low, high, mine, single, blocked, player, LOW_FIRST, out, n)
        return n
    if player == 0:
        mine, single, blocked = reverse24(mine), reverse24(single), reverse24(blocked)
    n = _pairs(high, low, mine, single, blocked, on_bar, player, 0, out, 0)
    if low != high:
        n = _pairs(low, high, mine, single, blocked, on_bar, player, LOW_FIRST, out, n)
    return n


@njit(cache=True, inline="always")
def _singles(first: int, offset: int, out) -> int:
    """Writes single moves from the positions of mask ``first`` as actions in increasing order."""
    n = 0
    while first:
        out[n] = offset + trailing_zeros(first)
        first &= first - 1
        n += 1
    return n


@njit(cache=True, inline="always")
def decision_actions(s, out) -> int:
    """The legal actions of the decision node ``s`` in increasing order in ``out[:n]``; returns ``n``.
    ``out`` holds `MAX_ACTIONS` entries (the tail is scratch)."""
    out = borrowed(out)
    player = s[0]
    low, high = s[META] >> LOW_SHIFT & 7, s[META] >> HIGH_SHIFT & 7
    n = _all_pairs(s, player, low, high, out)
    if n:
        return n
    on_bar = bar(s, player)
    mine, _, blocked = relative_masks(s, player)
    first = sources(high, mine, blocked, on_bar)
    if first:
        return _singles(absolute_mask(first, player), SINGLE, out)
    first = sources(low, mine, blocked, on_bar)
    if first:
        return _singles(absolute_mask(first, player), SINGLE + LOW_FIRST, out)
    out[0] = PASS
    return 1
