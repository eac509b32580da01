"""MCTS throughput with random rollouts: rlgames' compiled search against OpenSpiel's C++ ``MCTSBot``.

Both run UCT (``uct_c``, default 2, OpenSpiel's usual value) with one uniformly random rollout per leaf
and the same number of simulations per move, from the start position and from mid-game positions
reached by seeded random moves with no move ending the game (the same action sequence on both sides:
the games share OpenSpiel's action numbering). Each side searches every position ``--repeats`` times from
a fresh tree (OpenSpiel's ``MCTSBot.step`` builds a new tree each call; rlgames' `MCTS.reset` drops the
tree), the two sides taking turns search by search, after an untimed warm-up search each that also
compiles rlgames' search. Times are the searching thread's CPU time (``time.thread_time``), so that other
work on a shared machine does not skew the ratio. The solver is off on both sides unless ``--solve``.

Go (9x9, komi 7.5) is the exception to "the same rollout": rlgames' random rollouts of go are the game's
light playouts (its ``playout`` kernel: no own eye filled, about 111 moves from the empty board), while
OpenSpiel's ``RandomRolloutEvaluator`` plays uniformly random legal moves, passes among them, which
wander to the length limit (162 moves). Its ratio compares the searches as each library plays go.

Simulations counted are those really run: rlgames' ``stats.nodes`` (the simulations its search ran;
with ``--solve`` a proven root stops early), OpenSpiel's ``--simulations`` per step (without the solver
its bot always runs them all; with ``--solve`` it may stop early too, so that ratio is then a lower
bound of rlgames' advantage only if rlgames stops no later). The output is a Markdown table of
simulations per second per position and, per game, over all its positions (total simulations over
total time, each side), with the ratio; ``--runs N`` repeats the whole measurement and prints the
median and range of the per-game ratios; ``--json`` also writes JSON::

    python benchmarks/bench_mcts.py --games connect_four --simulations 10000 --runs 3 --json mcts.json
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path
from typing import Any, Sequence

import pyspiel

import rlgames
from rlgames.search.mcts.config import MCTSConfig
from rlgames.search.mcts.puct import MCTS

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import machine_info, repeat_runs, spread

GAMES = ("connect_four", "tic_tac_toe", "othello", "go")
PARAMS: dict[str, dict[str, Any]] = {"go": {"board_size": 9}}
"""The games' parameters, the same on both sides (go: 9x9, komi 7.5)."""
MID_GAME_PLIES: dict[str, tuple[int, ...]] = {
    "connect_four": (8, 16, 24),
    "tic_tac_toe": (2, 4),
    "othello": (10, 20, 40),
    "go": (20, 40),
}
"""Random plies played from the start to reach the mid-game positions of each game."""
MEMORY_MB = 4096  # OpenSpiel's tree-size limit: far above what these searches need


def random_line(game: rlgames.Game, plies: int, rng: random.Random) -> list[int]:
    """``plies`` random actions from the start to a position where no move ends the game (retrying until
    one does): a side with a win in one ends most simulations at once, which measures little."""
    while True:
        state, line = game.new_initial_state(), []
        while len(line) < plies and not state.is_terminal():
            action = rng.choice(state.legal_actions())
            state, line = state.apply(action), line + [action]
        if not state.is_terminal() and not any(state.apply(a).is_terminal() for a in state.legal_actions()):
            return line


def bench_position(
    game: rlgames.Game, line: list[int], simulations: int, uct_c: float, solve: bool, repeats: int, seed: int
) -> dict[str, float]:
    """Both searches of the position after ``line``, ``repeats`` times each, taking turns: the seconds
    (thread CPU time) and simulations of each side."""
    state = game.state_from_actions(line)
    mcts = MCTS(MCTSConfig(simulations=simulations, uct_c=uct_c, solver=solve), seed=seed)
    mcts.search(state)  # warm-up (and compilation)
    spiel_game = pyspiel.load_game(game.name, PARAMS.get(game.name, {}))
    spiel_state = spiel_game.new_initial_state()
    for action in line:
        spiel_state.apply_action(action)
    bot = pyspiel.MCTSBot(
        spiel_game, pyspiel.RandomRolloutEvaluator(1, seed), uct_c, simulations, MEMORY_MB, solve, seed, False
    )
    bot.step(spiel_state)  # warm-up
    ours = {"seconds": 0.0, "simulations": 0}
    theirs = {"seconds": 0.0, "simulations": 0}
    for _ in range(repeats):
        mcts.reset()
        start = time.thread_time()
        ours["simulations"] += mcts.search(state).stats.nodes
        ours["seconds"] += time.thread_time() - start
        start = time.thread_time()
        bot.step(spiel_state)
        theirs["seconds"] += time.thread_time() - start
        theirs["simulations"] += simulations
    return {
        "rlgames_seconds": ours["seconds"],
        "rlgames_simulations": ours["simulations"],
        "openspiel_seconds": theirs["seconds"],
        "openspiel_simulations": theirs["simulations"],
    }


def bench(name: str, simulations: int, uct_c: float, solve: bool, repeats: int, seed: int) -> list[dict[str, Any]]:
    game = rlgames.load_game(name, **PARAMS.get(name, {}))
    rng = random.Random(seed)
    rows = []
    for plies in (0,) + MID_GAME_PLIES[name]:
        line = random_line(game, plies, rng)
        row: dict[str, Any] = {"game": name, "plies": plies, "line": line, "simulations": simulations}
        row |= bench_position(game, line, simulations, uct_c, solve, repeats, seed)
        rows.append(with_rates(row))
        print(f"done: {name} after {plies} plies", flush=True)
    return rows


def with_rates(row: dict[str, Any]) -> dict[str, Any]:
    """``row`` with both sides' simulations per second and their ratio."""
    row["rlgames_sims_per_s"] = row["rlgames_simulations"] / row["rlgames_seconds"]
    row["openspiel_sims_per_s"] = row["openspiel_simulations"] / row["openspiel_seconds"]
    row["ratio"] = row["rlgames_sims_per_s"] / row["openspiel_sims_per_s"]
    return row


def per_game(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per game, every position together: total simulations over total time, each side."""
    totals: dict[str, dict[str, Any]] = {}
    for row in rows:
        total = totals.setdefault(
            row["game"],
            {
                "game": row["game"],
                "plies": None,
                "simulations": row["simulations"],
                "rlgames_seconds": 0.0,
                "rlgames_simulations": 0,
                "openspiel_seconds": 0.0,
                "openspiel_simulations": 0,
            },
        )
        for key in ("rlgames_seconds", "rlgames_simulations", "openspiel_seconds", "openspiel_simulations"):
            total[key] += row[key]
    return [with_rates(total) for total in totals.values()]


def markdown_table(rows: list[dict[str, Any]]) -> str:
    lines = [
        "| game | position | simulations per move | OpenSpiel C++ MCTSBot sims/s | rlgames MCTS sims/s | ratio |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for row in rows + per_game(rows):
        position = (
            "all positions"
            if row["plies"] is None
            else "start"
            if row["plies"] == 0
            else f"after {row['plies']} random plies"
        )
        lines.append(
            f"| {row['game']} | {position} | {row['simulations']:,} | {row['openspiel_sims_per_s']:,.0f} "
            f"| {row['rlgames_sims_per_s']:,.0f} | {row['ratio']:.2f}x |"
        )
    return "\n".join(lines)


def summary(runs: list[list[dict[str, Any]]]) -> str:
    """Median and range over runs of each game's all-positions figures."""
    totals = [per_game(rows) for rows in runs]
    lines = [f"over {len(runs)} runs, all positions of each game together:"]
    for index, first in enumerate(totals[0]):
        games = [run[index] for run in totals]
        positions = [r["ratio"] for rows in runs for r in rows if r["game"] == first["game"]]
        lines += [
            f"  {first['game']} ({first['simulations']:,} simulations per move):",
            f"    rlgames sims/s:   {spread([g['rlgames_sims_per_s'] for g in games], ',.0f')}",
            f"    OpenSpiel sims/s: {spread([g['openspiel_sims_per_s'] for g in games], ',.0f')}",
            f"    ratio:            {spread([g['ratio'] for g in games], '.2f')}",
            f"    per-position ratios: {min(positions):.2f} to {max(positions):.2f}",
        ]
    return "\n".join(lines)


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--games",
        nargs="+",
        default=list(GAMES),
        choices=GAMES,
        metavar="GAME",
        help=f"games to run (default: {' '.join(GAMES)})",
    )
    parser.add_argument("--simulations", type=int, default=10_000, help="simulations per move (default 10000)")
    parser.add_argument("--repeats", type=int, default=3, help="timed searches per position (default 3)")
    parser.add_argument("--uct-c", type=float, default=2.0, help="UCT exploration constant (default 2)")
    parser.add_argument("--solve", action="store_true", help="turn the MCTS-solver on, on both sides")
    parser.add_argument("--seed", type=int, default=0, help="seed of the positions and the searches (default 0)")
    parser.add_argument(
        "--runs", type=int, default=1, help="repeat the whole measurement; prints the median and range (default 1)"
    )
    parser.add_argument("--json", metavar="PATH", help="also write the results to this JSON file")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args(argv)

    def measure(index: int) -> list[dict[str, Any]]:
        return [
            row
            for name in args.games
            for row in bench(name, args.simulations, args.uct_c, args.solve, args.repeats, args.seed)
        ]

    runs = repeat_runs(args.runs, measure, markdown_table, summary)
    if args.json:
        settings = {key: getattr(args, key) for key in ("simulations", "repeats", "uct_c", "solve", "seed", "runs")}
        report = {"settings": settings, "machine": machine_info(), "runs": runs}
        with open(args.json, "w") as f:
            json.dump(report, f, indent=2)
        print(f"\nwrote {args.json}")


if __name__ == "__main__":
    main()
