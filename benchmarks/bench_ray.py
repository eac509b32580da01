"""The Ray backend against local processes: arena games per second, NNUE self-play positions per second and
AlphaZero self-play positions per second with 1 and 2 workers, side by side in one run, and Ray's overhead
per item.

Each configuration plays the same seeded work (the results are checked equal across backends and worker
counts; AlphaZero self-play's, whose shares are seeded per worker, across backends with 2 workers, and with
1 recorded as ``same_positions_as_local``) and is timed from the call to its last result, its workers' start
included, as a user's command pays it; Ray itself is started once, before the first Ray configuration, and
that start is reported apart. The ratio of interest is 2 workers over 1 on each backend (issue 46's target:
>= 1.7 on a 2-core machine), and Ray's time over the local pool's at equal workers::

    python benchmarks/bench_ray.py --games 2000 --positions-games 200 --selfplay-iterations 5 \
        --selfplay-games 64 --json benchmarks/results/ray.json

AlphaZero self-play is `rlgames.train.alphazero.selfplay.SelfPlay`, as the trainer drives it: one object for
the whole run, ``play`` once per iteration (``--selfplay-iterations`` of ``--selfplay-games`` games), the
evaluator's cache cleared before each iteration as the trainer clears it after learning. Local workers are
processes and Ray's are actors, both started by the first iteration and kept, the network's weights sent once
per iteration (``ray.put`` on Ray; in the items locally). So the first iteration (the workers' start) is
reported apart from the steady ones, whose rates are the rows' and the ratios'. (The record
``benchmarks/results/ray.json`` was measured when local workers were still started for each iteration.) Its
settings are the ``connect_four_small`` preset's `SelfPlayConfig` (what ``python -m rlgames.train connect_four
--preset connect_four_small`` runs: Gumbel search at 32 simulations, random-move games, proven siblings) and
its network the shipped ``checkpoints/connect_four.pt``, trained with that preset: the 2-core preset of a game
whose games are long enough that an iteration is many seconds of search. Tic-tac-toe's preset plays its 64
games in well under a second, less than a worker process takes to start, so it would time the start alone.
With one worker `SelfPlay` plays in the calling process on either backend; the Ray row with one worker sends
the iteration to one actor instead (`OneActorSelfPlay`), so that it measures an actor's rate, what more actors
multiply. The rows count searched positions (one per move, the trainer's "positions"); their ``positions`` key
counts those recorded for the replay buffer (siblings included), what a learner consumes.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable

import numpy as np
from rlgames.models import NetworkEvaluator, load_network
from rlgames.train.alphazero.config import load_config, settle_for_device
from rlgames.train.alphazero.selfplay import Positions, SelfPlay, SelfPlayStats, play_games
from rlgames.train.nnue.config import PRESETS
from rlgames.train.nnue.data import play_generation

import rlgames
from rlgames.arena import ArenaConfig, run_arena
from rlgames.parallel import LOCAL, Backend
from rlgames.threads import pin_threads

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import machine_info  # noqa: E402

RAY = Backend("ray")
AZ_PRESET, AZ_GAME = "connect_four_small", "connect_four"
"""AlphaZero self-play's preset and game (see the module's docstring)."""
AZ_CHECKPOINT = Path(__file__).resolve().parents[1] / "checkpoints" / "connect_four.pt"
"""Its network: the shipped connect four model, trained with that preset."""


def timed(run: Callable[[], Any]) -> tuple[float, Any]:
    started = time.perf_counter()
    result = run()
    return time.perf_counter() - started, result


def arena_rates(games: int) -> list[dict[str, Any]]:
    """Games per second of a connect-four arena (alpha-beta depth 4 against MCTS with 100 simulations)."""
    config = ArenaConfig("connect_four", ("alphabeta(depth=4)", "mcts(simulations=100)"), games=games, seed=0)
    rows, reference = [], None
    for backend in (LOCAL, RAY):
        for workers in (1, 2):
            seconds, result = timed(lambda: run_arena(replace(config, workers=workers, backend=backend)))
            reference = reference or result.records
            assert result.records == reference, "the same games on every backend and worker count"
            rows.append(
                {
                    "work": "arena",
                    "backend": backend.kind,
                    "workers": workers,
                    "seconds": seconds,
                    "items": games,
                    "per_second": games / seconds,
                }
            )
    return rows


def selfplay_rates(games: int) -> list[dict[str, Any]]:
    """Positions per second of NNUE self-play data (connect four's preset: depth-8 alpha-beta games)."""
    game = rlgames.load_game("connect_four")
    config = replace(PRESETS["connect_four"], games=games)
    rows, reference = [], None
    for backend in (LOCAL, RAY):
        for workers in (1, 2):
            seconds, data = timed(lambda: play_generation(game, config, 0, None, workers=workers, backend=backend))
            reference = reference if reference is not None else data.values
            assert (data.values == reference).all(), "the same positions on every backend and worker count"
            rows.append(
                {
                    "work": "nnue-selfplay",
                    "backend": backend.kind,
                    "workers": workers,
                    "seconds": seconds,
                    "items": len(data),
                    "per_second": len(data) / seconds,
                }
            )
    return rows


class OneActorSelfPlay(SelfPlay):
    """`SelfPlay` whose one worker, on Ray, is an actor (`SelfPlay` plays a 1-worker iteration in the calling
    process whatever the backend): the actor plays the iteration's games with its seed, as this process
    would, on a copy of the network sent by ``ray.put``."""

    def play(self, evaluator: NetworkEvaluator, seed: int) -> tuple[Positions, SelfPlayStats]:
        if self.config.workers > 1 or self.backend.kind == "local":
            return super().play(evaluator, seed)
        start = time.perf_counter()
        [(positions, stats)] = list(self._play_shares(evaluator, [(seed, self.config.games_per_iteration, ())]))
        return positions, dataclasses.replace(stats, seconds=time.perf_counter() - start)


def same_positions(a: Positions, b: Positions) -> bool:
    return all(np.array_equal(getattr(a, f.name), getattr(b, f.name)) for f in dataclasses.fields(Positions))


def alphazero_rates(iterations: int, games: int) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Positions per second of AlphaZero self-play (`SelfPlay`, ``iterations`` iterations of ``games`` games,
    the connect_four_small preset's settings): a row per backend and workers of the steady iterations (all
    but the first), and the record of every iteration."""
    game = rlgames.load_game(AZ_GAME)
    preset = settle_for_device(load_config(AZ_PRESET), "cpu").selfplay
    config = dataclasses.replace(
        preset, games_per_iteration=games, parallel_games=min(preset.parallel_games, games), workers=1
    )
    network, _ = load_network(AZ_CHECKPOINT, game)
    evaluator = NetworkEvaluator(network, game, batch_size=1024)  # the trainer's
    # compile the search, the siblings' alpha-beta and the game in this process (numba's cache, which the
    # workers then load) before anything is timed
    warmup_s, _ = timed(lambda: play_games(game, evaluator, dataclasses.replace(config, games_per_iteration=1), 10**6))
    rows: list[dict[str, Any]] = []
    per_iteration: list[dict[str, Any]] = []
    reference: dict[tuple[int, int], Positions] = {}
    for backend in (LOCAL, RAY):
        for workers in (1, 2):
            selfplay = OneActorSelfPlay(game, dataclasses.replace(config, workers=workers), backend)
            played, same = [], True
            try:
                for iteration in range(iterations):
                    evaluator.clear_cache()  # as the trainer does after learning
                    seconds, (positions, stats) = timed(lambda: selfplay.play(evaluator, iteration))
                    first = reference.setdefault((workers, iteration), positions)
                    same = same and same_positions(positions, first)
                    if workers > 1:
                        assert same, "the same positions on either backend with the same workers"
                    played.append(
                        {
                            "backend": backend.kind,
                            "workers": workers,
                            "iteration": iteration,
                            "seconds": seconds,
                            "games": stats.games,
                            "moves": stats.positions,
                            "positions": len(positions),
                        }
                    )
            finally:
                selfplay.close()
            per_iteration += played
            steady = played[1:]
            seconds = sum(p["seconds"] for p in steady)
            moves = sum(p["moves"] for p in steady)
            rows.append(
                {
                    "work": "alphazero-selfplay",
                    "backend": backend.kind,
                    "workers": workers,
                    "seconds": seconds,
                    "items": moves,
                    "per_second": moves / seconds,
                    "games": sum(p["games"] for p in steady),
                    "positions": sum(p["positions"] for p in steady),
                    "first_iteration_s": played[0]["seconds"],
                    "first_iteration_items": played[0]["moves"],
                    "same_positions_as_local": same,  # 1 worker: this process's evaluator against the actor's
                }
            )
    by = {(r["backend"], r["workers"]): r for r in rows}
    overhead = [
        {
            "workers": workers,
            "first_iteration_s_per_game": (
                by["ray", workers]["first_iteration_s"] - by["local", workers]["first_iteration_s"]
            )
            / games,
            "steady_s_per_game": (by["ray", workers]["seconds"] - by["local", workers]["seconds"])
            / by["ray", workers]["games"],
        }
        for workers in (1, 2)
    ]
    record = {
        "preset": AZ_PRESET,
        "game": AZ_GAME,
        "checkpoint": "checkpoints/connect_four.pt",
        "selfplay": dataclasses.asdict(config),
        "iterations": iterations,
        "games_per_iteration": games,
        "warmup_s": warmup_s,
        "ray_overhead": overhead,
        "per_iteration": per_iteration,
    }
    return rows, record


def ratios(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per work and backend, 2 workers' rate over 1's; per work and workers, Ray's time over local's and Ray's
    extra seconds per item."""
    found = []
    by = {(r["work"], r["backend"], r["workers"]): r for r in rows}
    for work in dict.fromkeys(r["work"] for r in rows):
        for backend in ("local", "ray"):
            two, one = by[work, backend, 2], by[work, backend, 1]
            found.append(
                {"work": work, "ratio": f"{backend} 2 workers / 1", "value": two["per_second"] / one["per_second"]}
            )
        for workers in (1, 2):
            ray, local = by[work, "ray", workers], by[work, "local", workers]
            found.append(
                {
                    "work": work,
                    "ratio": f"ray / local time, {workers} workers",
                    "value": ray["seconds"] / local["seconds"],
                }
            )
            found.append(
                {
                    "work": work,
                    "ratio": f"ray overhead s/item, {workers} workers",
                    "value": (ray["seconds"] - local["seconds"]) / ray["items"],
                }
            )
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=200, help="arena games per configuration (even)")
    parser.add_argument("--positions-games", type=int, default=40, help="self-play games per configuration")
    parser.add_argument(
        "--selfplay-iterations",
        type=int,
        default=5,
        help="AlphaZero self-play iterations per configuration (>= 2: the first is reported apart)",
    )
    parser.add_argument(
        "--selfplay-games",
        type=int,
        default=load_config(AZ_PRESET).selfplay.games_per_iteration,
        help=f"AlphaZero self-play games per iteration (default: the {AZ_PRESET} preset's)",
    )
    parser.add_argument("--json", help="also write the figures here")
    args = parser.parse_args()
    if args.selfplay_iterations < 2 or args.selfplay_games < 2:
        parser.error("--selfplay-iterations and --selfplay-games must be at least 2")
    pin_threads()  # one thread per process, as every rlgames command (the trainer's --threads 1)
    import ray

    ray_start, _ = timed(lambda: ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False))
    rows = arena_rates(args.games) + selfplay_rates(args.positions_games)
    az_rows, alphazero = alphazero_rates(args.selfplay_iterations, args.selfplay_games)
    rows += az_rows
    for row in rows:
        first = (
            f" (first iteration: {row['first_iteration_items']} in {row['first_iteration_s']:.1f} s)"
            if "first_iteration_s" in row
            else ""
        )
        print(
            f"{row['work']:18} {row['backend']:6} {row['workers']} workers: {row['items']:6} items in "
            f"{row['seconds']:7.1f} s, {row['per_second']:8.1f}/s{first}"
        )
    found = ratios(rows)
    for ratio in found:
        print(f"{ratio['work']:18} {ratio['ratio']}: {ratio['value']:.3f}")
    for cost in alphazero["ray_overhead"]:
        print(
            f"alphazero-selfplay ray overhead s/game, {cost['workers']} workers: first iteration "
            f"{cost['first_iteration_s_per_game']:.3f}, steady {cost['steady_s_per_game']:.3f}"
        )
    print(f"ray.init: {ray_start:.1f} s; alphazero warm-up (compiling): {alphazero['warmup_s']:.1f} s")
    if args.json:
        record = {
            "machine": machine_info(),
            "ray_init_s": ray_start,
            "rows": rows,
            "ratios": found,
            "alphazero_selfplay": alphazero,
            "command": "python benchmarks/bench_ray.py " + " ".join(sys.argv[1:]),
        }
        Path(args.json).write_text(json.dumps(record, indent=2) + "\n")


if __name__ == "__main__":
    main()
