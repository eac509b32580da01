"""The Ray backend of the parallel seam: the same results as local processes, in order, a worker killed
mid-item replayed and counted once, and Ray imported only when asked for. Skipped without Ray (CI installs
the ``ray`` extra, so they run there)."""

from __future__ import annotations

import dataclasses
import os
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import rlgames
from rlgames.arena import ArenaConfig, run_arena
from rlgames.parallel import Backend, map_ordered

ray = pytest.importorskip("ray", reason="the ray extra is not installed (pip install 'rlgames[ray]')")

RAY = Backend("ray")


@pytest.fixture(scope="module", autouse=True)
def local_ray():
    """A Ray of 2 CPUs on this machine, shared by the module's tests."""
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    yield
    ray.shutdown()


def square_setup(offset: int) -> int:
    return offset


def square(offset: int, item: int) -> tuple[int, int]:
    return item, item * item + offset


def test_results_come_back_in_order_as_locally():
    items = list(range(40))
    local = list(map_ordered(square, items, workers=2, setup=square_setup, setup_args=(5,)))
    on_ray = list(map_ordered(square, items, workers=2, setup=square_setup, setup_args=(5,), backend=RAY))
    assert on_ray == local == [(i, i * i + 5) for i in items]


def dying_setup(marker: str) -> str:
    return marker


def die_once(marker: str, item: int) -> int:
    """Item 7 kills its worker's process (as ``kill -9`` would) the first time it is played."""
    if item == 7 and not Path(marker).exists():
        Path(marker).write_text("killed")
        os.kill(os.getpid(), signal.SIGKILL)
    return item


def test_a_worker_killed_mid_item_is_restarted_and_the_item_counted_once(tmp_path):
    marker = str(tmp_path / "killed")
    results = list(map_ordered(die_once, range(20), workers=2, setup=dying_setup, setup_args=(marker,), backend=RAY))
    assert Path(marker).exists() and results == list(range(20))


def test_an_arena_on_ray_plays_the_local_games():
    config = ArenaConfig("connect_four", ("alphabeta(depth=2)", "mcts(simulations=20)"), games=8, workers=2, seed=3)
    local = run_arena(config)
    on_ray = run_arena(dataclasses.replace(config, backend=RAY))
    assert on_ray.records == local.records


def test_rlgames_imports_no_ray():
    code = "import sys, rlgames, rlgames.arena, rlgames.parallel, envs, train; print('ray' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout == "False\n"


def test_nnue_self_play_on_ray_plays_the_local_positions():
    from rlgames.train.nnue import data as nnue_data
    from rlgames.train.nnue.config import NNUEConfig

    game = rlgames.load_game("tic_tac_toe")
    config = NNUEConfig(games=6, depth=2, random_plies=2, random_moves=0.3)
    local = nnue_data.play_generation(game, config, 1, None, workers=2)
    on_ray = nnue_data.play_generation(game, config, 1, None, workers=2, backend=RAY)
    for field in dataclasses.fields(nnue_data.Positions):
        np.testing.assert_array_equal(getattr(on_ray, field.name), getattr(local, field.name))


def test_alphazero_self_play_on_two_actors_plays_the_local_positions():
    import torch

    from rlgames.models.evaluator import NetworkEvaluator
    from rlgames.models.networks import build_network
    from rlgames.train.alphazero.config import SelfPlayConfig
    from rlgames.train.alphazero.replay import FIELDS
    from rlgames.train.alphazero.selfplay import play_iteration

    torch.set_num_threads(1)  # as the workers run
    game = rlgames.load_game("tic_tac_toe")
    network = build_network(game, "mlp", hidden=16, layers=1, seed=0)
    config = SelfPlayConfig(games_per_iteration=6, parallel_games=3, search="gumbel", simulations=8, workers=2)
    local, local_stats = play_iteration(game, NetworkEvaluator(network, game), config, seed=3)
    on_ray, ray_stats = play_iteration(game, NetworkEvaluator(network, game), config, seed=3, backend=RAY)
    assert ray_stats.games == local_stats.games == 6
    for name in FIELDS:
        assert np.array_equal(getattr(on_ray, name), getattr(local, name)), name
