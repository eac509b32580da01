"""A hand-crafted chess evaluation: PeSTO's tapered tables plus mobility, pawns, king safety.

The score is in centipawns from the side to move (`centipawns`), an integer, built from white's and
black's terms, each a pair (middlegame, endgame) of centipawns from that colour's point of view:

* ``material_pst`` -- PeSTO's material values and piece-square tables (`rlgames.games.chess.pesto`:
  Ronald Friederich's PeSTO / Rofchade, as published in the Chess Programming Wiki);
* ``mobility`` -- for each knight, bishop, rook and queen, the squares it attacks that its own side
  does not occupy (pseudo-legal: pins and checks are ignored; sliders stop at the first piece of
  either colour), minus a typical count `MOBILITY_CENTRE`, times `MOBILITY_MG` / `MOBILITY_EG`
  (after Fruit 2.1's mobility, so that the tables' material values stay calibrated);
* ``pawn_structure`` -- `DOUBLED_PAWN` for each pawn beyond the first on a file, `ISOLATED_PAWN` for
  each pawn with no friendly pawn on a neighbouring file, and a passed pawn (no enemy pawn ahead of it
  on its own or a neighbouring file) `PASSED_PAWN_MG` / `PASSED_PAWN_EG` by its rank, counted from
  its own side (larger in the endgame);
* ``king_safety`` -- middlegame only: the pawn shield of a castled king (on its first rank, on
  the a, b, c, f, g or h file: `SHIELD_NEAR` for each own pawn on the three files around it one rank
  ahead, `SHIELD_FAR` two ranks ahead), and the pieces attacking the *enemy* king's zone (the king's
  square and its neighbours): each attacking knight, bishop, rook or queen adds
  `KING_ATTACK_UNITS`, and the sum is scaled by `KING_ATTACK_WEIGHT` [number of attackers] / 100
  (the Chess Programming Wiki's "King Safety" example: one attacker alone is harmless);
* ``bishop_pair`` -- `BISHOP_PAIR` for a side with bishops on both square colours.

The game phase is PeSTO's: knight 1, bishop 1, rook 2, queen 4 summed over the board, clipped to 24
(`GAME_PHASE_MAX`, the start position). With ``mg`` and ``eg`` white's sums minus black's::

    cp = sign * (mg * phase + eg * (24 - phase)) / 24   (rounded toward zero) + TEMPO

where ``sign`` is +1 when white is to move, -1 when black is. Every term of one colour is computed by
the same code on mirrored tables, so the evaluation is exactly antisymmetric: mirroring the board
vertically and swapping the colours and the side to move leaves ``cp`` unchanged (left-right mirroring
does not: PeSTO's tables are asymmetric).

`value` is the one place where centipawns become values: the logistic of the Elo scale,
``value = 2 / (1 + 10 ** (-cp / VALUE_SCALE)) - 1`` (``= tanh(cp * ln 10 / 800)``), with
`VALUE_SCALE` = 400 centipawns: +400 cp is the value of a 10:1 winning chance (0.82), a queen up about
0.99. `cp_from_value` inverts it for UCI's ``score cp``.

Attacks are the rules' (`rlgames.games.chess.bitboards`: tables for the knight and the king, obstruction
difference for the sliders), on uint64 words that `piece_attacks` reads the evaluator's int64 boards as.
The kernel takes the compact state of `rlgames.games.chess` (a tuple of int64): s[0] the side to move,
s[2..7] the pawns, knights, bishops, rooks, queens and kings of both colours, s[8] white's pieces,
s[9] black's; square a1 = bit 0 .. h8 = bit 63 (the sign bit).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np
from numba import njit

from rlgames.evaluators.base import Evaluator
from rlgames.game import State
from rlgames.games.chess.actions import BISHOP, KING, KNIGHT, PAWN, QUEEN, ROOK
from rlgames.games.chess.bitboards import KING as KING_ATTACKS
from rlgames.games.chess.bitboards import KNIGHT as KNIGHT_ATTACKS
from rlgames.games.chess.bitboards import bishop_attacks, rook_attacks
from rlgames.games.chess.pesto import GAME_PHASE_MAX, PHASE_WEIGHTS, pesto_tables
from rlgames.games.chess.slots import BLACK, PIECES, PLAYER, WHITE
from rlgames.jit.bits import lsb, popcount

# ---------------------------------------------------------------------------------------------------
# Weights (centipawns). Pairs are (middlegame, endgame); per-piece tuples are in the order pawn,
# knight, bishop, rook, queen, king.

MOBILITY_MG = (0, 4, 5, 2, 1, 0)
"""Middlegame centipawns per attacked square not occupied by the own side (Fruit 2.1's weights)."""
MOBILITY_EG = (0, 4, 5, 4, 2, 0)
"""Endgame centipawns per such square (Fruit 2.1's weights)."""
MOBILITY_CENTRE = (0, 4, 6, 7, 13, 0)
"""The count that scores 0 (Fruit 2.1's "units"): fewer squares cost, more gain."""
DOUBLED_PAWN = (-10, -25)
"""Each pawn beyond the first on a file."""
ISOLATED_PAWN = (-8, -15)
"""Each pawn with no friendly pawn on a neighbouring file."""
PASSED_PAWN_MG = (0, 0, 2, 5, 10, 20, 35, 0)
"""A passed pawn on its side's rank 1..8 (index 0..7), middlegame (on top of PeSTO's pawn table)."""
PASSED_PAWN_EG = (0, 5, 10, 20, 35, 55, 80, 0)
"""A passed pawn by rank, endgame: larger, since a passer decides endgames."""
SHIELD_NEAR = 12
"""Middlegame, per own pawn one rank in front of a castled king (its file or a neighbouring one)."""
SHIELD_FAR = 6
"""Middlegame, per own pawn two ranks in front of a castled king."""
KING_ATTACK_UNITS = (0, 20, 20, 40, 80, 0)
"""Middlegame units of a piece attacking the enemy king's zone (the wiki's King Safety example)."""
KING_ATTACK_WEIGHT = (0, 0, 50, 75, 88, 94, 97, 99)
"""Percent of the units counted with 0, 1, 2, ... 7 or more attackers: a lone attacker is harmless."""
BISHOP_PAIR = (30, 50)
"""A side with a bishop on a light and one on a dark square."""
TEMPO = 10
"""Added to the score of the side to move (from the side to move's point of view)."""
VALUE_SCALE = 400.0
"""Centipawns of the logistic ``value = 2 / (1 + 10 ** (-cp / VALUE_SCALE)) - 1``."""

TERM_NAMES = ("material_pst", "mobility", "pawn_structure", "king_safety", "bishop_pair")
"""The terms of `evaluation_terms`, in order."""


# ---------------------------------------------------------------------------------------------------
# Tables, int64 (bit 63, h8, is the sign bit).


def bitboard(squares) -> int:
    """The int64 bitboard of ``squares``."""
    bits = sum(1 << int(q) for q in set(squares))
    return bits - (1 << 64) if bits >= 1 << 63 else bits


KING_ZONE = (KING_ATTACKS | np.left_shift(np.uint64(1), np.arange(64, dtype=np.uint64))).view(np.int64)
"""The king's square and its neighbours, where attackers count for `KING_ATTACK_UNITS`."""
FILES = np.array([bitboard(range(f, 64, 8)) for f in range(8)], dtype=np.int64)
_NOT_FILE_A = bitboard(q for q in range(64) if q % 8 != 0)
_NOT_FILE_H = bitboard(q for q in range(64) if q % 8 != 7)
_FILE_FILL = bitboard(range(0, 64, 8))
"""Times a set of files (bits 0 .. 7), the bitboard of those files."""
LIGHT_SQUARES = bitboard(q for q in range(64) if (q // 8 + q % 8) % 2 == 1)
DARK_SQUARES = bitboard(q for q in range(64) if (q // 8 + q % 8) % 2 == 0)


def _relative_rank(c: int, q: int) -> int:
    """The rank of ``q`` (0 .. 7) counted from colour ``c``'s side."""
    return q // 8 if c == 0 else 7 - q // 8


def _shield(c: int, q: int, distance: int) -> int:
    """The pawn shield ``distance`` ranks in front of a castled king of colour ``c`` on ``q`` (0 when
    the king is not on its first rank, or on the d or e file)."""
    f = q % 8
    if _relative_rank(c, q) != 0 or f in (3, 4):
        return 0
    r = q // 8 + (distance if c == 0 else -distance)
    return bitboard(8 * r + ff for ff in (f - 1, f, f + 1) if 0 <= ff < 8)


RELATIVE_RANK = np.array([[_relative_rank(c, q) for q in range(64)] for c in range(2)], dtype=np.int64)
SHIELD_NEAR_SQUARES = np.array([[_shield(c, q, 1) for q in range(64)] for c in range(2)], dtype=np.int64)
SHIELD_FAR_SQUARES = np.array([[_shield(c, q, 2) for q in range(64)] for c in range(2)], dtype=np.int64)
PST_MG, PST_EG = pesto_tables()
"""int64[2, 6, 64]: PeSTO's material plus table value of (colour, piece, square)."""

_MOBILITY_MG = np.array(MOBILITY_MG, dtype=np.int64)
_MOBILITY_EG = np.array(MOBILITY_EG, dtype=np.int64)
_MOBILITY_CENTRE = np.array(MOBILITY_CENTRE, dtype=np.int64)
_PASSED_MG = np.array(PASSED_PAWN_MG, dtype=np.int64)
_PASSED_EG = np.array(PASSED_PAWN_EG, dtype=np.int64)
_ATTACK_UNITS = np.array(KING_ATTACK_UNITS, dtype=np.int64)
_ATTACK_WEIGHT = np.array(KING_ATTACK_WEIGHT, dtype=np.int64)
_VALUE_RATE = math.log(10.0) / (2.0 * VALUE_SCALE)  # 2 / (1 + 10^(-x/S)) - 1 = tanh(x ln10 / 2S)
_MAX_VALUE = 1.0 - 1e-15
"""`cp_from_value` reads values beyond +-this as +-this (about +-6100 centipawns)."""

# ---------------------------------------------------------------------------------------------------
# The evaluation.


@njit(cache=True)
def piece_attacks(piece: int, q: int, occupied: int) -> int:
    """The squares a knight, bishop, rook or queen (``piece``) on ``q`` attacks, given the ``occupied``
    int64 board: the rules' uint64 attacks, the same 64 bits read as int64."""
    board = np.uint64(occupied)
    if piece == KNIGHT:
        attacks = KNIGHT_ATTACKS[q]
    elif piece == BISHOP:
        attacks = bishop_attacks(q, board)
    elif piece == ROOK:
        attacks = rook_attacks(q, board)
    else:
        attacks = bishop_attacks(q, board) | rook_attacks(q, board)
    return np.int64(attacks)


@njit(cache=True)
def _pieces(piece: int, c: int, board: int, own: int, occupied: int, zone: int):
    """PeSTO's and mobility's (mg, eg) of colour ``c``'s pieces of type ``piece`` on ``board``, and
    the number and units of those attacking the enemy king ``zone``."""
    pst_mg = pst_eg = mob = attackers = 0
    while board:
        q = lsb(board)
        board &= board - 1
        pst_mg += PST_MG[c, piece, q]
        pst_eg += PST_EG[c, piece, q]
        attacks = piece_attacks(piece, q, occupied)
        mob += popcount(attacks & ~own) - _MOBILITY_CENTRE[piece]
        attackers += (attacks & zone) != 0
    return (
        pst_mg,
        pst_eg,
        mob * _MOBILITY_MG[piece],
        mob * _MOBILITY_EG[piece],
        attackers,
        attackers * _ATTACK_UNITS[piece],
    )


@njit(cache=True)
def _files(pawns: int) -> int:
    """The files holding one of ``pawns`` (no pawn on the first or last rank), as bits 0 (a) .. 7 (h)."""
    x = pawns | pawns >> 32
    x |= x >> 16
    x |= x >> 8
    return x & 0xFF


@njit(cache=True)
def _not_passed(c: int, their_pawns: int) -> int:
    """The squares where a pawn of colour ``c`` is not passed: those in front of ``their_pawns`` (the
    enemy's, seen from the enemy's side) on their files and the neighbouring ones."""
    if c == 0:  # black pawns stop white pawns on lower ranks (pawn boards are >= 0: no sign bit)
        x = their_pawns >> 8
        x |= x >> 8
        x |= x >> 16
        x |= x >> 32
    else:
        x = their_pawns << 8
        x |= x << 8
        x |= x << 16
        x |= x << 32
    return x | (x << 1 & _NOT_FILE_A) | (x >> 1 & _NOT_FILE_H)


@njit(cache=True)
def colour_terms(
    c: int, own: int, opp: int, pawns: int, knights: int, bishops: int, rooks: int, queens: int, kings: int
):
    """The terms of colour ``c`` (0 white, 1 black) owning ``own``, against ``opp``: a tuple of
    (mg, eg) pairs in `TERM_NAMES` order, flattened, from colour ``c``'s point of view."""
    occupied = own | opp
    their_king = kings & opp
    zone = KING_ZONE[lsb(their_king)] if their_king else 0
    n_mg, n_eg, nm_mg, nm_eg, n_att, n_units = _pieces(KNIGHT, c, knights & own, own, occupied, zone)
    b_mg, b_eg, bm_mg, bm_eg, b_att, b_units = _pieces(BISHOP, c, bishops & own, own, occupied, zone)
    r_mg, r_eg, rm_mg, rm_eg, r_att, r_units = _pieces(ROOK, c, rooks & own, own, occupied, zone)
    q_mg, q_eg, qm_mg, qm_eg, q_att, q_units = _pieces(QUEEN, c, queens & own, own, occupied, zone)
    material_mg = n_mg + b_mg + r_mg + q_mg
    material_eg = n_eg + b_eg + r_eg + q_eg
    mobility_mg = nm_mg + bm_mg + rm_mg + qm_mg
    mobility_eg = nm_eg + bm_eg + rm_eg + qm_eg
    attackers = min(n_att + b_att + r_att + q_att, 7)
    king_mg = (n_units + b_units + r_units + q_units) * _ATTACK_WEIGHT[attackers] // 100

    own_pawns = pawns & own
    board = own_pawns
    while board:
        q = lsb(board)
        board &= board - 1
        material_mg += PST_MG[c, PAWN, q]
        material_eg += PST_EG[c, PAWN, q]
    passed = own_pawns & ~_not_passed(c, pawns & opp)
    pawn_mg = pawn_eg = 0
    while passed:
        rank = RELATIVE_RANK[c, lsb(passed)]
        passed &= passed - 1
        pawn_mg += _PASSED_MG[rank]
        pawn_eg += _PASSED_EG[rank]
    files = _files(own_pawns)
    doubled = popcount(own_pawns) - popcount(files)
    isolated = popcount(own_pawns & (files & ~(files << 1 | files >> 1)) * _FILE_FILL)
    pawn_mg += doubled * DOUBLED_PAWN[0] + isolated * ISOLATED_PAWN[0]
    pawn_eg += doubled * DOUBLED_PAWN[1] + isolated * ISOLATED_PAWN[1]

    own_king = kings & own
    if own_king:
        k = lsb(own_king)
        material_mg += PST_MG[c, KING, k]
        material_eg += PST_EG[c, KING, k]
        king_mg += SHIELD_NEAR * popcount(own_pawns & SHIELD_NEAR_SQUARES[c, k]) + SHIELD_FAR * popcount(
            own_pawns & SHIELD_FAR_SQUARES[c, k]
        )

    own_bishops = bishops & own
    pair = 1 if own_bishops & LIGHT_SQUARES and own_bishops & DARK_SQUARES else 0
    return (
        material_mg,
        material_eg,
        mobility_mg,
        mobility_eg,
        pawn_mg,
        pawn_eg,
        king_mg,
        0,
        pair * BISHOP_PAIR[0],
        pair * BISHOP_PAIR[1],
    )


@njit(cache=True)
def game_phase(s) -> int:
    """PeSTO's game phase of the compact state ``s``: 24 (`GAME_PHASE_MAX`) at the start and above,
    0 with kings and pawns only."""
    phase = (
        PHASE_WEIGHTS[KNIGHT] * popcount(s[PIECES + KNIGHT])
        + PHASE_WEIGHTS[BISHOP] * popcount(s[PIECES + BISHOP])
        + PHASE_WEIGHTS[ROOK] * popcount(s[PIECES + ROOK])
        + PHASE_WEIGHTS[QUEEN] * popcount(s[PIECES + QUEEN])
    )
    return min(phase, GAME_PHASE_MAX)


@njit(cache=True)
def _both_terms(s):
    """White's and black's `colour_terms`. (The np.int64 make plain Python, ``NUMBA_DISABLE_JIT=1``,
    wrap around as the compiled code does.)"""
    white, black = np.int64(s[WHITE]), np.int64(s[BLACK])
    pawns, knights, bishops = np.int64(s[PIECES + PAWN]), np.int64(s[PIECES + KNIGHT]), np.int64(s[PIECES + BISHOP])
    rooks, queens, kings = np.int64(s[PIECES + ROOK]), np.int64(s[PIECES + QUEEN]), np.int64(s[PIECES + KING])
    return (
        colour_terms(0, white, black, pawns, knights, bishops, rooks, queens, kings),
        colour_terms(1, black, white, pawns, knights, bishops, rooks, queens, kings),
    )


@njit(cache=True)
def centipawns(s) -> int:
    """The tapered evaluation of the non-terminal compact state ``s`` in centipawns from the side to
    move (see the module docstring), an int."""
    w, b = _both_terms(s)
    mg = (w[0] + w[2] + w[4] + w[6] + w[8]) - (b[0] + b[2] + b[4] + b[6] + b[8])
    eg = (w[1] + w[3] + w[5] + w[7] + w[9]) - (b[1] + b[3] + b[5] + b[7] + b[9])
    phase = game_phase(s)
    total = mg * phase + eg * (GAME_PHASE_MAX - phase)
    if s[PLAYER] != 0:
        total = -total
    tapered = total // GAME_PHASE_MAX if total >= 0 else -(-total // GAME_PHASE_MAX)
    return tapered + TEMPO


@njit(cache=True)
def value_from_cp(cp: float) -> float:
    """``2 / (1 + 10 ** (-cp / VALUE_SCALE)) - 1``, in [-1, 1], increasing."""
    return math.tanh(cp * _VALUE_RATE)


@njit(cache=True)
def value(s) -> float:
    """The value in [-1, 1] of the non-terminal compact state ``s`` from the side to move:
    `value_from_cp` of `centipawns` -- the evaluator's compiled kernel."""
    return math.tanh(centipawns(s) * _VALUE_RATE)


@njit(cache=True)
def cp_from_value(v: float) -> int:
    """The centipawns whose `value_from_cp` is ``v`` (the inverse, rounded; for UCI's ``score cp``):
    ``VALUE_SCALE * log10((1 + v) / (1 - v))``; values beyond +-(1 - 1e-15) count as that bound."""
    v = min(max(v, -_MAX_VALUE), _MAX_VALUE)
    return round(math.atanh(v) / _VALUE_RATE)


@njit(cache=True)
def values_batch(states) -> np.ndarray:
    """float64[B]: `value` of each row of the int64[B, n] array ``states`` of compact states."""
    out = np.empty(states.shape[0])
    for i in range(states.shape[0]):
        out[i] = value(states[i])
    return out


@njit(cache=True)
def evaluation_terms(s) -> np.ndarray:
    """int64[2, 5, 2]: [colour, term, (mg, eg)] -- each colour's terms (`TERM_NAMES`) from its own
    point of view, before tapering (for tests and explanations; the kernel does not build it)."""
    w, b = _both_terms(s)
    out = np.empty((2, 5, 2), dtype=np.int64)
    for t in range(5):
        out[0, t, 0], out[0, t, 1] = w[2 * t], w[2 * t + 1]
        out[1, t, 0], out[1, t, 1] = b[2 * t], b[2 * t + 1]
    return out


class ChessEvaluator(Evaluator):
    """The hand-crafted chess evaluation of this module: `value` of PeSTO's tapered tables plus
    mobility, pawn structure, king safety, the bishop pair and a tempo (see the module docstring),
    from the side to move, with no policy. Its compiled `kernel` is the module's `value`."""

    def value(self, state: State) -> float:
        return float(value(state.compact))

    def centipawns(self, state: State) -> int:
        """The evaluation of ``state`` in centipawns from the side to move."""
        return int(centipawns(state.compact))

    @property
    def kernel(self) -> Callable[..., float]:
        return value

    def evaluate_batch(self, states: Sequence[State]) -> tuple[np.ndarray, None]:
        if not states:
            return np.zeros(0), None
        return values_batch(np.array([state.compact for state in states], dtype=np.int64)), None

    def __repr__(self) -> str:
        return "ChessEvaluator()"
