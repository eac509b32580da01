"""External engines as agents (``uci:COMMAND``, ``gtp:COMMAND``): the spec, an engine run as a subprocess through
whole arena games, the game it is told, and every failure as one line. The engines under test are ``rlgames uci``
and ``rlgames gtp`` themselves, so that the tests need no program from outside the project."""

from __future__ import annotations

import shlex
import sys

import pytest

import rlgames
from rlgames.agents import AgentSpecError, check_spec, load_agent
from rlgames.agents.external import GtpAgent, GtpSpec, UciAgent, UciSpec, parse_gtp_spec, parse_uci_spec
from rlgames.arena import ArenaConfig, run_arena
from rlgames.cli import main
from rlgames.games.go.gtp import score_text

COMMAND = shlex.join([sys.executable, "-m", "rlgames", "uci", "chess", "--agent", "alphabeta(depth=1, eval=heuristic)"])
"""An rlgames UCI engine searching one ply: it answers at once, compiled or not (its warm-up's fallback)."""
GTP_COMMAND = shlex.join([sys.executable, "-m", "rlgames", "gtp", "go", "-p", "board_size=5", "--agent", "random"])
"""An rlgames GTP engine playing random moves (5x5 and komi 7.5 until it is told the game's)."""


def test_a_spec_names_the_command_its_options_and_its_go():
    spec = parse_uci_spec("uci:stockfish --flag uci-option:UCI_Elo=1800 'uci-option:Skill Level=5' uci-go:depth=8")
    assert spec == UciSpec(("stockfish", "--flag"), (("UCI_Elo", "1800"), ("Skill Level", "5")), (("depth", 8),))
    assert parse_uci_spec(str(spec)) == spec  # written back as it reads
    assert str(check_spec(str(spec))) == str(spec)
    assert spec.with_go(movetime=100).go == (("movetime", 100),)


@pytest.mark.parametrize(
    "spec, message",
    [
        ("uci:", "names no program"),
        ("uci:uci-option:UCI_Elo=1800", "names no program"),
        ("uci:stockfish uci-option:=3", "expected uci-option:NAME=VALUE"),
        ("uci:stockfish uci-go:time=1", "KEY one of movetime, depth, nodes"),
        ("uci:stockfish uci-go:depth=0", "N >= 1"),
        ("uci:stockfish 'unclosed", "cannot split"),
    ],
)
def test_a_bad_spec_is_refused_in_one_line(spec, message):
    with pytest.raises(AgentSpecError, match=message) as error:
        check_spec(spec)
    assert "\n" not in str(error.value)


@pytest.fixture(scope="module")
def chess():
    return rlgames.load_game("chess")


def test_the_engine_plays_legal_moves_and_knows_the_whole_game(chess):
    agent = load_agent(f"uci:{COMMAND} uci-go:depth=1", chess)
    try:
        assert isinstance(agent, UciAgent)
        agent.seed(0)
        state = chess.new_initial_state()
        for _ in range(3):  # the agent against itself: each search sees the other's move since its last
            result = agent.search(state)
            assert result.action in state.legal_actions() and -1.0 <= result.value <= 1.0
            state = state.apply(result.action)
        assert len(agent._moves) == 3  # one line from the start, not three positions
        agent.seed(1)  # a new game: the next position starts it again
        agent.search(chess.state_from_moves("e2e4 e7e5"))
        assert agent._start == chess.state_from_moves("e2e4 e7e5") and len(agent._moves) == 1
    finally:
        agent.close()
    assert agent.engine.process.poll() is not None  # closed: the program has ended


def test_an_arena_plays_an_external_engine(chess, tmp_path):
    specs = ("alphabeta(depth=1, eval=heuristic)", f"uci:{COMMAND} uci-go:depth=1")
    result = run_arena(ArenaConfig("chess", specs, games=2, opening_plies=2))
    (pair,) = result.pairs
    assert pair.wins + pair.draws + pair.losses == 2


@pytest.mark.parametrize(
    "spec, message",
    [
        ("uci:no-such-engine-here", "no program 'no-such-engine-here'"),
        (f"uci:{COMMAND} uci-option:UCI_Elo=1800", "it has no option 'UCI_Elo'; its options: Hash, Move Overhead"),
        (f"uci:{shlex.join([sys.executable, '-c', 'pass'])}", "the program exited"),
    ],
)
def test_an_engine_that_cannot_play_is_one_line(chess, spec, message):
    with pytest.raises(ValueError, match=message) as error:
        load_agent(spec, chess)
    assert "\n" not in str(error.value)


def test_only_a_game_that_speaks_uci_takes_a_uci_engine(capsys):
    with pytest.raises(ValueError, match="connect_four does not speak UCI"):
        load_agent("uci:stockfish", rlgames.load_game("connect_four"))
    assert main(["arena", "chess", "random", "uci:no-such-engine-here", "--games", "2"]) == 2
    err = capsys.readouterr().err
    assert "no program 'no-such-engine-here'" in err and err.count("\n") == 1


def test_a_gtp_spec_names_the_command_and_its_time():
    spec = parse_gtp_spec("gtp:gnugo --mode gtp gtp-go:movetime=2000")
    assert spec == GtpSpec(("gnugo", "--mode", "gtp"), (("movetime", 2000),))
    assert parse_gtp_spec(str(spec)) == spec and str(check_spec(str(spec))) == str(spec)
    assert spec.with_go(movetime=500) == GtpSpec(("gnugo", "--mode", "gtp"), (("movetime", 500),))


@pytest.mark.parametrize(
    "spec, message",
    [
        ("gtp:", "names no program: write gtp:COMMAND"),
        ("gtp:gnugo gtp-go:depth=3", "expected gtp-go:KEY=N with KEY one of movetime and N >= 1"),
        ("gtp:gnugo gtp-go:movetime=0", "N >= 1"),
        ("gtp:gnugo 'unclosed", "cannot split"),
    ],
)
def test_a_bad_gtp_spec_is_refused_in_one_line(spec, message):
    with pytest.raises(AgentSpecError, match=message) as error:
        check_spec(spec)
    assert "\n" not in str(error.value)


def test_a_gtp_engine_is_told_the_game_and_plays_legal_moves():
    go = rlgames.load_game("go", board_size=5, komi=0.5)
    agent = load_agent(f"gtp:{GTP_COMMAND}", go)
    try:
        assert isinstance(agent, GtpAgent)
        agent.seed(0)
        state = go.state_from_moves("C3 D4")  # an opening the engine did not see: played from the start
        for _ in range(3):  # the agent against itself: each search sends the moves since the engine's last
            result = agent.search(state)
            assert result.action in state.legal_actions() and result.value == 0.0
            state = state.apply(result.action)
        assert len(agent._keys) == 6  # the start and five moves, each sent or played once
        assert agent._ask("showboard") == str(state)  # the engine's board is the game's
        assert agent._ask("final_score") == score_text(state)  # and so is its komi
        agent.seed(1)  # a new game: cleared and replayed
        agent.search(go.state_from_moves("E5"))
        assert len(agent._keys) == 3 and agent._ask("showboard").count("X") == 1
    finally:
        agent.close()
    assert agent.engine.process.poll() is not None  # closed: the program has ended


def test_an_arena_plays_a_gtp_engine():
    specs = ("random", f"gtp:{GTP_COMMAND}")
    result = run_arena(ArenaConfig("go", specs, games=2, game_params=(("board_size", 5),)))
    (pair,) = result.pairs
    assert pair.wins + pair.draws + pair.losses == 2


def test_a_gtp_engine_that_cannot_play_is_one_line():
    with pytest.raises(ValueError, match="connect_four does not speak GTP") as error:
        load_agent("gtp:gnugo", rlgames.load_game("connect_four"))
    lacking = shlex.join([sys.executable, "-c", "import sys\nfor _ in sys.stdin: print('= name\\n', flush=True)"])
    with pytest.raises(ValueError, match="does not list the GTP commands boardsize, clear_board, komi, play, genmove"):
        load_agent(f"gtp:{lacking}", rlgames.load_game("go", board_size=5))
    with pytest.raises(ValueError, match="no program 'no-such-engine-here'") as error:
        load_agent("gtp:no-such-engine-here", rlgames.load_game("go", board_size=5))
    assert "\n" not in str(error.value)


WHOLE_SECONDS = """
import sys
told = []
for line in sys.stdin:
    words = line.split()
    if words[0] == "list_commands":
        names = ["boardsize", "clear_board", "komi", "play", "genmove", "time_settings", "time_left", "told"]
        print("= " + "\\n".join(names), end="\\n\\n", flush=True)
    elif words[0] in ("time_settings", "time_left") and not words[-2].isdigit():
        print("? not three integers", end="\\n\\n", flush=True)
    else:
        told += [line.strip()] if words[0].startswith("time") else []
        answer = {"genmove": "pass", "told": " | ".join(told)}.get(words[0], "")
        print("= " + answer, end="\\n\\n", flush=True)
"""
"""A GTP engine that takes whole seconds alone in its time commands (GNU Go's), passes, and says what time
it was told."""


def test_a_gtp_engine_of_whole_seconds_is_told_the_whole_seconds_above_the_budget():
    go = rlgames.load_game("go", board_size=5)
    agent = load_agent(f"gtp:{shlex.join([sys.executable, '-c', WHOLE_SECONDS])} gtp-go:movetime=1500", go)
    try:
        assert agent.search(go.new_initial_state()).action == go.num_actions - 1  # its pass
        assert agent._ask("told") == "time_settings 0 2 1 | time_left black 2 1"
    finally:
        agent.close()
