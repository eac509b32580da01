"""The `rlgames` verbs that list things and hand over to other programs."""

from __future__ import annotations

import pytest

import rlgames
from rlgames.cli import main


def test_games_lists_every_game_with_its_parameters(capsys):
    assert main(["games"]) == 0
    out = capsys.readouterr().out
    assert "nim(heaps=(1, 3, 5, 7), misere=False)" in out and "connect_four(): 7 actions" in out
    assert "pig(winscore=100, diceoutcomes=6, horizon=1000): 2 actions" in out and "chance nodes" in out


def test_agents_lists_the_spec_language_and_evaluators(capsys):
    assert main(["agents"]) == 0
    out = capsys.readouterr().out
    for form in (
        "alphabeta(depth: int | None = None, eval: str = 'heuristic'",
        "mcts(simulations: int | None = None",
        "expectiminimax(depth: int | None = None",
        "policy(model: str, temperature: float = 0.0",
        "solver(seed: int | None = None)",
        "random(seed: int | None = None)",
    ):
        assert form in out
    assert "evaluators (eval=...): heuristic, learned, model, policy_rollout, rollout, zero" in out


def test_show_draws_a_position_and_reports_bad_moves(capsys):
    assert main(["show", "connect_four", "--moves", "4453"]) == 0
    assert "to move: player 0; legal: 1, 2, 3, 4, 5, 6, 7" in capsys.readouterr().out
    assert main(["show", "tic_tac_toe", "--moves", "b2 b2"]) == 2
    assert "move b2 (action 4) is illegal" in capsys.readouterr().err


def test_show_prints_the_outcome_of_a_finished_game(capsys):
    assert main(["show", "tic_tac_toe", "--moves", "a1 b1 a2 b2 a3"]) == 0
    assert capsys.readouterr().out.endswith("\ngame over: player 0 wins, 1-0, normal\n")
    assert main(["show", "tic_tac_toe", "--moves", "b2 a1 c3 a3 a2 c2 b1 b3 c1"]) == 0  # a full board
    assert capsys.readouterr().out.endswith("\ngame over: draw, 1/2-1/2, normal\n")


def test_train_hands_its_arguments_over(capsys):
    assert main(["train", "tic_tac_toe", "--preset", "nonexistent"]) == 2  # python -m rlgames.train's own error


@pytest.mark.parametrize(
    "trainer, module", [("nnue", "rlgames.train.nnue"), ("td", "rlgames.train.td"), ("linear", "rlgames.train.linear")]
)
def test_train_reaches_every_trainer(trainer, module, monkeypatch):
    """``--trainer`` picks the program, anywhere among the arguments; the others go to it unchanged."""
    import subprocess

    ran = []
    monkeypatch.setattr(
        subprocess, "run", lambda command: ran.append(command) or subprocess.CompletedProcess(command, 0)
    )
    assert main(["train", "tic_tac_toe", "--trainer", trainer, "--seed", "3"]) == 0
    assert main(["train", f"--trainer={trainer}", "tic_tac_toe"]) == 0
    assert [command[1:] for command in ran] == [
        ["-m", module, "tic_tac_toe", "--seed", "3"],
        ["-m", module, "tic_tac_toe"],
    ]


def test_an_unknown_trainer_is_one_line(capsys):
    assert main(["train", "tic_tac_toe", "--trainer", "ppo"]) == 2
    assert capsys.readouterr().err.strip().endswith("unknown trainer 'ppo'; the trainers: alphazero, nnue, td, linear")


def test_bench_runs_a_benchmark_script(capsys):
    assert main(["bench", "solver", "--files", "Test_L3_R1", "--limit", "3"]) == 0


def test_unknown_arguments_are_refused_outside_handovers():
    with pytest.raises(SystemExit):
        main(["games", "--bogus"])


def test_games_are_listed_from_their_declarations_without_compiling_anything():
    import subprocess
    import sys

    code = """
import sys
from numba.core.registry import CPUDispatcher
from rlgames.cli import main
from rlgames.registry import game_class, list_games
main(["games"])
compiled = [f"{game_class(name).__module__}.{attr}" for name in list_games()
            for attr, value in vars(sys.modules[game_class(name).__module__]).items()
            if isinstance(value, CPUDispatcher) and value.signatures]
assert not compiled, compiled
"""
    completed = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert completed.returncode == 0, completed.stderr
    assert "pig(winscore=100, diceoutcomes=6, horizon=1000): 2 actions" in completed.stdout


def test_loading_every_game_and_its_start_compiles_nothing(tmp_path):
    """A game loads and makes its start without compiling (its rules compile on its first move), so that a
    protocol engine answers at once on a fresh install: from an empty cache (loading from the cache raises
    no compile event)."""
    import os
    import subprocess
    import sys

    code = """
from numba.core import event
compiled = []
class Listener(event.Listener):
    def on_start(self, ev): compiled.append(ev.data["dispatcher"].py_func.__qualname__)
    def on_end(self, ev): pass
event.register("numba:compile", Listener())
import rlgames
for name in rlgames.list_games():
    rlgames.load_game(name).new_initial_state()
assert not compiled, compiled
"""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    completed = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env)
    assert completed.returncode == 0, completed.stderr


def test_warmup_compiles_the_games_agents_and_refuses_a_bad_spec(capsys):
    assert main(["warmup", "tic_tac_toe", "--agent", "alphabeta(depth=2)", "--agent", "mcts(simulations=8)"]) == 0
    assert "tic_tac_toe: alphabeta(depth=2), mcts(simulations=8) compiled in" in capsys.readouterr().out
    assert main(["warmup", "tic_tac_toe", "--agent", "alphabeta(depth=x)"]) == 2
    assert "depth" in capsys.readouterr().err


@pytest.mark.parametrize(
    "name, params",
    [
        ("tic_tac_toe", {}),
        ("connect_four", {}),
        ("othello", {}),
        ("nim", {"heaps": (2, 3), "misere": True}),
        ("halving", {"n": 9}),
        ("pig", {"winscore": 20, "diceoutcomes": 4, "horizon": 30}),
    ],
)
def test_a_games_sizes_come_from_its_declared_info(name, params):
    from rlgames.registry import describe_game

    info = describe_game(name, **params)
    game = rlgames.load_game(name, **params)
    assert game.info == info and info.name == name == game.name
    assert (game.num_actions, game.observation_shape, game.max_game_length, game.has_chance) == (
        info.num_actions,
        info.observation_shape,
        info.max_game_length,
        info.has_chance,
    )
    assert game.new_initial_state().observation().shape == info.observation_shape
    assert info.utility == (-1.0, 1.0) and not info.history_dependent


def test_describe_checks_the_parameters_as_the_game_does():
    from rlgames.registry import describe_game

    with pytest.raises(ValueError, match="nim: every heap size must be an int"):
        describe_game("nim", heaps=(0, 3))
    with pytest.raises(ValueError, match="connect_four has no parameter 'rows'"):
        describe_game("connect_four", rows=5)


def test_solve_names_a_win_worth_two_points(monkeypatch, capsys):
    """The solvers' value is a return, in the game's utility range: a stub gives a 2-point win."""
    from types import SimpleNamespace

    import rlgames.solvers

    result = SimpleNamespace(
        value=2, plies_to_end=3, score=None, best_actions=(4,), value_preserving_actions=(4,), nodes=1, time_s=0.0
    )
    monkeypatch.setattr(rlgames.solvers, "solve", lambda state, time_limit: result)
    assert main(["solve", "tic_tac_toe"]) == 0
    assert "value: win (+2) for the side to move" in capsys.readouterr().out
