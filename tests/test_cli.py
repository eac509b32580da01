"""The `rlgames` verbs that list things and hand over to other programs."""

from __future__ import annotations

import pytest

from rlgames.cli import main


def test_games_lists_every_game_with_its_parameters(capsys):
    assert main(["games"]) == 0
    out = capsys.readouterr().out
    assert "nim(heaps=(1, 3, 5, 7), misere=False)" in out and "connect_four(): 7 actions" in out
    assert "pig(winscore=100, diceoutcomes=6, horizon=1000): 2 actions" in out and "chance nodes" in out


def test_agents_lists_the_spec_language_and_evaluators(capsys):
    assert main(["agents"]) == 0
    out = capsys.readouterr().out
    for form in ("alphabeta(depth: int | None = None, eval: str = 'heuristic'", "mcts(simulations: int | None = None",
                 "expectiminimax(depth: int | None = None", "policy(model: str, temperature: float = 0.0",
                 "solver(seed: int | None = None)", "random(seed: int | None = None)"):
        assert form in out
    assert "evaluators (eval=...): heuristic, learned, model, policy_rollout, rollout, zero" in out


def test_show_draws_a_position_and_reports_bad_moves(capsys):
    assert main(["show", "connect_four", "--moves", "4453"]) == 0
    assert "to move: player 0; legal: 1, 2, 3, 4, 5, 6, 7" in capsys.readouterr().out
    assert main(["show", "tic_tac_toe", "--moves", "b2 b2"]) == 2
    assert "move b2 (action 4) is illegal" in capsys.readouterr().err


def test_train_hands_its_arguments_over(capsys):
    assert main(["train", "tic_tac_toe", "--preset", "nonexistent"]) == 2  # python -m train's own error


def test_bench_runs_a_benchmark_script(capsys):
    assert main(["bench", "solver", "--files", "Test_L3_R1", "--limit", "3"]) == 0


def test_unknown_arguments_are_refused_outside_handovers():
    with pytest.raises(SystemExit):
        main(["games", "--bogus"])
