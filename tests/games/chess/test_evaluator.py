"""The hand-crafted chess evaluator (`rlgames.games.chess.evaluator`), checked on positions from python-chess.

The compact states are built here from python-chess boards (the layout of `rlgames.games.chess`:
s[0] side to move, s[2..7] pawns .. kings of both colours, s[8] white's pieces, s[9] black's; the
other slots 0), so these tests do not depend on the chess rules of the package. A readable pure-Python
`reference_centipawns`, written from the module's constants and python-chess's attack sets, must agree
with the compiled kernel exactly.
"""

from __future__ import annotations

import itertools
import math
import random
from types import SimpleNamespace

import numpy as np
import pytest

chess = pytest.importorskip("chess")

from rlgames.games.chess import evaluator as ev
from rlgames.games.chess import pesto as tables

MG, EG = 0, 1
TERMS = {name: i for i, name in enumerate(ev.TERM_NAMES)}


def signed(bits: int) -> int:
    """The int64 with the 64 bits of the non-negative ``bits`` (bit 63, h8, is the sign bit)."""
    return bits - (1 << 64) if bits >= 1 << 63 else bits


def compact(board: chess.Board) -> tuple:
    """The compact state of ``board`` (the slots the evaluator reads; the others 0)."""
    s = [0] * 16
    s[0] = 0 if board.turn == chess.WHITE else 1
    for piece_type in chess.PIECE_TYPES:  # pawn = 1 .. king = 6 -> s[2] .. s[7]
        both = board.pieces_mask(piece_type, chess.WHITE) | board.pieces_mask(piece_type, chess.BLACK)
        s[1 + piece_type] = signed(both)
    s[8] = signed(board.occupied_co[chess.WHITE])
    s[9] = signed(board.occupied_co[chess.BLACK])
    return tuple(s)


def cp(fen_or_board) -> int:
    board = chess.Board(fen_or_board) if isinstance(fen_or_board, str) else fen_or_board
    return int(ev.centipawns(compact(board)))


def terms(fen: str) -> np.ndarray:
    """int64[2, 5, 2]: [colour (0 white), term, (mg, eg)] of ``fen``."""
    return ev.evaluation_terms(compact(chess.Board(fen)))


def random_positions(count: int, seed: int, max_plies: int = 200) -> list[chess.Board]:
    """``count`` non-terminal positions from random games of random length."""
    rng = random.Random(seed)
    positions = []
    while len(positions) < count:
        board = chess.Board()
        for _ in range(rng.randrange(max_plies)):
            moves = list(board.legal_moves)
            if not moves:
                break
            board.push(rng.choice(moves))
        if not board.is_game_over():
            positions.append(board)
    return positions


CRAFTED = [
    # castled kings with pawn shields (random games seldom castle)
    "r1bq1rk1/pppp1ppp/2n2n2/2b1p3/2B1P3/3P1N2/PPP2PPP/RNBQ1RK1 w - - 1 6",
    "r1bq1rk1/pp2ppbp/2np1np1/8/3NP3/2N1BP2/PPPQ2PP/2KR1B1R b - - 4 9",
    # pieces swarming a king
    "r4rk1/ppp2ppp/8/3q4/6n1/2N2Q2/PPP2PPP/R4RK1 w - - 0 1",
    "2r3k1/5ppp/8/8/2b5/5nq1/5PP1/4RK1R b - - 0 1",
    # endgames: passed pawns, doubled and isolated pawns, few pieces
    "8/5k2/8/3P4/8/8/5K2/8 w - - 0 1",
    "8/1p3k2/1P6/1P1p4/8/2P5/5K2/8 b - - 0 1",
    "4k3/8/8/8/8/8/PPPPPPPP/4K3 w - - 0 1",
    "3qk3/8/8/8/8/8/8/3QK3 b - - 0 1",
    # promoted pieces: a third bishop, a second queen, a phase over 24
    "QQQQk3/QQ6/8/8/8/8/8/B1B1K2B w - - 0 1",
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
]


@pytest.fixture(scope="module")
def positions() -> list[chess.Board]:
    return random_positions(200, seed=2024)


# ---------------------------------------------------------------------------------------------------
# A readable reference, from the module's constants and python-chess's attacks.


def reference_terms(board: chess.Board, color: chess.Color) -> dict[str, tuple[int, int]]:
    """The (mg, eg) of each term for ``color``, from its own point of view."""
    white = color == chess.WHITE
    forward = 1 if white else -1
    own = chess.SquareSet(board.occupied_co[color])

    material = [0, 0]
    for piece_type in chess.PIECE_TYPES:
        p = piece_type - 1
        for square in board.pieces(piece_type, color):
            # the wiki's tables list a8 .. h8 first, as seen by white; black reads them mirrored
            wiki_index = square ^ 56 if white else square
            material[MG] += tables.MG_VALUE[p] + tables.MG_TABLES[p][wiki_index]
            material[EG] += tables.EG_VALUE[p] + tables.EG_TABLES[p][wiki_index]

    mobility = [0, 0]
    enemy_king = board.king(not color)
    zone = chess.SquareSet(chess.BB_KING_ATTACKS[enemy_king]) | chess.SquareSet(chess.BB_SQUARES[enemy_king])
    attackers = units = 0
    for piece_type in (chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN):
        p = piece_type - 1
        for square in board.pieces(piece_type, color):
            attacks = board.attacks(square)
            squares = len(attacks - own) - ev.MOBILITY_CENTRE[p]
            mobility[MG] += ev.MOBILITY_MG[p] * squares
            mobility[EG] += ev.MOBILITY_EG[p] * squares
            if attacks & zone:
                attackers += 1
                units += ev.KING_ATTACK_UNITS[p]
    king = [units * ev.KING_ATTACK_WEIGHT[min(attackers, 7)] // 100, 0]

    pawns = board.pieces(chess.PAWN, color)
    their_pawns = board.pieces(chess.PAWN, not color)
    structure = [0, 0]
    for square in pawns:
        file, rank = chess.square_file(square), chess.square_rank(square)
        stopped = any(
            abs(chess.square_file(t) - file) <= 1 and (chess.square_rank(t) - rank) * forward > 0 for t in their_pawns
        )
        if not stopped:
            relative_rank = rank if white else 7 - rank
            structure[MG] += ev.PASSED_PAWN_MG[relative_rank]
            structure[EG] += ev.PASSED_PAWN_EG[relative_rank]
    per_file = [sum(1 for q in pawns if chess.square_file(q) == f) for f in range(8)]
    doubled = sum(max(n - 1, 0) for n in per_file)
    isolated = sum(
        n for f, n in enumerate(per_file) if (f == 0 or per_file[f - 1] == 0) and (f == 7 or per_file[f + 1] == 0)
    )
    for phase in (MG, EG):
        structure[phase] += doubled * ev.DOUBLED_PAWN[phase] + isolated * ev.ISOLATED_PAWN[phase]

    king_square = board.king(color)
    king_file, king_rank = chess.square_file(king_square), chess.square_rank(king_square)
    castled = king_rank == (0 if white else 7) and king_file not in (3, 4)
    if castled:
        for distance, weight in ((1, ev.SHIELD_NEAR), (2, ev.SHIELD_FAR)):
            for file in range(max(king_file - 1, 0), min(king_file + 1, 7) + 1):
                if chess.square(file, king_rank + distance * forward) in pawns:
                    king[MG] += weight

    bishops = board.pieces_mask(chess.BISHOP, color)
    pair = bool(bishops & chess.BB_LIGHT_SQUARES) and bool(bishops & chess.BB_DARK_SQUARES)
    bishop_pair = list(ev.BISHOP_PAIR) if pair else [0, 0]

    return {
        "material_pst": tuple(material),
        "mobility": tuple(mobility),
        "pawn_structure": tuple(structure),
        "king_safety": tuple(king),
        "bishop_pair": tuple(bishop_pair),
    }


def reference_centipawns(board: chess.Board) -> int:
    """The tapered evaluation of ``board`` from the side to move, recomputed from the constants."""
    white, black = reference_terms(board, chess.WHITE), reference_terms(board, chess.BLACK)
    mg = sum(white[t][MG] - black[t][MG] for t in ev.TERM_NAMES)
    eg = sum(white[t][EG] - black[t][EG] for t in ev.TERM_NAMES)
    phase = sum(
        tables.PHASE_WEIGHTS[piece_type - 1] * len(board.pieces(piece_type, color))
        for piece_type in chess.PIECE_TYPES
        for color in chess.COLORS
    )
    phase = min(phase, tables.GAME_PHASE_MAX)
    total = mg * phase + eg * (tables.GAME_PHASE_MAX - phase)
    if board.turn == chess.BLACK:
        total = -total
    tapered = abs(total) // tables.GAME_PHASE_MAX * (1 if total >= 0 else -1)  # rounded toward zero
    return tapered + ev.TEMPO


def test_kernel_equals_the_python_reference(positions):
    boards = positions[:100] + [chess.Board(fen) for fen in CRAFTED]
    exercised = np.zeros((len(ev.TERM_NAMES), 2), dtype=bool)
    for board in boards:
        compiled = ev.evaluation_terms(compact(board))
        for c, color in enumerate((chess.WHITE, chess.BLACK)):
            reference = reference_terms(board, color)
            for t, name in enumerate(ev.TERM_NAMES):
                assert tuple(compiled[c, t]) == reference[name], (board.fen(), color, name)
                exercised[t] |= compiled[c, t] != 0
        assert cp(board) == reference_centipawns(board), board.fen()
    # the sample exercises every term in the middlegame (king safety has no endgame part)
    assert exercised[:, MG].all() and exercised[[0, 1, 2, 4], EG].all()


def test_reference_shield_and_attack_terms_are_exercised():
    """The crafted positions reach both parts of king safety: a castled king's shield (the start
    position has none: its king is on e1) and the scaled attackers."""
    italian = reference_terms(chess.Board(CRAFTED[0]), chess.WHITE)["king_safety"]
    assert italian[MG] == 3 * ev.SHIELD_NEAR
    assert reference_terms(chess.Board(), chess.WHITE)["king_safety"] == (0, 0)
    swarm = chess.Board(CRAFTED[3])
    assert reference_terms(swarm, chess.BLACK)["king_safety"][MG] > 0


# ---------------------------------------------------------------------------------------------------
# The tables.


def test_pesto_tables_are_read_with_a1_as_square_zero():
    # PeSTO's middlegame knight on g1 (wiki's last row, 7th column) is -19, on b8 (first row) -89
    assert ev.PST_MG[0, ev.KNIGHT, chess.G1] == 337 - 19
    assert ev.PST_MG[0, ev.KNIGHT, chess.B8] == 337 - 89
    # black reads the same table mirrored: a black knight on g8 is a white one on g1
    assert ev.PST_MG[1, ev.KNIGHT, chess.G8] == ev.PST_MG[0, ev.KNIGHT, chess.G1]
    # the endgame pawn table rewards a white pawn on the 7th rank (178 on a7), not on the 2nd
    assert ev.PST_EG[0, ev.PAWN, chess.A7] == 94 + 178
    assert ev.PST_EG[0, ev.PAWN, chess.A2] == 94 + 13
    # a middlegame king is safest castled on g1 (24) and exposed on e4 (-46 -> wiki row 5, column e)
    assert ev.PST_MG[0, ev.KING, chess.G1] == 24
    assert ev.PST_MG[0, ev.KING, chess.E4] == -46
    assert tables.MG_VALUE == (82, 337, 365, 477, 1025, 0) and tables.EG_VALUE == (94, 281, 297, 512, 936, 0)


def test_piece_attacks_match_python_chess():
    """The evaluator reads its int64 boards through the rules' uint64 attacks (`piece_attacks`): the same
    squares as python-chess's tables, the sign bit (h8) included."""
    rng = random.Random(7)
    for _ in range(200):
        occupied = rng.getrandbits(64) & rng.getrandbits(64)
        square = rng.randrange(64)
        bishop = chess.BB_DIAG_ATTACKS[square][chess.BB_DIAG_MASKS[square] & occupied]
        rook = (
            chess.BB_RANK_ATTACKS[square][chess.BB_RANK_MASKS[square] & occupied]
            | chess.BB_FILE_ATTACKS[square][chess.BB_FILE_MASKS[square] & occupied]
        )
        assert ev.piece_attacks(ev.BISHOP, square, signed(occupied)) == signed(bishop)
        assert ev.piece_attacks(ev.ROOK, square, signed(occupied)) == signed(rook)
        assert ev.piece_attacks(ev.QUEEN, square, signed(occupied)) == signed(bishop | rook)
        assert ev.piece_attacks(ev.KNIGHT, square, signed(occupied)) == signed(chess.BB_KNIGHT_ATTACKS[square])
    for square in chess.SQUARES:
        assert ev.KING_ZONE[square] == signed(chess.BB_KING_ATTACKS[square] | chess.BB_SQUARES[square])


# ---------------------------------------------------------------------------------------------------
# Material, symmetry.


def test_start_position_is_a_tempo():
    board = chess.Board()
    assert cp(board) == ev.TEMPO
    board.turn = chess.BLACK
    assert cp(board) == ev.TEMPO
    assert abs(ev.value(compact(board))) < 0.05


def test_a_queen_up_is_winning():
    no_black_queen = chess.Board("rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1")
    assert ev.value(compact(no_black_queen)) > 0.8
    no_black_queen.turn = chess.BLACK
    assert ev.value(compact(no_black_queen)) < -0.8
    no_white_queen = chess.Board("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNB1KBNR b KQkq - 0 1")
    assert ev.value(compact(no_white_queen)) > 0.8
    no_white_queen.turn = chess.WHITE
    assert ev.value(compact(no_white_queen)) < -0.8


def test_colour_flip_symmetry(positions):
    """Mirroring the board vertically and swapping colours and the side to move (python-chess's
    `Board.mirror`) leaves the evaluation from the side to move unchanged, exactly."""
    for board in positions + [chess.Board(fen) for fen in CRAFTED]:
        s, flipped = compact(board), compact(board.mirror())
        assert ev.centipawns(s) == ev.centipawns(flipped), board.fen()
        assert ev.value(s) == ev.value(flipped)
        terms_, flipped_terms = ev.evaluation_terms(s), ev.evaluation_terms(flipped)
        assert (terms_[0] == flipped_terms[1]).all() and (terms_[1] == flipped_terms[0]).all()


def test_side_to_move_swaps_the_sign_up_to_the_tempo(positions):
    for board in positions[:50]:
        other = board.copy(stack=False)
        other.turn = not board.turn
        assert cp(board) + cp(other) == 2 * ev.TEMPO


def test_left_right_mirror_is_not_assumed():
    """PeSTO's tables are asymmetric: the kingside and queenside differ (a documented non-property)."""
    board = chess.Board("4k3/8/8/8/8/8/8/1N2K3 w - - 0 1")
    assert cp(board) != cp(board.transform(chess.flip_horizontal))


# ---------------------------------------------------------------------------------------------------
# One check per feature: the term moves the right way, and so does the whole score.


def test_doubled_pawn():
    # c2 d2 e2 against c2 d2 d3: the same pawns blocked by c7 d7 e7, one now doubled
    straight = "4k3/2ppp3/8/8/8/8/2PPP3/4K3 w - - 0 1"
    doubled = "4k3/2ppp3/8/8/8/3P4/2PP4/4K3 w - - 0 1"
    gain = terms(doubled)[0, TERMS["pawn_structure"]] - terms(straight)[0, TERMS["pawn_structure"]]
    assert tuple(gain) == ev.DOUBLED_PAWN and all(g < 0 for g in gain)
    assert cp(doubled) < cp(straight)


def test_isolated_pawn():
    # white a2 c2 against a2 b2: both blocked by black pawns on a7 b7 c7; a2 and c2 are isolated
    connected = "4k3/ppp5/8/8/8/8/PP6/4K3 w - - 0 1"
    isolated = "4k3/ppp5/8/8/8/8/P1P5/4K3 w - - 0 1"
    gain = terms(isolated)[0, TERMS["pawn_structure"]] - terms(connected)[0, TERMS["pawn_structure"]]
    assert tuple(gain) == tuple(2 * w for w in ev.ISOLATED_PAWN)
    assert cp(isolated) < cp(connected)


def test_passed_pawn_bonus_grows_with_rank_and_in_the_endgame():
    structure = TERMS["pawn_structure"]
    # a white pawn on e5 (isolated either way) with a black pawn on d7 (not passed) or a7 (passed)
    blocked_fen, passed_fen = "4k3/3p4/8/4P3/8/8/8/4K3 w - - 0 1", "4k3/p7/8/4P3/8/8/8/4K3 w - - 0 1"
    blocked, passed = terms(blocked_fen)[0, structure], terms(passed_fen)[0, structure]
    assert tuple(blocked) == ev.ISOLATED_PAWN
    assert tuple(passed - blocked) == (ev.PASSED_PAWN_MG[4], ev.PASSED_PAWN_EG[4])
    assert ev.PASSED_PAWN_EG[4] > ev.PASSED_PAWN_MG[4] > 0
    assert cp(passed_fen) > cp(blocked_fen)
    # a black passer counts its rank from black's side: e4 is its fifth rank
    black = terms("4k3/8/8/8/4p3/8/8/4K3 w - - 0 1")[1, structure]
    assert tuple(black) == (ev.PASSED_PAWN_MG[4] + ev.ISOLATED_PAWN[0], ev.PASSED_PAWN_EG[4] + ev.ISOLATED_PAWN[1])
    # a lone white e-pawn on the 2nd .. 7th rank: the bonus grows with the rank
    bonus = [
        terms(fen)[0, structure]
        for fen in (
            "4k3/8/8/8/8/8/4P3/K7 w - - 0 1",
            "4k3/8/8/8/8/4P3/8/K7 w - - 0 1",
            "4k3/8/8/8/4P3/8/8/K7 w - - 0 1",
            "4k3/8/8/4P3/8/8/8/K7 w - - 0 1",
            "4k3/8/4P3/8/8/8/8/K7 w - - 0 1",
            "8/4P1k1/8/8/8/8/8/K7 w - - 0 1",
        )
    ]
    for lower, higher in itertools.pairwise(bonus):
        assert higher[MG] >= lower[MG] and higher[EG] > lower[EG]


def test_bishop_pair_is_worth_more_than_bishop_and_knight():
    pair = "4k3/8/8/8/8/8/8/2B1KB2 w - - 0 1"
    mixed = "4k3/8/8/8/8/8/8/2B1KN2 w - - 0 1"
    assert tuple(terms(pair)[0, TERMS["bishop_pair"]]) == ev.BISHOP_PAIR
    assert tuple(terms(mixed)[0, TERMS["bishop_pair"]]) == (0, 0)
    assert cp(pair) > cp(mixed)
    # beyond what the tables and mobility give a bishop over a knight, the pair adds its tapered bonus
    phase = ev.game_phase(compact(chess.Board(pair)))
    others = (terms(pair)[0] - terms(mixed)[0])[: TERMS["bishop_pair"]].sum(axis=0)
    without_pair = (others[MG] * phase + others[EG] * (tables.GAME_PHASE_MAX - phase)) // tables.GAME_PHASE_MAX
    assert cp(pair) - cp(mixed) >= without_pair + min(ev.BISHOP_PAIR) - 1
    # two bishops on squares of one colour are no pair
    same_colour = "4k3/8/8/8/8/8/8/1B2KB2 w - - 0 1"
    assert tuple(terms(same_colour)[0, TERMS["bishop_pair"]]) == (0, 0)


def test_knight_mobility_centre_beats_corner():
    centre = "4k3/8/8/8/4N3/8/8/4K3 w - - 0 1"
    corner = "4k3/8/8/8/8/8/8/N3K3 w - - 0 1"
    mobility = TERMS["mobility"]
    gain = terms(centre)[0, mobility] - terms(corner)[0, mobility]
    assert tuple(gain) == (6 * ev.MOBILITY_MG[ev.KNIGHT], 6 * ev.MOBILITY_EG[ev.KNIGHT])  # 8 squares vs 2
    assert cp(centre) > cp(corner)


def test_mobility_excludes_own_pieces_only():
    # a rook on a1 hemmed in by its own pawn on a2 and knight on b1 has no move; by enemy pieces, 2
    own = terms("4k3/8/8/8/8/8/P7/RN2K3 w - - 0 1")[0, TERMS["mobility"]]
    enemy = terms("4k3/8/8/8/8/8/p7/Rn2K3 w - - 0 1")[0, TERMS["mobility"]]
    knight_b1 = ev.MOBILITY_MG[ev.KNIGHT] * (3 - ev.MOBILITY_CENTRE[ev.KNIGHT])  # a3 c3 d2
    assert own[MG] == ev.MOBILITY_MG[ev.ROOK] * (0 - ev.MOBILITY_CENTRE[ev.ROOK]) + knight_b1
    assert enemy[MG] == ev.MOBILITY_MG[ev.ROOK] * (2 - ev.MOBILITY_CENTRE[ev.ROOK])


def test_pawn_shield_of_a_castled_king():
    shielded = "6k1/8/8/8/8/8/5PPP/6K1 w - - 0 1"
    pushed = "6k1/8/8/8/8/5PPP/8/6K1 w - - 0 1"
    bare = "6k1/8/8/8/5PPP/8/8/6K1 w - - 0 1"
    king = TERMS["king_safety"]
    assert terms(shielded)[0, king, MG] == 3 * ev.SHIELD_NEAR
    assert terms(pushed)[0, king, MG] == 3 * ev.SHIELD_FAR
    assert terms(bare)[0, king, MG] == 0
    # no shield for a king in the centre, nor in the endgame
    assert terms("6k1/8/8/8/8/8/3PPP2/4K3 w - - 0 1")[0, king, MG] == 0
    assert terms(shielded)[0, king, EG] == 0


def test_pieces_attacking_the_king():
    # the black queen and knight near white's king, or far from it
    near = "4k3/8/8/8/8/5q1n/8/6K1 w - - 0 1"
    far = "4k3/8/n7/q7/8/8/8/6K1 w - - 0 1"
    king = TERMS["king_safety"]
    expected = (ev.KING_ATTACK_UNITS[ev.QUEEN] + ev.KING_ATTACK_UNITS[ev.KNIGHT]) * ev.KING_ATTACK_WEIGHT[2] // 100
    assert terms(near)[1, king, MG] == expected > 0
    assert terms(far)[1, king, MG] == 0
    # a lone attacker counts nothing
    assert terms("4k3/8/8/8/8/5q2/8/6K1 w - - 0 1")[1, king, MG] == 0
    # with material on the board, the attack is worth more to black than the same pieces far away
    full = "r3k2r/pppppppp/8/8/8/{}/PPPPP3/R4RK1 w - - 0 1"
    assert terms(full.format("5qn1"))[1, king, MG] > terms(full.format("qn6"))[1, king, MG]


def test_tempo_and_phase():
    assert ev.game_phase(compact(chess.Board())) == tables.GAME_PHASE_MAX
    assert ev.game_phase(compact(chess.Board("4k3/pppppppp/8/8/8/8/PPPPPPPP/4K3 w - - 0 1"))) == 0
    assert ev.game_phase(compact(chess.Board(CRAFTED[8]))) == tables.GAME_PHASE_MAX  # 27, clipped


# ---------------------------------------------------------------------------------------------------
# Values.


def test_value_range_monotone_and_inverse():
    cps = np.arange(-3000, 3001, 7)
    values = np.array([ev.value_from_cp(float(c)) for c in cps])
    assert np.all(values >= -1) and np.all(values <= 1)
    assert np.all(np.diff(values) > 0)
    assert ev.value_from_cp(0.0) == 0.0
    # the logistic of the docstring, 400 centipawns to a 10:1 chance
    for c in (-800, -400, -100, 35, 400, 1000):
        assert math.isclose(ev.value_from_cp(float(c)), 2 / (1 + 10 ** (-c / 400)) - 1, rel_tol=1e-12, abs_tol=1e-15)
    assert all(ev.cp_from_value(v) == c for c, v in zip(cps, values))
    assert ev.cp_from_value(1.0) > 5000 and ev.cp_from_value(-1.0) < -5000
    assert ev.value_from_cp(1e6) == 1.0 and ev.value_from_cp(-1e6) == -1.0


def test_value_of_states(positions):
    for board in positions[:50]:
        s = compact(board)
        v = ev.value(s)
        assert -1 <= v <= 1
        assert v == ev.value_from_cp(float(ev.centipawns(s)))
        assert ev.cp_from_value(v) == ev.centipawns(s)


def test_evaluator_protocol(positions):
    evaluator = ev.ChessEvaluator()
    states = [SimpleNamespace(compact=compact(board)) for board in positions[:20]]
    assert evaluator.kernel is ev.value
    assert evaluator.policy(states[0]) is None
    values, priors = evaluator.evaluate_batch(states)
    assert priors is None
    assert values.shape == (20,)
    assert values.tolist() == [evaluator.value(state) for state in states]
    assert [evaluator.centipawns(state) for state in states] == [cp(board) for board in positions[:20]]
    assert evaluator.evaluate_batch([])[0].shape == (0,)
