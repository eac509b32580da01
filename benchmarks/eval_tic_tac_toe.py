"""Is a tic-tac-toe checkpoint a perfect player? The issue's two tests, measured exactly.

1. Over every reachable position with a player to move, does ``mcts(simulations=N, model=CHECKPOINT)``
   pick a move that keeps the game-theoretic value (the exact solver's ``value_preserving_actions``)?
   The raw policy's argmax is scored the same way, for reference.
2. Does that agent ever lose to the solver? It plays both seats from every opening of ``--opening-plies``
   plies that is not already lost for it.

    python benchmarks/eval_tic_tac_toe.py checkpoints/tic_tac_toe.pt [--simulations 100] [--json PATH]
"""

from __future__ import annotations

import argparse
import itertools
import json
import time

import numpy as np
import torch

import rlgames
from rlgames.models import NetworkEvaluator
from rlgames.solvers import solve


def reachable(game: rlgames.Game) -> list[rlgames.State]:
    """Every position reachable from the start with a player to move, each once."""
    seen, frontier = {}, [game.new_initial_state()]
    while frontier:
        state = frontier.pop()
        if state.is_terminal() or state.compact in seen:
            continue
        seen[state.compact] = state
        frontier.extend(state.apply(a) for a in state.legal_actions())
    return list(seen.values())


def move_accuracy(game: rlgames.Game, checkpoint: str, simulations: int) -> dict[str, float]:
    positions = reachable(game)
    evaluator = NetworkEvaluator.from_checkpoint(checkpoint, game)
    _, priors = evaluator.evaluate_batch(positions)
    mcts_ok = policy_ok = 0
    misses = []
    for state, prior in zip(positions, priors):
        keep = solve(state).value_preserving_actions
        policy_ok += int(np.argmax(prior)) in keep
        agent = rlgames.load_agent(f"mcts(simulations={simulations}, model={checkpoint}, reuse=false)", game)
        move = agent.act(state)
        mcts_ok += move in keep
        if move not in keep:
            misses.append(f"{' '.join(map(str, state.compact))} -> {state.action_to_string(move)}")
    return {
        "positions": len(positions),
        "mcts_value_preserving": mcts_ok / len(positions),
        "policy_value_preserving": policy_ok / len(positions),
        "mcts_misses": misses[:10],
    }


def games_against_solver(game: rlgames.Game, checkpoint: str, simulations: int, plies: int) -> dict[str, int]:
    agent = rlgames.load_agent(f"mcts(simulations={simulations}, model={checkpoint})", game)
    solver = rlgames.load_agent("solver(seed=0)", game)
    record = {"games": 0, "wins": 0, "draws": 0, "losses": 0}
    for opening in itertools.product(range(game.num_actions), repeat=plies):
        try:
            start = game.state_from_actions(opening)
        except rlgames.IllegalActionError:
            continue
        for seat in (0, 1):
            if start.is_terminal() or solve(start).value * (1 if start.current_player() == seat else -1) < 0:
                continue  # already lost for the agent: not a fair test
            state = start
            while not state.is_terminal():
                mover = agent if state.current_player() == seat else solver
                state = state.apply(mover.act(state))
            result = state.returns()[seat]
            record["games"] += 1
            record["wins" if result > 0 else "losses" if result < 0 else "draws"] += 1
    return record


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("checkpoint")
    parser.add_argument("--simulations", type=int, default=100)
    parser.add_argument("--opening-plies", type=int, default=2)
    parser.add_argument("--json", metavar="PATH")
    args = parser.parse_args()
    torch.set_num_threads(1)
    game = rlgames.load_game("tic_tac_toe")
    start = time.perf_counter()
    report = {
        "checkpoint": args.checkpoint,
        "simulations": args.simulations,
        **move_accuracy(game, args.checkpoint, args.simulations),
        "against_solver": games_against_solver(game, args.checkpoint, args.simulations, args.opening_plies),
    }
    report["seconds"] = round(time.perf_counter() - start, 1)
    print(json.dumps(report, indent=2))
    if args.json:
        with open(args.json, "w") as file:
            json.dump(report, file, indent=2)


if __name__ == "__main__":
    main()
