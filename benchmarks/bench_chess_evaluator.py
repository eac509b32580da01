"""The hand-crafted chess evaluator's speed: its compiled kernel alone, and inside alpha-beta.

Over ``--positions`` positions of seeded random games (`common.random_positions`, 6 to 40 plies):

* **evals/s** -- calls of the evaluator's kernel (`rlgames.games.chess.evaluator`) per second of thread CPU
  time, cycling over the positions for ``--seconds``;
* **nodes/s** -- alpha-beta with that evaluator at ``--depth`` and 8 plies of quiescence, every position
  searched once: nodes (quiescence nodes included) per second of thread CPU time.

Both after an untimed call that compiles them. The node count is printed so that two trees can be seen to
search the same nodes. To compare two trees, run each on the same machine, alternately::

    python benchmarks/bench_chess_evaluator.py --runs 3
    (cd /tmp/baseline && PYTHONPATH=/tmp/baseline python benchmarks/bench_chess_evaluator.py --runs 3)
"""

from __future__ import annotations

import argparse
import time
from typing import Any

from common import announce, random_positions, repeat_runs, save_json, spread

import rlgames
from rlgames.evaluators import load_evaluator
from rlgames.search import AlphaBeta, AlphaBetaConfig


def measure(states: list[rlgames.State], depth: int, seconds: float) -> dict[str, Any]:
    game = states[0].game
    evaluator = load_evaluator("heuristic", game)
    kernel, compact = evaluator.kernel, [state.compact for state in states]
    kernel(compact[0])  # compiles
    calls, start = 0, time.thread_time()
    while time.thread_time() - start < seconds:
        for words in compact:
            kernel(words)
        calls += len(compact)
    evals_per_s = calls / (time.thread_time() - start)
    search = AlphaBeta(evaluator, AlphaBetaConfig(depth=depth, quiescence_depth=8))
    search.search(states[0])  # compiles
    nodes, start = 0, time.thread_time()
    for state in states:
        nodes += search.search(state).stats.nodes
    return {"evals_per_s": evals_per_s, "nodes": nodes, "nodes_per_s": nodes / (time.thread_time() - start)}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--positions", type=int, default=40, help="positions of random games (default 40)")
    parser.add_argument("--depth", type=int, default=4, help="alpha-beta's depth (default 4)")
    parser.add_argument("--seconds", type=float, default=2.0, help="seconds of kernel calls (default 2)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the random games (default 0)")
    parser.add_argument("--runs", type=int, default=1, help="repeat the measurement (default 1)")
    parser.add_argument("--json", metavar="PATH", help="also write the results to this JSON file")
    args = parser.parse_args(argv)
    machine = announce(argv)
    game = rlgames.load_game("chess")
    states = [game.state_from_actions(line) for line in random_positions(game, args.positions, args.seed, 6, 40)]
    runs = repeat_runs(
        args.runs,
        lambda _: measure(states, args.depth, args.seconds),
        lambda r: (
            f"{r['evals_per_s']:,.0f} evals/s; depth {args.depth}: "
            f"{r['nodes']:,} nodes, {r['nodes_per_s']:,.0f} nodes/s"
        ),
        lambda rs: (
            f"evals/s: {spread([r['evals_per_s'] for r in rs], ',.0f')}\n"
            f"nodes/s: {spread([r['nodes_per_s'] for r in rs], ',.0f')}"
        ),
    )
    save_json(args.json, {"machine": machine, "args": vars(args), "runs": runs})


if __name__ == "__main__":
    main()
