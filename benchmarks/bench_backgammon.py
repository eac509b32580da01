"""Backgammon random games: rlgames' compiled kernels against OpenSpiel's Python loop, in the same run.

Two loops play uniformly random games from the start, chance outcomes drawn by their probabilities:

* OpenSpiel's Python loop on a pyspiel state: ``state.legal_actions()``, ``state.chance_outcomes()``
  and ``state.apply_action(...)``, its random numbers from a numpy ``Generator`` (drawn 4,096 at a
  time, so that the loop pays for OpenSpiel and not for numpy's call overhead);
* rlgames' compiled playout (`rlgames.playout`, generic over the game's kernels: the
  ``legal_actions``, ``chance_outcomes`` and ``apply`` kernels and the compiled xoshiro generator),
  a batch of games per compiled call, sized to a tenth of a round.

The loops take turns in ``ROUNDS`` rounds of ``--seconds / ROUNDS`` each, so that a busy machine slows
both alike, and rates are in the thread's CPU time (``time.thread_time``: other work on a shared
machine does not count), the wall-clock rate beside. The mean game lengths (about 210 actions, chance
outcomes included) show that both play the same game. The issue's target: 100x. ``--runs N`` repeats
the measurement and prints the median and range::

    python benchmarks/bench_backgammon.py --seconds 5 --runs 3
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pyspiel

import rlgames
from rlgames.jit.rng import new_rng_state
from rlgames.playout import make_playout_batch

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import announce, repeat_runs, save_json, spread

ROUNDS = 20
WARMUP_GAMES = 3
BATCH_FRACTION = 0.1  # a compiled batch takes about this fraction of a round
UNIFORM_BLOCK = 4096


class Uniforms:
    """Floats in [0, 1) from a numpy Generator, drawn a block at a time."""

    def __init__(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)
        self.block: list[float] = []

    def __call__(self) -> float:
        if not self.block:
            self.block = self.rng.random(UNIFORM_BLOCK).tolist()
        return self.block.pop()


def openspiel_game(game: Any, uniform: Uniforms) -> int:
    """One random OpenSpiel game; returns its number of actions (chance outcomes included)."""
    state, plies = game.new_initial_state(), 0
    while not state.is_terminal():
        if state.is_chance_node():
            u = uniform()
            for outcome, probability in state.chance_outcomes():
                u -= probability
                if u < 0.0:
                    break
            state.apply_action(outcome)
        else:
            legal = state.legal_actions()
            state.apply_action(legal[int(uniform() * len(legal))])
        plies += 1
    return plies


def compiled_batches(game: rlgames.Game, seconds: float, seed: int) -> Callable[[], tuple[int, int]]:
    """A ``play`` returning (plies, games) of one batch of compiled playouts, the batch sized (after a
    compiling call) to take about `BATCH_FRACTION` of a round."""
    batch, rng_state, start = make_playout_batch(game.kernels), new_rng_state(seed), game.initial_compact_state()
    history = np.empty(0, dtype=np.int64)

    def run(size: int) -> tuple[int, int]:
        returns, lengths = np.empty(size, dtype=np.int64), np.empty(size, dtype=np.int64)
        batch(start, rng_state, returns, lengths, history)
        return int(lengths.sum()), size

    run(WARMUP_GAMES)  # compiles
    size, target = 16, BATCH_FRACTION * seconds / ROUNDS
    while True:
        begin = time.thread_time()
        run(size)
        if time.thread_time() - begin >= target:
            return lambda: run(size)
        size *= 2


def time_loops(loops: dict[str, Callable[[], tuple[int, int]]], seconds: float) -> dict[str, dict[str, float]]:
    """Each loop's rates over ``seconds`` in all, the loops taking turns in `ROUNDS` rounds."""
    totals = {name: [0, 0, 0.0, 0.0] for name in loops}  # plies, games, CPU seconds, wall seconds
    for _ in range(ROUNDS):
        for name, play in loops.items():
            total = totals[name]
            cpu, wall = time.thread_time(), time.perf_counter()
            while time.thread_time() - cpu < seconds / ROUNDS:
                plies, games = play()
                total[0] += plies
                total[1] += games
            total[2] += time.thread_time() - cpu
            total[3] += time.perf_counter() - wall
    return {
        name: {
            "games_per_s": games / cpu,
            "plies_per_s": plies / cpu,
            "wall_games_per_s": games / wall,
            "games": games,
            "mean_length": plies / games,
        }
        for name, (plies, games, cpu, wall) in totals.items()
    }


def measure(seconds: float, seed: int, scoring_type: str) -> dict[str, Any]:
    """Both loops' rates and the ratio of compiled games per second to OpenSpiel's."""
    game = rlgames.load_game("backgammon", scoring_type=scoring_type)
    spiel, uniform = pyspiel.load_game("backgammon", {"scoring_type": scoring_type}), Uniforms(seed)
    for _ in range(WARMUP_GAMES):
        openspiel_game(spiel, uniform)
    loops = {
        "openspiel_python": lambda: (openspiel_game(spiel, uniform), 1),
        "rlgames_compiled": compiled_batches(game, seconds, seed),
    }
    row: dict[str, Any] = time_loops(loops, seconds)
    row["ratio"] = row["rlgames_compiled"]["games_per_s"] / row["openspiel_python"]["games_per_s"]
    return row


def table(row: dict[str, Any]) -> str:
    lines = [
        "| loop | games/s (CPU) | actions/s (CPU) | games/s (wall) | games | mean actions/game |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for name, label in (("openspiel_python", "OpenSpiel Python loop"), ("rlgames_compiled", "rlgames compiled")):
        r = row[name]
        lines.append(
            f"| {label} | {r['games_per_s']:,.0f} | {r['plies_per_s']:,.0f} | {r['wall_games_per_s']:,.0f} "
            f"| {r['games']:,} | {r['mean_length']:.1f} |"
        )
    lines.append(f"\ncompiled / OpenSpiel: {row['ratio']:.1f}x games per second (target 100x)")
    return "\n".join(lines)


def summary(runs: list[dict[str, Any]]) -> str:
    lines = [f"over {len(runs)} runs:"]
    for name, label in (
        ("openspiel_python", "OpenSpiel Python loop games/s:"),
        ("rlgames_compiled", "rlgames compiled games/s:"),
    ):
        lines.append(f"  {label:32} {spread([r[name]['games_per_s'] for r in runs], ',.0f')}")
    lines.append(f"  {'compiled / OpenSpiel:':32} {spread([r['ratio'] for r in runs], '.1f')}")
    return "\n".join(lines)


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=4.0, help="CPU seconds per loop and run (default 4)")
    parser.add_argument("--runs", type=int, default=1, help="repeat; prints the median and range (default 1)")
    parser.add_argument("--seed", type=int, default=0, help="seed of both random streams (default 0)")
    parser.add_argument(
        "--scoring-type", default="winloss_scoring", choices=("winloss_scoring", "enable_gammons", "full_scoring")
    )
    parser.add_argument("--json", metavar="PATH", help="also write the results to this JSON file")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args(argv)
    machine = announce(argv)
    runs = repeat_runs(
        args.runs, lambda index: measure(args.seconds, args.seed + index, args.scoring_type), table, summary
    )
    save_json(args.json, {"args": vars(args), "machine": machine, "runs": runs})


if __name__ == "__main__":
    main()
