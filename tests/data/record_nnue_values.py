"""Records `tests/data/nnue_values.json`, the values `tests/test_nnue_values.py` holds the shipped NNUEs to:
the compiled kernel and alpha-beta at depth 2 at 12 positions of seeded random games per game.

Usage, from the checkout whose values to record (f62f4f3 recorded the file first, the commit that set
the kernels' fast-math flags again; checkers was added on 2026-12-03, the other games' values unchanged):
``python tests/data/record_nnue_values.py OUT.json``
"""

from __future__ import annotations

import json
import sys

import numpy as np

import rlgames
from rlgames.evaluators import load_evaluator

try:
    from rlgames.search import AlphaBeta, AlphaBetaConfig
except ImportError:  # a checkout from before the search drivers were re-exported
    from rlgames.search.alphabeta import AlphaBeta, AlphaBetaConfig


def positions(game, count: int, seed: int) -> list:
    """``(state, actions)`` of ``count`` non-terminal positions after 0 to 39 random moves."""
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < count:
        state, line = game.new_initial_state(), []
        for _ in range(rng.integers(0, 40)):
            line.append(int(rng.choice(state.legal_actions())))
            state = state.apply(line[-1])
            if state.is_terminal():
                break
        if not state.is_terminal():
            out.append((state, line))
    return out


def main(out: str) -> None:
    record = {}
    for name in ("connect_four", "othello", "chess", "checkers"):
        game = rlgames.load_game(name)
        evaluator = load_evaluator("model", game, path=f"checkpoints/{name}.nnue.pt")
        search = AlphaBeta(evaluator, AlphaBetaConfig(depth=2, tt_size_mb=0.25))
        record[name] = [
            {
                "actions": line,
                "kernel": float(evaluator.kernel(state.compact)).hex(),
                "search": float(search.search(state).value).hex(),
            }
            for state, line in positions(game, 12, 7)
        ]
    with open(out, "w", encoding="utf-8") as file:
        json.dump(record, file, indent=1)


if __name__ == "__main__":
    main(sys.argv[1])
