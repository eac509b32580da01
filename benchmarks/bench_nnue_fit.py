"""How well each evaluation predicts the search values an NNUE learns from, on positions it never saw.

`python -m rlgames.train.nnue` labels each quiet position of its self-play games with the value of a
depth-``depth`` alpha-beta search (the game's preset: chess's depth 3 and 8 quiescence plies). A network
can only search better than the hand-crafted evaluation it learnt from if it predicts those values
better than that evaluation does. This measures it: ``--games`` self-play games of the hand-crafted
search with the preset's openings and random moves, seeded from ``(--seed, game)`` (apart from any
training run's games), keep their quiet positions (with the preset's ``quiet``) and their search values;
each evaluation's static value is compared with them (mean squared error, on every position and on the
undecided ones, ``|value| < 0.5``), and with the hand-crafted static value (how closely a network
imitates it). A network's error well below its learnt positions' loss (``loss/value`` in its run's
log) is a network that learnt its games by heart::

    python benchmarks/bench_nnue_fit.py chess --models checkpoints/chess.nnue.pt --games 250
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import torch
from rlgames.models.evaluator import NetworkEvaluator
from rlgames.train.nnue.config import PRESETS, NNUEConfig
from rlgames.train.nnue.data import evaluator_values, play_game

import rlgames
from rlgames.evaluators import load_evaluator
from rlgames.game import Game, State
from rlgames.search import AlphaBeta, AlphaBetaConfig

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import announce, save_json  # noqa: E402

UNDECIDED = 0.5
"""Positions whose search value is below this in magnitude: where an evaluation decides games."""


def held_out_positions(game: Game, config: NNUEConfig, games: int, seed: int) -> tuple[list[State], np.ndarray]:
    """The positions `rlgames.train.nnue` would keep from ``games`` hand-crafted self-play games seeded from
    ``(seed, i)``, and their search values (float64[N], from the side to move)."""
    hand_crafted = load_evaluator("heuristic", game)
    search = AlphaBeta(
        hand_crafted, AlphaBetaConfig(depth=config.depth, tt_size_mb=4, quiescence_depth=config.quiescence)
    )
    states, values = [], []
    for i in range(games):
        line, _ = play_game(game, search, config, np.random.default_rng([seed, i]))
        for state, action, value in line:
            if not (config.quiet and action in state.tactical_actions()):
                states.append(state)
                values.append(value)
    return states, np.array(values)


def fit(predicted: np.ndarray, searched: np.ndarray, hand_crafted: np.ndarray) -> dict[str, float]:
    undecided = np.abs(searched) < UNDECIDED
    return {
        "mse_search": float(np.mean((predicted - searched) ** 2)),
        "mse_search_undecided": float(np.mean((predicted[undecided] - searched[undecided]) ** 2)),
        "mse_hand_crafted": float(np.mean((predicted - hand_crafted) ** 2)),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("game", help="a game with a train.nnue preset")
    parser.add_argument("--models", nargs="*", default=[], help="NNUE (or any network) checkpoints")
    parser.add_argument("--games", type=int, default=250, help="self-play games whose positions are measured")
    parser.add_argument("--seed", type=int, default=99, help="the games' seed (default 99: no run's)")
    parser.add_argument("--json", help="also write the results here")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    machine = announce(argv)
    game = rlgames.load_game(args.game)
    try:
        config = PRESETS[args.game]
        evaluators = {path: NetworkEvaluator.from_checkpoint(path, game) for path in args.models}
    except (KeyError, ValueError, OSError) as error:
        print(f"bench_nnue_fit: {error}", file=sys.stderr)
        return 2
    states, searched = held_out_positions(game, config, args.games, args.seed)
    hand_crafted = evaluator_values(load_evaluator("heuristic", game), states)
    rows = {"hand-crafted": fit(hand_crafted, searched, hand_crafted)}
    rows |= {
        path: fit(evaluator_values(evaluator, states), searched, hand_crafted) for path, evaluator in evaluators.items()
    }
    undecided = int((np.abs(searched) < UNDECIDED).sum())
    print(
        f"\n{args.game}: {len(states)} positions of {args.games} games ({undecided} undecided), search values of "
        f"depth {config.depth}" + (f" + {config.quiescence} quiescence plies" if config.quiescence else "")
    )
    print("| evaluation | MSE against the search | undecided positions | MSE against hand-crafted |")
    print("|---|---|---|---|")
    for name, row in rows.items():
        print(
            f"| {name} | {row['mse_search']:.4f} | {row['mse_search_undecided']:.4f} | {row['mse_hand_crafted']:.4f} |"
        )
    save_json(
        args.json,
        {
            "machine": machine,
            "game": args.game,
            "games": args.games,
            "seed": args.seed,
            "positions": len(states),
            "undecided": undecided,
            "rows": rows,
        },
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
