"""Speed and correctness of the connect-four solver on Pascal Pons' benchmark positions.

Solves every position of each file (or the first ``--limit``), checks each score against the file's,
and prints, per file, the mean / median / max solve time per position and the nodes per second as a
Markdown table (optionally also as JSON). The transposition table is kept from one position to the next,
as in Pons' own benchmark; ``--cold`` empties it before each position (not timed). Compilation is done
by a warm-up solve before timing. Exits with status 1 if any score is wrong::

    python benchmarks/bench_solver.py --files Test_L3_R1 Test_L2_R1 --limit 500 --json bench.json
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
from pathlib import Path
from typing import Any

import rlgames
from rlgames.datasets import pons_data_dir, read_pons_file
from rlgames.solvers.connect_four import ConnectFourSolver


def read_positions(path: Path, limit: int | None) -> list[tuple[str, int]]:
    return [(p.moves, p.score) for p in read_pons_file(path)][:limit]


def bench_file(solver: ConnectFourSolver, path: Path, limit: int | None, cold: bool) -> dict[str, Any]:
    game = rlgames.load_game("connect_four")
    times, nodes, wrong = [], 0, []
    for moves, expected in read_positions(path, limit):
        if cold:
            solver.reset()
        result = solver.solve(game.state_from_moves(moves))
        times.append(result.time_s)
        nodes += result.nodes
        if result.score != expected:
            wrong.append(f"{moves}: {result.score}, expected {expected}")
    return {
        "file": path.name, "positions": len(times), "wrong": wrong,
        "mean_ms": 1000 * statistics.mean(times), "median_ms": 1000 * statistics.median(times),
        "max_ms": 1000 * max(times), "mean_nodes": nodes / len(times), "nodes_per_s": nodes / sum(times),
    }


def markdown(rows: list[dict[str, Any]]) -> str:
    lines = ["| file | positions | wrong | mean ms | median ms | max ms | mean nodes | Mnodes/s |",
             "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        lines.append(f"| {r['file']} | {r['positions']} | {len(r['wrong'])} | {r['mean_ms']:.3f} | "
                     f"{r['median_ms']:.3f} | {r['max_ms']:.2f} | {r['mean_nodes']:.0f} | "
                     f"{r['nodes_per_s'] / 1e6:.2f} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--files", nargs="+", default=["Test_L3_R1", "Test_L2_R1"])
    parser.add_argument("--limit", type=int, default=None, help="solve only the first N positions of each file")
    parser.add_argument("--data", type=Path, default=None, help="the folder holding the files")
    parser.add_argument("--cold", action="store_true", help="empty the transposition table before each position")
    parser.add_argument("--json", type=Path, default=None, help="also write the results to this JSON file")
    args = parser.parse_args(argv)
    folder = args.data or pons_data_dir()
    solver = ConnectFourSolver()
    solver.solve(rlgames.load_game("connect_four").state_from_moves("4455"))  # compiles (or loads the cache)
    rows = [bench_file(solver, folder / name, args.limit, args.cold) for name in args.files]
    print(markdown(rows))
    for r in rows:
        for line in r["wrong"][:10]:
            print(f"WRONG {r['file']} {line}", file=sys.stderr)
    if args.json:
        report = {"machine": platform.processor() or platform.machine(), "python": platform.python_version(),
                  "cold": args.cold, "files": rows}
        args.json.write_text(json.dumps(report, indent=2))
    return 1 if any(r["wrong"] for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
