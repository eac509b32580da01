"""Making moves on compact states: the board, the castling rights, the en-passant square, the clocks
and the Zobrist key, updated incrementally; and what ends a game (mate, stalemate, fifty moves,
insufficient material).

The Zobrist key XORs one 64-bit word per (colour, piece, square), one per set of castling rights, one
per en-passant file (only when an en-passant capture is legal, so that it matches the position's
identity under FIDE's repetition rule and python-chess's transposition key) and one for black to
move. The words come from splitmix64 with a fixed seed: the same in every process.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from rlgames.game import TERMINAL
from rlgames.games.chess.actions import KING, PAWN, ROOK
from rlgames.games.chess.bitboards import DARK_SQUARES, PAWN_ATTACKS, U1, bit
from rlgames.games.chess.movegen import board, checkers, count, en_passant_is_legal
from rlgames.games.chess.slots import (
    BISHOPS,
    CASTLING,
    CHECKMATE,
    EP,
    FIFTY_MOVES,
    FULLMOVE,
    HALFMOVE,
    INSUFFICIENT_MATERIAL,
    KEY,
    KINGS,
    KNIGHTS,
    PAWNS,
    PIECES,
    QUEENS,
    ROOKS,
    STALEMATE,
    TERMINATION,
    TURN,
    WHITE,
)
from rlgames.jit.bits import lsb, popcount
from rlgames.jit.unsafe import tuple_setitem


def _splitmix64(seed: int, n: int) -> np.ndarray:
    """``n`` words of the splitmix64 sequence from ``seed``."""
    mask, words = (1 << 64) - 1, []
    for _ in range(n):
        seed = (seed + 0x9E37_79B9_7F4A_7C15) & mask
        z = seed
        z = ((z ^ (z >> 30)) * 0xBF58_476D_1CE4_E5B9) & mask
        z = ((z ^ (z >> 27)) * 0x94D0_49BB_1331_11EB) & mask
        words.append(z ^ (z >> 31))
    return np.array(words, dtype=np.uint64)


_WORDS = _splitmix64(0xC4E55, 2 * 6 * 64 + 16 + 8 + 1)
PIECE_KEYS = _WORDS[:768].reshape(2, 6, 64)
CASTLING_KEYS = _WORDS[768:784]
EP_KEYS = _WORDS[784:792]
SIDE_KEY = _WORDS[792]

CASTLING_MASK = np.full(64, 15, dtype=np.int64)
CASTLING_MASK[[0, 4, 7, 56, 60, 63]] = [15 ^ 2, 15 ^ 3, 15 ^ 1, 15 ^ 8, 15 ^ 12, 15 ^ 4]
"""The castling rights that survive a move from or to each square (a king's or a rook's home)."""


@njit(cache=True)
def piece_at(s, square: int) -> int:
    """The piece code on ``square`` (actions.PAWN .. KING), -1 if it is empty."""
    for piece in range(6):
        if board(s, PIECES + piece) & bit(square):
            return piece
    return -1


@njit(cache=True)
def zobrist(s) -> int:
    """The Zobrist key of ``s`` computed from scratch (the incremental one must equal it)."""
    key = SIDE_KEY if s[TURN] else np.uint64(0)
    for colour in range(2):
        pieces = board(s, WHITE + colour)
        while pieces:
            square = lsb(pieces)
            pieces &= pieces - U1
            key ^= PIECE_KEYS[colour, piece_at(s, square), square]
    key ^= CASTLING_KEYS[s[CASTLING]]
    if s[EP] >= 0:
        key ^= EP_KEYS[s[EP] & 7]
    return np.int64(key)


@njit(cache=True)
def _toggle(s, slot: int, squares: np.uint64):
    return tuple_setitem(s, slot, np.int64(board(s, slot) ^ squares))


@njit(cache=True)
def with_legal_en_passant(s, square: int):
    """``s`` with en-passant target ``square`` set, if the side to move has a legal en-passant capture
    there, and its key updated; else ``s``."""
    us = s[TURN]
    candidate = tuple_setitem(s, EP, square)
    pawns = PAWN_ATTACKS[1 - us, square] & board(s, PAWNS) & board(s, WHITE + us)
    while pawns:
        if en_passant_is_legal(candidate, lsb(pawns)):
            return tuple_setitem(candidate, KEY, np.int64(np.uint64(s[KEY]) ^ EP_KEYS[square & 7]))
        pawns &= pawns - U1
    return s


@njit(cache=True)
def make(s, move: int):
    """The position after the packed legal ``move`` (no legality check, no terminal test)."""
    us = s[TURN]
    them = 1 - us
    frm, to, promotion = move & 63, move >> 6 & 63, move >> 12 & 7
    ends = bit(frm) | bit(to)
    piece = piece_at(s, frm)
    key = np.uint64(s[KEY]) ^ SIDE_KEY ^ CASTLING_KEYS[s[CASTLING]]
    if s[EP] >= 0:
        key ^= EP_KEYS[s[EP] & 7]
    halfmove = s[HALFMOVE] + 1
    t = s
    if board(s, WHITE + them) & bit(to):  # a capture
        taken = piece_at(s, to)
        t = _toggle(_toggle(t, PIECES + taken, bit(to)), WHITE + them, bit(to))
        key ^= PIECE_KEYS[them, taken, to]
        halfmove = 0
    t = _toggle(_toggle(t, PIECES + piece, ends), WHITE + us, ends)
    key ^= PIECE_KEYS[us, piece, frm] ^ PIECE_KEYS[us, piece, to]
    double_push = False
    if piece == PAWN:
        halfmove = 0
        if to == s[EP]:
            captured = to ^ 8
            t = _toggle(_toggle(t, PAWNS, bit(captured)), WHITE + them, bit(captured))
            key ^= PIECE_KEYS[them, PAWN, captured]
        elif promotion:
            t = _toggle(_toggle(t, PAWNS, bit(to)), PIECES + promotion, bit(to))
            key ^= PIECE_KEYS[us, PAWN, to] ^ PIECE_KEYS[us, promotion, to]
        double_push = abs(to - frm) == 16
    elif piece == KING and abs(to - frm) == 2:  # castling: the rook jumps over the king
        rook_from, rook_to = (to + 1, to - 1) if to > frm else (to - 2, to + 1)
        rook = bit(rook_from) | bit(rook_to)
        t = _toggle(_toggle(t, ROOKS, rook), WHITE + us, rook)
        key ^= PIECE_KEYS[us, ROOK, rook_from] ^ PIECE_KEYS[us, ROOK, rook_to]
    rights = s[CASTLING] & CASTLING_MASK[frm] & CASTLING_MASK[to]
    key ^= CASTLING_KEYS[rights]
    child = (
        np.int64(them),
        np.int64(0),
        t[2],
        t[3],
        t[4],
        t[5],
        t[6],
        t[7],
        t[8],
        t[9],
        rights,
        np.int64(-1),
        halfmove,
        s[FULLMOVE] + us,
        np.int64(key),
        np.int64(0),
        np.int64(them),
    )
    if double_push:
        return with_legal_en_passant(child, (frm + to) >> 1)
    return child


@njit(cache=True)
def _insufficient(s, colour: int) -> bool:
    """python-chess's ``has_insufficient_material(colour)``: ``colour`` cannot mate whatever happens."""
    own, other = board(s, WHITE + colour), board(s, WHITE + 1 - colour)
    kings, queens, knights, bishops = board(s, KINGS), board(s, QUEENS), board(s, KNIGHTS), board(s, BISHOPS)
    if own & (board(s, PAWNS) | board(s, ROOKS) | queens):
        return False
    if own & knights:
        return popcount(own) <= 2 and not other & ~kings & ~queens
    if own & bishops:
        same_colour = not bishops & np.uint64(DARK_SQUARES) or not bishops & ~np.uint64(DARK_SQUARES)
        return same_colour and not board(s, PAWNS) and not knights
    return True


@njit(cache=True)
def insufficient_material(s) -> bool:
    """Neither side can mate (python-chess's ``is_insufficient_material``)."""
    return _insufficient(s, 0) and _insufficient(s, 1)


@njit(cache=True)
def _over(s, termination: int, white_return: int):
    return tuple_setitem(tuple_setitem(tuple_setitem(s, 0, TERMINAL), 1, white_return), TERMINATION, termination)


@njit(cache=True)
def judge(s):
    """``s`` with its result when the game is over there, in python-chess's order: checkmate,
    insufficient material, stalemate, the fifty-move rule (halfmove clock at 100)."""
    moves = count(s)
    if moves == 0 and checkers(s):
        return _over(s, CHECKMATE, 2 * s[TURN] - 1)
    if insufficient_material(s):
        return _over(s, INSUFFICIENT_MATERIAL, 0)
    if moves == 0:
        return _over(s, STALEMATE, 0)
    if s[HALFMOVE] >= 100:
        return _over(s, FIFTY_MOVES, 0)
    return s
