"""Chess: perft against the published numbers, random games against python-chess (moves, FENs, endings)
and OpenSpiel (action numbers, observations), every ending from both seats, and bad input."""

from __future__ import annotations

import sys
from pathlib import Path

import chess
import numpy as np
import pytest

import rlgames
from rlgames import IllegalActionError, Outcome
from rlgames.game import ILLEGAL, NO_REPETITION, REPETITION_DRAW
from rlgames.games.chess import Chess
from rlgames.games.chess.position import zobrist
from rlgames.games.chess.rules import KERNELS, null_move
from rlgames.games.chess.uci import cold_ending

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "benchmarks"))
from bench_chess import python_chess_perft  # noqa: E402  (the benchmark's reference, tested here)

START = chess.STARTING_FEN
KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq -"
POSITION_3 = "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - -"
POSITION_4 = "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1"
POSITION_4_MIRRORED = "r2q1rk1/pP1p2pp/Q4n2/bbp1p3/Np6/1B3NBn/pPPP1PPP/R3K2R b KQ - 0 1"
POSITION_5 = "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8"
POSITION_6 = "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10"
PERFT = {  # chessprogramming.org "Perft Results", depth 1 first
    START: (20, 400, 8902, 197281, 4865609, 119060324),
    KIWIPETE: (48, 2039, 97862, 4085603, 193690690),
    POSITION_3: (14, 191, 2812, 43238, 674624, 11030083),
    POSITION_4: (6, 264, 9467, 422333, 15833292),
    POSITION_4_MIRRORED: (6, 264, 9467, 422333, 15833292),
    POSITION_5: (44, 1486, 62379, 2103487, 89941194),
    POSITION_6: (46, 2079, 89890, 3894594, 164075551),
}
DEFAULT_DEPTH = {
    START: 4,
    KIWIPETE: 3,
    POSITION_3: 4,
    POSITION_4: 3,
    POSITION_4_MIRRORED: 3,
    POSITION_5: 3,
    POSITION_6: 3,
}


@pytest.fixture(scope="module")
def game() -> Chess:
    return Chess()


def perft_cases(slow: bool) -> list:
    cases = []
    for fen, counts in PERFT.items():
        for depth, nodes in enumerate(counts, 1):
            if (depth > DEFAULT_DEPTH[fen]) == slow:
                cases.append(pytest.param(fen, depth, nodes, id=f"{fen.split()[0][:12]}-d{depth}"))
    return cases


def test_the_written_start_is_the_fens(game):
    """`START_COMPACT` spares loading chess a compile: it must stay the start position's compact state."""
    from rlgames.games.chess.game import START_COMPACT
    from rlgames.games.chess.notation import START, parse_fen

    assert START_COMPACT == parse_fen(START) == game.new_initial_state().compact


@pytest.mark.parametrize("fen, depth, nodes", perft_cases(slow=False))
def test_perft(game, fen, depth, nodes):
    assert game.state_from_fen(fen).perft(depth) == nodes


@pytest.mark.slow
@pytest.mark.parametrize("fen, depth, nodes", perft_cases(slow=True))
def test_perft_deep(game, fen, depth, nodes):
    assert game.state_from_fen(fen).perft(depth) == nodes


@pytest.mark.parametrize("fen", list(PERFT))
def test_the_published_numbers_are_python_chess_perft(fen):
    depth = 3 if fen in (START, POSITION_3, POSITION_4) else 2
    assert python_chess_perft(chess.Board(fen), depth) == PERFT[fen][depth - 1]


def test_divide_names_every_move_and_sums_to_perft(game):
    state = game.state_from_fen(KIWIPETE)
    divide = state.divide(2)
    assert sorted(divide) == sorted(m.uci() for m in chess.Board(KIWIPETE).legal_moves)
    assert sum(divide.values()) == PERFT[KIWIPETE][1] and divide["e1g1"] == 43


# --- random games against python-chess and OpenSpiel ---------------------------------------------
def play_against_python_chess(game: Chess, rng: np.random.Generator) -> str:
    """One random game checked move by move against python-chess; returns how it ended."""
    state, board = game.new_initial_state(), chess.Board()
    while True:
        expected = sorted(m.uci() for m in board.legal_moves)
        ending = cold_ending(board)  # python-chess's board judged by the UCI engine's cold path
        assert state.is_terminal() == (ending is not None), board.fen()
        if ending:
            assert state.termination() == ending
            result = board.outcome(claim_draw=True).result() if ending != "repetition" else "1/2-1/2"
            assert state.outcome().result == result
            return ending
        actions = state.legal_actions()
        moves = [state.action_to_string(a) for a in actions]
        assert sorted(moves) == expected, board.fen()
        i = rng.integers(len(actions))
        state = state.apply(actions[i])
        board.push_uci(moves[i])
        assert state.fen() == board.fen()


def test_random_games_match_python_chess(game):
    rng = np.random.default_rng(2024)
    endings = {play_against_python_chess(game, rng) for _ in range(150)}
    assert endings == {"checkmate", "insufficient_material", "stalemate", "fifty_moves", "repetition"}


@pytest.mark.slow
def test_many_random_games_match_python_chess(game):
    rng = np.random.default_rng(7)
    for _ in range(10_000):
        play_against_python_chess(game, rng)


def play_against_openspiel(game: Chess, theirs, rng: np.random.Generator) -> None:
    """One random game: the same action numbers, SAN and observations as OpenSpiel's chess, until
    either side ends it (their insufficient-material rule is narrower than python-chess's)."""
    state, other = game.new_initial_state(), theirs.new_initial_state()
    seen: set[int] = set()
    while not state.is_terminal() and not other.is_terminal():
        actions = state.legal_actions()
        assert actions == other.legal_actions(), state.fen()
        if state.hash_key() not in seen:  # their repetition plane counts the history
            expected = np.array(other.observation_tensor(), dtype=np.float32).reshape(game.observation_shape)
            assert np.array_equal(state.observation(), expected)
        seen.add(state.hash_key())
        action = actions[rng.integers(len(actions))]
        assert state.san(action) == other.action_to_string(action)
        state = state.apply(action)
        other.apply_action(action)


def test_action_numbers_and_observations_match_openspiel(game):
    pyspiel = pytest.importorskip("pyspiel")
    theirs = pyspiel.load_game("chess")
    assert (game.num_actions, game.max_game_length) == (theirs.num_distinct_actions(), theirs.max_game_length())
    assert list(game.observation_shape) == theirs.observation_tensor_shape()
    rng = np.random.default_rng(5)
    for _ in range(20):
        play_against_openspiel(game, theirs, rng)


@pytest.mark.slow
def test_action_numbers_match_openspiel_over_many_games(game):
    pyspiel = pytest.importorskip("pyspiel")
    theirs = pyspiel.load_game("chess")
    rng = np.random.default_rng(11)
    for _ in range(1000):
        play_against_openspiel(game, theirs, rng)


def test_action_numbers_of_landmark_moves(game):
    start = game.new_initial_state()
    assert start.string_to_action("a2a3") == 89 == start.apply(89).string_to_action("a7a6")
    assert start.string_to_action("b1a3") == 652
    castles = game.state_from_fen("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1")
    assert [castles.string_to_action(m) for m in ("e1c1", "e1g1", "O-O-O", "O-O")] == [4672, 4673, 4672, 4673]
    promotions = game.state_from_fen("1r2k3/P7/8/8/8/8/8/4K3 w - - 0 1")
    assert [promotions.string_to_action(m) for m in ("a7a8r", "a7b8r", "a7a8b", "a7a8n", "a7a8q", "a7b8q")] == [
        438,
        439,
        441,
        444,
        454,
        482,
    ]


# --- kernels ---------------------------------------------------------------------------------------
def random_states(game: Chess, games: int, seed: int) -> list:
    rng = np.random.default_rng(seed)
    states = []
    for _ in range(games):
        state = game.new_initial_state()
        while not state.is_terminal():
            states.append(state)
            actions = state.legal_actions()
            state = state.apply(actions[rng.integers(len(actions))])
    return states


def test_incremental_keys_equal_keys_from_scratch_and_transpositions(game):
    for state in random_states(game, 5, seed=3)[::3]:
        assert state.hash_key() == zobrist(state.compact) == game.state_from_fen(state.fen()).hash_key()
    one = game.state_from_moves("g1f3 g8f6 b1c3")
    assert one.hash_key() == game.state_from_moves("b1c3 g8f6 g1f3").hash_key()
    assert one.hash_key() != game.state_from_moves("b1c3 g8f6 g1f3 b8c6").hash_key()


def test_the_key_holds_the_en_passant_file_only_when_the_capture_is_legal(game):
    capturable = game.state_from_moves("e2e4 a7a6 e4e5 d7d5")
    assert capturable.fen().split()[3] == "d6"
    assert "e5d6" in [capturable.action_to_string(a) for a in capturable.legal_actions()]
    pinned = game.state_from_fen("8/8/8/KPp4r/8/8/8/7k w - c6 0 1")  # b5xc6 would bare the king on the rank
    assert pinned.fen() == "8/8/8/KPp4r/8/8/8/7k w - - 0 1"
    assert pinned.hash_key() == game.state_from_fen("8/8/8/KPp4r/8/8/8/7k w - - 0 1").hash_key()
    assert "b5c6" not in [pinned.action_to_string(a) for a in pinned.legal_actions()]


def test_tactical_actions_and_move_scores(game):
    for state in random_states(game, 3, seed=4)[::5]:
        board = chess.Board(state.fen())
        tactical = sorted(
            state.string_to_action(m.uci()) for m in board.legal_moves if board.is_capture(m) or m.promotion
        )
        assert sorted(state.tactical_actions()) == tactical
        scores = {a: KERNELS.move_score(state.compact, a) for a in state.legal_actions()}
        assert all((scores[a] > 0) == (a in tactical) for a in scores)
    state = game.state_from_fen("4k3/8/8/3q4/4P3/3P4/8/4K3 w - - 0 1")
    pawn_takes_queen, pawn_push = state.string_to_action("e4d5"), state.string_to_action("e4e5")
    assert KERNELS.move_score(state.compact, pawn_takes_queen) > 0 == KERNELS.move_score(state.compact, pawn_push)


def test_null_move(game):
    state = game.state_from_moves("e2e4 c7c5 e4e5 d7d5")  # white may take en passant
    passed = null_move(state.compact)
    assert passed[0] == passed[16] == 1 and passed[11] == -1
    assert game.state_class(game, passed).fen().split()[:4] == state.fen().split()[:1] + ["b", "KQkq", "-"]
    assert passed[14] == zobrist(passed)
    assert null_move(game.state_from_moves("e2e4 f7f6 d1h5").compact)[0] == ILLEGAL  # illegal in check
    assert null_move(game.state_from_fen("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1").compact)[0] == ILLEGAL  # pawns only


def test_repetition_kernel_counts_only_since_the_last_irreversible_move(game):
    start = game.new_initial_state().compact
    key = start[14]
    keys = np.array([key, 1, 2, 3, key, key], dtype=np.int64)  # 6, 2 and 1 plies before

    def after(halfmove: int) -> tuple:
        return start[:12] + (halfmove,) + start[13:]

    assert KERNELS.repetition(after(6), keys, 6) == REPETITION_DRAW
    assert KERNELS.repetition(after(5), keys, 6) == NO_REPETITION  # the oldest is before a pawn move
    assert KERNELS.repetition(after(6), keys, 5) == NO_REPETITION  # once: the key 1 ply back has the other side to move


# --- endings from both seats ------------------------------------------------------------------------
@pytest.mark.parametrize(
    "moves, winner",
    [
        ("e2e4 e7e5 f1c4 b8c6 d1h5 g8f6 h5f7", 0),  # scholar's mate
        ("f2f3 e7e5 g2g4 Qh4", 1),
    ],
)  # fool's mate, the mate in SAN
def test_checkmate_from_both_seats(game, moves, winner):
    state = game.state_from_moves(moves)
    assert state.is_terminal() and state.termination() == "checkmate"
    sign = 1.0 if winner == 0 else -1.0
    assert state.returns() == [sign, -sign]
    assert state.outcome() == Outcome(winner, (sign, -sign), "checkmate")
    assert state.legal_actions() == [] and state.turn() == 1 - winner


@pytest.mark.parametrize(
    "fen, move, termination",
    [
        ("7k/8/6QK/8/8/8/8/8 w - - 0 1", "g6f7", "stalemate"),
        ("k7/8/8/8/8/8/1q6/K7 w - - 0 1", "a1b2", "insufficient_material"),
        ("k7/8/8/8/8/8/1R6/K7 w - - 99 80", "b2c2", "fifty_moves"),
        ("k7/8/8/8/8/8/2r5/KB6 w - - 0 1", "b1c2", "insufficient_material"),
        ("K7/8/8/8/8/8/2R5/kb6 b - - 0 1", "b1c2", "insufficient_material"),
        ("8/8/8/8/8/6qk/8/7K b - - 0 1", "Qf2", "stalemate"),
    ],
)
def test_draws(game, fen, move, termination):
    state = game.state_from_fen(fen)
    assert not state.is_terminal()
    end = state.apply(state.string_to_action(move))
    assert end.is_terminal() and end.termination() == termination
    assert end.outcome() == Outcome(None, (0.0, 0.0), termination) and end.outcome().result == "1/2-1/2"


def test_mate_on_the_hundredth_halfmove_wins(game):
    state = game.state_from_fen("k7/8/1K6/8/8/8/8/7R w - - 99 80")
    end = state.apply(state.string_to_action("Rh8#"))
    assert end.termination() == "checkmate" and end.returns() == [1.0, -1.0]


def test_threefold_repetition_by_shuffling_knights_from_both_seats(game):
    shuffle = "g1f3 g8f6 f3g1 f6g8 " * 2
    state = game.state_from_moves(shuffle)  # the start position, a third time
    assert state.is_terminal() and state.termination() == "repetition" and state.returns() == [0.0, 0.0]
    assert not game.state_from_moves(shuffle.split()[:-1]).is_terminal()
    black = game.state_from_moves("e2e4 " + "g8f6 g1f3 f6g8 f3g1 " * 2)  # after 1.e4, black's position
    assert black.is_terminal() and black.termination() == "repetition"
    assert len(black.history()) == 9


def test_a_pawn_move_resets_the_repetition_count(game):
    state = game.state_from_moves("g1f3 g8f6 f3g1 f6g8 e2e4 e7e5 g1f3 g8f6 f3g1 f6g8")
    assert not state.is_terminal()


def test_fen_state_round_trip(game):
    for fen in (START, KIWIPETE + " 0 1", POSITION_5, "8/8/8/KPp4r/8/8/8/7k w - - 3 40"):
        assert game.state_from_fen(fen).fen() == chess.Board(fen).fen()
    assert game.state_from_fen(START) == game.new_initial_state()


def test_strings(game):
    state = game.state_from_fen("r3k2r/1P6/8/8/8/8/8/R3K2R w KQkq - 0 1")
    assert state.string_to_action("b7b8n") == state.string_to_action("b8=N")
    assert state.action_to_string(state.string_to_action("O-O")) == "e1g1"
    assert state.san(state.string_to_action("b7a8q")) == "bxa8=Q+"
    assert str(game.new_initial_state()) == str(chess.Board())
    assert game.new_initial_state().board_grid()[0].tolist() == [2] * 8


# --- bad input ----------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "fen, problem",
    [
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP w KQkq - 0 1", "7 ranks"),
        ("rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "unexpected character '9'"),
        ("rnbqkbnr/pppppppp/44/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "unexpected character '4'"),
        ("rnbqkbnr/ppppxppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "unexpected character 'x'"),
        ("rnbqkbnr/ppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "covers 7 squares"),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1", "side to move"),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq", "3 fields"),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - -1 1", "halfmove clock"),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 0", "fullmove number"),
        ("rnbqqbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQ - 0 1", "black has 0 kings"),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBKKBNR w kq - 0 1", "white has 2 kings"),
        ("rnbqkbnP/pppppppp/8/8/8/8/PPPPPPP1/RNBQKBNR w KQq - 0 1", "pawn stands on the first or last rank"),
        ("rnbqkbnr/pppppppp/8/8/N7/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "white has 17 pieces, more than 16"),
        ("rnbqkbn1/pppppppp/8/8/8/p7/PPPPPPPP/RNBQKBNR w KQq - 0 1", "black has 9 pawns, more than 8"),
        ("4k3/8/8/8/8/8/8/4K2R w KQ - 0 1", "castling right 'Q' needs"),
        ("4k3/8/8/8/8/8/8/4K2R w KK - 0 1", "castling field"),
        ("4k3/8/8/8/8/8/8/4K2R w X - 0 1", "castling field"),
        ("4k3/8/8/8/8/8/8/4K2R w K e3 0 1", "en-passant square e3"),
        ("4k3/8/8/8/4P3/8/8/4K2R w K e6 0 1", "en-passant square e6"),
        ("4k3/8/8/8/8/8/8/4K2R w K z9 0 1", "'z9' is not a square"),
        ("4k2R/8/8/8/8/8/8/4K3 w - - 0 1", "the side not to move (black) is in check"),
    ],
)
def test_bad_fens_raise_one_line_errors_naming_the_problem(game, fen, problem):
    with pytest.raises(ValueError, match="chess: bad FEN") as error:
        game.state_from_fen(fen)
    assert problem in str(error.value) and "\n" not in str(error.value)


@pytest.mark.parametrize("move", ["e2e5", "e1g1", "e2e4q", "a7a8", "Nf6", "Ke2", "O-O", "xyz", "", "e9e4", "0000"])
def test_illegal_or_unreadable_moves_raise_one_line_errors(game, move):
    with pytest.raises(ValueError) as error:
        game.new_initial_state().string_to_action(move)
    assert repr(move) in str(error.value) and "\n" not in str(error.value)


def test_illegal_actions_raise_and_a_finished_game_takes_no_move(game):
    state = game.new_initial_state()
    for action in (0, 4672, 4673, 2367, 438, -1, 4674):  # nothing, castles, the king's two-file step, ...
        with pytest.raises(IllegalActionError):
            state.apply(action)
    mated = game.state_from_moves("f2f3 e7e5 g2g4 d8h4")
    with pytest.raises(ValueError, match="over"):
        mated.string_to_action("e2e4")
    with pytest.raises(ValueError, match="string"):
        game.state_from_fen(None)


@pytest.mark.slow  # depth-5 searches of Kiwipete (about 30 s)
def test_late_move_reductions_search_fewer_nodes_and_still_find_the_mate(game):
    """Off by default; on, a depth-5 search of Kiwipete visits far fewer nodes, and Legall's mate in two
    (Nf6+ gxf6 Bxf7#, its only mate in two by brute force with python-chess) is still found."""
    from rlgames.evaluators import load_evaluator
    from rlgames.search import AlphaBeta, AlphaBetaConfig

    evaluator = load_evaluator("heuristic", game)
    state = game.state_from_fen(KIWIPETE)
    plain, reduced = (
        AlphaBeta(evaluator, AlphaBetaConfig(depth=5, quiescence_depth=4, late_move_reduction=r)).search(state)
        for r in (0, 1)
    )
    assert plain.stats.extra["lmr_researches"] == 0
    assert reduced.stats.nodes < plain.stats.nodes / 2 and reduced.action in state.legal_actions()
    mate = game.state_from_fen("r2qkb1r/pp2nppp/3p4/2pNN1B1/2BnP3/3P4/PPP2PPP/R2bK2R w KQkq - 1 1")
    found = AlphaBeta(evaluator, AlphaBetaConfig(depth=5, late_move_reduction=1)).search(mate)
    assert (mate.action_to_string(found.action), found.plies_to_end, found.value) == ("d5f6", 3, 1.0)


def random_positions(game, *, seed: int, games: int, plies: int):
    """The positions of ``games`` random games of at most ``plies`` plies (seeded), each as a state and
    the python-chess board of the same moves."""
    rng = np.random.default_rng(seed)
    for _ in range(games):
        state, board = game.new_initial_state(), chess.Board()
        while not state.is_terminal() and board.ply() < plies:
            yield state, board
            action = int(rng.choice(state.legal_actions()))
            board.push_uci(state.action_to_string(action))
            state = state.apply(action)


VALUES = {chess.PAWN: 1, chess.KNIGHT: 3, chess.BISHOP: 3, chess.ROOK: 5, chess.QUEEN: 9, chess.KING: 100}


def python_chess_threats(board: chess.Board, player: int) -> set[int]:
    """The threat inputs seen by ``player`` (`rlgames.games.chess.rules.threat_features`), from
    python-chess's attackers: each non-king piece attacked, and 640 + the same if it is hanging."""
    threats = set()
    for side in range(2):
        colour = chess.WHITE if player ^ side == 0 else chess.BLACK
        for square, piece in board.piece_map().items():
            attackers = board.attackers(not colour, square)
            if piece.color != colour or piece.piece_type == chess.KING or not attackers:
                continue
            index = 64 * (5 * side + piece.piece_type - 1) + (square ^ 56 * player)
            threats.add(index)
            cheaper = any(VALUES[board.piece_type_at(a)] < VALUES[piece.piece_type] for a in attackers)
            if cheaper or not board.attackers(colour, square):
                threats.add(640 + index)
    return threats


def test_threat_features_match_python_chess_attackers(game):
    """The threat inputs of an NNUE (pieces attacked; attacked and undefended or by a cheaper piece),
    seen by either player, equal those built from python-chess's attackers along random games."""
    from rlgames.games.chess.features import (
        MAX_ACTIVE_THREATS,
        NUM_THREAT_FEATURES,
        threat_features,
    )

    assert rlgames.load_game("chess").feature_sets["threats"].inputs == NUM_THREAT_FEATURES == 1280
    out, seen = np.zeros(MAX_ACTIVE_THREATS, dtype=np.int64), set()
    for state, board in random_positions(game, seed=11, games=20, plies=120):
        for player in (0, 1):
            n = threat_features(state.compact, player, out)
            assert len(set(out[:n])) == n and sorted(out[:n]) == sorted(python_chess_threats(board, player))
            seen.update(out[:n].tolist())
    assert len([i for i in seen if i < 640]) > 200 and len([i for i in seen if i >= 640]) > 200


def python_chess_positional(board: chess.Board, player: int) -> list[int]:
    """The positional inputs seen by ``player`` (`rlgames.games.chess.rules.positional_features`), from
    python-chess's attacks: passed pawns, each piece's mobility, the attacked squares of each king's zone."""
    inputs = []
    for colour in (chess.WHITE, chess.BLACK):
        side, them = int(colour == chess.BLACK) ^ player, not colour
        for square in board.pieces(chess.PAWN, colour):
            file, rank = chess.square_file(square), chess.square_rank(square)
            ranks = range(rank + 1, 8) if colour == chess.WHITE else range(rank)
            if not any(
                board.piece_at(chess.square(f, r)) == chess.Piece(chess.PAWN, them)
                for f in range(max(0, file - 1), min(7, file + 1) + 1)
                for r in ranks
            ):
                inputs.append(64 * side + (square ^ 56 * player))
        their_pawn_attacks = chess.SquareSet()
        for square in board.pieces(chess.PAWN, them):
            their_pawn_attacks |= board.attacks(square)
        for kind, piece_type in enumerate((chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN)):
            for square in board.pieces(piece_type, colour):
                safe = board.attacks(square) - board.occupied_co[colour] - their_pawn_attacks
                inputs.append(128 + 128 * side + 32 * kind + min(31, len(safe)))
        king = board.king(colour)
        zone = chess.SquareSet(chess.BB_KING_ATTACKS[king] | chess.BB_SQUARES[king])
        inputs.append(384 + 10 * side + min(9, sum(1 for q in zone if board.is_attacked_by(them, q))))
    return sorted(inputs)


def test_positional_features_match_python_chess(game):
    """The positional inputs of an NNUE (passed pawns, mobility, king danger), seen by either player, equal
    those built from python-chess's attacks along random games, and are numbered within their runs."""
    from rlgames.games.chess.features import (
        MAX_ACTIVE_POSITIONAL,
        NUM_POSITIONAL_FEATURES,
        positional_features,
    )

    assert rlgames.load_game("chess").feature_sets["positional"].inputs == NUM_POSITIONAL_FEATURES == 448
    out, seen = np.zeros(MAX_ACTIVE_POSITIONAL, dtype=np.int64), set()
    for state, board in random_positions(game, seed=12, games=12, plies=160):
        for player in (0, 1):
            n = positional_features(state.compact, player, out)
            assert sorted(out[:n]) == python_chess_positional(board, player)
            seen.update(out[:n].tolist())
    assert max(seen) < 404 and len([i for i in seen if i < 128]) > 40 and len([i for i in seen if i >= 384]) > 8


def test_the_fused_threat_and_positional_kernel_equals_the_two_sets_in_order(game):
    """The one-pass kernel of the threats and the positional inputs writes exactly what the two kernels
    write one after the other (the same indices, in the same order, so that a network's sums round the
    same), seen by either player along random games and the special moves' positions; a network reading
    both reads them through it."""
    from rlgames.evaluators.nnue import feature_set
    from rlgames.games.chess.features import (
        NUM_THREAT_FEATURES,
        positional_features,
        threat_and_positional_features,
        threat_features,
    )

    apart, fused = np.zeros(256, dtype=np.int64), np.zeros(256, dtype=np.int64)
    states = [game.state_from_fen(fen) for fen in SPECIAL_MOVES] + random_states(game, 6, seed=13)
    for state in states:
        for player in (0, 1):
            n = threat_features(state.compact, player, apart)
            m = positional_features(state.compact, player, apart[n:])
            apart[n : n + m] += NUM_THREAT_FEATURES
            assert threat_and_positional_features(state.compact, player, fused) == n + m
            assert fused[: n + m].tolist() == apart[: n + m].tolist()
    assert feature_set(game, ["threats", "positional"]).features is threat_and_positional_features
    combined = feature_set(game, ["pieces", "threats", "positional"])
    assert (combined.inputs, combined.most) == (768 + 1280 + 448, 768 + 60 + 48)


SPECIAL_MOVES = (
    "r3k2r/pPppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPP1/R3K2R w KQkq - 0 1",  # castling both ways, a capturing promotion
    "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",  # en passant
    "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1",  # promotions, capturing and not, for black
)


def test_feature_changes_are_the_difference_of_the_features(game):
    """The inputs a move changes (`feature_changes`, which an NNUE's accumulators are updated from) are
    exactly those the two positions' `features` differ by, for every legal move (and a null move) of
    positions with castling, en passant and promotions and along random games, seen by either player."""
    from collections import Counter

    from rlgames.games.chess.features import feature_changes, features

    out, changes = np.zeros(32, dtype=np.int64), np.zeros(8, dtype=np.int64)

    def active(s, player: int) -> Counter:
        return Counter(out[: features(s, player, out)].tolist())

    states = [game.state_from_fen(fen) for fen in SPECIAL_MOVES] + random_states(game, 4, seed=12)[::8]
    counts = Counter()
    for state in states:
        children = [state.apply(a).compact for a in state.legal_actions()] + [null_move(state.compact)]
        for child in (c for c in children if c[0] != ILLEGAL):
            for player in (0, 1):
                n = feature_changes(state.compact, child, player, changes)
                gained = Counter(c for c in changes[:n].tolist() if c >= 0)
                lost = Counter(-1 - c for c in changes[:n].tolist() if c < 0)
                assert active(child, player) - active(state.compact, player) == gained
                assert active(state.compact, player) - active(child, player) == lost
                counts[n] += 1
    assert all(counts[n] > 0 for n in (0, 2, 3, 4))  # a null move, a move, a capture, castling
