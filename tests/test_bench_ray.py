"""benchmarks/bench_ray.py's one-actor self-play plays, on a Ray actor, the iteration this process would play,
so that its Ray row with 1 worker times the same work as the local one. Skipped without Ray."""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import pytest

ray = pytest.importorskip("ray", reason="the ray extra is not installed (pip install 'rlgames[ray]')")

from rlgames.models import NetworkEvaluator, build_network  # noqa: E402
from rlgames.train.alphazero.config import load_config  # noqa: E402

import rlgames  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from bench_ray import RAY, OneActorSelfPlay, same_positions  # noqa: E402


@pytest.fixture(scope="module")
def local_ray():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    yield
    ray.shutdown()


@pytest.mark.slow  # 15 s: a benchmark's own check, run with the benchmark
def test_one_actor_plays_the_iteration_this_process_would(local_ray):
    game = rlgames.load_game("tic_tac_toe")
    config = dataclasses.replace(
        load_config("tic_tac_toe").selfplay, games_per_iteration=2, parallel_games=2, simulations=8
    )
    evaluator = NetworkEvaluator(build_network(game, "mlp", seed=0, hidden=16, layers=1), game)
    here, _ = OneActorSelfPlay(game, config).play(evaluator, 3)
    on_actor = OneActorSelfPlay(game, config, RAY)
    try:
        for _ in range(2):  # the second iteration sends a second version of the network
            played, stats = on_actor.play(evaluator, 3)
            assert same_positions(played, here) and stats.games == 2
        assert on_actor.pool is not None, "the iteration went to an actor"
    finally:
        on_actor.close()
