"""An NNUE's first layer frozen into the compiled code against the same layer passed as an argument.

The question (docs/research/startup.md#nnue-weights): a search compiled once per game for every network
needs the weights at run time, as arguments, where rlgames freezes them into each network's code as
constants (one search compiled per network). The cost at run time is measured on the hot loop alone: the
sparse accumulation of `rlgames.evaluators.nnue._sparse_kernel` (active rows summed four at a time into a
float32 accumulator), compiled twice from the same source, once closed over ``w1`` and ``b1``, once given
them, the width a constant of both. Shapes are the shipped networks' first layers as `frozen_weights` pads
them (``checkpoints/GAME.nnue.pt``); the rows are drawn at random (the speed does not depend on the
values), as many a position as the game's features make active at most in the shipped networks. Each
repeat times the two kernels back to back in thread CPU time; the best repeat of each is kept::

    python benchmarks/bench_nnue_weights.py --json nnue_weights.json
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
from numba import njit

from rlgames.evaluators.nnue import FASTMATH, frozen_weights
from rlgames.models import load_network

CHECKPOINTS = Path(__file__).resolve().parents[1] / "checkpoints"
ACTIVE = {"connect_four": 69, "chess": 40, "checkers": 24}
"""Active inputs an evaluation sums: connect four's 69 lines; a chess middle game's pieces and the threats
and positional inputs beside them (about 40); checkers' 24 pieces at the start."""


def kernels(w1: np.ndarray, b1: np.ndarray, rows: int) -> tuple[Any, Any]:
    """Two compiled ``(…, active, evaluations) -> checksum`` loops summing ``rows`` rows of the first layer
    per evaluation: the first closed over ``w1`` and ``b1`` (constants), the second given them."""
    width = w1.shape[1]

    def accumulate(layer, bias, active, evaluations):  # the one source both kernels compile
        total = 0.0
        accumulator = np.empty(width, np.float32)
        for e in range(evaluations):
            accumulator[:] = bias
            base, j = e * rows, 0
            while j + 4 <= rows:
                r0, r1, r2, r3 = active[base + j], active[base + j + 1], active[base + j + 2], active[base + j + 3]
                for k in range(width):
                    accumulator[k] += (layer[r0, k] + layer[r1, k]) + (layer[r2, k] + layer[r3, k])
                j += 4
            for i in range(j, rows):
                for k in range(width):
                    accumulator[k] += layer[active[base + i], k]
            total += accumulator[0]
        return total

    inner = njit(fastmath=FASTMATH, inline="always")(accumulate)

    @njit(fastmath=FASTMATH)
    def constant(active, evaluations):
        return inner(w1, b1, active, evaluations)

    @njit(fastmath=FASTMATH)
    def argument(layer, bias, active, evaluations):
        return inner(layer, bias, active, evaluations)

    return constant, argument


def measure(game: str, evaluations: int, repeats: int, seed: int) -> dict[str, Any]:
    network, _ = load_network(CHECKPOINTS / f"{game}.nnue.pt")
    w1, b1, *_ = frozen_weights(network.export())  # w1[inputs, width], as the compiled evaluator holds it
    rows = ACTIVE[game]
    active = np.random.default_rng(seed).integers(0, len(w1), evaluations * rows)
    constant, argument = kernels(w1, b1, rows)
    assert constant(active, 1000) == argument(w1, b1, active, 1000)  # compiled, and the same sums
    best = {"constant": np.inf, "argument": np.inf}
    for _ in range(repeats):
        for name, run in (
            ("constant", lambda: constant(active, evaluations)),
            ("argument", lambda: argument(w1, b1, active, evaluations)),
        ):
            start = time.thread_time()
            run()
            best[name] = min(best[name], time.thread_time() - start)
    return {
        "game": game,
        "rows": rows,
        "width": int(w1.shape[1]),
        "inputs": int(w1.shape[0]),
        "constant_ns": best["constant"] / evaluations * 1e9,
        "argument_ns": best["argument"] / evaluations * 1e9,
        "argument_over_constant": best["argument"] / best["constant"],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", nargs="+", default=list(ACTIVE), choices=list(ACTIVE), metavar="GAME")
    parser.add_argument("--evaluations", type=int, default=200_000, help="evaluations a timing (default 200,000)")
    parser.add_argument("--repeats", type=int, default=5, help="timings of each kernel (default 5)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", metavar="PATH", help="also write the results to this JSON file")
    args = parser.parse_args(argv)
    rows = [measure(game, args.evaluations, args.repeats, args.seed) for game in args.games]
    print("game          rows x width   constant   argument   argument/constant")
    for r in rows:
        print(
            f"{r['game']:<13} {r['rows']:>4} x {r['width']:<5}  {r['constant_ns']:>6.0f} ns"
            f"  {r['argument_ns']:>6.0f} ns   {r['argument_over_constant']:.2f}"
        )
    if args.json:
        Path(args.json).write_text(
            json.dumps({"command": "python " + " ".join(sys.argv), "rows": rows}, indent=2) + "\n"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
