"""Legal move generation: pins and check evasion computed once per position, so that every move
listed is legal without trying it, and the moves can be counted without listing them (perft's bulk
counting, the terminal test of `apply`).

`generate` writes packed moves (`actions`' ``from | to << 6 | promotion << 12``) or, given ``None``
for its buffer, only counts them: numba prunes the writing branch in that specialisation. Its square
masks restrict the moves to some origins and destinations, which is how `apply` checks one action
with the same rules that list them.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from rlgames.games.chess.actions import BISHOP, CASTLE, KNIGHT, QUEEN, ROOK
from rlgames.games.chess.bitboards import (
    ALL,
    BETWEEN,
    BISHOP_EMPTY,
    KING,
    LINE,
    PAWN_ATTACKS,
    ROOK_EMPTY,
    U1,
    bishop_attacks,
    bit,
    rook_attacks,
)
from rlgames.games.chess.bitboards import KNIGHT as KNIGHT_ATTACKS
from rlgames.games.chess.slots import (
    BISHOPS,
    CASTLING,
    EP,
    KINGS,
    KNIGHTS,
    PAWNS,
    QUEENS,
    ROOKS,
    TURN,
    WHITE,
)
from rlgames.jit.bits import lsb, popcount


def _pushes(colour: int, step: int) -> np.ndarray:
    """``table[sq]``: the square ``step`` ranks ahead of a pawn of ``colour`` on ``sq`` (a single push
    from any rank but the last; a double push only from the pawn's start rank)."""
    table = np.zeros(64, dtype=np.uint64)
    for sq in range(8, 56):
        rank = sq // 8 if colour == 0 else 7 - sq // 8
        if step == 1 or rank == 1:
            table[sq] = 1 << (sq + (8 if colour == 0 else -8) * step)
    return table


PUSH = np.array([_pushes(0, 1), _pushes(1, 1)])
DOUBLE_PUSH = np.array([_pushes(0, 2), _pushes(1, 2)])
PROMOTING_RANK = np.array([0x00FF_0000_0000_0000, 0xFF00], dtype=np.uint64)
"""The rank from which a pawn of each colour promotes."""


@njit(cache=True)
def board(s, slot: int) -> np.uint64:
    """Slot ``slot`` of compact state ``s`` as a uint64 bitboard."""
    return np.uint64(s[slot])


@njit(cache=True)
def attackers(s, square: int, occupied: np.uint64, colour: int) -> np.uint64:
    """The pieces of ``colour`` among ``occupied`` that attack ``square`` when ``occupied`` are the
    occupied squares (a piece taken off ``occupied`` neither attacks nor blocks)."""
    queens = board(s, QUEENS)
    pieces = (
        (KNIGHT_ATTACKS[square] & board(s, KNIGHTS))
        | (KING[square] & board(s, KINGS))
        | (PAWN_ATTACKS[1 - colour, square] & board(s, PAWNS))
        | (bishop_attacks(square, occupied) & (board(s, BISHOPS) | queens))
        | (rook_attacks(square, occupied) & (board(s, ROOKS) | queens))
    )
    return pieces & board(s, WHITE + colour) & occupied


@njit(cache=True)
def checkers(s) -> np.uint64:
    """The pieces giving check to the side to move."""
    us = s[TURN]
    own = board(s, WHITE + us)
    return attackers(s, lsb(board(s, KINGS) & own), own | board(s, WHITE + 1 - us), 1 - us)


@njit(cache=True)
def en_passant_is_legal(s, frm: int) -> bool:
    """Whether the side to move's pawn on ``frm`` may take en passant on ``s[EP]``: its king is not
    attacked once both pawns have left their squares (discovered checks along the rank included)."""
    us, ep = s[TURN], s[EP]
    own = board(s, WHITE + us)
    captured = ep ^ 8  # the pawn taken stands one rank behind the target square
    occupied = ((own | board(s, WHITE + 1 - us)) ^ bit(frm) ^ bit(captured)) | bit(ep)
    return attackers(s, lsb(board(s, KINGS) & own), occupied, 1 - us) == 0


@njit(cache=True)
def _emit(out, n: int, frm: int, targets: np.uint64, promote: bool) -> int:
    """Appends the moves from ``frm`` to each of ``targets`` (the four promotions of each where
    ``promote``) to ``out[n:]``, or only counts them when ``out`` is None; returns the new count."""
    if out is None:
        return n + popcount(targets) * (4 if promote else 1)
    while targets:
        move = frm | lsb(targets) << 6
        targets &= targets - U1
        if promote:
            for piece in (QUEEN, ROOK, BISHOP, KNIGHT):
                out[n] = move | piece << 12
                n += 1
        else:
            out[n] = move
            n += 1
    return n


@njit(cache=True)
def _emit_one(out, n: int, move: int) -> int:
    """Appends one move (or counts it)."""
    if out is not None:
        out[n] = move
    return n + 1


@njit(cache=True)
def _pinned(s, king: int, own: np.uint64, occupied: np.uint64, them: np.uint64) -> np.uint64:
    """Our pieces that stand alone between our king and an enemy slider aiming at it."""
    queens = board(s, QUEENS)
    snipers = them & (
        (ROOK_EMPTY[king] & (board(s, ROOKS) | queens)) | (BISHOP_EMPTY[king] & (board(s, BISHOPS) | queens))
    )
    pinned = np.uint64(0)
    while snipers:
        between = BETWEEN[king, lsb(snipers)] & occupied
        snipers &= snipers - U1
        if between and not between & (between - U1):
            pinned |= between & own
    return pinned


@njit(cache=True)
def _king_moves(
    s, out, n: int, king: int, own: np.uint64, occupied: np.uint64, to_mask: np.uint64, in_check: bool
) -> int:
    """The king's steps to unattacked squares, then castling (not out of, through or into check)."""
    us = s[TURN]
    targets = KING[king] & ~own & to_mask
    without_king = occupied ^ bit(king)
    safe = np.uint64(0)
    while targets:
        to = lsb(targets)
        targets &= targets - U1
        if attackers(s, to, without_king, 1 - us) == 0:
            safe |= bit(to)
    n = _emit(out, n, king, safe, False)
    rights = s[CASTLING] >> 2 * us
    if in_check or not rights & 3:
        return n
    base = 56 * us
    if (
        rights & 1
        and to_mask & bit(base + 6)
        and not occupied & (bit(base + 5) | bit(base + 6))
        and not attackers(s, base + 5, occupied, 1 - us)
        and not attackers(s, base + 6, occupied, 1 - us)
    ):
        n = _emit_one(out, n, king | (base + 6) << 6 | CASTLE)
    if (
        rights & 2
        and to_mask & bit(base + 2)
        and not occupied & (bit(base + 1) | bit(base + 2) | bit(base + 3))
        and not attackers(s, base + 3, occupied, 1 - us)
        and not attackers(s, base + 2, occupied, 1 - us)
    ):
        n = _emit_one(out, n, king | (base + 2) << 6 | CASTLE)
    return n


@njit(cache=True)
def generate(s, out, from_mask: np.uint64, to_mask: np.uint64) -> int:
    """The legal moves of the side to move (``s[TURN]``) from a square of ``from_mask`` to a square of
    ``to_mask``: written to ``out[:n]`` as packed moves (``out`` None: only counted); returns ``n``."""
    us = s[TURN]
    own, them = board(s, WHITE + us), board(s, WHITE + 1 - us)
    occupied = own | them
    king = lsb(board(s, KINGS) & own)
    check = attackers(s, king, occupied, 1 - us)
    n = 0
    if from_mask & bit(king):
        n = _king_moves(s, out, n, king, own, occupied, to_mask, check != 0)
    if check & (check - U1):  # double check: only the king moves
        return n
    target = ~own & to_mask
    if check:
        target &= BETWEEN[king, lsb(check)] | check
    pinned = _pinned(s, king, own, occupied, them)
    mine = own & from_mask
    pieces = mine & board(s, KNIGHTS) & ~pinned  # a pinned knight never moves
    while pieces:
        frm = lsb(pieces)
        pieces &= pieces - U1
        n = _emit(out, n, frm, KNIGHT_ATTACKS[frm] & target, False)
    queens = board(s, QUEENS)
    pieces = mine & (board(s, BISHOPS) | board(s, ROOKS) | queens)
    diagonal = board(s, BISHOPS) | queens
    straight = board(s, ROOKS) | queens
    while pieces:
        frm = lsb(pieces)
        pieces &= pieces - U1
        attacks = np.uint64(0)
        if diagonal & bit(frm):
            attacks = bishop_attacks(frm, occupied)
        if straight & bit(frm):
            attacks |= rook_attacks(frm, occupied)
        attacks &= target
        if pinned & bit(frm):
            attacks &= LINE[king, frm]
        n = _emit(out, n, frm, attacks, False)
    pieces = mine & board(s, PAWNS)
    empty = ~occupied
    while pieces:
        frm = lsb(pieces)
        pieces &= pieces - U1
        pushes = PUSH[us, frm] & empty
        if pushes:
            pushes |= DOUBLE_PUSH[us, frm] & empty
        moves = (pushes | (PAWN_ATTACKS[us, frm] & them)) & target
        if pinned & bit(frm):
            moves &= LINE[king, frm]
        n = _emit(out, n, frm, moves, PROMOTING_RANK[us] & bit(frm) != 0)
    ep = s[EP]
    if ep >= 0 and to_mask & bit(ep):
        pieces = PAWN_ATTACKS[1 - us, ep] & mine & board(s, PAWNS)
        while pieces:
            frm = lsb(pieces)
            pieces &= pieces - U1
            if en_passant_is_legal(s, frm):
                n = _emit_one(out, n, frm | ep << 6)
    return n


@njit(cache=True)
def count(s) -> int:
    """The number of legal moves of the side to move (perft's bulk count)."""
    return generate(s, None, ALL, ALL)
