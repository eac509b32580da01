"""The Ray backend against local processes: arena games per second and NNUE self-play positions per second
with 1 and 2 workers, side by side in one run, and Ray's overhead per item.

Each configuration plays the same seeded work (the results are checked equal across backends and worker
counts) and is timed from the call to its last result, its workers' start included, as a user's command
pays it; Ray itself is started once, before the first Ray configuration, and that start is reported apart.
The ratio of interest is 2 workers over 1 on each backend (issue 46's target: >= 1.7 on a 2-core machine),
and Ray's time over the local pool's at equal workers::

    python benchmarks/bench_ray.py --games 200 --positions-games 40 --json ray.json
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable

import rlgames
from rlgames.arena import ArenaConfig, run_arena
from rlgames.parallel import LOCAL, Backend
from rlgames.train.nnue.config import PRESETS
from rlgames.train.nnue.data import play_generation

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import machine_info  # noqa: E402

RAY = Backend("ray")


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
    parser.add_argument("--json", help="also write the figures here")
    args = parser.parse_args()
    import ray

    ray_start, _ = timed(lambda: ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False))
    rows = arena_rates(args.games) + selfplay_rates(args.positions_games)
    for row in rows:
        print(
            f"{row['work']:14} {row['backend']:6} {row['workers']} workers: {row['items']:6} items in "
            f"{row['seconds']:7.1f} s, {row['per_second']:8.1f}/s"
        )
    found = ratios(rows)
    for ratio in found:
        print(f"{ratio['work']:14} {ratio['ratio']}: {ratio['value']:.3f}")
    print(f"ray.init: {ray_start:.1f} s")
    if args.json:
        record = {
            "machine": machine_info(),
            "ray_init_s": ray_start,
            "rows": rows,
            "ratios": found,
            "command": "python benchmarks/bench_ray.py " + " ".join(sys.argv[1:]),
        }
        Path(args.json).write_text(json.dumps(record, indent=2) + "\n")


if __name__ == "__main__":
    main()
