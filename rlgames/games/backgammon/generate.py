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
  ``b``: each written in order from the list of first moves, without a branch per pair;
* otherwise (bearing off): every pair is marked in a table of 25 words, one per second move, then
  read out in order.

The list of first moves and the table are scratch kept in ``out[TABLE:TABLE + 25]``, past any list of
legal actions (`MAX_LEGAL`), so the buffers hold `MAX_ACTIONS` entries.

When no pair can be played the single moves follow (high die first), else the pass.
"""

from __future__ import annotations

from numba import njit
from numba.core.extending import intrinsic
from numba.cpython.unsafe.numbers import trailing_zeros
from numba.np.arrayobj import make_array, populate_array

from rlgames.games.backgammon.moves import (
    BAR,
    LOW_FIRST,
    MAX_LEGAL,
    PASS,
    POINTS_MASK,
    SINGLE,
    absolute_mask,
    after_move,
    relative_masks,
    reverse24,
    sources,
    to_absolute,
)
from rlgames.games.backgammon.slots import HIGH_SHIFT, LOW_SHIFT, META, bar

TABLE = MAX_LEGAL
"""Where the scratch words start in the buffer of `decision_actions`."""
MAX_ACTIONS = MAX_LEGAL + 25
"""The size of the kernels' action buffers: `MAX_LEGAL` actions, then 25 words of scratch."""
BOTH_FROM_BAR = 26 * BAR + BAR


@intrinsic
def _borrowed(typingctx, array):
    """A view of ``array`` that numba does not reference-count (no meminfo), for the caller's lifetime.

    Why: numba increments and decrements an array argument's reference count around code it cannot
    prune (here, the inlined listing functions with their loops and exits): two atomic operations per
    call that cost more than listing the moves of a position with checkers on the bar."""
    def codegen(context, builder, signature, args):
        source = make_array(array)(context, builder, value=args[0])
        view = make_array(array)(context, builder)
        populate_array(view, data=source.data, shape=source.shape, strides=source.strides,
                       itemsize=source.itemsize, meminfo=None)
        return view._getvalue()

    return array(array), codegen


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
def _open_pairs(d1: int, d2: int, mine: int, single: int, blocked: int, player: int, offset: int, out,
                n: int) -> int:
    """The pairs with ``d1`` then ``d2`` where no checker is on the bar and none can bear off: for each
    second move ``b`` (in increasing order), the first moves ``a`` allowed with it (``allowed``), written
    by a loop over the list of first moves that keeps an entry by adding 0 or 1 to ``n``."""
    first = mine & _open(d1, blocked)
    second = mine & _open(d2, blocked)
    landing = first >> d1 & _open(d2, blocked) & ~second  # second moves made by the first one
    step = d1  # first move = second move + step, for a landing
    if player == 0:
        first, second, landing, single = reverse24(first), reverse24(second), reverse24(landing), reverse24(single)
        step = -d1
    k = 0
    rest = first
    while rest:
        out[TABLE + k] = trailing_zeros(rest)
        rest &= rest - 1
        k += 1
    lone = single & first
    rows = second | landing
    while rows:
        b = trailing_zeros(rows)
        rows &= rows - 1
        open_here = -(second >> b & 1)  # all ones where b was open before the first move
        allowed = first & ~(lone & 1 << b) & open_here | 1 << ((b + step) & 31) & ~open_here
        base = offset + 26 * b
        for j in range(k):
            a = out[TABLE + j]
            out[n] = base + a
            n += allowed >> a & 1
    return n


@njit(cache=True, inline="always")
def _marked_pairs(d1: int, d2: int, mine: int, single: int, blocked: int, player: int, offset: int, out,
                  n: int) -> int:
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
def _pairs(d1: int, d2: int, mine: int, single: int, blocked: int, on_bar: int, player: int, offset: int, out,
           n: int) -> int:
    """Appends the pairs with ``d1`` then ``d2`` (actions ``offset + 26 * second + first``) in order."""
    if on_bar >= 2:
        if not (blocked >> (BAR - d1) & 1 or blocked >> (BAR - d2) & 1):
            out[n] = offset + BOTH_FROM_BAR
            n += 1
        return n
    if on_bar:
        return _entering(d1, d2, mine, blocked, player, offset, out, n)
    outside = mine >> 6
    if outside & (outside - 1) or outside & ~(single >> 6):  # checkers stay outside the home board
        return _open_pairs(d1, d2, mine, single, blocked, player, offset, out, n)
    return _marked_pairs(d1, d2, mine, single, blocked, player, offset, out, n)


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
    out = _borrowed(out)
    player = s[0]
    low, high = s[META] >> LOW_SHIFT & 7, s[META] >> HIGH_SHIFT & 7
    on_bar = bar(s, player)
    mine, single, blocked = relative_masks(s, player)
    n = _pairs(high, low, mine, single, blocked, on_bar, player, 0, out, 0)
    if low != high:
        n = _pairs(low, high, mine, single, blocked, on_bar, player, LOW_FIRST, out, n)
    if n:
        return n
    first = sources(high, mine, blocked, on_bar)
    if first:
        return _singles(absolute_mask(first, player), SINGLE, out)
    first = sources(low, mine, blocked, on_bar)
    if first:
        return _singles(absolute_mask(first, player), SINGLE + LOW_FIRST, out)
    out[0] = PASS
    return 1

