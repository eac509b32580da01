"""The compiled face of chess: the `GameKernels` over the compact state of `slots`, and perft."""

from __future__ import annotations

import numpy as np
from numba import njit

from rlgames.game import ILLEGAL, NO_REPETITION, REPETITION_DRAW, TERMINAL, GameKernels
from rlgames.games.chess.actions import (
    BISHOP,
    CASTLE,
    FROM,
    KING,
    KNIGHT,
    NUM_ACTIONS,
    PAWN,
    QUEEN,
    QUEENSIDE,
    ROOK,
    TO,
    UNDER,
    move_to_action,
)
from rlgames.games.chess.bitboards import (
    ALL,
    bit,
)
from rlgames.games.chess.movegen import board, checkers, count, generate
from rlgames.games.chess.position import EP_KEYS, SIDE_KEY, judge, make, piece_at
from rlgames.games.chess.slots import (
    BLACK,
    CASTLING,
    EP,
    HALFMOVE,
    KEY,
    KINGS,
    PAWNS,
    PIECES,
    PLAYER,
    TURN,
    WHITE,
)
from rlgames.jit.unsafe import tuple_setitem

MAX_MOVES = 256
"""A bound on the legal moves of a position (218 is the most known)."""
NO_MOVE = -1


@njit(cache=True)
def decode(s, action: int) -> int:
    """The packed move that ``action`` names for the side to move, given the pieces on the board
    (a pawn reaching the last rank without an underpromotion promotes to a queen), or `NO_MOVE`
    when it names none: off the board, an underpromotion of a piece that is not a pawn, a king's
    two-file step that is not one of the castling actions."""
    us = s[TURN]
    flip = 56 * us
    if action >= QUEENSIDE:
        frm, to = 4 ^ flip, (2 if action == QUEENSIDE else 6) ^ flip
        if not board(s, KINGS) & bit(frm):
            return NO_MOVE
        return frm | to << 6 | CASTLE
    frm, to, promotion = FROM[action], TO[action], UNDER[action]
    if frm < 0:
        return NO_MOVE
    frm, to = frm ^ flip, to ^ flip
    pawn = board(s, PAWNS) & bit(frm) != 0
    if (promotion and not pawn) or (board(s, KINGS) & bit(frm) and abs(to - frm) == 2):
        return NO_MOVE
    if pawn and not promotion and (to >> 3) == 7 - 7 * us:
        promotion = QUEEN
    return frm | to << 6 | promotion << 12


@njit(cache=True)
def _sort(out, n: int) -> None:
    """Sorts ``out[:n]`` in place by insertion (a few dozen moves: quicker to compile than ``np.sort``,
    as quick to run)."""
    for i in range(1, n):
        value, j = out[i], i - 1
        while j >= 0 and out[j] > value:
            out[j + 1] = out[j]
            j -= 1
        out[j + 1] = value


@njit(cache=True)
def legal_actions(s, out) -> int:
    if s[PLAYER] < 0:
        return 0
    n = generate(s, out, ALL, ALL)
    for i in range(n):
        out[i] = move_to_action(out[i], s[TURN])
    _sort(out, n)
    return n


@njit(cache=True)
def apply(s, action: int):
    if s[PLAYER] < 0 or action < 0 or action >= NUM_ACTIONS:
        return tuple_setitem(s, PLAYER, ILLEGAL)
    move = decode(s, action)
    if move == NO_MOVE or generate(s, None, bit(move & 63), bit(move >> 6 & 63)) == 0:
        return tuple_setitem(s, PLAYER, ILLEGAL)
    return judge(make(s, move))


@njit(cache=True)
def hash_key(s) -> int:
    return s[KEY]


OBSERVATION_PIECES = np.array([KING, QUEEN, ROOK, BISHOP, KNIGHT, PAWN], dtype=np.int64)
"""OpenSpiel's order of the piece planes."""
CASTLING_PLANES = np.array([2, 1, 8, 4], dtype=np.int64)
"""The castling right of observation planes 16 to 19 (OpenSpiel's white left, white right, black left,
black right)."""


@njit(cache=True)
def observation(s, player: int, out) -> None:
    """OpenSpiel's 20 planes, ``out[plane, rank, file]``, the same for both players: the 12 piece
    planes (king, queen, rook, bishop, knight, pawn; white then black), the empty squares, the
    repetition count (always 0 here: a compact state does not know its history), white to move, the
    halfmove clock / 101, and the castling rights Q, K, q, k."""
    occupied = board(s, WHITE) | board(s, BLACK)
    for square in range(64):
        rank, file = square >> 3, square & 7
        here = bit(square)
        for i in range(6):
            pieces = board(s, PIECES + OBSERVATION_PIECES[i]) & here
            out[2 * i, rank, file] = pieces & board(s, WHITE) != 0
            out[2 * i + 1, rank, file] = pieces & board(s, BLACK) != 0
        out[12, rank, file] = not occupied & here
    out[13] = 0.0
    out[14] = 1.0 if s[TURN] == 0 else 0.0
    out[15] = s[HALFMOVE] / 101.0
    for i in range(4):
        out[16 + i] = 1.0 if s[CASTLING] & CASTLING_PLANES[i] else 0.0


@njit(cache=True)
def _is_tactical(s, move: int) -> bool:
    """A capture (en passant included) or a promotion."""
    to = move >> 6 & 63
    return (
        move >> 12 & 7 != 0
        or board(s, WHITE + 1 - s[TURN]) & bit(to) != 0
        or (to == s[EP] and board(s, PAWNS) & bit(move & 63) != 0)
    )


@njit(cache=True)
def tactical_actions(s, out) -> int:
    """The legal captures (en passant included) and promotions, in increasing action order."""
    if s[PLAYER] < 0:
        return 0
    n = generate(s, out, ALL, ALL)
    kept = 0
    for i in range(n):
        if _is_tactical(s, out[i]):
            out[kept] = move_to_action(out[i], s[TURN])
            kept += 1
    _sort(out, kept)
    return kept


VALUES = np.array([1, 3, 3, 5, 9, 0], dtype=np.int64)
"""Piece values for move ordering, by piece code."""


@njit(cache=True)
def move_score(s, action: int) -> float:
    """MVV-LVA: ``10 * victim - attacker + 10`` for a capture, plus ``80 + piece`` for a promotion;
    0 for a quiet move (or an action naming no move)."""
    if s[PLAYER] < 0 or action < 0 or action >= NUM_ACTIONS:
        return 0.0
    move = decode(s, action)
    if move == NO_MOVE or not _is_tactical(s, move):
        return 0.0
    to, promotion = move >> 6 & 63, move >> 12 & 7
    score = 0.0
    victim = piece_at(s, to)
    if victim >= 0 or to == s[EP]:
        score += 10 * VALUES[max(victim, PAWN)] - VALUES[piece_at(s, move & 63)] + 10
    if promotion:
        score += 80 + VALUES[promotion]
    return score


@njit(cache=True)
def null_move(s):
    """The side to move passes: `ILLEGAL` in check, once over, or with only king and pawns (where
    zugzwang is likely). The halfmove clock restarts, so that no repetition is seen across a pass."""
    us = s[TURN]
    if s[PLAYER] < 0 or checkers(s) or not board(s, WHITE + us) & ~(board(s, PAWNS) | board(s, KINGS)):
        return tuple_setitem(s, PLAYER, ILLEGAL)
    key = np.uint64(s[KEY]) ^ SIDE_KEY
    if s[EP] >= 0:
        key ^= EP_KEYS[s[EP] & 7]
    t = tuple_setitem(tuple_setitem(tuple_setitem(s, PLAYER, 1 - us), TURN, 1 - us), EP, -1)
    return tuple_setitem(tuple_setitem(t, HALFMOVE, 0), KEY, np.int64(key))


@njit(cache=True)
def repetition(s, keys, n: int) -> int:
    """Threefold repetition: the position's key twice among the positions since the last capture or
    pawn move (the last ``s[HALFMOVE]`` keys), with the same side to move (every other one). A game
    already over (mate, the fifty-move rule) ends as it did."""
    if s[0] == TERMINAL:
        return NO_REPETITION
    seen = 0
    for i in range(n - 2, max(n - s[HALFMOVE], 0) - 1, -2):
        seen += keys[i] == s[KEY]
    return REPETITION_DRAW if seen >= 2 else NO_REPETITION


@njit(cache=True)
def _perft(s, depth: int, moves) -> int:
    if depth == 1:
        return count(s)
    n = generate(s, moves[depth], ALL, ALL)
    nodes = 0
    for i in range(n):
        nodes += _perft(make(s, moves[depth, i]), depth - 1, moves)
    return nodes


@njit(cache=True)
def perft(s, depth: int) -> int:
    """The number of move sequences of ``depth`` plies from ``s`` (the moves at the last ply counted,
    not made: bulk counting)."""
    if depth <= 0:
        return 1
    return _perft(s, depth, np.empty((depth + 1, MAX_MOVES), dtype=np.int64))


KERNELS = GameKernels(
    legal_actions=legal_actions,
    apply=apply,
    hash_key=hash_key,
    observation=observation,
    max_actions=MAX_MOVES,
    tactical_actions=tactical_actions,
    repetition=repetition,
    null_move=null_move,
    move_score=move_score,
)
