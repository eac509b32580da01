"""Go on an N x N board (N from 2 to 19), matching OpenSpiel's ``go`` move for move.

Points and actions. Point ``p = row * N + col`` with row 0 the bottom row (rank 1) and col 0 column
``A``; action ``p`` places a stone there and action ``N * N`` passes. Player 0 is black.

The rules, as OpenSpiel decides them (``open_spiel/games/go/go.cc`` and ``go_board.cc``):

* a stone is legal on an empty point unless it is suicide (its chain left without a liberty when it
  captures nothing) or it retakes a simple ko: the one point captured by the previous move, when that
  move was played on a point whose on-board neighbours were all the opponent's and captured exactly one
  stone. Pass is always legal and listed last, and clears the ko;
* a non-pass move that brings back an earlier position (the stones alone) ends the game at once as a
  draw: positional superko, judged by the `repetition` kernel against the positions before it;
* the game ends after two passes in a row, or once ``max_game_length`` actions were played (passes
  counted, default ``2 * N * N``), and in either case not before the second action;
* Tromp-Taylor area scoring: black's stones and the empty regions that reach only black, minus white's,
  minus komi, and minus the handicap where it is 2 or more. Black wins (+1) a positive score, white a
  negative one, 0 is a draw;
* handicap ``h`` from 2 to 9 places ``h`` black stones on 19x19's star points in OpenSpiel's order
  (d4, q16, d16, q4, then d10, q10, k4, k16, with k10 last for odd ``h`` from 5), and white moves first.

Compact state, one set of kernels for every board size (each compiles once per state length):
``(player, return0, size, komi2, handicap, max_length, first, moves, passes, ko, key, black..., white...)``.
``komi2`` is twice the komi (komi is a multiple of 0.5), ``first`` the player who moved first (white
after handicap stones), ``moves`` the actions played, ``passes`` the
passes in a row just played, ``ko`` the point the side to move may not retake (-1 for none), ``key`` the
Zobrist key of the stones alone, and ``black`` and ``white`` are `words_for(N * N)` 64-bit words each,
point ``p`` at bit ``p % 64`` of word ``p // 64``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from rlgames.game import ILLEGAL, NO_REPETITION, REPETITION_DRAW, TERMINAL, GameKernels
from rlgames.jit.bits import lsb, popcount, words_for
from rlgames.jit.stack import stack_int64, stack_uint64
from rlgames.jit.unsafe import tuple_setitem

SIZE, KOMI2, HANDICAP, MAX_LENGTH, FIRST, MOVES, PASSES, KO, KEY = 2, 3, 4, 5, 6, 7, 8, 9, 10  # compact-state slots
BOARD = 11
"""The first slot of the stones: black's words, then white's."""
MAX_SIZE = 19
MAX_POINTS = MAX_SIZE * MAX_SIZE
MAX_WORDS = (MAX_POINTS + 63) // 64
NO_POINT = -1

_ONE = np.uint64(1)
_ZOBRIST = np.random.Generator(np.random.PCG64(2765481)).integers(
    -(1 << 63), (1 << 63) - 1, size=(MAX_POINTS, 2), dtype=np.int64, endpoint=True
)
"""The Zobrist key of a stone of each colour on each point (a fixed seed: the same in every process)."""
_SIDE = np.int64(0x5BD1_E995_2F6A_B3C7)
"""Mixed into `hash_key` when white is to move."""


def state_length(size: int) -> int:
    """The number of slots of a compact state on a ``size`` x ``size`` board."""
    return BOARD + 2 * words_for(size * size)


# --- points and stones ----------------------------------------------------------------------------


@njit(cache=True, inline="always")
def has_point(board, p: int) -> bool:
    return (board[p >> 6] >> np.uint64(p & 63)) & _ONE != 0


@njit(cache=True, inline="always")
def _add(board, p: int) -> None:
    board[p >> 6] |= _ONE << np.uint64(p & 63)


@njit(cache=True, inline="always")
def neighbours(p: int, n: int, out) -> int:
    """Writes the on-board neighbours of ``p`` (up, right, left, down) into ``out``; returns how many."""
    row, col = p // n, p % n
    k = 0
    if row + 1 < n:
        out[k] = p + n
        k += 1
    if col + 1 < n:
        out[k] = p + 1
        k += 1
    if col > 0:
        out[k] = p - 1
        k += 1
    if row > 0:
        out[k] = p - n
        k += 1
    return k


@njit(cache=True, inline="always")
def read_boards(s, black, white) -> None:
    """Copies black's and white's words of ``s`` into ``black`` and ``white`` (of the state's length)."""
    words = len(black)
    for w in range(words):
        black[w] = np.uint64(s[BOARD + w])
        white[w] = np.uint64(s[BOARD + words + w])


@njit(cache=True)
def boards(s):
    """Black's and white's words of ``s`` as two new uint64 arrays (copies the caller may change); the
    kernels of the rules read them into arrays on their stack instead (`read_boards`)."""
    words = (len(s) - BOARD) // 2
    black = np.empty(words, dtype=np.uint64)
    white = np.empty(words, dtype=np.uint64)
    read_boards(s, black, white)
    return black, white


@njit(cache=True)
def _chain(own, opp, p: int, n: int, chain, stack, limit: int) -> int:
    """Marks the chain of ``own``'s stone at ``p`` on ``chain`` (all zero on entry) and returns how many
    distinct liberties it has, counting no further than ``limit`` (the walk stops there, the chain then
    only partly marked)."""
    liberties = stack_uint64(MAX_WORDS)[: len(chain)]
    liberties[:] = 0
    around = stack_int64(4)
    found = 0
    _add(chain, p)
    stack[0] = p
    top = 1
    while top > 0:
        top -= 1
        q = stack[top]
        for i in range(neighbours(q, n, around)):
            r = around[i]
            if has_point(own, r):
                if not has_point(chain, r):
                    _add(chain, r)
                    stack[top] = r
                    top += 1
            elif not has_point(opp, r) and not has_point(liberties, r):
                _add(liberties, r)
                found += 1
                if found >= limit:
                    return found
    return found


@njit(cache=True, inline="always")
def _is_empty(black, white, p: int) -> bool:
    return not (has_point(black, p) or has_point(white, p))


@njit(cache=True)
def _is_legal(black, white, player: int, p: int, n: int, ko: int) -> bool:
    """Whether ``player`` may place a stone on point ``p``: empty, not the ko point, not suicide."""
    if not _is_empty(black, white, p) or p == ko:
        return False
    around = stack_int64(4)
    for i in range(neighbours(p, n, around)):
        if _is_empty(black, white, around[i]):
            return True  # an empty neighbour is a liberty
    return _saved_by_chains(black, white, player, p, n)


@njit(cache=True)
def _saved_by_chains(black, white, player: int, p: int, n: int) -> bool:
    """Whether a stone of ``player`` on empty ``p``, which has no empty neighbour, is not suicide: it joins
    a chain of its own that keeps another liberty, or captures a chain whose last liberty is ``p``."""
    own, opp = (black, white) if player == 0 else (white, black)
    around = stack_int64(4)
    k = neighbours(p, n, around)
    stack = stack_int64(MAX_POINTS)
    chain = stack_uint64(MAX_WORDS)[: len(black)]
    for i in range(k):
        chain[:] = 0
        q = around[i]
        if has_point(own, q):
            if _chain(own, opp, q, n, chain, stack, 2) >= 2:
                return True  # joins a chain that keeps another liberty
        elif _chain(opp, own, q, n, chain, stack, 2) == 1:
            return True  # captures a chain whose last liberty is p
    return False
    own, opp = (black, white) if player == 0 else (white, black)
    around = stack_int64(4)
    k = neighbours(p, n, around)
    for i in range(k):
        if not has_point(own, around[i]) and not has_point(opp, around[i]):
            return True  # an empty neighbour is a liberty
    stack = stack_int64(MAX_POINTS)
    chain = stack_uint64(MAX_WORDS)[: len(black)]
    for i in range(k):
        chain[:] = 0
        q = around[i]
        if has_point(own, q):
            if _chain(own, opp, q, n, chain, stack, 2) >= 2:
                return True  # joins a chain that keeps another liberty
        elif _chain(opp, own, q, n, chain, stack, 2) == 1:
            return True  # captures a chain whose last liberty is p
    return False


# --- scoring --------------------------------------------------------------------------------------


@njit(cache=True)
def area_margin(black, white, n: int) -> int:
    """Black's Tromp-Taylor area minus white's: stones, and empty regions that reach one colour only."""
    margin = 0
    seen = np.zeros(len(black), dtype=np.uint64)
    stack = np.empty(n * n, dtype=np.int64)
    around = np.empty(4, dtype=np.int64)
    for p in range(n * n):
        if has_point(black, p):
            margin += 1
        elif has_point(white, p):
            margin -= 1
        elif not has_point(seen, p):
            _add(seen, p)
            stack[0] = p
            top, size, reaches_black, reaches_white = 1, 0, False, False
            while top > 0:
                top -= 1
                size += 1
                q = stack[top]
                for i in range(neighbours(q, n, around)):
                    r = around[i]
                    if has_point(black, r):
                        reaches_black = True
                    elif has_point(white, r):
                        reaches_white = True
                    elif not has_point(seen, r):
                        _add(seen, r)
                        stack[top] = r
                        top += 1
            if reaches_black and not reaches_white:
                margin += size
            elif reaches_white and not reaches_black:
                margin -= size
    return margin


@njit(cache=True)
def deduction2(s) -> int:
    """Twice what black's area gives up in the score: komi, and the handicap where it is 2 or more (twice,
    to stay an integer: komi is a multiple of 0.5)."""
    return s[KOMI2] + 2 * (s[HANDICAP] if s[HANDICAP] >= 2 else 0)


@njit(cache=True)
def black_return(s, black, white) -> int:
    """Black's result at the end of the game: +1, -1 or 0, from twice the score (komi is a half-integer
    or an integer, so twice the score is exact)."""
    score2 = 2 * area_margin(black, white, s[SIZE]) - deduction2(s)
    return 1 if score2 > 0 else (-1 if score2 < 0 else 0)


@njit(cache=True)
def side_to_move(s) -> int:
    """0 (black) or 1 (white), terminal states included: the players alternate from ``first``."""
    return (s[FIRST] + s[MOVES]) & 1


# --- kernels --------------------------------------------------------------------------------------


@njit(cache=True)
def legal_actions(s, out) -> int:
    """Every legal point in increasing order, then the pass. The board is walked by row and column, so
    that a point with an empty neighbour (legal unless it is the ko point) is found without `_is_legal`'s
    division into row and column; the others are judged by their neighbouring chains (`_saved_by_chains`)."""
    if s[0] == TERMINAL:
        return 0
    n, words, ko = s[SIZE], (len(s) - BOARD) // 2, s[KO]
    black, white = stack_uint64(MAX_WORDS)[:words], stack_uint64(MAX_WORDS)[:words]
    read_boards(s, black, white)
    count, p = 0, 0
    for row in range(n):
        for col in range(n):
            if _is_empty(black, white, p) and p != ko:
                if (
                    (row + 1 < n and _is_empty(black, white, p + n))
                    or (col + 1 < n and _is_empty(black, white, p + 1))
                    or (col > 0 and _is_empty(black, white, p - 1))
                    or (row > 0 and _is_empty(black, white, p - n))
                    or _saved_by_chains(black, white, s[0], p, n)
                ):
                    out[count] = p
                    count += 1
            p += 1
    out[count] = n * n
    return count + 1


@njit(cache=True)
def _with_boards(s, black, white, key: int):
    """``s`` with the stones of ``black`` and ``white`` and the Zobrist ``key``."""
    words = len(black)
    for w in range(words):
        s = tuple_setitem(s, BOARD + w, np.int64(black[w]))
        s = tuple_setitem(s, BOARD + words + w, np.int64(white[w]))
    return tuple_setitem(s, KEY, key)


@njit(cache=True)
def _finish_move(s, black, white):
    """``s`` (its counters already advanced) made terminal where the game ends: two passes in a row or
    the length limit, and never before the second action."""
    if s[MOVES] >= 2 and (s[PASSES] >= 2 or s[MOVES] >= s[MAX_LENGTH]):
        return tuple_setitem(tuple_setitem(s, 0, TERMINAL), 1, black_return(s, black, white))
    return s


@njit(cache=True)
def apply(s, action):
    player, n = s[0], s[SIZE]
    points = n * n
    if player < 0 or not 0 <= action <= points:
        return tuple_setitem(s, 0, ILLEGAL)
    words = (len(s) - BOARD) // 2
    black, white = stack_uint64(MAX_WORDS)[:words], stack_uint64(MAX_WORDS)[:words]
    read_boards(s, black, white)
    if action == points:
        s2 = tuple_setitem(tuple_setitem(s, 0, 1 - player), MOVES, s[MOVES] + 1)
        s2 = tuple_setitem(tuple_setitem(s2, PASSES, s[PASSES] + 1), KO, NO_POINT)
        return _finish_move(s2, black, white)
    if not _is_legal(black, white, player, action, n, s[KO]):
        return tuple_setitem(s, 0, ILLEGAL)
    own, opp = (black, white) if player == 0 else (white, black)
    around = stack_int64(4)
    k = neighbours(action, n, around)
    in_enemy_eye = True
    for i in range(k):
        if not has_point(opp, around[i]):
            in_enemy_eye = False
    _add(own, action)
    key = s[KEY] ^ _ZOBRIST[action, player]
    captured, last_captured = 0, NO_POINT
    stack = stack_int64(MAX_POINTS)
    chain = stack_uint64(MAX_WORDS)[:words]
    for i in range(k):
        q = around[i]
        if not has_point(opp, q):
            continue  # not the opponent's, or already taken with a chain captured before
        chain[:] = 0
        if _chain(opp, own, q, n, chain, stack, 1) == 0:
            for w in range(len(chain)):
                word = chain[w]
                opp[w] &= ~word
                captured += popcount(word)
                while word:
                    key ^= _ZOBRIST[64 * w + lsb(word), 1 - player]
                    word &= word - _ONE
            last_captured = q
    ko = last_captured if in_enemy_eye and captured == 1 else NO_POINT
    s2 = tuple_setitem(tuple_setitem(s, 0, 1 - player), MOVES, s[MOVES] + 1)
    s2 = tuple_setitem(tuple_setitem(s2, PASSES, 0), KO, ko)
    return _finish_move(_with_boards(s2, black, white, key), black, white)


@njit(cache=True)
def hash_key(s) -> int:
    """The Zobrist key of the stones, with `_SIDE` mixed in when white is to move: the ko point and the
    passes are left out, so that `repetition` can recover the stones' key of any earlier position."""
    return s[KEY] ^ _SIDE if side_to_move(s) == 1 else s[KEY]


@njit(cache=True)
def repetition(s, keys, n: int) -> int:
    """Positional superko as OpenSpiel's: a position reached by a stone (not a pass) whose stones were
    on the board before ends the game, drawn. ``keys[i]`` is `hash_key` of the position ``n - i`` actions
    earlier, whose side to move is known from that distance, so its stones' key is recovered exactly."""
    if s[PASSES] > 0:
        return NO_REPETITION
    stones, side = s[KEY], side_to_move(s)
    for i in range(n):
        earlier_white = (side + n - i) & 1 == 1
        if (keys[i] ^ _SIDE if earlier_white else keys[i]) == stones:
            return REPETITION_DRAW
    return NO_REPETITION


@njit(cache=True)
def observation(s, player, out) -> None:
    """out: float32[4, N, N] as OpenSpiel's, the same for both players: black stones, white stones,
    empty points, and a plane of ones when white is to move; row 0 of each plane is the bottom row."""
    n = s[SIZE]
    black, white = boards(s)
    white_to_move = 1.0 if side_to_move(s) == 1 else 0.0
    for p in range(n * n):
        row, col = p // n, p % n
        b, w = has_point(black, p), has_point(white, p)
        out[0, row, col] = 1.0 if b else 0.0
        out[1, row, col] = 1.0 if w else 0.0
        out[2, row, col] = 0.0 if b or w else 1.0
        out[3, row, col] = white_to_move


KERNELS = GameKernels(
    legal_actions=legal_actions,
    apply=apply,
    hash_key=hash_key,
    observation=observation,
    max_actions=MAX_POINTS + 1,
    repetition=repetition,
)
