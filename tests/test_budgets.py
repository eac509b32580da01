"""Per-move budgets hold with a network: ``time=`` bounds every move of alpha-beta and MCTS, whatever
the evaluator (the issue's target: no move past 0.3 s under a 0.2 s budget, compilation excepted)."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pytest

import rlgames

pytest.importorskip("torch")
CHECKPOINTS = Path(__file__).resolve().parents[1] / "checkpoints"
BUDGET, SLACK = 0.2, 0.1


def move_times(game: rlgames.Game, spec: str, plies: int, seed: int = 0) -> list[float]:
    """Seconds of each of the agent's moves (after compiling ones) in a game against random moves: the
    wall-clock time, or the process's CPU time where that is less. The test's workers share the machine's
    cores, and a search that the system stops for a while overruns its wall-clock budget by that while
    through no fault of its own (a CI run saw 0.92 s); its CPU time still shows its own overrun."""
    agent = rlgames.load_agent(spec, game)
    warm_up = game.new_initial_state()
    for action in (3, 3, 2):  # compiles everything the search uses, some of it only met past the start
        agent.search(warm_up)
        warm_up = warm_up.apply(action)
    rng = np.random.default_rng(seed)
    state, times = game.new_initial_state(), []
    for _ in range(plies):
        if state.is_terminal():
            break
        if state.current_player() == 0:
            started, cpu = time.perf_counter(), time.process_time()
            action = agent.search(state).action
            times.append(min(time.perf_counter() - started, time.process_time() - cpu))
        else:
            actions = state.legal_actions()
            action = actions[int(rng.integers(len(actions)))]
        state = state.apply(action)
    return times


@pytest.mark.parametrize(
    "spec",
    [
        f"alphabeta(time={BUDGET}, model={CHECKPOINTS / 'connect_four.pt'})",
        f"mcts(time={BUDGET}, model={CHECKPOINTS / 'connect_four.pt'})",
        f"alphabeta(time={BUDGET})",
        f"mcts(time={BUDGET})",
    ],
    ids=["alphabeta-network", "mcts-network", "alphabeta-heuristic", "mcts-rollouts"],
)
def test_time_budget_bounds_every_move(spec):
    times = move_times(rlgames.load_game("connect_four"), spec, plies=12)
    assert len(times) >= 4  # timed play varies with the machine's load: a quick win may end the game early
    assert max(times) <= BUDGET + SLACK, times


def test_network_alphabeta_honours_nodes_and_deepens_within_time():
    game = rlgames.load_game("connect_four")
    state = game.state_from_moves("4453")
    model = CHECKPOINTS / "connect_four.pt"
    timed = rlgames.load_agent(f"alphabeta(time=0.3, model={model})", game).search(state)
    assert timed.stats.depth >= 3 and timed.stats.time_s <= 0.3 + SLACK
    counted = rlgames.load_agent(f"alphabeta(nodes=500, model={model})", game).search(state)
    fixed = rlgames.load_agent(f"alphabeta(depth={counted.stats.depth}, model={model})", game).search(state)
    assert counted.value == fixed.value and counted.stats.depth >= 2
    assert rlgames.load_agent(f"alphabeta(depth=3, model={model})", game).search(state).stats.depth == 3


def test_an_equal_time_arena_reports_each_players_time_per_move(tmp_path):
    import json

    from rlgames.cli import main

    model = CHECKPOINTS / "tic_tac_toe.pt"
    specs = [f"alphabeta(time=0.05, model={model})", "mcts(time=0.05)"]
    assert main(["arena", "tic_tac_toe", *specs, "--games", "2", "--out", str(tmp_path)]) == 0
    players = json.loads((tmp_path / "results.json").read_text())["players"]
    for player in players:
        assert player["moves"] >= 4 and player["max_seconds_per_move"] <= 0.05 + SLACK  # compiled beforehand
        assert 0 < player["seconds_per_move"]
    assert "s/move" in (tmp_path / "report.md").read_text()


@pytest.mark.parametrize("evaluator", ["heuristic", "network"])
def test_expectiminimax_deepens_within_its_budgets(evaluator, tmp_path):
    from rlgames.search import Expectiminimax, ExpectiminimaxConfig

    game = rlgames.load_game("pig", winscore=30)
    if evaluator == "network":
        from rlgames.models import build_network, save_checkpoint

        path = save_checkpoint(
            tmp_path / "pig.pt", network=build_network(game, "mlp", seed=0, hidden=16, layers=1), game=game
        )
        kind, model = "model", f", model={path}"
    else:
        kind, model = "heuristic", ""
    state = game.new_initial_state()
    counted = rlgames.load_agent(f"expectiminimax(nodes=3000{model})", game).search(state)
    assert 1 <= counted.stats.depth
    from rlgames.evaluators import load_evaluator

    loaded = load_evaluator(kind, game, **({"path": path} if evaluator == "network" else {}))
    fixed = Expectiminimax(loaded, ExpectiminimaxConfig(depth=counted.stats.depth)).search(state)
    assert counted.value == pytest.approx(fixed.value) and counted.action == fixed.action
    agent = rlgames.load_agent(f"expectiminimax(time=0.1{model})", game)
    agent.search(state)  # compiles
    started = time.perf_counter()
    timed = agent.search(state)
    assert time.perf_counter() - started <= 0.1 + SLACK and timed.stats.depth >= counted.stats.depth - 1
