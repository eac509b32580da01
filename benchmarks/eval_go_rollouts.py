"""How well go's playout policies evaluate positions: the mean result of playouts from positions of recorded
games, against the results of those games.

A playout policy's job in MCTS is to value a leaf, and a policy that plays better moves need not value
better (simulation balancing, Silver & Tesauro 2009). This measures the valuing directly, in seconds where
a match needs an hour: ``--per-game`` positions drawn uniformly from each game of the match journals after its opening,
``--playouts`` playouts of each policy from it, and the squared error of their mean black result (win 1,
loss -1) against the game's black result ``z``. The games' own play decides ``z``, so the error is the
policy's error against the position's value under that play plus the results' own noise, the same for
every policy: differences between policies are measured without bias, each with a standard error paired
over the positions. Also reported: how often the mean's sign agrees with a decided game's result.

Policies: ``light``, ``patterns`` or the path of a learned policy's weights (``.npz``)::

    python benchmarks/eval_go_rollouts.py runs/go9_games/games.jsonl --policies patterns light go9_rollout.npz
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any, Sequence

import numpy as np

import rlgames
from rlgames.agents.mcts import playout_kernel
from rlgames.arena.journal import read_games
from rlgames.jit.rng import new_rng_state

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import announce, command_line, save_json


def sample_positions(
    game: rlgames.Game, journals: Sequence[str], per_game: int, rng: np.random.Generator
) -> list[tuple[Any, float]]:
    """``per_game`` positions of each game after its opening (drawn with replacement), not terminal, with
    the game's black result."""
    positions = []
    for path in journals:
        _, records = read_games(path)
        for record in records:
            actions, start = record["actions"], len(record["opening"])
            if len(actions) <= start:
                continue
            for ply in rng.integers(start, len(actions), per_game):
                state = game.state_from_actions(actions[:ply])
                if not state.is_terminal():
                    positions.append((state, float(record["returns"][0])))
    return positions


def playout_means(kernel: Any, positions: Sequence[tuple[Any, float]], playouts: int, seed: int) -> np.ndarray:
    """The mean black result of ``playouts`` playouts from each position."""
    rng, actions, probs = new_rng_state(seed), np.empty(1, dtype=np.int64), np.empty(1)
    means = np.empty(len(positions))
    for i, (state, _) in enumerate(positions):
        compact = state.compact
        means[i] = sum(kernel(compact, rng, actions, probs)[0][1] for _ in range(playouts)) / playouts
    return means


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("journals", nargs="+", help="match journals (rlgames arena --out DIR: DIR/games.jsonl)")
    parser.add_argument("--policies", nargs="+", default=["light", "patterns"], help="light, patterns or FILE.npz")
    parser.add_argument("--per-game", type=int, default=1, help="positions drawn from each game")
    parser.add_argument("--playouts", type=int, default=64, help="playouts of each policy from each position")
    parser.add_argument("--board-size", type=int, default=9)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", help="also write the results to this JSON file")
    args = parser.parse_args(argv)
    game = rlgames.load_game("go", board_size=args.board_size)
    positions = sample_positions(game, args.journals, args.per_game, np.random.default_rng(args.seed))
    z = np.array([result for _, result in positions])
    machine = announce(argv)
    means = {
        policy: playout_means(playout_kernel(game, policy), positions, args.playouts, args.seed)
        for policy in args.policies
    }
    errors = {policy: (mean - z) ** 2 for policy, mean in means.items()}
    decided = z != 0
    first = args.policies[0]
    print(f"{len(positions)} positions ({decided.sum()} of decided games), {args.playouts} playouts each")
    print(f"| policy | squared error (+- s.e.) | minus {first}'s (+- paired s.e.) | sign agrees |")
    print("| --- | ---: | ---: | ---: |")
    rows = []
    for policy, error in errors.items():
        difference = error - errors[first]
        sign = np.sign(means[policy][decided])
        row = {
            "policy": policy,
            "squared_error": float(error.mean()),
            "standard_error": float(error.std(ddof=1) / np.sqrt(len(error))),
            "difference": float(difference.mean()),
            "difference_standard_error": float(difference.std(ddof=1) / np.sqrt(len(error))),
            "sign_agrees": float(((sign == z[decided]) + 0.5 * (sign == 0)).mean()),
        }
        rows.append(row)
        print(
            f"| {policy} | {row['squared_error']:.4f} +- {row['standard_error']:.4f} "
            f"| {row['difference']:+.4f} +- {row['difference_standard_error']:.4f} | {row['sign_agrees']:.1%} |"
        )
    if args.json:
        record = {"positions": len(positions), "policies": rows}
        save_json(args.json, {"command": command_line(__file__, argv), "machine": machine, **record})


if __name__ == "__main__":
    main()
