"""Chess in the tools of its world: the UCI engine driven by python-chess through whole games (fixed
time and a clock; slow: the engine process compiles its search, about a minute), the same engine
in-process on chess positions, and the arena's games written as PGN that python-chess reads back."""

from __future__ import annotations

import io
import re
import sys
import threading
import time

import chess
import chess.engine
import chess.pgn
import pytest

import rlgames
from rlgames.arena import ArenaConfig, run_arena, write_results
from rlgames.agents import warmup
from rlgames.games.chess.uci import ColdPosition, UciEngine

ENGINE = [sys.executable, "-m", "rlgames", "uci", "chess", "--agent", "alphabeta(eval=heuristic, quiescence=4)"]


@pytest.fixture(scope="module")
def engine():
    pytest.importorskip("chess.engine")
    with chess.engine.SimpleEngine.popen_uci(ENGINE, timeout=300) as uci:  # the first search compiles
        uci.play(chess.Board(), chess.engine.Limit(depth=1))
        yield uci


def play_out(engine, board: chess.Board, limit: chess.engine.Limit, plies: int) -> chess.Board:
    """The engine plays both sides for up to ``plies`` plies (or to the end)."""
    for _ in range(plies):
        if board.is_game_over(claim_draw=True):
            break
        result = engine.play(board, limit)
        assert result.move in board.legal_moves
        board.push(result.move)
    return board


@pytest.mark.slow
def test_python_chess_plays_a_game_at_fixed_time(engine):
    board = play_out(engine, chess.Board(), chess.engine.Limit(time=0.05), plies=40)
    assert len(board.move_stack) == 40 or board.is_game_over(claim_draw=True)


@pytest.mark.slow
def test_python_chess_plays_with_a_clock_and_reads_the_analysis(engine):
    board = chess.Board()
    clock = {"white_clock": 5.0, "black_clock": 5.0, "white_inc": 0.05, "black_inc": 0.05}
    for _ in range(20):
        result = engine.play(board, chess.engine.Limit(**clock), info=chess.engine.INFO_ALL)
        assert result.move in board.legal_moves and result.info["depth"] >= 1
        board.push(result.move)
    assert len(board.move_stack) == 20


@pytest.mark.slow
def test_the_engine_finds_mate_and_reports_it(engine):
    board = chess.Board("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1")  # Ra8 mates
    info = engine.analyse(board, chess.engine.Limit(depth=3))
    assert info["pv"][0] == chess.Move.from_uci("a1a8") and info["score"].white().mate() == 1
    assert engine.play(board, chess.engine.Limit(nodes=2000)).move == chess.Move.from_uci("a1a8")


@pytest.mark.slow
def test_a_fen_with_moves_and_an_illegal_move_is_survived(engine):
    board = chess.Board("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3")
    board.push_uci("f1b5")
    assert engine.play(board, chess.engine.Limit(depth=2)).move in board.legal_moves
    engine.protocol.send_line("position startpos moves e2e5")  # illegal: the engine says so and goes on
    assert engine.play(chess.Board(), chess.engine.Limit(depth=1)).move in chess.Board().legal_moves


def test_an_arena_match_writes_pgn_that_python_chess_reads(tmp_path):
    result = run_arena(ArenaConfig("chess", ("alphabeta(depth=1)", "random"), games=2, seed=0))
    write_results(result, tmp_path)
    with open(tmp_path / "games.pgn") as handle:
        games = [chess.pgn.read_game(handle) for _ in range(2)]
    game = rlgames.load_game("chess")
    for record, pgn in zip(result.records, games):
        assert pgn.headers["Result"] == record.outcome.result.split()[0]
        assert pgn.headers["White"] == result.names[record.game.first]
        assert len(list(pgn.mainline_moves())) == record.plies
        assert pgn.end().board().fen() == game.state_from_actions(record.actions).fen()


def run_uci(commands: list[str]) -> list[str]:
    """The output lines of an in-process engine given ``commands``, each search waited for."""
    out = io.StringIO()
    engine = UciEngine(rlgames.load_game("chess"), "alphabeta(eval=heuristic)", out=out)
    for command in commands:
        engine.handle(command)
        if command.startswith("go"):
            engine._thread.join()
    return out.getvalue().splitlines()


def test_in_process_the_engine_mates_in_one_and_says_so():
    lines = run_uci(["position fen 6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1", "go depth 3"])
    assert lines[-1] == "bestmove a1a8"
    assert " score mate 1 " in lines[-2] and lines[-2].endswith("pv a1a8")


def test_in_process_positions_with_moves_and_bad_input():
    lines = run_uci(
        [
            "position startpos moves e2e4 e7e5 g1f3",
            "go depth 2",
            "position startpos moves e2e5",
            "position fen 8/8/8/8 w - - 0 1",
            "go depth 1",
        ]
    )
    strings = [line for line in lines if line.startswith("info string")]
    assert len(strings) == 2 and "e2e5" in strings[0] and "8/8/8/8" in strings[1]
    bestmoves = [line.split()[1] for line in lines if line.startswith("bestmove")]
    after = chess.Board()
    for move in ("e2e4", "e7e5", "g1f3"):
        after.push_uci(move)
    assert chess.Move.from_uci(bestmoves[0]) in after.legal_moves
    assert chess.Move.from_uci(bestmoves[1]) in after.legal_moves  # the bad positions left it unchanged


@pytest.mark.parametrize(
    ("fen", "moves", "problem"),
    [
        (None, ("e2e4", "e7e5", "g1f3", "b8c6", "f1b5"), None),
        ("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", ("e1g1", "h3g2", "e5g6"), None),
        ("8/4P1k1/8/8/8/8/8/4K3 w - - 0 1", ("e7e8n",), None),
        (None, ("e2e5",), "'e2e5' is not a legal move"),
        (None, ("e2e4", "0000"), "'0000' is not a legal move"),
        (None, ("e1h1",), "'e1h1' is not a legal move"),
        (None, ("f2f3", "e7e5", "g2g4", "d8h4", "a2a3"), "cannot play 'a2a3': the game is over"),
        ("8/8/8/8 w - - 0 1", (), "bad FEN '8/8/8/8 w - - 0 1'"),
        ("k7/8/8/8/8/8/8/7K w - - 0 1 extra", (), "bad FEN"),
    ],
)
def test_a_position_read_before_the_rules_compile_is_the_compiled_rules_one(fen, moves, problem):
    """`ColdPosition` (python-chess) reads a ``position`` as the compiled rules do: the same FEN after the
    moves, and the same refusals, each a ValueError naming the problem."""
    game = rlgames.load_game("chess")

    def compiled():
        state = game.new_initial_state() if fen is None else game.state_from_fen(fen)
        for move in moves:
            state = state.apply(state.string_to_action(move))
        return state

    if problem is None:
        assert ColdPosition.read(fen, moves).board.fen() == compiled().fen()
        return
    for read in (lambda: ColdPosition.read(fen, moves), compiled):
        with pytest.raises(ValueError, match=re.escape(problem)) as error:
            read()
        assert "\n" not in str(error.value)


def test_before_the_rules_compile_a_timed_go_is_answered_at_once_by_python_chess(monkeypatch):
    """While the rules compile, ``position`` and a timed ``go`` do not wait for them (a random legal move,
    named as such); an untimed ``go`` and every command once they are ready use the compiled rules and
    search, from the position read before."""
    compiled = threading.Event()
    real_warm_rules = warmup.warm_rules

    def slow_warm_rules(state):
        compiled.wait(60)
        real_warm_rules(state)

    monkeypatch.setattr(warmup, "warm_rules", slow_warm_rules)
    out = io.StringIO()
    engine = UciEngine(rlgames.load_game("chess"), "alphabeta(eval=heuristic)", out=out)

    def ask(command: str) -> list[str]:
        start = len(out.getvalue().splitlines())
        engine.handle(command)
        if command.startswith("go") and engine._thread is not None:
            engine._thread.join()
        return out.getvalue().splitlines()[start:]

    board = chess.Board()
    for move in ("e2e4", "e7e5"):
        board.push_uci(move)
    assert ask("position startpos moves e2e4 e7e5 e1e3") == [
        "info string chess: 'e1e3' is not a legal move in rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2"
    ]
    ask("position startpos moves e2e4 e7e5")
    started = time.perf_counter()
    lines = ask("go movetime 100")
    assert time.perf_counter() - started < 1 and not compiled.is_set()
    assert "random legal move" in lines[0] and chess.Move.from_uci(lines[-1].split()[1]) in board.legal_moves
    assert ask("position fen 7k/8/8/8/8/8/8/K6R b - - 0 1 moves h8g8 h1h8 g8h8") == []
    assert ask("go wtime 1000 btime 1000") == ["info string the game is over (1/2-1/2): no move to search"]

    ask("position startpos moves f2f3 e7e5 g2g4")
    compiled.set()  # an untimed go waits for the compiled rules and search
    lines = ask("go depth 2")
    assert engine.warmup.rules_ready.is_set() and lines[-1] == "bestmove d8h4" and " score mate 1 " in lines[-2]


def cold_engine_plays(tmp_path, plies: int) -> tuple[chess.Board, float]:
    """python-chess, with its default timeouts (10 s to answer, plus the move's time), drives `rlgames uci`
    from an empty numba cache (``NUMBA_CACHE_DIR``: nothing compiled, as on a fresh install) through
    ``plies`` plies at 0.1 s a move; the board and the slowest move's seconds."""
    import os

    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "numba-cache")}
    board, slowest = chess.Board(), 0.0
    with chess.engine.SimpleEngine.popen_uci([sys.executable, "-m", "rlgames", "uci", "chess"], env=env) as engine:
        while not board.is_game_over(claim_draw=True) and board.ply() < plies:
            started = time.perf_counter()
            board.push(engine.play(board, chess.engine.Limit(time=0.1)).move)
            slowest = max(slowest, time.perf_counter() - started)
    return board, slowest


def test_a_fresh_install_answers_python_chess_in_time(tmp_path):
    """The first moves, while the rules and the search compile in the background (`rlgames.agents.warmup`),
    come at once from python-chess (`rlgames.games.chess.uci.ColdPosition`): before it, the second move
    waited for the rules' ``apply`` to compile (5.5 s alone from an empty cache, over 10 s once beside a
    second compiling process)."""
    board, slowest = cold_engine_plays(tmp_path, plies=6)
    assert board.ply() == 6 and slowest < 3


@pytest.mark.slow  # the search compiles from nothing as the game goes on (about 25 s)
def test_a_fresh_install_plays_a_whole_game_with_python_chess(tmp_path):
    board, slowest = cold_engine_plays(tmp_path, plies=1000)
    assert board.is_game_over(claim_draw=True) and slowest < 10
