"""How right are self-play's value targets? A connect four replay file against the exact solver.

Draws ``--count`` searched positions (not siblings, and only those in the value loss) of plies in
``--plies`` from a replay file that the AlphaZero trainer wrote (``RUN_DIR/replay-NNNNNN.npz``), solves
each exactly, and prints, by true result for the side to move, how many there are and what value targets
self-play gave them: their mean and spread, the share with the right sign (a target within 0.05 of 0
counting as a draw) and the share within 0.3 of 0. The solver measures here and teaches nothing::

    python benchmarks/eval_connect_four_targets.py runs/c4/replay-000400.npz --plies 8-13 --count 300
"""

from __future__ import annotations

import argparse
import json

import numpy as np

import rlgames
from rlgames.games.connect_four.rules import HEIGHT
from rlgames.solvers import solve

DRAW_MARGIN = 0.05
"""A target within this of 0 counts as a draw's."""


def bitboard(plane: np.ndarray) -> int:
    """The stones of one observation plane (row 0 the top row) as a bitboard (bit ``7 * col + row``, row 0
    the bottom: `rlgames.games.connect_four.rules`)."""
    rows, cols = np.nonzero(plane)
    return sum(1 << (7 * int(col) + HEIGHT - 1 - int(row)) for row, col in zip(rows, cols))


def state_of(game: rlgames.Game, observation: np.ndarray) -> rlgames.State:
    """The position of an observation seen by the side to move (plane 0 its stones, plane 1 the other's)."""
    mine, theirs = bitboard(observation[0]), bitboard(observation[1])
    plies = int(observation.sum())
    return game.state_class(game, (plies % 2, 0, mine, mine | theirs, plies))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("replay")
    parser.add_argument("--plies", default="8-13", help="LO-HI, the plies of the positions drawn (default 8-13)")
    parser.add_argument("--count", type=int, default=300)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    lo, _, hi = args.plies.partition("-")
    data = np.load(args.replay)
    observations, values = data["observations"], data["values"]
    plies = observations.sum(axis=(1, 2, 3)).astype(int)
    searched = (data["final_weights"] > 0) & (data["value_weights"] > 0)
    candidates = np.flatnonzero(searched & (plies >= int(lo)) & (plies <= int(hi or lo)))
    rng = np.random.default_rng(args.seed)
    chosen = rng.choice(candidates, size=min(args.count, len(candidates)), replace=False)
    game = rlgames.load_game("connect_four")
    truths = np.array([np.sign(solve(state_of(game, observations[i])).value) for i in chosen])
    targets = values[chosen]
    signs = np.where(np.abs(targets) <= DRAW_MARGIN, 0, np.sign(targets))
    rows = {}
    for truth, name in ((1, "won"), (0, "drawn"), (-1, "lost")):
        mine = truths == truth
        if mine.any():
            rows[name] = {
                "positions": int(mine.sum()),
                "mean": round(float(targets[mine].mean()), 3),
                "sd": round(float(targets[mine].std()), 3),
                "sign_right": round(float(np.mean(signs[mine] == truth)), 3),
                "near_zero": round(float(np.mean(np.abs(targets[mine]) < 0.3)), 3),
            }
    record = {"replay": args.replay, "plies": args.plies, "positions": len(chosen), "by_result": rows}
    print(json.dumps(record, indent=1))


if __name__ == "__main__":
    main()
