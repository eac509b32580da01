"""The UCI front end: the protocol's parsing and time management, and an engine driven in-process
through whole exchanges (connect four's moves stand in for chess's where only the protocol is tested;
tests/games/test_chess_uci.py drives the chess engine with python-chess)."""

from __future__ import annotations

import io
import time

import pytest

import rlgames
from rlgames.games.chess.evaluator import cp_from_value as default_centipawns
from rlgames.games.chess.uci import (
    Go,
    UciEngine,
    limits_for,
    parse_go,
    score_text,
)


class Lines(io.StringIO):
    """The engine's output, read as lines."""

    def lines(self) -> list[str]:
        return self.getvalue().splitlines()


@pytest.fixture()
def engine():
    out = Lines()
    return UciEngine(rlgames.load_game("connect_four"), "alphabeta(eval=heuristic)", out=out), out


def wait_for(out: Lines, prefix: str, seconds: float = 120.0) -> str:
    """The first output line starting with ``prefix``, waiting for the search thread to write it."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        found = [line for line in out.lines() if line.startswith(prefix)]
        if found:
            return found[0]
        time.sleep(0.01)
    raise AssertionError(f"no {prefix!r} line in {out.lines()}")


def test_go_parameters_and_time_management():
    assert parse_go("wtime 60000 btime 30000 winc 1000 binc 0 movestogo 20".split()) == Go(
        wtime=60000, btime=30000, winc=1000, movestogo=20
    )
    assert parse_go(["infinite"]).infinite and parse_go("depth 5 nodes 100".split()) == Go(depth=5, nodes=100)
    assert limits_for(Go(movetime=500), True, 30).seconds == pytest.approx(0.47)
    # white: 60 s over 20 moves plus 3/4 of the increment, less the overhead
    assert limits_for(Go(wtime=60000, btime=30000, winc=1000, movestogo=20), True, 30).seconds == pytest.approx(3.72)
    # black, sudden death: 30 s over 30 moves
    assert limits_for(Go(wtime=60000, btime=30000), False, 30).seconds == pytest.approx(0.97)
    # never more than half of what is left, never nothing
    assert limits_for(Go(wtime=1000, winc=5000), True, 30).seconds == pytest.approx(0.47)
    assert limits_for(Go(movetime=10), True, 30).seconds == 0.001
    assert limits_for(Go(depth=4), True, 30) == limits_for(Go(depth=4, infinite=True), True, 30)
    for bad in (["depth"], ["depth", "x"], ["mate", "3"], ["wtime", "1.5"]):
        with pytest.raises(ValueError):
            parse_go(bad)


def test_scores_in_centipawns_and_mates():
    assert default_centipawns(0.0) == 0 and default_centipawns(2 / (1 + 10**-1) - 1) == 400
    assert default_centipawns(-0.5) == -default_centipawns(0.5)
    assert score_text(0.2, None, default_centipawns) == f"cp {default_centipawns(0.2)}"
    assert score_text(1.0, 1, default_centipawns) == "mate 1"  # the engine mates with its move
    assert score_text(1.0, 5, default_centipawns) == "mate 3"
    assert score_text(-1.0, 2, default_centipawns) == "mate -1"  # mated after its move and the reply


def test_a_search_reports_iterations_and_a_legal_bestmove(engine):
    uci, out = engine
    uci.handle("uci")
    assert out.lines()[-1] == "uciok" and any(line.startswith("option name Hash") for line in out.lines())
    uci.handle("isready")
    assert out.lines()[-1] == "readyok"
    uci.handle("ucinewgame")
    uci.handle("position startpos moves 4 4 3")
    uci.handle("go depth 4")
    best = wait_for(out, "bestmove").split()[1]
    infos = [line for line in out.lines() if line.startswith("info depth")]
    assert [int(line.split()[2]) for line in infos] == [1, 2, 3, 4]
    assert all(" score cp " in line and " pv " in line and " nps " in line for line in infos)
    assert best in "1234567" and infos[-1].split(" pv ")[1].split()[0] == best


def test_infinite_waits_for_stop_and_isready_is_answered_meanwhile(engine):
    uci, out = engine
    uci.handle("position startpos")
    uci.handle("go infinite")
    time.sleep(0.5)
    uci.handle("isready")
    assert "readyok" in out.lines() and not any(line.startswith("bestmove") for line in out.lines())
    start = time.monotonic()
    uci.handle("stop")
    assert time.monotonic() - start < 2.0
    assert sum(line.startswith("bestmove") for line in out.lines()) == 1


def test_movetime_is_kept(engine):
    uci, out = engine
    uci.handle("position startpos")
    uci.handle("go depth 1")  # compile first
    wait_for(out, "bestmove")
    start = time.monotonic()
    uci.handle("go movetime 300")
    uci._thread.join()
    assert 0.2 < time.monotonic() - start < 1.0


@pytest.mark.parametrize(
    "command, problem",
    [
        ("position startpos moves 4 9", "9"),
        ("position startpos moves 4 banana", "banana"),
        ("position", "startpos or fen"),
        ("go depth x", "go depth needs an integer"),
        ("go mate 3", "unknown parameter 'mate'"),
        ("setoption name Threads value 4", "unknown option 'Threads'"),
        ("setoption name Hash value lots", "non-negative integer"),
        ("flip", "unknown command: flip"),
    ],
)
def test_bad_input_is_one_info_string_and_the_engine_goes_on(engine, command, problem):
    uci, out = engine
    uci.handle("position startpos moves 4")
    assert uci.handle(command)
    (line,) = out.lines()
    assert line.startswith("info string ") and problem in line
    assert uci.state.history() == rlgames.load_game("connect_four").state_from_moves("4").history()
    uci.handle("isready")
    assert out.lines()[-1] == "readyok"


def test_quit_ends_the_loop(engine):
    uci, out = engine
    uci.run(io.StringIO("isready\ngo depth 2\nquit\nisready\n"))
    assert out.lines()[0] == "readyok" and out.lines()[-1].startswith("bestmove") and out.lines().count("readyok") == 1


def test_mcts_behind_uci_takes_the_go_budget_and_stops():
    out = Lines()
    uci = UciEngine(rlgames.load_game("connect_four"), "mcts", out=out)
    uci.handle("position startpos moves 4")
    uci.handle("go nodes 300")
    uci._thread.join()
    info = [line for line in out.lines() if line.startswith("info depth")][-1]
    assert " nodes 300 " in info and out.lines()[-1].startswith("bestmove")
    uci.handle("go infinite")
    time.sleep(0.5)
    assert sum(line.startswith("bestmove") for line in out.lines()) == 1  # the infinite search waits for stop
    start = time.monotonic()
    uci.handle("stop")
    assert time.monotonic() - start < 5.0
    assert sum(line.startswith("bestmove") for line in out.lines()) == 2
