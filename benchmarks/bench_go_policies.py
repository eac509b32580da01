"""Go's three playout policies side by side: light, hand-written (``patterns``) and learned (a rollout
policy's weights, ``checkpoints/go9_rollout.npz`` by default), playouts per second from the empty 9x9 board.

Each policy's ``playout`` kernel is called as MCTS calls it, ``--seconds`` of CPU time (``time.thread_time``)
a round, the three taking turns round by round, ``--runs`` rounds; each figure counts the playouts really
played, with their mean length. The ratios to the hand-written policy are per run, then their median::

    python benchmarks/bench_go_policies.py --runs 3 --json benchmarks/results/go_policies.json
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any, Sequence

import numpy as np

import rlgames
from rlgames.jit.rng import new_rng_state

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import announce, command_line, save_json

ROOT = Path(__file__).resolve().parents[1]


def policies(game: rlgames.Game, weights: Path) -> dict[str, Any]:
    """The playout kernels by name."""
    return {
        "light": game.kernels.playout,
        "patterns": game.locate(game.playouts["patterns"]),
        "learned": game.locate(game.rollout_policy).playout(weights),
    }


def timed_round(kernel: Any, state: tuple, rng: np.ndarray, seconds: float) -> tuple[int, int, float]:
    """Playouts, their moves and the CPU seconds of one round."""
    actions, probs = np.empty(1, dtype=np.int64), np.empty(1)
    count = moves = 0
    start = time.thread_time()
    while time.thread_time() - start < seconds:
        for _ in range(100):
            _, plies = kernel(state, rng, actions, probs)
            moves += plies
        count += 100
    return count, moves, time.thread_time() - start


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--weights", default=str(ROOT / "checkpoints" / "go9_rollout.npz"))
    parser.add_argument("--seconds", type=float, default=2.0, help="CPU seconds per round of each policy")
    parser.add_argument("--runs", type=int, default=3, help="rounds of each policy")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", help="also write the results to this JSON file")
    args = parser.parse_args(argv)
    game = rlgames.load_game("go", board_size=9)
    state = game.new_initial_state().compact
    kernels = policies(game, Path(args.weights))
    rngs = {name: new_rng_state(args.seed) for name in kernels}
    for name, kernel in kernels.items():  # compiles
        kernel(state, rngs[name], np.empty(1, dtype=np.int64), np.empty(1))
    machine = announce(argv)
    rates: dict[str, list[float]] = {name: [] for name in kernels}
    lengths: dict[str, list[float]] = {name: [] for name in kernels}
    for _ in range(args.runs):
        for name, kernel in kernels.items():
            count, moves, seconds = timed_round(kernel, state, rngs[name], args.seconds)
            rates[name].append(count / seconds)
            lengths[name].append(moves / count)
    rows = []
    print("| policy | playouts/s (median) | range | moves a playout | ratio to patterns |")
    print("| --- | ---: | --- | ---: | ---: |")
    for name in kernels:
        ratio = statistics.median(r / p for r, p in zip(rates[name], rates["patterns"]))
        row = {
            "policy": name,
            "playouts_per_second": statistics.median(rates[name]),
            "runs": rates[name],
            "moves_per_playout": statistics.mean(lengths[name]),
            "ratio_to_patterns": ratio,
        }
        rows.append(row)
        print(
            f"| {name} | {row['playouts_per_second']:,.0f} | {min(rates[name]):,.0f}-{max(rates[name]):,.0f} "
            f"| {row['moves_per_playout']:.1f} | {ratio:.2f} |"
        )
    if args.json:
        save_json(args.json, {"command": command_line(__file__, argv), "machine": machine, "policies": rows})


if __name__ == "__main__":
    main()
