"""Does a network's value head see a win on the next move? The tactic a depth-limited search meets at its leaves.

Draws ``--positions`` connect four positions by uniformly random play (6 to 29 plies, from ``--seed``; a
move that would end the game stops the line) where the side to move has a winning move, as
tests/test_checkpoints.py does, and prints the mean of the network's value for the side to move (1 =
a sure win) and the fraction above 0.5, as JSON::

    python benchmarks/eval_win_in_one.py checkpoints/connect_four.pt --positions 500 --seed 0
"""

from __future__ import annotations

import argparse
import json

import numpy as np
import torch

import rlgames
from rlgames.models import NetworkEvaluator


def positions_where_the_mover_wins_next(
    game: rlgames.Game, count: int, rng: np.random.Generator
) -> list[rlgames.State]:
    """``count`` positions after random play where the side to move has a winning move."""
    found = []
    while len(found) < count:
        state = game.new_initial_state()
        for _ in range(int(rng.integers(6, 30))):
            child = state.apply(int(rng.choice(state.legal_actions())))
            if child.is_terminal():
                break
            state = child
        if any(
            state.apply(a).is_terminal() and state.apply(a).returns()[state.current_player()] == 1
            for a in state.legal_actions()
        ):
            found.append(state)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("checkpoint")
    parser.add_argument("--positions", type=int, default=500)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    torch.set_num_threads(1)
    game = rlgames.load_game("connect_four")
    states = positions_where_the_mover_wins_next(game, args.positions, np.random.default_rng(args.seed))
    values, _ = NetworkEvaluator.from_checkpoint(args.checkpoint, game).evaluate_batch(states)
    values = np.asarray(values)
    print(
        json.dumps(
            {
                "checkpoint": args.checkpoint,
                "positions": len(states),
                "seed": args.seed,
                "mean_value": round(float(values.mean()), 3),
                "above_half": round(float((values > 0.5).mean()), 4),
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
