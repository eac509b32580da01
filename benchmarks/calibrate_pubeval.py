"""What chance of winning does a pubeval score stand for? A fit for the doubling cube, which needs one.

Pubeval (Tesauro's) scores a position for the player who just moved, on no scale in particular; the cube's
decisions (`rlgames.games.backgammon.cube`) need the chance of winning. This plays pubeval against
itself at 1 ply (duplicate-free, dice seeded), takes every position where a player is about to roll
(after the opening), and fits ``P(the mover wins) = sigmoid(slope * score + offset)`` by maximum
likelihood, in contact and in a race apart (pubeval has a weight set for each). Prints the fits as JSON::

    python benchmarks/calibrate_pubeval.py --games 2000 --seed 0
"""

from __future__ import annotations

import argparse
import json

import numpy as np

import rlgames
from rlgames.games.backgammon.evaluator_terms import is_race, pubeval
from rlgames.games.backgammon.rules import view


def positions(games: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(scores, race, mover_won)`` of every position before a roll in ``games`` pubeval self-play games."""
    game = rlgames.load_game("backgammon")
    agent = rlgames.load_agent("expectiminimax(plies=1, eval=pubeval)", game)
    rng = np.random.default_rng(seed)
    rows = np.zeros((2, 26), dtype=np.int64)
    scores, races, won = [], [], []
    for _ in range(games):
        state, seen = game.new_initial_state(), []
        while not state.is_terminal():
            if state.is_chance_node():
                if not state.is_opening():
                    view(state.compact, rows)  # row 0: the roller, row 1: the mover
                    seen.append((pubeval(rows[1], rows[0]), is_race(rows[1], rows[0]), 1 - state.perspective()))
                state = state.apply(int(rng.integers(36 if not state.is_opening() else 30)))
            else:
                state = state.apply(agent.act(state))
        winner = 0 if state.returns()[0] > 0 else 1
        for score, race, mover in seen:
            scores.append(score)
            races.append(race)
            won.append(mover == winner)
    return np.array(scores), np.array(races), np.array(won, dtype=np.float64)


def logistic_fit(x: np.ndarray, y: np.ndarray, iterations: int = 50) -> tuple[float, float]:
    """``(slope, offset)`` maximising the likelihood of ``y`` under ``sigmoid(slope * x + offset)`` (Newton)."""
    design = np.stack([x, np.ones_like(x)], axis=1)
    w = np.zeros(2)
    for _ in range(iterations):
        p = 1.0 / (1.0 + np.exp(-design @ w))
        hessian = design.T @ (design * (p * (1 - p))[:, None])
        w += np.linalg.solve(hessian, design.T @ (y - p))
    return float(w[0]), float(w[1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    scores, race, won = positions(args.games, args.seed)
    fits = {}
    for name, mask in (("contact", ~race), ("race", race)):
        slope, offset = logistic_fit(scores[mask], won[mask])
        fits[name] = {"slope": round(slope, 4), "offset": round(offset, 4), "positions": int(mask.sum())}
    print(json.dumps({"games": args.games, "seed": args.seed, "fits": fits}))


if __name__ == "__main__":
    main()
