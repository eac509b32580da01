"""Alpha-beta speed: rlgames' compiled search against OpenSpiel's Python ``alpha_beta_search``, in one run.

Both sides search the same positions (the start and ``--positions - 1`` random mid-game positions drawn
from ``--seed``) to the same fixed depth with the same evaluation, written twice: a Python
``value_function`` for OpenSpiel and a compiled evaluator kernel for rlgames.

* connect four: ``0.1 * (stones of the side to move in the middle column - the opponent's)``;
  OpenSpiel's side counts the moves in column 3 of each player in ``state.history()``;
* othello: mobility, ``(legal moves of the side to move) / 64``, a pass counting as one move;
  OpenSpiel's side is ``len(state.legal_actions()) / 64``.

Searches, per position:

* **OpenSpiel** -- ``minimax.alpha_beta_search(game, state, value_function, maximum_depth=depth)``:
  plain fail-soft alpha-beta in legal-action order, no transposition table, Python recursion over
  pyspiel states (``clone`` + ``apply_action`` per child).
* **ours, plain** -- `AlphaBeta` with ``iterative_deepening=False, tt_size_mb=0, use_killers=False,
  use_history=False``: the same algorithm in the same move order, one search to ``depth``.
* **ours, default** -- `AlphaBeta` with its defaults at ``depth``: iterative deepening from depth 1,
  a 16 MB transposition table, killer moves and the history heuristic; its time and nodes are those of
  every iteration up to ``depth`` (it stops sooner only when a result is proven within the horizon).

What a node is:

* OpenSpiel: one call of its recursive ``_alpha_beta``, i.e. the root and every child state it creates
  (interior, evaluated at the horizon, or terminal). It counts none itself: a separate, untimed run
  counts the calls through a wrapper; the timed run is the unmodified code.
* rlgames (``SearchStats.nodes``): the root, every interior position and every position evaluated at
  the horizon; a terminal child is scored by its parent and is **not** counted. The plain search visits
  the same tree as OpenSpiel's, except that a proven win scores higher the sooner it comes (OpenSpiel's
  is a plain 1), which can change which moves are cut off, so the counts differ slightly.

The headline is **time to depth**: the wall time (``time.perf_counter``) each side takes to complete the
fixed-depth search of every position, summed over the positions, and OpenSpiel's total over ours. Node
counts and nodes per second are secondary: each engine counts nodes its own way (above), so their ratio
measures the counting as much as the speed. Per position, each repeat runs OpenSpiel's search and ours
back to back (interleaved, so that a busy machine slows both alike), and each side's time for that
position is the median of its ``--repeats`` runs; our searches are compiled by an untimed warm-up first.
The same ratio in thread CPU time (``time.thread_time``) is reported beside it: on a shared machine our
searches, a few milliseconds each, are the likelier to lose a time slice to other work.
The root values of the plain searches are checked to agree (as the value for the side to move at the
root). ``--runs N`` repeats the whole measurement and prints the median and range of the ratios. Prints
a Markdown table; ``--json PATH`` also writes JSON::

    python benchmarks/bench_alphabeta.py --games connect_four --runs 3 --json bench_alphabeta.json
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pyspiel
from numba import njit
from open_spiel.python.algorithms import minimax

import rlgames
from rlgames.evaluators import Evaluator
from rlgames.jit.bits import popcount
from rlgames.search import AlphaBeta, AlphaBetaConfig

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import each, machine_info, random_positions, repeat_runs, spread  # noqa: E402

DEFAULT_DEPTHS = {"connect_four": 8, "othello": 6}
"""Depths at which OpenSpiel's search takes a second or so per position on a laptop core."""

# --- the evaluation, twice ------------------------------------------------------------------------
CENTRE = 0b111111 << 21  # connect four's column 3 (7 bits per column, 6 cells)


@njit(cache=True)
def _bit_count(bits: int) -> int:
    count = 0
    while bits:
        bits &= bits - 1
        count += 1
    return count


@njit(cache=True)
def connect_four_centre(s) -> float:
    """Compact state ``(player, return, current, mask, plies)``: ``current`` holds the mover's stones."""
    mine = s[2] & CENTRE
    theirs = (s[3] ^ s[2]) & CENTRE
    return 0.1 * (_bit_count(mine) - _bit_count(theirs))


def openspiel_connect_four_centre(state: Any, player: int) -> float:
    history = state.history()
    mine, theirs = history[player::2].count(3), history[1 - player :: 2].count(3)
    return 0.1 * (mine - theirs)


@njit(cache=True)
def othello_mobility(s) -> float:
    """Compact state ``(player, return, black, white, moves)``: ``moves`` holds the mover's legal squares
    (0 when the only legal action is the pass)."""
    return max(1, popcount(s[4])) / 64.0


def openspiel_othello_mobility(state: Any, player: int) -> float:
    mobility = len(state.legal_actions()) / 64.0
    return mobility if state.current_player() == player else -mobility


class KernelEvaluator(Evaluator):
    """An evaluator that is nothing but a compiled kernel (value from the side to move)."""

    def __init__(self, kernel: Callable[..., float]) -> None:
        self._kernel = kernel

    def value(self, state: rlgames.State) -> float:
        return float(self._kernel(state.compact))

    @property
    def kernel(self) -> Callable[..., float]:
        return self._kernel


EVALUATIONS: dict[str, tuple[Callable[..., float], Callable[[Any, int], float]]] = {
    "connect_four": (connect_four_centre, openspiel_connect_four_centre),
    "othello": (othello_mobility, openspiel_othello_mobility),
}
"""Per game: our kernel ``(s) -> value for the side to move`` and OpenSpiel's
``(state, maximizing player) -> value for that player``, the same numbers."""


# --- positions ------------------------------------------------------------------------------------
# --- the searches ---------------------------------------------------------------------------------
def openspiel_search(game: Any, line: list[int], depth: int, evaluate: Callable[[Any, int], float]) -> float:
    """OpenSpiel's alpha-beta from the position after ``line``; the value for the side to move."""
    state = game.new_initial_state()
    for action in line:
        state.apply_action(action)
    player = state.current_player()
    value, _ = minimax.alpha_beta_search(
        game, state, value_function=lambda s: evaluate(s, player), maximum_depth=depth, maximizing_player_id=player
    )
    return value


def count_openspiel_nodes(run: Callable[[], float]) -> int:
    """Runs ``run`` with OpenSpiel's recursive ``_alpha_beta`` wrapped to count its calls (untimed)."""
    original, calls = minimax._alpha_beta, [0]

    def counting(*args: Any, **kwargs: Any) -> Any:
        calls[0] += 1
        return original(*args, **kwargs)

    minimax._alpha_beta = counting  # the recursion looks the name up in the module: every call is seen
    try:
        run()
    finally:
        minimax._alpha_beta = original
    return calls[0]


def timed(run: Callable[[], Any]) -> tuple[float, float, Any]:
    """``(wall seconds, thread CPU seconds, result)`` of ``run()``."""
    wall, cpu = time.perf_counter(), time.thread_time()
    result = run()
    return time.perf_counter() - wall, time.thread_time() - cpu, result


def plain_config(depth: int) -> AlphaBetaConfig:
    return AlphaBetaConfig(depth=depth, iterative_deepening=False, tt_size_mb=0, use_killers=False, use_history=False)


def bench_game(name: str, depth: int, positions: int, seed: int, repeats: int) -> dict[str, Any]:
    game, os_game = rlgames.load_game(name), pyspiel.load_game(name)
    kernel, os_evaluate = EVALUATIONS[name]
    evaluator = KernelEvaluator(kernel)
    lines = random_positions(game, positions, seed, min_plies=6, max_plies=game.max_game_length // 3)
    states = [game.state_from_actions(line) for line in lines]
    searches = {
        "plain": AlphaBeta(evaluator, plain_config(depth)),
        "default": AlphaBeta(evaluator, AlphaBetaConfig(depth=depth)),
    }
    for search in searches.values():
        search.search(states[0])  # compiles (once per game, evaluator and configuration shape)

    totals = {label: {"seconds": 0.0, "cpu_seconds": 0.0, "nodes": 0} for label in ("openspiel", *searches)}
    values: dict[str, list[float]] = {label: [] for label in totals}
    for line, state in zip(lines, states):
        runs: dict[str, Callable[[], Any]] = {
            label: (lambda search=search, state=state: search.search(state)) for label, search in searches.items()
        }
        runs["openspiel"] = lambda line=line: openspiel_search(os_game, line, depth, os_evaluate)
        times: dict[str, list[float]] = {label: [] for label in runs}
        cpu_times: dict[str, list[float]] = {label: [] for label in runs}
        results: dict[str, Any] = {}
        for _ in range(repeats):
            for label, run in runs.items():
                elapsed, cpu, results[label] = timed(run)
                times[label].append(elapsed)
                cpu_times[label].append(cpu)
        for label in runs:
            totals[label]["seconds"] += statistics.median(times[label])
            totals[label]["cpu_seconds"] += statistics.median(cpu_times[label])
        for label in searches:
            totals[label]["nodes"] += results[label].stats.nodes
            values[label].append(results[label].value)
        values["openspiel"].append(results["openspiel"])
        totals["openspiel"]["nodes"] += count_openspiel_nodes(runs["openspiel"])
    for entry in totals.values():
        entry["nodes_per_s"] = entry["nodes"] / entry["seconds"]
    os_seconds, os_rate = totals["openspiel"]["seconds"], totals["openspiel"]["nodes_per_s"]

    def agree(label: str) -> bool:
        return all(abs(a - b) <= 1e-9 for a, b in zip(values[label], values["openspiel"]))

    return {
        "game": name,
        "depth": depth,
        "positions": len(lines),
        "lines": lines,
        "repeats": repeats,
        "values_agree": agree("plain"),
        "default_values_agree": agree("default"),
        "openspiel": totals["openspiel"],
        "ours_plain": totals["plain"],
        "ours_default": totals["default"],
        "speedup_time_plain": os_seconds / totals["plain"]["seconds"],
        "speedup_time_default": os_seconds / totals["default"]["seconds"],
        "speedup_cpu_plain": totals["openspiel"]["cpu_seconds"] / totals["plain"]["cpu_seconds"],
        "speedup_cpu_default": totals["openspiel"]["cpu_seconds"] / totals["default"]["cpu_seconds"],
        "ratio_nodes_per_s_plain": totals["plain"]["nodes_per_s"] / os_rate,
        "ratio_nodes_per_s_default": totals["default"]["nodes_per_s"] / os_rate,
    }


# --- reporting ------------------------------------------------------------------------------------
def markdown_table(rows: list[dict[str, Any]]) -> str:
    lines = [
        "| game | depth | positions | search | seconds to depth | time-to-depth ratio | CPU-time ratio | nodes "
        "| Mnodes/s | nodes/s ratio |",
        "|---|---:|---:|---|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        entries = [
            ("OpenSpiel Python alpha-beta", r["openspiel"], None, None, None),
            (
                "ours, plain (no TT, no ordering)",
                r["ours_plain"],
                r["speedup_time_plain"],
                r["speedup_cpu_plain"],
                r["ratio_nodes_per_s_plain"],
            ),
            (
                "ours, default (ID, TT, killers, history)",
                r["ours_default"],
                r["speedup_time_default"],
                r["speedup_cpu_default"],
                r["ratio_nodes_per_s_default"],
            ),
        ]
        for label, m, time_ratio, cpu_ratio, rate_ratio in entries:
            lines.append(
                f"| {r['game']} | {r['depth']} | {r['positions']} | {label} | {m['seconds']:.4f} | "
                f"{'1x' if time_ratio is None else f'{time_ratio:.1f}x'} | "
                f"{'1x' if cpu_ratio is None else f'{cpu_ratio:.1f}x'} | {m['nodes']:,} | "
                f"{m['nodes_per_s'] / 1e6:.2f} | {'1x' if rate_ratio is None else f'{rate_ratio:.0f}x'} |"
            )
    notes = [
        f"{r['game']}: root values of the plain search {'agree' if r['values_agree'] else 'DISAGREE'} "
        f"with OpenSpiel's, of the default search {'agree' if r['default_values_agree'] else 'DISAGREE'}"
        for r in rows
    ]
    return "\n".join(lines + [""] + notes)


def summary(runs: list[list[dict[str, Any]]]) -> str:
    """Median and range over runs of each game's time-to-depth ratios and times."""
    lines = [f"over {len(runs)} runs:"]
    for index, first in enumerate(runs[0]):
        rows = [run[index] for run in runs]
        lines += [
            f"  {first['game']}, depth {first['depth']}, {first['positions']} positions:",
            f"    OpenSpiel seconds:            {spread([r['openspiel']['seconds'] for r in rows], '.3f')}",
            f"    ours, plain seconds:          {spread([r['ours_plain']['seconds'] for r in rows], '.4f')}",
            f"    ours, default seconds:        {spread([r['ours_default']['seconds'] for r in rows], '.4f')}",
            f"    time-to-depth ratio, plain:   {spread([r['speedup_time_plain'] for r in rows], '.1f')}",
            f"    time-to-depth ratio, default: {spread([r['speedup_time_default'] for r in rows], '.1f')}",
            f"    CPU-time ratio, plain:        {spread([r['speedup_cpu_plain'] for r in rows], '.1f')}",
            f"    CPU-time ratio, default:      {spread([r['speedup_cpu_default'] for r in rows], '.1f')}",
        ]
    return "\n".join(lines)


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--games",
        nargs="+",
        default=list(EVALUATIONS),
        choices=list(EVALUATIONS),
        metavar="GAME",
        help="games to run (default: connect_four othello)",
    )
    parser.add_argument(
        "--depth", type=int, default=None, help=f"search depth for every game (default: {DEFAULT_DEPTHS})"
    )
    parser.add_argument("--positions", type=int, default=8, help="the start and N-1 random positions (default 8)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the random positions (default 0)")
    parser.add_argument(
        "--repeats",
        type=int,
        default=5,
        help="timed runs of each side's search per position, interleaved; median (default 5)",
    )
    parser.add_argument(
        "--runs", type=int, default=1, help="repeat the whole measurement; prints the median and range (default 1)"
    )
    parser.add_argument("--json", metavar="PATH", help="also write the results to this JSON file")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args(argv)

    def measure(name: str) -> dict[str, Any]:
        return bench_game(name, args.depth or DEFAULT_DEPTHS[name], args.positions, args.seed, args.repeats)

    runs = repeat_runs(args.runs, lambda index: each(args.games, measure, index, args.runs), markdown_table, summary)
    if args.json:
        report = {"args": vars(args), "machine": machine_info(), "runs": runs}
        with open(args.json, "w") as f:
            json.dump(report, f, indent=2)
        print(f"\nwrote {args.json}")


if __name__ == "__main__":
    main()
