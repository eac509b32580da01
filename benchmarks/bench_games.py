"""Random-playout throughput of every game, side by side with OpenSpiel in the same run.

Three loops play uniformly random games (chance outcomes by their probabilities) from the start:

* OpenSpiel's Python loop: ``state.apply_action(rng.choice(state.legal_actions()))`` on a pyspiel state;
* the rlgames Python API loop, the same shape: ``state = state.apply(rng.choice(state.legal_actions()))``;
* the rlgames compiled playout (`rlgames.search.playout`), many playouts per compiled call.

Each is timed for ``--seconds`` after a warm-up (compilation and first calls excluded) and reported in
plies per second (chance outcomes count as plies), as a Markdown table and optionally as JSON. The two
Python loops alternate in ``ROUNDS`` short rounds, so that a busy or throttled machine slows both alike::

    python benchmarks/bench_games.py --seconds 2 --games connect_four othello --json bench.json
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import time
from typing import Any, Callable, Sequence

import numpy as np
import pyspiel

import rlgames
from rlgames.search.playout import run_random_playouts
from rlgames.search.rng import new_rng_state

OPENSPIEL_GAMES: dict[str, tuple[str, dict[str, Any]] | None] = {
    "tic_tac_toe": ("tic_tac_toe", {}),
    "connect_four": ("connect_four", {}),
    "othello": ("othello", {}),
    "nim": ("nim", {"pile_sizes": "1;3;5;7", "is_misere": False}),
    "pig": ("pig", {}),
    "halving": None,  # no OpenSpiel counterpart
}
"""The OpenSpiel game (name, parameters) playing the same rules as each rlgames game."""

RLGAMES_PARAMS: dict[str, dict[str, Any]] = {"nim": {"heaps": (1, 3, 5, 7), "misere": False}}
"""rlgames parameters where the defaults differ from the OpenSpiel game's."""

WARMUP_GAMES = 3
ROUNDS = 20  # the Python loops alternate in this many rounds
COMPILED_BATCH_SECONDS = 0.1  # compiled batches grow until one takes this long


def throughput(plies: int, games: int, elapsed: float) -> dict[str, float]:
    """The summary of one timed loop."""
    return {"plies_per_s": plies / elapsed, "games": games, "mean_length": plies / games}


def sample_outcome(outcomes: Sequence[tuple[int, float]], u: float) -> int:
    """The chance outcome that a uniform ``u`` in [0, 1) selects from ``(outcome, probability)`` pairs."""
    for outcome, probability in outcomes:
        u -= probability
        if u < 0.0:
            return outcome
    return outcomes[-1][0]


def openspiel_random_game(game: Any, rng: random.Random) -> int:
    """Plays one random OpenSpiel game; returns its number of plies."""
    state, plies = game.new_initial_state(), 0
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(sample_outcome(state.chance_outcomes(), rng.random()))
        else:
            state.apply_action(rng.choice(state.legal_actions()))
        plies += 1
    return plies


def rlgames_random_game(game: rlgames.Game, rng: random.Random) -> int:
    """Plays one random game through the rlgames `State` API; returns its number of plies."""
    state, plies = game.new_initial_state(), 0
    while not state.is_terminal():
        if state.is_chance_node():
            state = state.apply(sample_outcome(state.chance_outcomes(), rng.random()))
        else:
            state = state.apply(rng.choice(state.legal_actions()))
        plies += 1
    return plies


def time_games(loops: dict[str, Callable[[], int]], seconds: float) -> dict[str, dict[str, float]]:
    """Calls each loop's ``play_one`` (one game, returning its plies) for ``seconds`` in all, after a
    short warm-up; the loops take turns in `ROUNDS` rounds of ``seconds / ROUNDS``."""
    for play_one in loops.values():
        for _ in range(WARMUP_GAMES):
            play_one()
    totals = {name: [0, 0, 0.0] for name in loops}  # plies, games, seconds
    for _ in range(ROUNDS):
        for name, play_one in loops.items():
            total = totals[name]
            start = time.perf_counter()
            while (elapsed := time.perf_counter() - start) < seconds / ROUNDS:
                total[0] += play_one()
                total[1] += 1
            total[2] += elapsed
    return {name: throughput(plies, games, elapsed) for name, (plies, games, elapsed) in totals.items()}


def time_compiled(game: rlgames.Game, seconds: float, seed: int) -> dict[str, float]:
    """Runs batches of compiled playouts for ``seconds``; the first (compiling) batch is not timed."""
    rng_state = new_rng_state(seed)
    run_random_playouts(game, WARMUP_GAMES, rng_state)
    plies = games = 0
    size = 16
    start = time.perf_counter()
    while (elapsed := time.perf_counter() - start) < seconds:
        batch_start = time.perf_counter()
        plies += int(run_random_playouts(game, size, rng_state).lengths.sum())
        games += size
        if time.perf_counter() - batch_start < COMPILED_BATCH_SECONDS:
            size *= 2
    return throughput(plies, games, elapsed)


def bench_game(name: str, seconds: float, seed: int) -> dict[str, Any]:
    """The three throughputs of one game, and the ratios against OpenSpiel's Python loop."""
    game = rlgames.load_game(name, **RLGAMES_PARAMS.get(name, {}))
    row: dict[str, Any] = {"game": name, "rlgames_params": game.params}
    rl_rng = random.Random(seed)
    loops = {"rlgames_python": lambda: rlgames_random_game(game, rl_rng)}
    spiel = OPENSPIEL_GAMES.get(name)
    if spiel is not None:
        spiel_game = pyspiel.load_game(spiel[0], spiel[1])
        spiel_rng = random.Random(seed)
        row["openspiel_params"] = spiel[1]
        loops["openspiel_python"] = lambda: openspiel_random_game(spiel_game, spiel_rng)
    row |= time_games(loops, seconds)
    row["rlgames_compiled"] = time_compiled(game, seconds, seed)
    if spiel is not None:
        base = row["openspiel_python"]["plies_per_s"]
        row["python_ratio"] = row["rlgames_python"]["plies_per_s"] / base
        row["compiled_ratio"] = row["rlgames_compiled"]["plies_per_s"] / base
    return row


def markdown_table(rows: list[dict[str, Any]]) -> str:
    """The results as a Markdown table; mean game lengths show that both sides play the same rules."""
    def rate(throughput: dict[str, Any] | None) -> str:
        return "n/a" if throughput is None else f"{throughput['plies_per_s']:,.0f}"

    def ratio(value: float | None) -> str:
        return "n/a" if value is None else f"{value:.2f}x"

    def lengths(row: dict[str, Any]) -> str:
        spiel = row.get("openspiel_python")
        ours = f"{row['rlgames_compiled']['mean_length']:.1f}"
        return ours if spiel is None else f"{spiel['mean_length']:.1f} / {ours}"

    lines = [
        "| game | OpenSpiel Python loop plies/s | rlgames Python API plies/s | ratio "
        "| rlgames compiled playout plies/s | ratio vs OpenSpiel Python loop | mean plies (OpenSpiel / rlgames) |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        lines.append(
            f"| {row['game']} | {rate(row.get('openspiel_python'))} | {rate(row['rlgames_python'])} "
            f"| {ratio(row.get('python_ratio'))} | {rate(row['rlgames_compiled'])} "
            f"| {ratio(row.get('compiled_ratio'))} | {lengths(row)} |"
        )
    return "\n".join(lines)


def machine_info() -> dict[str, Any]:
    """Enough about the machine and the libraries to compare runs."""
    from importlib.metadata import version

    import numba

    return {
        "python": platform.python_version(),
        "platform": platform.platform(),
        "processor": platform.processor() or platform.machine(),
        "cpu_count": os.cpu_count(),
        "load_average": list(os.getloadavg()) if hasattr(os, "getloadavg") else None,
        "numpy": np.__version__,
        "numba": numba.__version__,
        "open_spiel": version("open_spiel"),
        "rlgames": rlgames.__version__,
    }


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="timed seconds per measurement (default 2)")
    parser.add_argument("--games", nargs="+", default=rlgames.list_games(), choices=rlgames.list_games(),
                        metavar="GAME", help="games to run (default: all)")
    parser.add_argument("--seed", type=int, default=0, help="seed of every random stream (default 0)")
    parser.add_argument("--json", metavar="PATH", help="also write the results to this JSON file")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args(argv)
    rows = []
    for name in args.games:
        rows.append(bench_game(name, args.seconds, args.seed))
        print(f"done: {name}", flush=True)
    print()
    print(markdown_table(rows))
    if args.json:
        report = {"seconds": args.seconds, "seed": args.seed, "machine": machine_info(), "results": rows}
        with open(args.json, "w") as f:
            json.dump(report, f, indent=2)
        print(f"\nwrote {args.json}")


if __name__ == "__main__":
    main()
