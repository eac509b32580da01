"""The GTP front end: every command driven in-process through scripts (the framing, the ids, the standard
errors, the position kept after bad input), its time management, SGF loading, and the ``rlgames gtp``
command through a whole game in a subprocess."""

from __future__ import annotations

import io
import subprocess
import sys
from typing import Any

import pytest

import rlgames
from rlgames.agents import load_agent
from rlgames.agents.base import EngineAgent, Limits
from rlgames.games.go.gtp import COMMANDS, Clock, GtpEngine, TimeSettings, move_seconds, score_text
from rlgames.games.go.sgf import to_sgf
from rlgames.search.result import SearchResult, SearchStats


def engine(spec: str = "random(seed=3)", **params: Any) -> GtpEngine:
    return GtpEngine(rlgames.load_game("go", **{"board_size": 5, **params}), spec, out=io.StringIO(), err=io.StringIO())


def talk(gtp: GtpEngine, script: str) -> list[str]:
    """The answers to the commands of ``script``, each without the blank line that ends it."""
    start = len(gtp.out.getvalue())  # type: ignore[attr-defined]
    gtp.run(io.StringIO(script))
    text = gtp.out.getvalue()[start:]  # type: ignore[attr-defined]
    assert text.endswith("\n\n")
    return text[:-2].split("\n\n")


def test_a_session_is_answered_line_by_line_with_blank_lines_and_ids():
    gtp = engine()
    out = gtp.out
    gtp.run(io.StringIO("1 protocol_version\nname\n  # a comment\n\n2 version\nknown_command komi\nquit\nname\n"))
    assert out.getvalue() == "=1 2\n\n= rlgames\n\n=2 0.1.0 random(seed=3)\n\n= true\n\n=\n\n"  # nothing after quit
    assert gtp._states is None  # nothing played, nothing compiled for the answers
    assert talk(gtp, "3 list_commands\n") == ["=3 " + "\n".join(COMMANDS)]
    assert talk(gtp, "known_command\tfoo\n4 known_command play # comment\n") == ["= false", "=4 true"]


def test_play_undo_showboard_and_the_score():
    gtp = engine(komi=0.5)
    script = "play black C3\nplay W d4\n9 play b pass\nshowboard\nfinal_score\nfinal_status_list alive\n"
    script += "final_status_list dead\nfinal_status_list seki\nundo\nundo\nundo\nundo\nfinal_score\n"
    assert talk(gtp, script) == [
        "=",
        "=",
        "=9",
        "= \n   A B C D E\n 5 . . . . . 5\n 4 . . . O . 4\n 3 . . X . . 3\n 2 . . . . . 2\n 1 . . . . . 1\n"
        "   A B C D E",
        "= W+0.5",
        "= C3 D4",
        "=",
        "=",
        "=",
        "=",
        "=",
        "? cannot undo",
        "= W+0.5",
    ]
    assert talk(gtp, "komi 0\nfinal_score\nplay b c3\nfinal_score\n") == ["=", "= 0", "=", "= B+25"]


@pytest.mark.parametrize(
    "command, answer",
    [
        ("foo", "? unknown command"),
        ("7 foo bar", "?7 unknown command"),
        ("8", "?8 syntax error"),
        ("play b", "? syntax error"),
        ("play red C3", "? syntax error"),
        ("play b I3", "? syntax error"),
        ("play b 33", "? syntax error"),
        ("play b Z9", "? illegal move"),  # a vertex, but not on the 5x5 board
        ("play b C3", "? illegal move"),  # taken
        ("5 play white A1", "?5 illegal move"),  # black is to move: the game alternates strictly
        ("genmove white", "? illegal move"),
        ("genmove", "? syntax error"),
        ("boardsize 20", "? unacceptable size"),
        ("boardsize 1", "? unacceptable size"),
        ("6 boardsize nine", "?6 syntax error"),
        ("komi lots", "? syntax error"),
        ("komi 6.25", "? go: komi must be a multiple of 0.5 (7.5, 6.5, 0), not 6.25"),
        ("time_settings 10 0", "? syntax error"),
        ("time_left b -1 0", "? syntax error"),
        ("final_status_list alive dead", "? syntax error"),
        ("final_status_list unknown", "? syntax error"),
        ("loadsgf", "? syntax error"),
        ("loadsgf no-such-file.sgf", "? cannot load file: No such file or directory: no-such-file.sgf"),
        ("known_command", "? syntax error"),
    ],
)
def test_bad_input_is_one_line_and_the_position_is_kept(command, answer):
    gtp = engine()
    assert talk(gtp, f"play b C3\nplay w D4\n{command}\nshowboard\n")[2:] == [
        answer,
        "= \n" + str(rlgames.load_game("go", board_size=5).state_from_moves("C3 D4")),
    ]
    assert gtp.handle("protocol_version")  # still running


def test_boardsize_clears_the_board_and_komi_keeps_it():
    gtp = engine()
    assert talk(gtp, "play b C3\nkomi 6.5\nplay w D4\nfinal_score\n") == ["=", "=", "=", "= W+6.5"]
    assert gtp.state == rlgames.load_game("go", board_size=5, komi=6.5).state_from_moves("C3 D4")
    first_agent = gtp.agent
    assert talk(gtp, "boardsize 7\nshowboard\nplay b G7\nclear_board\nundo\n") == [
        "=",
        "= \n" + str(rlgames.load_game("go", board_size=7).new_initial_state()),
        "=",
        "=",
        "? cannot undo",
    ]
    assert gtp.game == rlgames.load_game("go", board_size=7, komi=6.5) and gtp.agent is not first_agent
    agent = gtp.agent
    assert talk(gtp, "boardsize 7\nkomi 6.5\n") == ["=", "="] and gtp.agent is agent  # the same game: kept


def test_genmove_plays_the_agents_move_and_passes_once_the_game_is_over():
    game = rlgames.load_game("go", board_size=5)
    twin = load_agent("random(seed=3)", game)  # the engine's agent, moving the same
    gtp = engine()
    state = game.state_from_moves("C3")
    expected = state.action_to_string(twin.act(state))
    assert talk(gtp, "play b C3\n4 genmove W\n") == ["=", f"=4 {expected}"]
    assert gtp.state == state.apply(state.string_to_action(expected))
    assert talk(gtp, "clear_board\nplay b pass\nplay w pass\ngenmove b\ngenmove w\nfinal_score\n") == [
        "=",
        "=",
        "=",
        "= pass",
        "= pass",
        "= W+7.5",
    ]
    assert len(gtp._moves) == 2 and talk(gtp, "play b C3\n") == ["? illegal move"]


class Timed:
    """An `EngineAgent` that records the budgets it is given and plays the first legal move."""

    def __init__(self) -> None:
        self.limits: list[Limits] = []

    def with_limits(self, limits: Limits) -> Timed:
        self.limits.append(limits)
        return self

    def search(self, state: Any, *, on_iteration: Any = None) -> SearchResult:
        action = state.legal_actions()[0]
        return SearchResult(action, 0.0, None, (action,), SearchStats(nodes=1, depth=1))  # type: ignore[arg-type]

    def act(self, state: Any) -> int:
        return self.search(state).action

    def seed(self, seed: int) -> None:
        pass

    def stop(self) -> None:
        pass


def test_time_settings_and_time_left_give_each_move_its_time():
    assert move_seconds(None, None) is None
    assert move_seconds(TimeSettings(0, 30, 0), None) is None  # GTP's "no time limit"
    assert move_seconds(TimeSettings(0, 1, 1), None) == pytest.approx(0.95)  # a second a move
    assert move_seconds(TimeSettings(300, 0, 0), None) == pytest.approx(9.95)  # main time over 30 moves
    assert move_seconds(TimeSettings(300, 0, 0), Clock(60)) == pytest.approx(1.95)
    assert move_seconds(TimeSettings(300, 30, 5), Clock(60)) == pytest.approx(5.95)  # a byo-yomi stone's time
    assert move_seconds(TimeSettings(300, 30, 5), Clock(20, 4)) == pytest.approx(4.95)  # in byo-yomi
    assert move_seconds(TimeSettings(0, 0.01, 1), None) == 0.001  # never nothing
    gtp = engine()
    gtp.agent = timed = Timed()
    assert isinstance(timed, EngineAgent)
    gtp.warmup.ready.wait()
    script = "genmove b\ntime_settings 0 2 1\ngenmove w\ntime_settings 600 0 0\ntime_left b 30 0\ngenmove b\n"
    script += "time_left w 10 2\ngenmove w\n"
    assert talk(gtp, script) == ["= A1", "=", "= B1", "=", "=", "= C1", "=", "= D1"]
    assert [limits.seconds for limits in timed.limits] == pytest.approx([1.95, 0.95, 4.95])


def test_an_agent_without_a_time_budget_keeps_its_spec_and_says_so():
    gtp = engine()
    gtp.warmup.ready.wait()
    assert talk(gtp, "time_settings 0 1 1\ngenmove b\n")[1].startswith("= ")
    assert gtp.err.getvalue() == "rlgames: random(seed=3) plays with the budget of its spec, not the time settings\n"


def test_loadsgf_sets_up_the_game_of_a_file_to_a_move(tmp_path):
    game = rlgames.load_game("go", board_size=7, komi=6.5)
    moves = "D4 C3 pass E5 C5"
    state = game.state_from_moves(moves)
    path = tmp_path / "game.sgf"
    path.write_text(to_sgf(game, [game.new_initial_state().string_to_action(m) for m in moves.split()]))
    gtp = engine()  # a 5x5 game with komi 7.5: the file's size and komi replace them
    answers = talk(gtp, f"loadsgf {path}\nshowboard\nfinal_score\n")
    assert answers == ["=", "= \n" + str(state), f"= {score_text(state)}"]
    assert gtp.state == state and gtp.game == game
    assert talk(gtp, f"loadsgf {path} 3\nundo\nundo\nundo\n") == ["=", "=", "=", "? cannot undo"]
    assert gtp.state == game.new_initial_state()
    assert talk(gtp, f"loadsgf {path} 3\n")[0] == "=" and gtp.state == game.state_from_moves("D4 C3")
    bad = tmp_path / "bad.sgf"
    bad.write_text("(;SZ[5];B[aa];B[bb])")
    assert talk(gtp, f"loadsgf {bad}\nloadsgf {path} x\n") == [
        "? cannot load file: go: SGF move 2 is B's, but W is to move",
        "? syntax error",
    ]
    assert gtp.state == game.state_from_moves("D4 C3")


def test_the_command_plays_a_whole_game():
    script = "boardsize 5\nclear_board\nkomi 0.5\n" + "genmove b\ngenmove w\n" * 30 + "final_score\nquit\n"
    command = [sys.executable, "-m", "rlgames", "gtp", "go", "-p", "board_size=5", "--agent", "random(seed=2)"]
    done = subprocess.run(command, input=script, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    answers = done.stdout.split("\n\n")
    assert answers[-1] == "" and answers[:3] == ["=", "=", "="] and answers[-2] == "="
    state = rlgames.load_game("go", board_size=5, komi=0.5).new_initial_state()
    for answer in answers[3:-3]:
        assert answer.startswith("= ")
        move = answer[2:]
        if state.is_terminal():
            assert move == "pass"
        else:
            state = state.apply(state.string_to_action(move))
    assert state.is_terminal() and answers[-3] == f"= {score_text(state)}"
