"""The depth each evaluator's alpha-beta completes in the same time, on the positions of a match.

At equal time a slower evaluation costs depth, and iterative deepening loses it a whole ply at a time:
this counts, position by position, whether the learned evaluator's search completed as deep as the
hand-crafted one's, a ply less or a ply more, in ``--time`` seconds (the same search settings, one
after the other in this process, each after an untimed warm-up), and how often the iteration the
clock interrupted gave the move (a better root move it had searched to the end than the completed
iteration's: `rlgames.search.alphabeta.driver.AlphaBeta`). The positions are every
``--every``-th ply (from ply ``--every / 2``) of the first ``--games`` games of an ``rlgames compare``
(or arena) run's ``games.csv``::

    rlgames compare chess --learned checkpoints/chess.nnue.pt --search quiescence=8 --depths '' --out cmp
    python benchmarks/bench_depth_at_time.py chess cmp/time-0.1/games.csv --learned checkpoints/chess.nnue.pt \\
        --search quiescence=8
"""

from __future__ import annotations

import argparse
import csv
import sys
from collections import Counter

import numpy as np
import torch
from common import machine_info

import rlgames
from rlgames.models.evaluator import NetworkEvaluator
from rlgames.evaluators import load_evaluator
from rlgames.game import Game, State
from rlgames.search import AlphaBeta, AlphaBetaConfig


def match_positions(game: Game, games_csv: str, games: int, every: int) -> list[State]:
    """Every ``every``-th position (from ply ``every // 2``) of the first ``games`` games of ``games_csv``."""
    with open(games_csv, newline="") as handle:
        rows = list(csv.DictReader(handle))[:games]
    positions = []
    for row in rows:
        state = game.new_initial_state()
        for ply, move in enumerate(row["moves"].split()):
            if ply % every == every // 2:
                positions.append(state)
            state = state.apply(state.string_to_action(move))
            if state.is_terminal():
                break
    return positions


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("game")
    parser.add_argument("games_csv", help="a match's games.csv (rlgames compare or arena)")
    parser.add_argument("--learned", required=True, help="the learned evaluator's checkpoint")
    parser.add_argument("--time", type=float, default=0.1, help="seconds a search (default 0.1)")
    parser.add_argument(
        "--search", action="append", default=[], metavar="KEY=VALUE", help="quiescence=N (both searches); repeatable"
    )
    parser.add_argument("--games", type=int, default=20, help="games read (default 20)")
    parser.add_argument("--every", type=int, default=12, help="a position every this many plies (default 12)")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    settings = dict(item.split("=", 1) for item in args.search)
    unknown = set(settings) - {"quiescence"}
    if unknown:
        print(f"bench_depth_at_time: unknown --search {', '.join(sorted(unknown))}", file=sys.stderr)
        return 2
    game = rlgames.load_game(args.game)
    config = AlphaBetaConfig(time_limit=args.time, quiescence_depth=int(settings.get("quiescence", 0)))
    searches = {
        "learned": AlphaBeta(NetworkEvaluator.from_checkpoint(args.learned, game), config),
        "hand-crafted": AlphaBeta(load_evaluator("heuristic", game), config),
    }
    positions = match_positions(game, args.games_csv, args.games, args.every)
    for search in searches.values():
        search.search(positions[0])  # compiles
    depths = {name: [] for name in searches}
    nodes = {name: [] for name in searches}
    changed = Counter()  # searches whose move came from the interrupted iteration
    for state in positions:
        for name, search in searches.items():
            completed = []
            result = search.search(state, on_iteration=completed.append)
            depths[name].append(result.stats.depth)
            nodes[name].append(result.stats.nodes)
            changed[name] += result.action != completed[-1].principal_variation[0]
    learned, hand = np.array(depths["learned"]), np.array(depths["hand-crafted"])
    difference = Counter(np.sign(learned - hand).tolist())
    print(f"{len(positions)} positions of {args.games_csv}, {args.time} s a search, {machine_info()['processor']}")
    print(
        f"learned completed as deep in {difference[0]}, less deep in {difference[-1]}, deeper in {difference[1]}; "
        f"mean depth {learned.mean():.2f} against {hand.mean():.2f}; mean nodes {np.mean(nodes['learned']):,.0f} "
        f"against {np.mean(nodes['hand-crafted']):,.0f}"
    )
    print(
        f"the interrupted iteration changed the move in {changed['learned']} (learned) and "
        f"{changed['hand-crafted']} (hand-crafted) of the {len(positions)}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
