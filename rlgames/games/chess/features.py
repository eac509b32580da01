"""Chess's NNUE inputs: the pieces on their squares (768, updated move by move), then the threats (1,280)
and the positional inputs (448), recomputed at each evaluation."""

from __future__ import annotations

import numpy as np
from numba import njit

from rlgames.game import FeatureSet
from rlgames.games.chess.actions import (
    BISHOP,
    KING,
    KNIGHT,
    QUEEN,
    ROOK,
)
from rlgames.games.chess.bitboards import KING as KING_ATTACKS
from rlgames.games.chess.bitboards import KNIGHT as KNIGHT_ATTACKS
from rlgames.games.chess.bitboards import bishop_attacks, bit, rook_attacks
from rlgames.games.chess.movegen import board
from rlgames.games.chess.position import piece_at
from rlgames.games.chess.slots import (
    BLACK,
    PAWNS,
    PIECES,
    WHITE,
)
from rlgames.jit.bits import lsb, popcount
from rlgames.jit.stack import stack_int64, stack_uint64

NUM_FEATURES = 2 * 6 * 64
"""The NNUE inputs of chess: a piece of a side on a square."""


@njit(cache=True)
def features(s, player: int, out) -> int:
    """The pieces as NNUE inputs seen by ``player`` (Stockfish's simplest feature set, 768 inputs):
    ``(64 * (6 * side + piece) + square`` for each piece, ``side`` 0 for ``player``'s pieces and 1 for
    the opponent's, ``piece`` pawn .. king, the ``square`` seen by ``player`` (the board flipped top to
    bottom for black, so that both sides' pawns advance up the board). The NNUE reads them from the
    side to move."""
    flip = 56 * player
    n = 0
    for side in range(2):
        colour = board(s, WHITE + (player ^ side))
        for piece in range(6):
            pieces = board(s, PIECES + piece) & colour
            while pieces:
                out[n] = 64 * (6 * side + piece) + (lsb(pieces) ^ flip)
                pieces &= pieces - np.uint64(1)
                n += 1
    return n


@njit(cache=True)
def feature_changes(s, s2, player: int, out) -> int:
    """The inputs seen by ``player`` (`features`) that differ between ``s`` and ``s2`` (a child: a few),
    each ``s2`` gains written as its index and each it loses as ``-1 - index``; returns their number
    (a move: 2, a capture or promotion 3, castling or a capturing promotion 4; a null move none).
    A square's input changes only where its colour does (no move replaces a piece by another of the
    same side), so only those squares are read."""
    flip = 56 * player
    white, black, white2, black2 = board(s, WHITE), board(s, BLACK), board(s2, WHITE), board(s2, BLACK)
    changed = (white ^ white2) | (black ^ black2)
    n = 0
    while changed:
        q = lsb(changed)
        here = bit(q)
        if (white | black) & here:
            side = np.int64((black & here) != 0) ^ player
            out[n] = -1 - (64 * (6 * side + piece_at(s, q)) + (q ^ flip))
            n += 1
        if (white2 | black2) & here:
            side = np.int64((black2 & here) != 0) ^ player
            out[n] = 64 * (6 * side + piece_at(s2, q)) + (q ^ flip)
            n += 1
        changed &= changed - np.uint64(1)
    return n


NUM_THREAT_FEATURES = 2 * 2 * 5 * 64
"""The threat inputs of chess: a piece of a side (not a king) on a square, attacked; and hanging."""
MAX_ACTIVE_THREATS = 2 * 2 * 15
"""Each side's at most 15 pieces that are not its king, attacked and hanging."""
NOT_A_FILE = np.uint64(0xFEFE_FEFE_FEFE_FEFE)
NOT_H_FILE = np.uint64(0x7F7F_7F7F_7F7F_7F7F)


@njit(cache=True, inline="always")
def _pawn_attacks(pawns: np.uint64, colour: int) -> np.uint64:
    """The squares ``pawns`` of ``colour`` (white moving up) attack."""
    if colour == 0:
        return ((pawns << np.uint64(7)) & NOT_H_FILE) | ((pawns << np.uint64(9)) & NOT_A_FILE)
    return ((pawns >> np.uint64(9)) & NOT_H_FILE) | ((pawns >> np.uint64(7)) & NOT_A_FILE)


@njit(cache=True)
def _attacks(s, colour: int, occupied: np.uint64) -> tuple:
    """The squares the pieces of ``colour`` of each kind (pawn .. king) attack: six bitboards (a tuple:
    no array to allocate at each evaluation)."""
    own = board(s, WHITE + colour)
    pawn = _pawn_attacks(board(s, PAWNS) & own, colour)
    knight = bishop = rook = queen = np.uint64(0)
    pieces = board(s, PIECES + KNIGHT) & own
    while pieces:
        knight |= KNIGHT_ATTACKS[lsb(pieces)]
        pieces &= pieces - np.uint64(1)
    pieces = board(s, PIECES + BISHOP) & own
    while pieces:
        bishop |= bishop_attacks(lsb(pieces), occupied)
        pieces &= pieces - np.uint64(1)
    pieces = board(s, PIECES + ROOK) & own
    while pieces:
        rook |= rook_attacks(lsb(pieces), occupied)
        pieces &= pieces - np.uint64(1)
    pieces = board(s, PIECES + QUEEN) & own
    while pieces:
        q = lsb(pieces)
        queen |= bishop_attacks(q, occupied) | rook_attacks(q, occupied)
        pieces &= pieces - np.uint64(1)
    return pawn, knight, bishop, rook, queen, KING_ATTACKS[lsb(board(s, PIECES + KING) & own)]


@njit(cache=True)
def threat_features(s, player: int, out) -> int:
    """The threats as NNUE inputs seen by ``player`` (as `features`: ``side`` 0 for ``player``'s pieces,
    squares flipped for black): ``64 * (5 * side + piece) + square`` for each piece but a king attacked
    by the other side, and ``640 +`` the same for each of those hanging, that is undefended or attacked
    by a cheaper piece (a pawn; for a rook, a minor piece; for a queen, any but the king), as Stockfish's
    threat inputs and its classical evaluation's "hanging" and "threat by lesser piece" terms. An
    attack is a pseudo-legal capture's: a pinned piece attacks, a king attacks its neighbours."""
    occupied = board(s, WHITE) | board(s, BLACK)
    return _threats(s, player, _attacks(s, 0, occupied), _attacks(s, 1, occupied), out)


@njit(cache=True, inline="always")
def _threats(s, player: int, white: tuple, black: tuple, out) -> int:
    """`threat_features`' inputs from each side's attacks by kind (`_attacks`), into ``out``; their number."""
    flip = 56 * player
    by_white = white[0] | white[1] | white[2] | white[3] | white[4] | white[5]
    by_black = black[0] | black[1] | black[2] | black[3] | black[4] | black[5]
    n = 0
    for side in range(2):
        colour = player ^ side
        # the other side's attacks: selected as scalars (a tuple indexed at run time costs a third more)
        attacked, defended = (by_black, by_white) if colour == 0 else (by_white, by_black)
        pawns = black[0] if colour == 0 else white[0]
        minors = (black[0] | black[1] | black[2]) if colour == 0 else (white[0] | white[1] | white[2])
        rooks = black[3] if colour == 0 else white[3]
        own = board(s, WHITE + colour) & attacked
        for piece in range(5):
            cheaper = np.uint64(0) if piece == 0 else pawns if piece < 3 else minors if piece == 3 else minors | rooks
            hanging = ~defended | cheaper
            pieces = board(s, PIECES + piece) & own
            while pieces:
                q = lsb(pieces)
                index = 64 * (5 * side + piece) + (q ^ flip)
                out[n] = index
                out[n + 1] = 640 + index  # kept only where the piece hangs: no branch to mispredict
                n += 1 + np.int64((hanging >> np.uint64(q)) & np.uint64(1))
                pieces &= pieces - np.uint64(1)
    return n


NUM_POSITIONAL_FEATURES = 7 * 64
"""The positional inputs of chess, in runs of 64 (the learner's factorizer shares a row along each run):
a passed pawn of a side on a square (2 x 64), a knight, bishop, rook or queen of a side and its
mobility (2 x 4 x 32), a side's king and how many squares of its zone the other side attacks (2 x 10),
and padding."""
MAX_ACTIVE_POSITIONAL = 2 * 8 + 2 * 15 + 2
"""Each side's at most 8 passed pawns, 15 pieces with a mobility, and a king's zone."""
PASSED, MOBILITY, KING_DANGER = 0, 128, 384
MAX_MOBILITY, MAX_DANGER = 31, 9


@njit(cache=True)
def _front_span(pawns: np.uint64, colour: int) -> np.uint64:
    """The squares ahead of ``pawns`` (of ``colour``, white moving up) on their files and the two next to
    them: where a pawn of the other side stops one of them from being passed."""
    if colour == 0:
        span = pawns << np.uint64(8)
        span |= span << np.uint64(8)
        span |= span << np.uint64(16)
        span |= span << np.uint64(32)
    else:
        span = pawns >> np.uint64(8)
        span |= span >> np.uint64(8)
        span |= span >> np.uint64(16)
        span |= span >> np.uint64(32)
    return span | ((span << np.uint64(1)) & NOT_A_FILE) | ((span >> np.uint64(1)) & NOT_H_FILE)


@njit(cache=True)
def positional_features(s, player: int, out) -> int:
    """Positional terms of a classical evaluation as NNUE inputs seen by ``player`` (as `features`: ``side`` 0
    for ``player``'s pieces, squares flipped for black), recomputed at each evaluation: ``64 * side +
    square`` for each passed pawn (no pawn of the other side ahead of it on its file or the next ones);
    ``128 + 128 * side + 32 * kind + mobility`` for each knight, bishop, rook and queen (``kind`` 0-3),
    its mobility the squares it attacks that hold none of its side's pieces and no pawn of the other side
    attacks (at most 31); ``384 + 10 * side + danger`` for each king, ``danger`` the squares of its zone
    (its square and neighbours) the other side attacks (at most 9): what Stockfish's classical evaluation
    scores as passed pawns, mobility and king safety, which the pieces' squares and threats do not say."""
    occupied = board(s, WHITE) | board(s, BLACK)
    white_pawns, black_pawns = board(s, PAWNS) & board(s, WHITE), board(s, PAWNS) & board(s, BLACK)
    by_white_pawns, by_black_pawns = _pawn_attacks(white_pawns, 0), _pawn_attacks(black_pawns, 1)
    passed_white = white_pawns & ~_front_span(black_pawns, 1)
    passed_black = black_pawns & ~_front_span(white_pawns, 0)
    n, by_white = _side_terms(s, 0, player, occupied, passed_white, by_white_pawns, by_black_pawns, out, 0)
    n, by_black = _side_terms(s, 1, player, occupied, passed_black, by_black_pawns, by_white_pawns, out, n)
    n = _king_danger(s, 0, player, by_black, out, n)
    return _king_danger(s, 1, player, by_white, out, n)


@njit(cache=True, inline="always")
def _side_terms(
    s,
    colour: int,
    player: int,
    occupied: np.uint64,
    passed: np.uint64,
    own_pawn_attacks: np.uint64,
    their_pawn_attacks: np.uint64,
    out,
    n: int,
) -> tuple:
    """`positional_features`' passed pawns and mobilities of ``colour`` from ``out[n]`` on; their number
    after them and the squares ``colour`` attacks."""
    flip = 56 * player
    side = colour ^ player
    own = board(s, WHITE + colour)
    while passed:
        out[n] = PASSED + 64 * side + (lsb(passed) ^ flip)
        passed &= passed - np.uint64(1)
        n += 1
    safe = ~own & ~their_pawn_attacks
    attacked = own_pawn_attacks | KING_ATTACKS[lsb(board(s, PIECES + KING) & own)]
    base = MOBILITY + 128 * side
    for kind in range(4):
        pieces = board(s, PIECES + KNIGHT + kind) & own
        while pieces:
            reach = _reach(kind, lsb(pieces), occupied)
            attacked |= reach
            out[n] = base + 32 * kind + min(MAX_MOBILITY, popcount(reach & safe))
            pieces &= pieces - np.uint64(1)
            n += 1
    return n, attacked


@njit(cache=True, inline="always")
def _reach(kind: int, square: int, occupied: np.uint64) -> np.uint64:
    """The squares a knight, bishop, rook or queen (``kind`` 0-3) on ``square`` attacks."""
    if kind == 0:
        return KNIGHT_ATTACKS[square]
    if kind == 1:
        return bishop_attacks(square, occupied)
    if kind == 2:
        return rook_attacks(square, occupied)
    return bishop_attacks(square, occupied) | rook_attacks(square, occupied)


@njit(cache=True, inline="always")
def _king_danger(s, colour: int, player: int, attacked: np.uint64, out, n: int) -> int:
    """`positional_features`' input of the king of ``colour``, whose zone the other side's ``attacked``
    squares threaten, at ``out[n]``; ``n + 1``."""
    king = lsb(board(s, PIECES + KING) & board(s, WHITE + colour))
    danger = popcount((KING_ATTACKS[king] | bit(king)) & attacked)
    out[n] = KING_DANGER + 10 * (colour ^ player) + min(MAX_DANGER, danger)
    return n + 1


@njit(cache=True)
def threat_and_positional_features(s, player: int, out) -> int:
    """`threat_features`, then `positional_features` numbered from `NUM_THREAT_FEATURES` on: the same
    indices in the same order, from one pass over the pieces that computes each piece's attacks once,
    where the two kernels apart compute the sliders' twice (docs/research/nnue-speed.md#fused-inputs)."""
    occupied = board(s, WHITE) | board(s, BLACK)
    white_pawns, black_pawns = board(s, PAWNS) & board(s, WHITE), board(s, PAWNS) & board(s, BLACK)
    by_white_pawns, by_black_pawns = _pawn_attacks(white_pawns, 0), _pawn_attacks(black_pawns, 1)
    mobility = stack_int64(2 * 16)  # each side's mobility inputs (at most 15), then their number
    white = _attacks_and_mobility(s, 0, player, occupied, by_white_pawns, by_black_pawns, mobility[:16])
    black = _attacks_and_mobility(s, 1, player, occupied, by_black_pawns, by_white_pawns, mobility[16:])
    n = start = _threats(s, player, white, black, out)
    passed = (white_pawns & ~_front_span(black_pawns, 1), black_pawns & ~_front_span(white_pawns, 0))
    flip = 56 * player
    for colour in range(2):  # `_side_terms`' passed pawns and mobilities, white's then black's
        pawns = passed[colour]
        while pawns:
            out[n] = PASSED + 64 * (colour ^ player) + (lsb(pawns) ^ flip)
            pawns &= pawns - np.uint64(1)
            n += 1
        for j in range(mobility[16 * colour + 15]):
            out[n] = mobility[16 * colour + j]
            n += 1
    n = _king_danger(s, 0, player, black[0] | black[1] | black[2] | black[3] | black[4] | black[5], out, n)
    n = _king_danger(s, 1, player, white[0] | white[1] | white[2] | white[3] | white[4] | white[5], out, n)
    for j in range(start, n):
        out[j] += NUM_THREAT_FEATURES
    return n


@njit(cache=True, inline="always")
def _attacks_and_mobility(
    s,
    colour: int,
    player: int,
    occupied: np.uint64,
    own_pawn_attacks: np.uint64,
    their_pawn_attacks: np.uint64,
    mobility,
) -> tuple:
    """`_attacks` of ``colour``, writing its knights', bishops', rooks' and queens' mobility inputs
    (`_side_terms`) into ``mobility`` and their number into ``mobility[15]``."""
    own = board(s, WHITE + colour)
    safe = ~own & ~their_pawn_attacks
    base = MOBILITY + 128 * (colour ^ player)
    reaches = stack_uint64(4)
    n = 0
    for kind in range(4):
        reaches[kind] = np.uint64(0)
        pieces = board(s, PIECES + KNIGHT + kind) & own
        while pieces:
            reach = _reach(kind, lsb(pieces), occupied)
            reaches[kind] |= reach
            mobility[n] = base + 32 * kind + min(MAX_MOBILITY, popcount(reach & safe))
            pieces &= pieces - np.uint64(1)
            n += 1
    mobility[15] = n
    king = KING_ATTACKS[lsb(board(s, PIECES + KING) & own)]
    return own_pawn_attacks, reaches[0], reaches[1], reaches[2], reaches[3], king


FEATURE_SETS = {
    "pieces": FeatureSet(features, NUM_FEATURES, NUM_FEATURES, changes=feature_changes),
    "threats": FeatureSet(threat_features, NUM_THREAT_FEATURES, MAX_ACTIVE_THREATS, recomputed=True),
    "positional": FeatureSet(positional_features, NUM_POSITIONAL_FEATURES, MAX_ACTIVE_POSITIONAL, recomputed=True),
}
"""The NNUE's inputs by name: the pieces on their squares, updated move by move; the threats and the
positional inputs, recomputed at each evaluation."""
FUSED_FEATURE_SETS: dict[tuple[str, ...], FeatureSet] = {
    ("threats", "positional"): FeatureSet(
        threat_and_positional_features,
        NUM_THREAT_FEATURES + NUM_POSITIONAL_FEATURES,
        MAX_ACTIVE_THREATS + MAX_ACTIVE_POSITIONAL,
        recomputed=True,
    ),
}
"""The threats and the positional inputs in one kernel (`rlgames.game.Game.fused_feature_sets`)."""
