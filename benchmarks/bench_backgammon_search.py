"""Backgammon expectiminimax at 1, 2 and 3 plies: nodes per move, evaluations, time and how they grow.

A ply is one player's roll and move (``expectiminimax(plies=N)``, `ExpectiminimaxConfig.depth_unit`
``"turn"``): 1 ply evaluates every afterstate of the roll (TD-Gammon's 1-ply), 2 plies add the
opponent's 21 rolls and every reply, 3 plies the player's next roll and move. Each evaluator (the
hand-crafted one, pubeval, and an NNUE: ``--model``, or a fresh one of the TD preset's size) searches the
same decision positions, taken from random games (chance drawn by its probabilities) after 4 to 40 turns,
at each depth with the agents' 16 MB transposition table and Star1 pruning (rlgames' default), without pruning
(up to ``--full-plies``), and with
Star1 and gnubg's move filter (``--filter K``: only the K root moves best at 1 ply searched deeper;
faster, not exact); times are the thread's CPU time of the search call (`time.thread_time`: other work
on the machine does not count). Nodes count decision and chance nodes; evaluations count leaves scored
by the evaluator. There is no reference in the same run: OpenSpiel's Python package has no
expectiminimax::

    python benchmarks/bench_backgammon_search.py --positions 8 --max-plies 3
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

import rlgames
from rlgames.evaluators import load_evaluator
from rlgames.evaluators.base import Evaluator
from rlgames.game import Game, State
from rlgames.search import Expectiminimax, ExpectiminimaxConfig

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import announce, save_json

TT_MB = 16.0
"""The transposition table of ``expectiminimax(...)`` agents (the second half of a double transposes)."""


def decision_positions(game: Game, count: int, seed: int) -> list[State]:
    """``count`` decision positions of random games, each after a random number (4 to 40) of turns."""
    rng = np.random.default_rng(seed)
    positions: list[State] = []
    while len(positions) < count:
        state, turns, target = game.new_initial_state(), 0, int(rng.integers(4, 41))
        while not state.is_terminal() and turns < target:
            if state.is_chance_node():
                state = state.apply(state.sample_chance_outcome(rng))
                turns += 1
            else:
                state = state.apply(int(rng.choice(state.legal_actions())))
        if not state.is_terminal():
            positions.append(state)
    return positions


def evaluators(game: Game, model: str | None) -> dict[str, Evaluator]:
    """The hand-crafted evaluator, pubeval and an NNUE (``model``, else a fresh TD-preset-sized one)."""
    found = {"heuristic": load_evaluator("heuristic", game), "pubeval": load_evaluator("pubeval", game)}
    if model is not None:
        found["nnue"] = load_evaluator("model", game, path=model)
    else:
        from rlgames.models.evaluator import NNUEvaluator
        from rlgames.models.networks import build_network
        from rlgames.train.td import PRESETS

        preset = PRESETS["backgammon"]
        network = build_network(game, "nnue", seed=0, accumulator=preset.accumulator, hidden=preset.hidden)
        found["nnue"] = NNUEvaluator(network, game)
    return found


def measure(
    evaluator: Evaluator, positions: list[State], plies: int, pruning: str, root_filter: int | None
) -> dict[str, Any]:
    """Totals of one evaluator at one depth, pruning and filter over every position."""
    config = ExpectiminimaxConfig(
        depth=plies, depth_unit="turn", pruning=pruning, root_filter=root_filter, tt_size_mb=TT_MB
    )
    search = Expectiminimax(evaluator, config)
    search.search(positions[0])  # compiles
    nodes = evaluations = 0
    seconds = 0.0
    for state in positions:
        start = time.thread_time()
        result = search.search(state)
        seconds += time.thread_time() - start
        nodes += result.stats.nodes
        evaluations += result.stats.extra["evaluations"]
    moves = len(positions)
    name = pruning if root_filter is None else f"{pruning}, filter {root_filter}"
    return {
        "plies": plies,
        "search": name,
        "nodes_per_move": nodes / moves,
        "evaluations_per_move": evaluations / moves,
        "seconds_per_move": seconds / moves,
        "nodes_per_s": nodes / seconds,
        "evaluations_per_s": evaluations / seconds,
    }


def table(name: str, rows: list[dict[str, Any]]) -> str:
    lines = [
        f"\n{name}:",
        "| plies | search | nodes/move | evaluations/move | s/move | nodes/s | evaluations/s | nodes x previous ply |",
        "|---:|---|---:|---:|---:|---:|---:|---:|",
    ]
    previous: dict[str, float] = {}
    for row in rows:
        growth = row["nodes_per_move"] / previous[row["search"]] if row["search"] in previous else None
        previous[row["search"]] = row["nodes_per_move"]
        lines.append(
            f"| {row['plies']} | {row['search']} | {row['nodes_per_move']:,.0f} | "
            f"{row['evaluations_per_move']:,.0f} | {row['seconds_per_move']:.4f} | "
            f"{row['nodes_per_s'] / 1e6:.2f}M | {row['evaluations_per_s'] / 1e6:.2f}M | "
            f"{'' if growth is None else f'{growth:,.0f}x'} |"
        )
    return "\n".join(lines)


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--positions", type=int, default=8, help="decision positions searched (default 8)")
    parser.add_argument("--max-plies", type=int, default=3, help="deepest search, in plies (default 3)")
    parser.add_argument(
        "--full-plies",
        type=int,
        default=2,
        help="deepest search also run without pruning and without filter (default 2; 3 takes minutes a move)",
    )
    parser.add_argument("--filter", type=int, default=8, help="the move filter's width (default 8, gnubg's)")
    parser.add_argument("--model", help="an NNUE checkpoint (default: a fresh one of train.td's backgammon size)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the random games (default 0)")
    parser.add_argument("--json", metavar="PATH", help="also write the results to this JSON file")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args(argv)
    machine = announce(argv)
    game = rlgames.load_game("backgammon")
    positions = decision_positions(game, args.positions, args.seed)
    results: dict[str, list[dict[str, Any]]] = {}
    for name, evaluator in evaluators(game, args.model).items():
        rows = results.setdefault(name, [])
        for plies in range(1, args.max_plies + 1):
            if plies <= args.full_plies:
                rows += [measure(evaluator, positions, plies, pruning, None) for pruning in ("star1", "none")]
            if plies > 1:
                rows.append(measure(evaluator, positions, plies, "star1", args.filter))
        print(table(name, rows), flush=True)
    save_json(args.json, {"args": vars(args), "machine": machine, "results": results})


if __name__ == "__main__":
    main()
