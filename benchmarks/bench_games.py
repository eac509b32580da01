"""Random-playout throughput of every game, side by side with OpenSpiel in the same run.

Three loops play uniformly random games (chance outcomes by their probabilities) from the start:

* OpenSpiel's Python loop: ``state.apply_action(rng.choice(state.legal_actions()))`` on a pyspiel state;
* the rlgames Python API loop, the same shape: ``state = state.apply(rng.choice(state.legal_actions()))``;
* the rlgames compiled playout (`rlgames.playout`), many playouts per compiled call.

Each is timed for ``--seconds`` (wall time) after a warm-up (compilation and first calls excluded) and
reported in plies per second (chance outcomes count as plies), as a Markdown table and optionally as
JSON. The three loops take turns in ``ROUNDS`` short rounds (the compiled one a batch of playouts at a
time, sized to a tenth of a round), so that a busy or throttled machine slows all of them alike.
``--runs N`` repeats the whole measurement and prints the median and range of every rate and ratio::

    python benchmarks/bench_games.py --seconds 2 --games connect_four --runs 5 --json bench.json
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path
from typing import Any, Callable, Sequence

import pyspiel

import rlgames
from rlgames.jit.rng import new_rng_state
from rlgames.playout import run_random_playouts

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import each, machine_info, repeat_runs, spread  # noqa: E402

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
ROUNDS = 20  # the loops alternate in this many rounds
COMPILED_BATCH_FRACTION = 0.1  # a compiled batch takes about this fraction of a round
MAX_COMPILED_BATCH = 1 << 20


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


def time_loops(loops: dict[str, Callable[[], tuple[int, int]]], seconds: float) -> dict[str, dict[str, float]]:
    """Calls each loop's ``play`` (some games, returning their plies and their number) for ``seconds`` in
    all, after a short warm-up; the loops take turns in `ROUNDS` rounds of ``seconds / ROUNDS``."""
    for play in loops.values():
        for _ in range(WARMUP_GAMES):
            play()
    totals = {name: [0, 0, 0.0] for name in loops}  # plies, games, seconds
    for _ in range(ROUNDS):
        for name, play in loops.items():
            total = totals[name]
            start = time.perf_counter()
            while (elapsed := time.perf_counter() - start) < seconds / ROUNDS:
                plies, games = play()
                total[0] += plies
                total[1] += games
            total[2] += elapsed
    return {name: throughput(plies, games, elapsed) for name, (plies, games, elapsed) in totals.items()}


def compiled_batches(game: rlgames.Game, seconds: float, seed: int) -> Callable[[], tuple[int, int]]:
    """A ``play`` for `time_loops`: one batch of compiled playouts, sized (after a compiling call) so
    that a batch takes about `COMPILED_BATCH_FRACTION` of a round of ``seconds / ROUNDS``."""
    rng_state = new_rng_state(seed)
    run_random_playouts(game, WARMUP_GAMES, rng_state)  # compiles
    size, target = 16, COMPILED_BATCH_FRACTION * seconds / ROUNDS
    while True:
        start = time.perf_counter()
        run_random_playouts(game, size, rng_state)
        if time.perf_counter() - start >= target or size >= MAX_COMPILED_BATCH:
            break
        size *= 2

    def play() -> tuple[int, int]:
        return int(run_random_playouts(game, size, rng_state).lengths.sum()), size

    return play


def bench_game(name: str, seconds: float, seed: int) -> dict[str, Any]:
    """The three throughputs of one game, and the ratios against OpenSpiel's Python loop."""
    game = rlgames.load_game(name, **RLGAMES_PARAMS.get(name, {}))
    row: dict[str, Any] = {"game": name, "rlgames_params": game.params}
    rl_rng = random.Random(seed)
    loops = {"rlgames_python": lambda: (rlgames_random_game(game, rl_rng), 1)}
    spiel = OPENSPIEL_GAMES.get(name)
    if spiel is not None:
        spiel_game = pyspiel.load_game(spiel[0], spiel[1])
        spiel_rng = random.Random(seed)
        row["openspiel_params"] = spiel[1]
        loops["openspiel_python"] = lambda: (openspiel_random_game(spiel_game, spiel_rng), 1)
    loops["rlgames_compiled"] = compiled_batches(game, seconds, seed)
    row |= time_loops(loops, seconds)
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


def summary(runs: list[list[dict[str, Any]]]) -> str:
    """Median and range over runs of each game's rates and ratios."""
    lines = [f"over {len(runs)} runs:"]
    for index, first in enumerate(runs[0]):
        rows = [run[index] for run in runs]
        lines.append(f"  {first['game']}:")
        for key, label in (
            ("openspiel_python", "OpenSpiel Python loop plies/s"),
            ("rlgames_python", "rlgames Python API plies/s"),
            ("rlgames_compiled", "rlgames compiled playouts plies/s"),
        ):
            if key in first:
                lines.append(f"    {label + ':':36} {spread([r[key]['plies_per_s'] for r in rows], ',.0f')}")
        for key, label in (
            ("python_ratio", "Python API / OpenSpiel loop"),
            ("compiled_ratio", "compiled / OpenSpiel loop"),
        ):
            if key in first:
                lines.append(f"    {label + ':':36} {spread([r[key] for r in rows], '.2f')}")
    return "\n".join(lines)


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="timed seconds per measurement (default 2)")
    parser.add_argument(
        "--games",
        nargs="+",
        default=rlgames.list_games(),
        choices=rlgames.list_games(),
        metavar="GAME",
        help="games to run (default: all)",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of every random stream (default 0)")
    parser.add_argument(
        "--runs", type=int, default=1, help="repeat the whole measurement; prints the median and range (default 1)"
    )
    parser.add_argument("--json", metavar="PATH", help="also write the results to this JSON file")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args(argv)

    def measure(name: str) -> dict[str, Any]:
        return bench_game(name, args.seconds, args.seed)

    runs = repeat_runs(args.runs, lambda index: each(args.games, measure, index, args.runs), markdown_table, summary)
    if args.json:
        report = {"seconds": args.seconds, "seed": args.seed, "machine": machine_info(), "runs": runs}
        with open(args.json, "w") as f:
            json.dump(report, f, indent=2)
        print(f"\nwrote {args.json}")


if __name__ == "__main__":
    main()
