"""The connect-four solver on Pascal Pons' six benchmark files, against Pons' own solver's figures.

Per file, solves the positions (all 1000, or the first N: ``--limit N`` for every file, ``--limit
FILE=N`` for one), checks every score against the file's, and reports rlgames' mean time per position
beside Pons' solver's, from ``pons_solver_reference.json`` in the data folder (strong solver, no opening
book, the transposition table emptied before every position):

* **re-measured** -- Pons' solver (PascalPons/connect4 d6ba50d, g++ -O3) run on a 2-vCPU sandbox of
  this project's kind, CPU time; all 1000 positions, but only the first 100 of Test_L1_R3;
* **published** -- Pons' own figure (blog.gamesolver.org, part 12, his machine), the mean over all
  1000 positions of the file.

A ratio is rlgames' mean over Pons' (above 1: rlgames is slower). When rlgames solved other positions
than the reference's (a ``--limit``), the ratio compares means over different positions and is marked
``~``.

Protocol: the transposition table is emptied before each position (not timed), as in the reference
(``--keep-table`` keeps it between positions instead); the time of a position is the CPU time
(``CLOCK_THREAD_CPUTIME_ID``) of the compiled ``solve_score`` call alone (what `ConnectFourSolver.solve`
runs, without its Python wrapper and result object), so other work on a shared machine does not count;
the wall time is reported beside it. The search is compiled by a warm-up solve first. ``--runs N``
repeats the whole measurement and prints the median and range. Exits with status 1 if any score is
wrong::

    python benchmarks/bench_solver.py --limit Test_L1_R3=100 --json bench_solver.json
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import rlgames
from rlgames.games.connect_four.data import PONS_SETS, pons_data_dir, read_pons_file
from rlgames.games.connect_four.solver import ConnectFourSolver, solve_score

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import each, machine_info, repeat_runs, spread  # noqa: E402

REFERENCE_FILE = "pons_solver_reference.json"


def solve_ours(
    solver: ConnectFourSolver, game: rlgames.Game, moves: str, keep_table: bool
) -> tuple[int, int, float, float]:
    """rlgames' solve of a position: ``(score, nodes, cpu_s, wall_s)`` of the compiled search call."""
    if not keep_table:
        solver.reset()
    _, _, current, mask, plies = game.state_from_moves(moves).compact
    ws = solver.workspace
    ws.nodes[0] = 0
    cpu, wall = time.thread_time_ns(), time.perf_counter_ns()
    score = solve_score(current, mask, plies, ws)
    cpu, wall = time.thread_time_ns() - cpu, time.perf_counter_ns() - wall
    return int(score), int(ws.nodes[0]), cpu * 1e-9, wall * 1e-9


def bench_file(
    solver: ConnectFourSolver, path: Path, limit: int | None, keep_table: bool, reference: dict[str, Any]
) -> dict[str, Any]:
    game = rlgames.load_game("connect_four")
    positions = read_pons_file(path)[:limit]
    measured, wrong = [], []  # (nodes, cpu_s, wall_s) per position
    for position in positions:
        score, *numbers = solve_ours(solver, game, position.moves, keep_table)
        measured.append(numbers)
        if score != position.score:
            wrong.append(f"{position.moves}: {score}, expected {position.score}")
    nodes, cpu, wall = zip(*measured)
    row: dict[str, Any] = {
        "file": path.name,
        "positions": len(positions),
        "wrong": wrong,
        "rlgames": {
            "mean_s": statistics.mean(cpu),
            "median_s": statistics.median(cpu),
            "max_s": max(cpu),
            "mean_wall_s": statistics.mean(wall),
            "mean_nodes": statistics.mean(nodes),
            "nodes_per_cpu_s": sum(nodes) / sum(cpu),
        },
    }
    strong = reference["strong"].get(path.name)
    if strong is not None:
        ours = row["rlgames"]["mean_s"]
        row["published"] = {
            "mean_s": strong["published_mean_time_s"],
            "positions": 1000,
            "mean_nodes": strong["published_mean_nodes"],
        }
        row["remeasured"] = {
            "mean_s": strong["mean_cpu_us"] * 1e-6,
            "positions": strong["positions"],
            "mean_nodes": strong["mean_nodes"],
        }
        for key in ("published", "remeasured"):
            row[key]["ratio"] = ours / row[key]["mean_s"]
            row[key]["same_positions"] = row[key]["positions"] == len(positions)
    return row


def duration(seconds: float) -> str:
    if seconds >= 1:
        return f"{seconds:.2f} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds * 1e6:.1f} us"


def ratio(entry: dict[str, Any] | None) -> str:
    if entry is None:
        return "n/a"
    return f"{'' if entry.get('same_positions', True) else '~'}{entry['ratio']:.2f}x"


def markdown(rows: list[dict[str, Any]]) -> str:
    header = (
        "| file | positions | wrong | rlgames mean | Pons re-measured (positions) | ratio | Pons published "
        "(1000) | ratio | rlgames mean nodes | Pons mean nodes (re-measured) |"
    )
    lines = [header, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        published, remeasured = r.get("published"), r.get("remeasured")
        cells = [
            r["file"],
            str(r["positions"]),
            str(len(r["wrong"])),
            duration(r["rlgames"]["mean_s"]),
            f"{duration(remeasured['mean_s'])} ({remeasured['positions']})" if remeasured else "n/a",
            ratio(remeasured),
            duration(published["mean_s"]) if published else "n/a",
            ratio(published),
        ]
        cells += [f"{r['rlgames']['mean_nodes']:,.0f}", f"{remeasured['mean_nodes']:,.0f}" if remeasured else "n/a"]
        lines.append("| " + " | ".join(cells) + " |")
    lines += [
        "",
        "times: mean CPU time of the search per position; ratio: rlgames' mean over Pons' "
        "(~: over different positions)",
    ]
    return "\n".join(lines)


def summary(runs: list[list[dict[str, Any]]]) -> str:
    lines = [f"over {len(runs)} runs:"]
    for index, first in enumerate(runs[0]):
        rows = [run[index] for run in runs]
        lines.append(f"  {first['file']} ({first['positions']} positions):")
        lines.append(f"    rlgames mean:           {spread([r['rlgames']['mean_s'] for r in rows], duration)}")
        for key, label in (("remeasured", "ratio to re-measured"), ("published", "ratio to published")):
            if key in first:
                mark = "" if first[key].get("same_positions", True) else "~"
                lines.append(
                    f"    {label + ':':23} {spread([r[key]['ratio'] for r in rows], lambda x: f'{mark}{x:.2f}x')}"
                )
    return "\n".join(lines)


def parse_limits(values: list[str], files: list[str]) -> dict[str, int | None]:
    """``--limit N`` (every file) and ``--limit FILE=N`` (one file, later wins) as a limit per file."""
    limits: dict[str, int | None] = {name: None for name in files}
    for value in values:
        name, _, count = value.rpartition("=")
        if name and name not in limits:
            raise SystemExit(f"--limit {value}: {name} is not one of the files {', '.join(files)}")
        for key in [name] if name else files:
            limits[key] = int(count)
    return limits


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--files", nargs="+", default=list(PONS_SETS), metavar="FILE", help="Pons' files to solve (default: all six)"
    )
    parser.add_argument(
        "--limit",
        action="append",
        default=[],
        metavar="[FILE=]N",
        help="solve only the first N positions of every file, or of FILE (repeatable)",
    )
    parser.add_argument("--data", type=Path, default=None, help="the folder holding the files")
    parser.add_argument(
        "--keep-table",
        action="store_true",
        help="keep rlgames' transposition table between positions (the reference empties it)",
    )
    parser.add_argument("--runs", type=int, default=1, help="repeat the whole measurement (default 1)")
    parser.add_argument("--json", type=Path, default=None, help="also write the results to this JSON file")
    args = parser.parse_args(argv)
    folder = args.data or pons_data_dir()
    limits = parse_limits(args.limit, args.files)
    reference = json.loads((folder / REFERENCE_FILE).read_text())
    solver = ConnectFourSolver()
    solver.solve(rlgames.load_game("connect_four").state_from_moves("4455"))  # compiles (or loads the cache)

    def measure(name: str) -> dict[str, Any]:
        return bench_file(solver, folder / name, limits[name], args.keep_table, reference)

    runs = repeat_runs(args.runs, lambda index: each(args.files, measure, index, args.runs), markdown, summary)
    wrong = [line for rows in runs for r in rows for line in r["wrong"]]
    for line in wrong[:10]:
        print(f"WRONG {line}", file=sys.stderr)
    if args.json:
        report = {"machine": machine_info(), "keep_table": args.keep_table, "limits": limits, "runs": runs}
        args.json.write_text(json.dumps(report, indent=2))
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
