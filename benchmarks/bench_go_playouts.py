"""Go's light playouts: the published statistics of the policy, and speed against the rules' kernels.

Statistics: ``--playouts`` light playouts from the empty 9x9 board at komi 7.5 and at komi 0 (no length
limit), black's share of wins with its 95% interval and the mean length, beside the computer-go mailing
list's 2008 reference bot (0.4213 and 0.5245 over 1,000,000 playouts, about 111 moves each).

Speed: playouts per second of CPU time (``time.thread_time``) on 9x9 and 19x19, from the empty board,
of `rlgames.games.go.playout` (its mutable board with incremental chains) and of a reference playing the
same policy on the rules' kernels (the compact state's bitboards: `legal_actions`, then `apply`, with the
same eye test), the two taking turns, ``--runs`` times; the ratio counts playouts really played::

    python benchmarks/bench_go_playouts.py --playouts 1000000 --runs 3 --json benchmarks/results/go_playouts.json
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path
from typing import Any, Sequence

import numpy as np
from numba import njit

import rlgames
from rlgames.games.go import playout
from rlgames.games.go.rules import SIZE, apply, boards, has_point, legal_actions, side_to_move
from rlgames.jit.rng import below, new_rng_state

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import announce, save_json, spread

PUBLISHED = {7.5: 0.4213, 0.0: 0.5245}
PUBLISHED_LENGTH = 111


@njit(cache=True)
def _own_eye(s, p: int) -> bool:
    """The light policy's eye test on the compact state (the playout's, written over bitboards)."""
    n = s[SIZE]
    black, white = boards(s)
    own, enemy = (black, white) if side_to_move(s) == 0 else (white, black)
    row, col = p // n, p % n
    for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1)):
        r, c = row + dr, col + dc
        if 0 <= r < n and 0 <= c < n and not has_point(own, r * n + c):
            return False
    enemies, edge = 0, False
    for dr, dc in ((1, 1), (1, -1), (-1, 1), (-1, -1)):
        r, c = row + dr, col + dc
        if not (0 <= r < n and 0 <= c < n):
            edge = True
        elif has_point(enemy, r * n + c):
            enemies += 1
    return enemies < (1 if edge else 2)


@njit(cache=True)
def reference_playouts(s0, rng_state, count: int) -> int:
    """``count`` light playouts on the rules' kernels; returns the moves played."""
    out = np.empty(400, dtype=np.int64)
    total = 0
    for _ in range(count):
        s = s0
        while s[0] >= 0:
            n = legal_actions(s, out) - 1  # the pass is last
            k = 0
            for i in range(n):
                if not _own_eye(s, out[i]):
                    out[k] = out[i]
                    k += 1
            action = out[below(rng_state, k)] if k > 0 else s[SIZE] * s[SIZE]
            s = apply(s, action)
            total += 1
    return total


@njit(cache=True)
def fast_playouts(s0, rng_state, count: int) -> int:
    board = playout.new_board()
    total = 0
    for _ in range(count):
        total += playout.run_playout(board, s0, rng_state)[1]
    return total


def statistics(playouts: int, seed: int) -> list[dict[str, Any]]:
    rows = []
    for komi, published in PUBLISHED.items():
        game = rlgames.load_game("go", board_size=9, komi=komi, max_game_length=100_000)
        stats = playout.light_playouts(game.new_initial_state(), playouts, seed=seed)
        share = float(stats.black_wins.mean())
        half = 1.96 * math.sqrt(share * (1 - share) / playouts)
        rows.append(
            {
                "komi": komi,
                "playouts": playouts,
                "black_wins": share,
                "interval": [share - half, share + half],
                "published": published,
                "difference": share - published,
                "mean_length": float(stats.lengths.mean()),
                "published_length": PUBLISHED_LENGTH,
            }
        )
    return rows


def speed(size: int, seconds: float, seed: int) -> dict[str, Any]:
    """Both playouts from the empty board, taking turns in rounds of about ``seconds`` each."""
    s = rlgames.load_game("go", board_size=size, max_game_length=100_000).new_initial_state().compact
    sides = {"fast": fast_playouts, "reference": reference_playouts}
    totals = {name: {"playouts": 0, "moves": 0, "seconds": 0.0} for name in sides}
    batch = {name: 1 for name in sides}
    for name, run in sides.items():
        run(s, new_rng_state(seed), 1)  # compiles
    for _ in range(3):
        for name, run in sides.items():
            start = time.thread_time()
            moves = run(s, new_rng_state(seed), batch[name])
            spent = time.thread_time() - start
            totals[name]["playouts"] += batch[name]
            totals[name]["moves"] += moves
            totals[name]["seconds"] += spent
            batch[name] = max(1, int(batch[name] * seconds / max(spent, 1e-3)))
    row: dict[str, Any] = {"size": size}
    for name, total in totals.items():
        row[name] = {**total, "per_second": total["playouts"] / total["seconds"]}
    row["ratio"] = row["fast"]["per_second"] / row["reference"]["per_second"]
    return row


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--playouts", type=int, default=1_000_000, help="playouts per komi for the statistics")
    parser.add_argument("--seconds", type=float, default=2.0, help="seconds per timed round of each side")
    parser.add_argument("--runs", type=int, default=3, help="repeats of the speed measurement")
    parser.add_argument("--seed", type=int, default=2008)
    parser.add_argument("--json", help="also write the results to this JSON file")
    args = parser.parse_args(argv)
    machine = announce(argv)
    rows = statistics(args.playouts, args.seed)
    print("\n| komi | playouts | black wins | 95% interval | published | difference | mean length |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for r in rows:
        low, high = r["interval"]
        print(
            f"| {r['komi']:g} | {r['playouts']:,} | {r['black_wins']:.4f} | [{low:.4f}, {high:.4f}] | "
            f"{r['published']:.4f} | {r['difference']:+.4f} | {r['mean_length']:.2f} |"
        )
    runs = [[speed(size, args.seconds, args.seed + k) for size in (9, 19)] for k in range(args.runs)]
    print("\n| board | run | fast playouts/s | reference playouts/s | ratio |")
    print("| --- | --- | --- | --- | --- |")
    for k, run in enumerate(runs):
        for r in run:
            print(
                f"| {r['size']}x{r['size']} | {k + 1} | {r['fast']['per_second']:,.0f} | "
                f"{r['reference']['per_second']:,.0f} | {r['ratio']:.1f}x |"
            )
    for i, size in enumerate((9, 19)):
        rates, ratios = [run[i]["fast"]["per_second"] for run in runs], [run[i]["ratio"] for run in runs]
        print(f"{size}x{size}: fast playouts/s {spread(rates, ',.0f')}; ratio {spread(ratios, '.1f')}")
    command = "python benchmarks/bench_go_playouts.py " + " ".join(argv if argv is not None else sys.argv[1:])
    save_json(args.json, {"command": command.strip(), "machine": machine, "statistics": rows, "speed": runs})


if __name__ == "__main__":
    main()
