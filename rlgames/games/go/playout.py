"""Light playouts for go, as computer go defined them, compiled over a mutable board.

The policy: a uniformly random legal move among those that do not fill one of the mover's own one-point
eyes (an empty point whose on-board neighbours are all the mover's stones); a pass when no other move
is left. The rules are the game's but for superko, which playouts leave out as the programs that defined
them did (simple ko is kept): a playout ends after two passes in a row or at the game's length limit, and
is scored by Tromp-Taylor area with komi.

Speed comes from the board, not from the compact state's bitboards: a ``(N + 2)``-square padded board
(a border of guard points, so that neighbours need no bounds checks), chains as circular linked lists of
stones with a head per stone, and per chain its stones and pseudo-liberties (each stone's empty
neighbours, counted once per stone). A move's legality is exact from the counts alone: a neighbouring
chain's only liberty is the point played exactly when all its pseudo-liberties are that point's
adjacencies to it (libego's test); the liberty of a chain in atari, which only the pattern and learned
policies ask for, is found by a walk of its stones (`lone_liberty`). The empty points are kept in a list
with each point's index in it, so that a random move is drawn in O(1) and the points tried and refused are
set aside, without replacement, until one is playable.

Compiled for speed (what each gave: docs/research/go.md#unsigned-borrowed): the board is indexed by
unsigned points (``b[_COLOUR, _ix(p)]``), for which numba leaves out the wraparound of negative indices
that it adds to every signed access, and a playout works on a `rlgames.jit.nrt.borrowed` view of it, so
that its calls between the kernels do not count references.

Pattern playouts, go's hand-written policy (``mcts(rollout=patterns)``), play MoGo's rules first around the
opponent's last stone (Gelly, Wang, Munos & Teytaud 2006; `pattern_move`): escape an atari, a 3x3 shape
(`rlgames.games.go.patterns`), a capture; a light move where none applies.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from rlgames.game import TERMINAL, record_move
from rlgames.games.go.rules import (
    BOARD,
    KO,
    MAX_LENGTH,
    MAX_WORDS,
    MOVES,
    PASSES,
    SIZE,
    deduction2,
    has_point,
    read_boards,
)
from rlgames.games.go.patterns import PATTERN_TABLE
from rlgames.jit.nrt import borrowed
from rlgames.jit.rng import below, new_rng_state
from rlgames.jit.stack import stack_int64, stack_uint64
from rlgames.jit.unsafe import tuple_setitem

EMPTY, BLACK, WHITE, BORDER = 0, 1, 2, 3
NO_POINT = -1
MAX_PADDED = 21 * 21
_ix = np.uint32  # a point as an unsigned index (the module docstring)

# The rows of a board (`new_board`), each indexed by padded point, and the scalars of its last row.
_COLOUR, _HEAD, _NEXT, _STONES, _LIBS, _EMPTIES, _WHERE, _META = range(8)
_WIDTH, _EMPTY_COUNT, _KO = range(3)


class PlayoutStats(NamedTuple):
    """Light playouts' results, one entry per playout."""

    black_wins: np.ndarray
    """int64[n]: 1 where black won, 0 where white did (or, with an integer komi, the game was drawn)."""
    margins: np.ndarray
    """float64[n]: black's area minus white's, minus komi and handicap, at the end."""
    lengths: np.ndarray
    """int64[n]: the moves played, passes included."""


@njit(cache=True)
def new_board():
    """A mutable board, large enough for 19x19 and reused from playout to playout: one int32 array whose
    rows are, by padded point, the colour, the chain's head, the next stone of the chain, and (at a
    chain's head) its stones and pseudo-liberties; the empty points and each one's index among them;
    and the scalars (width, empty points, ko point). One array keeps the calls between the kernels cheap
    (a tuple of arrays cost a third more per move). Not zeroed: `load` sets every field that a playout
    reads before reading it."""
    return np.empty((_META + 1, MAX_PADDED), dtype=np.int32)


@njit(cache=True)
def lone_liberty(b, chain: int) -> int:
    """The liberty of the chain headed by ``chain`` if it has exactly one (the chain is in atari), else
    `NO_POINT`: a walk of its stones that stops at a second distinct liberty. A chain with one liberty has
    at most four pseudo-liberties (its stones next to that point), so one with more is not walked."""
    if b[_LIBS, _ix(chain)] > 4:
        return NO_POINT
    w = b[_META, _WIDTH]
    found = NO_POINT
    q = chain
    while True:
        for r in (q + w, q + 1, q - 1, q - w):
            if b[_COLOUR, _ix(r)] == EMPTY and r != found:
                if found != NO_POINT:
                    return NO_POINT
                found = r
        q = b[_NEXT, _ix(q)]
        if q == chain:
            return found


@njit(cache=True, inline="always")
def _take_empty(b, p: int) -> None:
    """Removes ``p`` from the list of empty points."""
    last = b[_EMPTIES, _ix(b[_META, _EMPTY_COUNT] - 1)]
    i = b[_WHERE, _ix(p)]
    b[_EMPTIES, _ix(i)], b[_WHERE, _ix(last)] = last, i
    b[_META, _EMPTY_COUNT] -= 1


@njit(cache=True, inline="always")
def _give_empty(b, p: int) -> None:
    b[_EMPTIES, _ix(b[_META, _EMPTY_COUNT])] = p
    b[_WHERE, _ix(p)] = b[_META, _EMPTY_COUNT]
    b[_META, _EMPTY_COUNT] += 1


@njit(cache=True, inline="always")
def _around(b, p: int):
    """The neighbours of ``p`` (up, right, left, down) and their colours, each read once: the board's
    stores in between keep the compiler from reusing a load, so a move reads them here and passes them on
    to each of its steps (what that gave: docs/research/go.md#neighbours-once)."""
    w = b[_META, _WIDTH]
    q = (p + w, p + 1, p - 1, p - w)
    return q, (b[_COLOUR, _ix(q[0])], b[_COLOUR, _ix(q[1])], b[_COLOUR, _ix(q[2])], b[_COLOUR, _ix(q[3])])


@njit(cache=True, inline="always")
def _place(b, p: int, colour: int, q, c) -> None:
    """Puts a stone of ``colour`` on empty ``p`` (neighbours ``q`` of colours ``c``, `_around`) as a chain
    of its own, then joins its neighbours of the same colour, and takes ``p`` from its neighbours'
    liberties (captures left to the caller)."""
    b[_COLOUR, _ix(p)] = colour
    b[_HEAD, _ix(p)], b[_NEXT, _ix(p)] = p, p
    b[_STONES, _ix(p)] = 1
    b[_LIBS, _ix(p)] = 0
    _take_empty(b, p)
    _touch(b, p, q[0], c[0])
    _touch(b, p, q[1], c[1])
    _touch(b, p, q[2], c[2])
    _touch(b, p, q[3], c[3])
    for k in range(4):
        if c[k] == colour:
            _join(b, b[_HEAD, _ix(p)], b[_HEAD, _ix(q[k])])


@njit(cache=True, inline="always")
def _touch(b, p: int, q: int, c: int) -> None:
    """A new stone on ``p`` gains empty neighbour ``q`` as a liberty, or takes ``p`` from the liberties
    of the chain on ``q``."""
    if c == EMPTY:
        b[_LIBS, _ix(p)] += 1
    elif c != BORDER:
        b[_LIBS, _ix(b[_HEAD, _ix(q)])] -= 1


@njit(cache=True, inline="always")
def _surrounded(c, colour: int) -> bool:
    """Whether every neighbour colour of ``c`` is ``colour`` or the edge (branch-free: these tests run
    at every move, on colours at random)."""
    return (
        ((c[0] == colour) | (c[0] == BORDER))
        & ((c[1] == colour) | (c[1] == BORDER))
        & ((c[2] == colour) | (c[2] == BORDER))
        & ((c[3] == colour) | (c[3] == BORDER))
    )


@njit(cache=True, inline="always")
def _take_if_dead(b, q: int, c: int, enemy: int, captured: int, last: int) -> tuple[int, int]:
    """Captures the chain on ``q`` if it is the enemy's and has no liberty left: ``(captured, last)``
    brought up to date. The colour is read again: two sides of one chain are taken once."""
    if c == enemy and b[_COLOUR, _ix(q)] == enemy and b[_LIBS, _ix(b[_HEAD, _ix(q)])] == 0:
        return captured + _remove_chain(b, b[_HEAD, _ix(q)]), q
    return captured, last


@njit(cache=True, inline="always")
def _join(b, a: int, c: int) -> None:
    """Merges the chains headed by ``a`` and ``c`` (the smaller into the larger)."""
    if a == c:
        return
    if b[_STONES, _ix(a)] < b[_STONES, _ix(c)]:
        a, c = c, a
    b[_STONES, _ix(a)] += b[_STONES, _ix(c)]
    b[_LIBS, _ix(a)] += b[_LIBS, _ix(c)]
    q = c
    while True:
        b[_HEAD, _ix(q)] = a
        q = b[_NEXT, _ix(q)]
        if q == c:
            break
    b[_NEXT, _ix(a)], b[_NEXT, _ix(c)] = b[_NEXT, _ix(c)], b[_NEXT, _ix(a)]


@njit(cache=True)
def _remove_chain(b, chain: int) -> int:
    """Takes the chain headed by ``chain`` off the board, giving its points back as liberties to the
    chains around them; returns its number of stones."""
    w = b[_META, _WIDTH]
    removed = 0
    q = chain
    while True:
        b[_COLOUR, _ix(q)] = EMPTY
        _give_empty(b, q)
        removed += 1
        q = b[_NEXT, _ix(q)]
        if q == chain:
            break
    while True:  # a second pass: every neighbour chain gains the freed points once per adjacency
        for r in (q + w, q + 1, q - 1, q - w):
            c = b[_COLOUR, _ix(r)]
            if c == BLACK or c == WHITE:
                b[_LIBS, _ix(b[_HEAD, _ix(r)])] += 1
        following = b[_NEXT, _ix(q)]
        b[_HEAD, _ix(q)], b[_NEXT, _ix(q)] = q, q
        q = following
        if q == chain:
            break
    return removed


@njit(cache=True)
def play(b, p: int, colour: int) -> None:
    """Plays a legal stone: places it, captures the opponent's chains left without a liberty, and sets the
    simple ko (a stone played into the opponent's eye that captures exactly one stone)."""
    _play(b, p, colour)


@njit(cache=True, inline="always")
def _play(b, p: int, colour: int) -> None:
    """`play`, inlined into the light playouts' loop: inlining its kernels there made a playout about 1.1
    times faster (docs/research/go.md#unsigned-borrowed); everything else calls `play`, so that numba,
    which types an inlined function again at each place it is inlined, compiles this once more only."""
    enemy = 3 - colour
    q, c = _around(b, p)
    in_eye = _surrounded(c, enemy)
    _place(b, p, colour, q, c)
    captured, last = _take_if_dead(b, q[0], c[0], enemy, 0, NO_POINT)
    captured, last = _take_if_dead(b, q[1], c[1], enemy, captured, last)
    captured, last = _take_if_dead(b, q[2], c[2], enemy, captured, last)
    captured, last = _take_if_dead(b, q[3], c[3], enemy, captured, last)
    b[_META, _KO] = last if in_eye and captured == 1 else NO_POINT


@njit(cache=True)
def is_playable(b, p: int, colour: int) -> bool:
    """Whether the light policy may play ``p``: legal (not the ko point, not suicide) and not filling
    one of ``colour``'s own one-point eyes."""
    return _is_playable(b, p, colour)


@njit(cache=True, inline="always")
def _is_playable(b, p: int, colour: int) -> bool:
    """`is_playable`, inlined into the light playouts' loop (as `_play`)."""
    if p == b[_META, _KO]:
        return False
    q, c = _around(b, p)
    if (c[0] == EMPTY) | (c[1] == EMPTY) | (c[2] == EMPTY) | (c[3] == EMPTY):
        return True  # a liberty of its own, and not an eye
    if _surrounded(c, colour):
        w = b[_META, _WIDTH]
        enemy, edge = 0, False
        for d in (p + w + 1, p + w - 1, p - w + 1, p - w - 1):
            x = b[_COLOUR, _ix(d)]
            if x == BORDER:
                edge = True
            elif x != colour and x != EMPTY:
                enemy += 1
        if enemy < (1 if edge else 2):
            return False
    h = (  # the neighbours' chains, the edge's four distinct values that match none
        b[_HEAD, _ix(q[0])] if c[0] != BORDER else -1,
        b[_HEAD, _ix(q[1])] if c[1] != BORDER else -2,
        b[_HEAD, _ix(q[2])] if c[2] != BORDER else -3,
        b[_HEAD, _ix(q[3])] if c[3] != BORDER else -4,
    )
    for k in range(4):
        if c[k] != BORDER:
            only_here = b[_LIBS, _ix(h[k])] == (h[0] == h[k]) + (h[1] == h[k]) + (h[2] == h[k]) + (h[3] == h[k])
            if (c[k] == colour) != only_here:
                return True  # joins a chain with another liberty, or captures one whose last liberty is p
    return False


@njit(cache=True)
def load(b, s) -> None:
    """Sets the board ``b`` to the stones and ko of compact state ``s``."""
    n = s[SIZE]
    w = n + 2
    b[_META, _WIDTH], b[_META, _EMPTY_COUNT], b[_META, _KO] = w, 0, NO_POINT
    b[_COLOUR, : w * w] = BORDER
    for r in range(n):
        for c in range(n):
            p = (r + 1) * w + c + 1
            b[_COLOUR, _ix(p)] = EMPTY
            _give_empty(b, p)
    words = (len(s) - BOARD) // 2
    black, white = stack_uint64(MAX_WORDS)[:words], stack_uint64(MAX_WORDS)[:words]
    read_boards(s, black, white)
    for point in range(n * n):
        colour = BLACK if has_point(black, point) else (WHITE if has_point(white, point) else EMPTY)
        if colour != EMPTY:
            p = point_of(point, n)
            q, c = _around(b, p)
            _place(b, p, colour, q, c)
    if s[KO] >= 0:
        b[_META, _KO] = point_of(s[KO], n)


@njit(cache=True)
def area_margin(b, n: int) -> int:
    """Black's Tromp-Taylor area minus white's on the mutable board."""
    w = n + 2
    seen = stack_int64(MAX_PADDED)
    seen[: w * w] = 0
    stack = stack_int64(MAX_PADDED)
    margin = 0
    for r in range(n):
        for c in range(n):
            p = (r + 1) * w + c + 1
            if b[_COLOUR, _ix(p)] == BLACK:
                margin += 1
            elif b[_COLOUR, _ix(p)] == WHITE:
                margin -= 1
            elif not seen[p]:
                seen[p] = True
                stack[0], top, size, reach = p, 1, 0, 0
                while top > 0:
                    top -= 1
                    q = stack[top]
                    size += 1
                    for x in (q + w, q + 1, q - 1, q - w):
                        if b[_COLOUR, _ix(x)] == EMPTY:
                            if not seen[x]:
                                seen[x] = True
                                stack[top] = x
                                top += 1
                        elif b[_COLOUR, _ix(x)] != BORDER:
                            reach |= b[_COLOUR, _ix(x)]  # 1 black, 2 white, 3 both
                if reach == BLACK:
                    margin += size
                elif reach == WHITE:
                    margin -= size
    return margin


@njit(cache=True)
def run_playout(b, s, rng_state, moves=None) -> tuple[int, int]:
    """One light playout from compact state ``s`` (not terminal) on board ``b``; returns twice black's
    final score (area margin minus komi and handicap, doubled to stay an integer) and the moves played,
    which ``moves`` records (`rlgames.game.record_move`)."""
    return _playout(b, s, rng_state, PATTERN_TABLE, False, moves)


@njit(cache=True)
def run_pattern_playout(b, s, rng_state, moves=None) -> tuple[int, int]:
    """One pattern playout (`pattern_move`, else a light move), as `run_playout`."""
    return _playout(b, s, rng_state, PATTERN_TABLE, True, moves)


@njit(cache=True, inline="always")
def block_index(b, p: int, colour: int) -> int:
    """The code of the 3x3 block around ``p`` seen by ``colour`` (`rlgames.games.go.patterns`)."""
    w = b[_META, _WIDTH]
    index, shift = 0, 0
    for q in (p + w - 1, p + w, p + w + 1, p - 1, p + 1, p - w - 1, p - w, p - w + 1):
        c = b[_COLOUR, _ix(q)]
        code = 0 if c == EMPTY else (3 if c == BORDER else (1 if c == colour else 2))
        index |= code << shift
        shift += 2
    return index


@njit(cache=True)
def pattern_move(b, colour: int, last: int, rng_state, table) -> int:
    """MoGo's playout rules around the opponent's last stone ``last``, in order, each a uniform choice
    among the playable points it names: a chain of ours next to it left in atari escapes at its liberty
    (where that point has two empty neighbours), an empty point around it whose block matches a shape of
    ``table``, a capture of a chain in atari (its own or next to it); NO_POINT where none applies."""
    w = b[_META, _WIDTH]
    found = stack_int64(16)
    n = 0
    for q in (last + w, last + 1, last - 1, last - w):
        liberty = lone_liberty(b, b[_HEAD, _ix(q)]) if b[_COLOUR, _ix(q)] == colour else NO_POINT
        if liberty != NO_POINT:
            room = 0
            for r in (liberty + w, liberty + 1, liberty - 1, liberty - w):
                room += b[_COLOUR, _ix(r)] == EMPTY
            if room >= 2 and is_playable(b, liberty, colour):
                found[n] = liberty
                n += 1
    if n == 0:
        for q in (last + w - 1, last + w, last + w + 1, last - 1, last + 1, last - w - 1, last - w, last - w + 1):
            if b[_COLOUR, _ix(q)] == EMPTY and table[block_index(b, q, colour)] and is_playable(b, q, colour):
                found[n] = q
                n += 1
    if n == 0:
        for q in (last, last + w, last + 1, last - 1, last - w):
            liberty = lone_liberty(b, b[_HEAD, _ix(q)]) if b[_COLOUR, _ix(q)] == 3 - colour else NO_POINT
            if liberty != NO_POINT and is_playable(b, liberty, colour):
                found[n] = liberty
                n += 1
    return found[below(rng_state, n)] if n > 0 else NO_POINT


@njit(cache=True)
def _playout(b, s, rng_state, table, patterns: bool, record=None) -> tuple[int, int]:
    load(b, s)
    b = borrowed(b)
    colour = BLACK if s[0] == 0 else WHITE
    moves, passes, played = s[MOVES], s[PASSES], 0
    limit, n, w = s[MAX_LENGTH], s[SIZE], b[_META, _WIDTH]
    last = NO_POINT
    while True:
        count = b[_META, _EMPTY_COUNT]
        chosen = pattern_move(b, colour, last, rng_state, table) if patterns and last != NO_POINT else NO_POINT
        while chosen == NO_POINT and count > 0:
            i = below(rng_state, count)
            p = b[_EMPTIES, _ix(i)]
            if _is_playable(b, p, colour):
                chosen = p
                break
            count -= 1  # set p aside behind the points still to try
            b[_EMPTIES, _ix(i)], b[_EMPTIES, _ix(count)] = b[_EMPTIES, _ix(count)], p
            b[_WHERE, _ix(b[_EMPTIES, _ix(i)])], b[_WHERE, _ix(p)] = i, count
        if chosen == NO_POINT:
            passes += 1
            b[_META, _KO] = NO_POINT
        else:
            passes = 0
            _play(b, chosen, colour)
        record_move(record, played, colour - 1, point_action(chosen, n, w))
        last = chosen
        moves += 1
        played += 1
        if playout_over(moves, passes, limit):
            break
        colour = 3 - colour
    return 2 * area_margin(b, s[SIZE]) - deduction2(s), played


@njit(cache=True, inline="always")
def point_of(action: int, n: int) -> int:
    """The padded point of go action ``action`` (not a pass) on an ``n`` x ``n`` board."""
    return (action // n + 1) * (n + 2) + action % n + 1


@njit(cache=True, inline="always")
def point_action(p: int, n: int, w: int) -> int:
    """The go action of padded point ``p`` on an ``n`` x ``n`` board of width ``w``; the pass for `NO_POINT`."""
    return n * n if p == NO_POINT else (p // w - 1) * n + p % w - 1


@njit(cache=True, inline="always")
def playout_over(moves: int, passes: int, limit: int) -> bool:
    """Whether a playout ends after ``moves`` moves of the game, ``passes`` passes in a row: two passes or
    the length limit, as the rules end a game, and not before the second move."""
    return moves >= 2 and (passes >= 2 or moves >= limit)


@njit(cache=True)
def _playout_batch(s, seed_state, count: int, margins2, lengths) -> None:
    b = new_board()
    for i in range(count):
        margins2[i], lengths[i] = run_playout(b, s, seed_state)


def light_playouts(state, count: int, *, seed: int) -> PlayoutStats:
    """``count`` light playouts from go ``state`` (a `GoState`, not terminal) in one compiled call."""
    if state.is_terminal():
        raise ValueError("go: light playouts start from a position whose game is not over")
    margins2 = np.empty(count, dtype=np.int64)
    lengths = np.empty(count, dtype=np.int64)
    _playout_batch(state.compact, new_rng_state(seed), count, margins2, lengths)
    return PlayoutStats((margins2 > 0).astype(np.int64), margins2 / 2.0, lengths)


@njit(cache=True)
def light_rollout(s, rng_state, actions, probs, moves=None):
    """The ``playout`` kernel of go (`rlgames.game.GameKernels`): a light playout from ``s``, its result
    written into a terminal copy of ``s``; the scratch buffers are unused."""
    score2, plies = run_playout(new_board(), s, rng_state, moves)
    return _ended(s, score2), plies


@njit(cache=True)
def pattern_rollout(s, rng_state, actions, probs, moves=None):
    """Go's hand-written playout policy, ``mcts(rollout=patterns)``: a pattern playout from ``s``, as
    `light_rollout`."""
    score2, plies = run_pattern_playout(new_board(), s, rng_state, moves)
    return _ended(s, score2), plies


@njit(cache=True, inline="always")
def _ended(s, score2: int):
    """A terminal copy of ``s`` holding black's result for twice the final score ``score2``."""
    return tuple_setitem(tuple_setitem(s, 0, TERMINAL), 1, 1 if score2 > 0 else (-1 if score2 < 0 else 0))
