"""Bad input on the command line: one line on stderr naming the problem, exit status 2, no traceback.

Each command runs as a user would run it, in a subprocess. The inputs are the issue's list: agent specs
of the wrong types, missing or conflicting parameters, a malformed spec, an unknown game parameter, an
illegal move, a position too big for the solver, a missing model file, an unknown game (a corrupted
checkpoint is in ``test_checkpoints.py``), and ``python -m rlgames.train``'s unknown config key and a resume of
another game's run.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def run(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, *args], cwd=cwd, capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL
    )


def assert_one_line_error(completed: subprocess.CompletedProcess, *fragments: str) -> str:
    lines = completed.stderr.strip().splitlines()
    assert completed.returncode == 2, completed.stderr
    assert len(lines) == 1 and "Traceback" not in completed.stderr, completed.stderr
    for fragment in fragments:
        assert fragment in lines[0], lines[0]
    return lines[0]


CASES = [
    (["play", "connect_four", "--agent", "alphabeta(depth=three)"], ["depth must be an integer", "'three'"]),
    (["play", "connect_four", "--agent", "alphabeta(depth=2.5)"], ["depth must be an integer", "2.5"]),
    (["play", "connect_four", "--agent", "mcts(simulations=1.5)"], ["simulations must be an integer", "1.5"]),
    (["play", "connect_four", "--agent", "policy"], ["policy needs model=", "policy(model="]),
    (["play", "connect_four", "--agent", "random(seed=abc)"], ["seed must be an integer", "'abc'"]),
    (["play", "connect_four", "--agent", "alphabeta(depth=4"], ["unbalanced parenthesis"]),
    (["play", "connect_four", "--agent", "alphabeta(time=nan)"], ["time must be a finite number", "nan"]),
    (["play", "connect_four", "--agent", "alphabeta(depth=2,,)"], ["an empty parameter (a stray comma)"]),
    (["play", "connect_four", "--agent", ""], ["cannot read agent spec ''"]),
    (["play", "connect_four", "--agent", "mcts(simulations=100000000000000000000)"], ["does not fit in 64 bits"]),
    (
        ["play", "connect_four", "--agent", "alphabeta(depth=4, eval=heuristic, model=checkpoints/connect_four.pt)"],
        ["give one of eval= or model=, not both"],
    ),
    (["show", "connect_four", "-p", "rows=5"], ["connect_four has no parameter 'rows'"]),
    (["show", "connect_four", "--moves", "4444444"], ["move 7 ('4')", "full column"]),
    (["solve", "othello", "--time", "1"], ["othello: 60 empty squares", "at most 12", "nearer the end"]),
    (
        ["arena", "connect_four", "alphabeta(depth=2)", "mcts(model=no/such/file.pt)", "--games", "2"],
        ["no/such/file.pt: no such checkpoint file"],
    ),
    (["arena", "no_such_game", "random", "random"], ["unknown game 'no_such_game'", "connect_four, go, halving, nim"]),
    (
        ["accuracy", "connect_four", "--agent", "alphabeta(depth=x)", "--positions", "README.md"],
        ["depth must be an integer"],
    ),
    (["accuracy", "connect_four", "--agent", "random", "--positions", "README.md", "--stages", "8,8"], ["increasing"]),
    (["positions", "connect_four", "--out", "x.txt"], ["--out must name a .jsonl file"]),
    (["positions", "connect_four", "--out", "x.jsonl", "--plies", "9-3"], ["0 <= LO <= HI", "'9-3'"]),
    (["positions", "connect_four", "--out", "x.jsonl", "--results", "won,tied"], ["won", "'won,tied'"]),
    (["positions", "pig", "--out", "x.jsonl"], ["pig has chance nodes"]),
    (["play", "go", "--agent", "mcts(expansion_threshold=4)"], ["expansion_threshold", "it needs model=FILE"]),
]


@pytest.mark.parametrize("args, fragments", CASES, ids=[" ".join(args) for args, _ in CASES])
def test_the_cli_refuses_bad_input_in_one_line(args, fragments):
    line = assert_one_line_error(run("-m", "rlgames", *args), *fragments)
    assert line.startswith(f"rlgames {args[0]}: ")


def test_solve_has_a_default_budget():
    from rlgames.cli import SOLVE_TIME, build_parser

    assert build_parser().parse_args(["solve", "othello"]).time == SOLVE_TIME <= 120


def test_train_refuses_an_unknown_config_key(tmp_path):
    config = tmp_path / "bad.json"
    config.write_text('{"selfplay": {"simulationz": 3}}')
    completed = run("-m", "rlgames.train", "tic_tac_toe", "--config", str(config), "--run-dir", str(tmp_path / "run"))
    assert_one_line_error(completed, "unknown setting 'selfplay.simulationz'", "selfplay.simulations")


def test_train_refuses_to_resume_another_games_run(tmp_path):
    pytest.importorskip("torch")
    from rlgames.train.alphazero.config import load_config
    from rlgames.train.alphazero.trainer import Trainer

    import rlgames

    run_dir = tmp_path / "run"
    Trainer(rlgames.load_game("tic_tac_toe"), load_config("smoke"), run_dir)  # sets up a tic-tac-toe run
    completed = run("-m", "rlgames.train", "connect_four", "--resume", "--run-dir", str(run_dir))
    assert_one_line_error(completed, "holds a run of tic_tac_toe", "not of connect_four")


def test_a_reader_that_goes_away_ends_the_command_quietly(tmp_path):
    """``rlgames analyse ... | head -1``: the closed pipe ends the command with SIGPIPE's status and
    nothing on stderr (it is no bad input)."""
    positions = tmp_path / "positions.txt"
    positions.write_text("b2\n" * 3000)  # 3000 JSON lines of analysis: more than a pipe holds
    process = subprocess.Popen(
        [sys.executable, "-m", "rlgames", "analyse", "tic_tac_toe", "--agent", "random", "--positions", str(positions)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
    )
    assert process.stdout.readline().startswith(b"{")
    process.stdout.close()
    assert process.wait(timeout=120) == 141 and process.stderr.read() == b""
