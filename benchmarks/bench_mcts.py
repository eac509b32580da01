"""MCTS throughput with random rollouts: rlgames' compiled search against OpenSpiel's C++ ``MCTSBot``.

Both run UCT (``uct_c``, default 2, OpenSpiel's usual value) with one uniformly random rollout per leaf
and the same number of simulations per move, from the start position and from mid-game positions
reached by seeded random moves with no move ending the game (the same action sequence on both sides:
the games share OpenSpiel's action numbering). Each side searches every position ``--repeats`` times from a fresh tree (OpenSpiel's
``MCTSBot.step`` builds a new tree each call; rlgames' `MCTS.reset` drops the tree), after an untimed
warm-up search that also compiles rlgames' search. Times are the searching thread's CPU time
(``time.thread_time``), so that other work on a shared machine does not skew the ratio. The solver is
off on both sides unless ``--solve``.
The output is a Markdown table of simulations per second and the ratio, optionally JSON::

    python benchmarks/bench_mcts.py --games connect_four othello --simulations 10000 --json mcts.json
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
from rlgames.search.mcts import MCTS, MCTSConfig

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_games import machine_info

GAMES = ("connect_four", "tic_tac_toe", "othello")
MID_GAME_PLIES: dict[str, tuple[int, ...]] = {
    "connect_four": (8, 16, 24),
    "tic_tac_toe": (2, 4),
    "othello": (10, 20, 40),
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


def time_openspiel(game_name: str, line: list[int], simulations: int, uct_c: float, solve: bool,
                   repeats: int, seed: int) -> float:
    """OpenSpiel's C++ MCTSBot: simulations per second over ``repeats`` timed steps."""
    game = pyspiel.load_game(game_name)
    state = game.new_initial_state()
    for action in line:
        state.apply_action(action)
    evaluator = pyspiel.RandomRolloutEvaluator(1, seed)
    bot = pyspiel.MCTSBot(game, evaluator, uct_c, simulations, MEMORY_MB, solve, seed, False)
    bot.step(state)  # warm-up
    start = time.thread_time()
    for _ in range(repeats):
        bot.step(state)
    return repeats * simulations / (time.thread_time() - start)


def time_rlgames(game: rlgames.Game, line: list[int], simulations: int, uct_c: float, solve: bool,
                 repeats: int, seed: int) -> tuple[float, int]:
    """rlgames' MCTS: ``(simulations per second, simulations actually run per search)``."""
    state = game.state_from_actions(line)
    mcts = MCTS(MCTSConfig(simulations=simulations, uct_c=uct_c, solver=solve), seed=seed)
    mcts.search(state)  # warm-up (and compilation)
    elapsed = run = 0
    for _ in range(repeats):
        mcts.reset()
        start = time.thread_time()
        run += mcts.search(state).stats.nodes
        elapsed += time.thread_time() - start
    return run / elapsed, run // repeats


def bench(name: str, simulations: int, uct_c: float, solve: bool, repeats: int, seed: int) -> list[dict[str, Any]]:
    game = rlgames.load_game(name)
    rng = random.Random(seed)
    rows = []
    for plies in (0,) + MID_GAME_PLIES[name]:
        line = random_line(game, plies, rng)
        ours, ran = time_rlgames(game, line, simulations, uct_c, solve, repeats, seed)
        theirs = time_openspiel(name, line, simulations, uct_c, solve, repeats, seed)
        rows.append({"game": name, "plies": plies, "line": line, "simulations": simulations,
                     "rlgames_simulations_run": ran, "openspiel_sims_per_s": theirs,
                     "rlgames_sims_per_s": ours, "ratio": ours / theirs})
        print(f"done: {name} after {plies} plies", flush=True)
    return rows


def markdown_table(rows: list[dict[str, Any]]) -> str:
    lines = [
        "| game | position | simulations per move | OpenSpiel C++ MCTSBot sims/s | rlgames MCTS sims/s | ratio |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for row in rows:
        position = "start" if row["plies"] == 0 else f"after {row['plies']} random plies"
        lines.append(f"| {row['game']} | {position} | {row['simulations']:,} | {row['openspiel_sims_per_s']:,.0f} "
                     f"| {row['rlgames_sims_per_s']:,.0f} | {row['ratio']:.2f}x |")
    return "\n".join(lines)


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", nargs="+", default=list(GAMES), choices=GAMES, metavar="GAME",
                        help=f"games to run (default: {' '.join(GAMES)})")
    parser.add_argument("--simulations", type=int, default=10_000, help="simulations per move (default 10000)")
    parser.add_argument("--repeats", type=int, default=3, help="timed searches per position (default 3)")
    parser.add_argument("--uct-c", type=float, default=2.0, help="UCT exploration constant (default 2)")
    parser.add_argument("--solve", action="store_true", help="turn the MCTS-solver on, on both sides")
    parser.add_argument("--seed", type=int, default=0, help="seed of the positions and the searches (default 0)")
    parser.add_argument("--json", metavar="PATH", help="also write the results to this JSON file")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args(argv)
    rows = []
    for name in args.games:
        rows += bench(name, args.simulations, args.uct_c, args.solve, args.repeats, args.seed)
    print()
    print(markdown_table(rows))
    if args.json:
        settings = {key: getattr(args, key) for key in ("simulations", "repeats", "uct_c", "solve", "seed")}
        report = {"settings": settings, "machine": machine_info(), "results": rows}
        with open(args.json, "w") as f:
            json.dump(report, f, indent=2)
        print(f"\nwrote {args.json}")


if __name__ == "__main__":
    main()
