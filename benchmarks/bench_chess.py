"""Chess move generation and random games, side by side with python-chess in the same run.

Perft: on each of the chessprogramming wiki's standard positions, rlgames' compiled perft at its
depth and python-chess's at a smaller one (``--drop`` plies less: it is some hundred times slower),
both counting the moves of the last ply without making them (bulk counting: python-chess's
``legal_moves.count()``). Both counts are checked against the published numbers (the script exits
with status 1 on a mismatch). Rates are in the searching thread's CPU time (``time.thread_time``), so
that other work on a shared machine does not count, with the wall time beside them, and count only
the work really done:

* **leaves/s** -- perft's number (the leaves, counted in bulk) per second: the usual "perft nodes/s";
* **made/s** -- positions made (moves played, the interior of the tree: perft of every smaller
  depth) per second.

The ratio is rlgames' leaves/s over python-chess's (the issue's target is 100x).

Search: the generic alpha-beta with the hand-crafted evaluator and quiescence (``--search-depth``),
nodes per second with quiescence nodes counted (the issue's target: 500,000 per core).

Random games: uniformly random games from the start under the same rules (mate, stalemate,
insufficient material, fifty moves, threefold repetition), each loop timed for ``--seconds``:
rlgames' compiled playouts (`rlgames.playout`), the rlgames Python API
(``state.apply(rng.choice(state.legal_actions()))``) and python-chess (``board.push`` of a random
legal move, the same endings checked after each)::

    python benchmarks/bench_chess.py --runs 3 --json bench_chess.json
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path
from typing import Any, Callable, Sequence

import chess

import rlgames
from rlgames.evaluators import load_evaluator
from rlgames.jit.rng import new_rng_state
from rlgames.playout import run_random_playouts
from rlgames.search import AlphaBeta, AlphaBetaConfig

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import machine_info, repeat_runs, spread  # noqa: E402

POSITIONS: dict[str, tuple[str, tuple[int, ...], int]] = {
    "start": (
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        (20, 400, 8902, 197281, 4865609, 119060324),
        6,
    ),
    "kiwipete": (
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        (48, 2039, 97862, 4085603, 193690690),
        5,
    ),
    "position3": ("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", (14, 191, 2812, 43238, 674624, 11030083), 6),
    "position4": (
        "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
        (6, 264, 9467, 422333, 15833292),
        5,
    ),
    "position5": ("rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8", (44, 1486, 62379, 2103487, 89941194), 5),
    "position6": (
        "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
        (46, 2079, 89890, 3894594, 164075551),
        5,
    ),
}
"""Name: (FEN, published perft by depth from 1, rlgames' default depth)."""


def python_chess_perft(board: chess.Board, depth: int) -> int:
    """python-chess perft with bulk counting at the last ply."""
    if depth == 1:
        return board.legal_moves.count()
    nodes = 0
    for move in board.legal_moves:
        board.push(move)
        nodes += python_chess_perft(board, depth - 1)
        board.pop()
    return nodes


def timed(function: Callable[[], int]) -> tuple[int, float, float]:
    """``(result, cpu_s, wall_s)`` of one call."""
    wall, cpu = time.perf_counter(), time.thread_time()
    result = function()
    return result, time.thread_time() - cpu, time.perf_counter() - wall


def perft_row(game: rlgames.Game, name: str, drop: int) -> dict[str, Any]:
    """Both perfts of one position, checked, with their rates."""
    fen, published, depth = POSITIONS[name]
    theirs_depth = max(1, depth - drop)
    state = game.state_from_fen(fen)
    state.perft(1)  # compiled (or loaded from numba's cache) before timing
    row: dict[str, Any] = {"position": name}
    for side, run, d in (
        ("rlgames", lambda: state.perft(depth), depth),
        ("python_chess", lambda: python_chess_perft(chess.Board(fen), theirs_depth), theirs_depth),
    ):
        nodes, cpu, wall = timed(run)
        if nodes != published[d - 1]:
            raise SystemExit(f"{side} perft({d}) of {name} is {nodes}, not the published {published[d - 1]}")
        made = sum(published[: d - 1])
        row[side] = {
            "depth": d,
            "leaves": nodes,
            "made": made,
            "cpu_s": cpu,
            "wall_s": wall,
            "leaves_per_s": nodes / cpu,
            "made_per_s": made / cpu,
        }
    row["ratio"] = row["rlgames"]["leaves_per_s"] / row["python_chess"]["leaves_per_s"]
    return row


def python_chess_game(rng: random.Random) -> int:
    """One random python-chess game under rlgames' endings; returns its plies."""
    board, plies = chess.Board(), 0
    while True:
        moves = list(board.legal_moves)
        if not moves or board.is_insufficient_material() or board.halfmove_clock >= 100 or board.is_repetition(3):
            return plies
        board.push(rng.choice(moves))
        plies += 1


def rlgames_game(game: rlgames.Game, rng: random.Random) -> int:
    """One random game through the rlgames `State` API; returns its plies."""
    state, plies = game.new_initial_state(), 0
    while not state.is_terminal():
        state = state.apply(rng.choice(state.legal_actions()))
        plies += 1
    return plies


def playout_rates(game: rlgames.Game, seconds: float, seed: int) -> dict[str, dict[str, float]]:
    """Games/s and plies/s of the three random-game loops, each run for ``seconds`` of CPU time."""
    rng_state = new_rng_state(seed)
    run_random_playouts(game, 2, rng_state)  # compiles
    rng = random.Random(seed)
    loops: dict[str, Callable[[], tuple[int, int]]] = {
        "rlgames_compiled": lambda: (int(run_random_playouts(game, 20, rng_state).lengths.sum()), 20),
        "rlgames_python": lambda: (rlgames_game(game, rng), 1),
        "python_chess": lambda: (python_chess_game(rng), 1),
    }
    rates = {}
    for name, play in loops.items():
        plies = games = 0
        start = time.thread_time()
        while (elapsed := time.thread_time() - start) < seconds:
            more_plies, more_games = play()
            plies, games = plies + more_plies, games + more_games
        rates[name] = {"games_per_s": games / elapsed, "plies_per_s": plies / elapsed, "mean_plies": plies / games}
    for name in ("rlgames_compiled", "rlgames_python"):
        rates[name]["ratio"] = rates[name]["games_per_s"] / rates["python_chess"]["games_per_s"]
    return rates


def search_rates(game: rlgames.Game, names: Sequence[str], depth: int) -> dict[str, Any]:
    """The generic compiled alpha-beta with the hand-crafted evaluator (`rlgames.games.chess.evaluator`) and
    8 plies of quiescence on captures and promotions, to ``depth`` on each position: nodes (quiescence
    nodes included) per second of thread CPU time, after an untimed search that compiles it."""
    search = AlphaBeta(load_evaluator("heuristic", game), AlphaBetaConfig(depth=depth, quiescence_depth=8))
    states = [game.state_from_fen(POSITIONS[name][0]) for name in names]
    search.search(states[0])
    nodes = quiescence = 0
    seconds = 0.0
    for state in states:
        start = time.thread_time()
        stats = search.search(state).stats
        seconds += time.thread_time() - start
        nodes, quiescence = nodes + stats.nodes, quiescence + stats.extra["quiescence_nodes"]
    return {
        "depth": depth,
        "positions": len(states),
        "nodes": nodes,
        "quiescence_nodes": quiescence,
        "seconds": seconds,
        "nodes_per_s": nodes / seconds,
    }


def measure(args: argparse.Namespace) -> dict[str, Any]:
    game = rlgames.load_game("chess")
    rows = [perft_row(game, name, args.drop) for name in args.positions]
    return {
        "perft": rows,
        "playouts": playout_rates(game, args.seconds, args.seed) if args.seconds > 0 else {},
        "search": search_rates(game, args.positions, args.search_depth) if args.search_depth > 0 else {},
    }


def table(run: dict[str, Any]) -> str:
    lines = [
        "| position | rlgames depth | leaves/s | made/s | python-chess depth | leaves/s | made/s | ratio |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in run["perft"]:
        ours, theirs = row["rlgames"], row["python_chess"]
        lines.append(
            f"| {row['position']} | {ours['depth']} | {ours['leaves_per_s']:,.0f} | {ours['made_per_s']:,.0f} "
            f"| {theirs['depth']} | {theirs['leaves_per_s']:,.0f} | {theirs['made_per_s']:,.0f} "
            f"| {row['ratio']:,.0f}x |"
        )
    if run["playouts"]:
        lines += [
            "",
            "| random games | games/s | plies/s | mean plies | ratio vs python-chess |",
            "|---|---:|---:|---:|---:|",
        ]
        for name, rate in run["playouts"].items():
            ratio = f"{rate['ratio']:,.1f}x" if "ratio" in rate else ""
            lines.append(
                f"| {name} | {rate['games_per_s']:,.1f} | {rate['plies_per_s']:,.0f} "
                f"| {rate['mean_plies']:.0f} | {ratio} |"
            )
    if run["search"]:
        search = run["search"]
        lines += [
            "",
            f"alpha-beta, hand-crafted evaluator, depth {search['depth']} + quiescence, "
            f"{search['positions']} positions: {search['nodes']:,} nodes ({search['quiescence_nodes']:,} "
            f"in quiescence) in {search['seconds']:.2f} s, {search['nodes_per_s']:,.0f} nodes/s",
        ]
    return "\n".join(lines)


def summary(runs: list[dict[str, Any]]) -> str:
    lines = [f"over {len(runs)} runs:"]
    for index, first in enumerate(runs[0]["perft"]):
        rows = [run["perft"][index] for run in runs]
        lines.append(
            f"  {first['position']}: rlgames leaves/s "
            f"{spread([r['rlgames']['leaves_per_s'] for r in rows], ',.0f')}; "
            f"ratio {spread([r['ratio'] for r in rows], ',.0f')}"
        )
    for name in runs[0]["playouts"]:
        lines.append(f"  {name} games/s: {spread([r['playouts'][name]['games_per_s'] for r in runs], ',.1f')}")
    if runs[0]["search"]:
        lines.append(f"  alpha-beta nodes/s: {spread([r['search']['nodes_per_s'] for r in runs], ',.0f')}")
    return "\n".join(lines)


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--positions",
        nargs="+",
        default=list(POSITIONS),
        choices=list(POSITIONS),
        metavar="NAME",
        help=f"perft positions (default: all of {', '.join(POSITIONS)})",
    )
    parser.add_argument(
        "--drop",
        type=int,
        default=2,
        help="python-chess's perft runs this many plies shallower than rlgames' (default 2)",
    )
    parser.add_argument(
        "--seconds", type=float, default=3.0, help="CPU seconds of each random-game loop; 0 skips them (default 3)"
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the random games (default 0)")
    parser.add_argument(
        "--search-depth",
        type=int,
        default=5,
        help="depth of the alpha-beta search on each position; 0 skips it (default 5)",
    )
    parser.add_argument(
        "--runs", type=int, default=1, help="repeat the whole measurement; prints the median and range (default 1)"
    )
    parser.add_argument("--json", metavar="PATH", help="also write the results to this JSON file")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args(argv)
    runs = repeat_runs(args.runs, lambda index: measure(args), table, summary)
    if args.json:
        report = {"args": vars(args), "machine": machine_info(), "runs": runs}
        with open(args.json, "w") as f:
            json.dump(report, f, indent=2)
        print(f"\nwrote {args.json}")


if __name__ == "__main__":
    main()
