"""The Ray backend of the parallel seam: the same results as local processes, in order, a worker killed
mid-item replayed and counted once, and Ray imported only when asked for. Skipped without Ray (CI installs
the ``ray`` extra, so they run there)."""

from __future__ import annotations

import dataclasses
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import rlgames
from rlgames.arena import ArenaConfig, run_arena
from rlgames.game import GameInfo, State
from rlgames.games.tic_tac_toe.game import TicTacToe
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


def worker_pid(offset: int, item: int) -> int:
    return os.getpid()


def test_items_go_to_every_actor_before_a_second_to_any():
    """Two items on two actors run side by side (one actor holding both would leave the other idle)."""
    pids = list(map_ordered(worker_pid, range(2), workers=2, setup=square_setup, setup_args=(0,), backend=RAY))
    assert len(set(pids)) == 2


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


@pytest.mark.slow  # 14 s; each trainer's workers play its local positions (the local backend) in its own tests
def test_nnue_self_play_on_ray_plays_the_local_positions():
    from rlgames.train.nnue import data as nnue_data
    from rlgames.train.nnue.config import NNUEConfig

    game = rlgames.load_game("tic_tac_toe")
    config = NNUEConfig(games=6, depth=2, random_plies=2, random_moves=0.3)
    local = nnue_data.play_generation(game, config, 1, None, workers=2)
    on_ray = nnue_data.play_generation(game, config, 1, None, workers=2, backend=RAY)
    for field in dataclasses.fields(nnue_data.Positions):
        np.testing.assert_array_equal(getattr(on_ray, field.name), getattr(local, field.name))


@pytest.mark.slow  # 11 s; the test below plays two iterations on the same actors, the second as local workers
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


def test_alphazero_actors_live_across_iterations_and_play_each_new_network_as_local_workers_do():
    import torch

    from rlgames.models.evaluator import NetworkEvaluator
    from rlgames.models.networks import build_network
    from rlgames.train.alphazero.config import SelfPlayConfig
    from rlgames.train.alphazero.replay import FIELDS
    from rlgames.train.alphazero.selfplay import SelfPlay, play_iteration

    torch.set_num_threads(1)  # as the workers run
    game = rlgames.load_game("tic_tac_toe")
    first, second = (build_network(game, "mlp", hidden=16, layers=1, seed=seed) for seed in (0, 1))
    config = SelfPlayConfig(games_per_iteration=6, parallel_games=3, search="gumbel", simulations=8, workers=2)
    selfplay = SelfPlay(game, config, RAY)
    try:
        before, _ = selfplay.play(NetworkEvaluator(first, game), seed=3)
        pids = ray.get([actor.pid.remote() for actor in selfplay.pool.actors])
        on_ray, _ = selfplay.play(NetworkEvaluator(second, game), seed=3)
        assert ray.get([actor.pid.remote() for actor in selfplay.pool.actors]) == pids
    finally:
        selfplay.close()
    local, _ = play_iteration(game, NetworkEvaluator(second, game), config, seed=3)
    assert not np.array_equal(on_ray.policies, before.policies)  # the second network played
    for name in FIELDS:
        assert np.array_equal(getattr(on_ray, name), getattr(local, name)), name


@pytest.mark.slow  # 15 s; tests/test_train.py stops the same CLI by SIGTERM locally
def test_sigterm_stops_an_alphazero_run_on_ray_as_ctrl_c_does(tmp_path):
    """``ray.init`` replaces the driver's SIGTERM handler by ``sys.exit``: the trainer's own is kept, so a run on
    Ray's actors (this module's Ray, joined by address) stops at a checkpoint with the line saying how to go on."""
    from rlgames.models import load_checkpoint

    (tmp_path / "o.json").write_text('{"eval": {"interval": 0}, "selfplay": {"workers": 2}}')
    checkpoint = tmp_path / "run" / "checkpoint.pt"
    address = ray.get_runtime_context().gcs_address
    args = ["--preset", "smoke", "--config", str(tmp_path / "o.json"), "--iterations", "1000", "--address", address]
    command = [sys.executable, "-m", "rlgames.train", "tic_tac_toe", *args, "--run-dir", str(checkpoint.parent)]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 240
        while not checkpoint.is_file():
            assert process.poll() is None and time.monotonic() < deadline, "the run ended before it was stopped"
            time.sleep(0.05)
        process.send_signal(signal.SIGTERM)
        _, err = process.communicate(timeout=120)
    finally:
        process.kill()
    assert process.returncode == 130 and err.strip().endswith("interrupted: continue with --resume"), err
    assert 1 <= load_checkpoint(checkpoint).counters["iteration"] < 1000


class DyingTicTacToe(TicTacToe):
    """Tic-tac-toe whose worker dies (``kill -9`` of its own process) at the third game it starts after the file
    ``faults``/armed appears, with a game of its share in flight: one worker, once (the one that creates
    ``faults``/fired, holding its process id)."""

    def __init__(self, faults: str = "") -> None:
        super().__init__(faults=faults)
        self.starts_armed = 0

    @classmethod
    def describe(cls, faults: str = "") -> GameInfo:
        return cls.info

    def new_initial_state(self) -> State:
        faults = Path(self.params["faults"])
        if (faults / "armed").exists():
            self.starts_armed += 1
            if self.starts_armed == 3 and not (faults / "fired").exists():
                with open(faults / "fired", "x") as fired:  # one worker wins the race
                    fired.write(str(os.getpid()))
                os.kill(os.getpid(), signal.SIGKILL)
        return super().new_initial_state()


@pytest.mark.slow  # 20 s; a worker killed mid-item is restarted and counted once at the seam, above
def test_an_alphazero_run_with_a_self_play_actor_killed_mid_game_counts_every_game_once(tmp_path):
    """A 3-iteration tic-tac-toe run on 2 actors, one actor's process killed in the second iteration's self-play:
    the run finishes with the games, positions, replay and weights of the same run without a fault (which plays
    the local workers' positions: the tests above)."""
    import torch

    from rlgames.train.alphazero.config import load_config
    from rlgames.train.alphazero.replay import FIELDS
    from rlgames.train.alphazero.trainer import Trainer

    torch.set_num_threads(1)  # as the workers run
    overrides = {"eval": {"interval": 0}, "selfplay": {"games_per_iteration": 8, "parallel_games": 2, "workers": 2}}
    config = load_config("smoke", overrides, iterations=3)
    faults = tmp_path / "faults"
    faults.mkdir()
    lines: dict[str, list[str]] = {"clean": [], "faulty": []}

    def echo_and_arm(line: str) -> None:
        lines["faulty"].append(line)
        if line.startswith("it 1/"):
            (faults / "armed").touch()

    game = DyingTicTacToe(faults=str(faults))
    clean = Trainer(game, config, tmp_path / "clean", echo=lines["clean"].append, backend=RAY)
    clean.run()
    faulty = Trainer(game, config, tmp_path / "faulty", echo=echo_and_arm, backend=RAY)
    faulty.run()
    assert int((faults / "fired").read_text()) != os.getpid()
    assert games_and_positions(lines["faulty"]) == games_and_positions(lines["clean"])
    assert [games for games, _ in games_and_positions(lines["faulty"])] == [8, 8, 8]
    assert faulty.replay.added == clean.replay.added
    for name in FIELDS:
        assert np.array_equal(getattr(faulty.replay, name), getattr(clean.replay, name)), name
    assert all(torch.equal(v, faulty.network.state_dict()[k]) for k, v in clean.network.state_dict().items())


def games_and_positions(lines: list[str]) -> list[tuple[int, int]]:
    """The games and positions of each iteration's progress line (``it 2/3 | 8 games, 61 pos ...``)."""
    return [
        tuple(map(int, re.search(r"\| (\d+) games, (\d+) pos", line).groups()))
        for line in lines
        if line.startswith("it ")
    ]
