"""Periodic evaluation of the network: matches against fixed opponents and agreement with exact solvers.

* **Matches** (`rlgames.train.matches`). MCTS with the network (PUCT, no noise, the most-visited move)
  plays each opponent spec (``alphabeta(depth=2, eval=heuristic)``, ``mcts(simulations=200)`` -- plain
  MCTS with random rollouts) from random openings, each opening once with either colour. Results per
  opponent: ``score_vs_<opponent>`` ((wins + draws / 2) / games) with ``score_low_vs_<opponent>`` and
  ``score_high_vs_<opponent>``, ``win_rate_vs_<opponent>``, and ``elo_vs_<opponent>`` with ``elo_low_`` and
  ``elo_high_``: the arena's model over the game pairs (`rlgames.arena.stats`).
* **Solver agreement** (`SolverBenchmark`). Positions with their exact value and value-preserving
  moves: every reachable position of a small game (tic-tac-toe; up to `REACHABLE_LIMIT`), or a sample of
  Pons' test sets (connect four). ``value_correct``: the network's value rounded to -1/0/1 (at +-1/3)
  equals the exact value's sign (win, draw or loss, whatever the points); ``policy_optimal``: the raw
  policy's most likely move keeps the value; ``*_decisive``: the same over the positions where some
  legal move loses value (elsewhere every move is right); ``mcts_optimal_decisive``: the move of MCTS
  with the network keeps the value.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
from rlgames.models import NetworkEvaluator, PolicyValueNet
from rlgames.train.alphazero.config import EvalConfig
from rlgames.train.matches import match, opponent_tag

from rlgames.agents.spec import load_agent
from rlgames.game import Game, State
from rlgames.search.mcts.config import MCTSConfig
from rlgames.search.mcts.puct import MCTS, MultiTreeMCTS
from rlgames.solvers import solve

REACHABLE_LIMIT = 20_000
"""The most positions a game may have for the solver benchmark to list all of them."""
LEAVES_PER_BATCH = 8
"""Leaves per tree and network call of the evaluation searches."""
"""Random lines tried per opening wanted before repeating openings is accepted."""


@dataclass(frozen=True)
class SolvedPosition:
    """A position, the sign of its exact value for the side to move (1 a win, 0 a draw, -1 a loss,
    whatever the points) and the moves that keep the value."""

    state: State
    value: int
    preserving: frozenset[int]
    decisive: bool  # some legal move does not keep the value


class SolverBenchmark:
    """Positions judged by the exact solver, built once per run (sampled with ``rng``)."""

    def __init__(self, game: Game, config: EvalConfig, rng: np.random.Generator) -> None:
        states = benchmark_states(game, config, rng)
        self.positions = [solved(state) for state in states]

    def __len__(self) -> int:
        return len(self.positions)

    def score(self, evaluator: NetworkEvaluator, search: MultiTreeMCTS, mcts_positions: int) -> dict[str, float]:
        """Agreement of the evaluator's values and priors, and of ``search``'s moves, with the solver."""
        positions = self.positions
        values, priors = evaluator.evaluate_batch([p.state for p in positions])  # [N], [N, A]
        rounded = np.where(values > 1 / 3, 1, np.where(values < -1 / 3, -1, 0))
        policy_ok = np.array([int(np.argmax(prior)) in p.preserving for p, prior in zip(positions, priors)])
        decisive = np.array([p.decisive for p in positions])
        results = {
            "value_correct": float(np.mean(rounded == [p.value for p in positions])),
            "policy_optimal": float(policy_ok.mean()),
        }
        if decisive.any():
            results["policy_optimal_decisive"] = float(policy_ok[decisive].mean())
            searched = [p for p in positions if p.decisive][:mcts_positions]
            if searched:
                moves = [r.action for r in search.search_many([p.state for p in searched])]
                results["mcts_optimal_decisive"] = float(np.mean([m in p.preserving for m, p in zip(moves, searched)]))
        return results


def benchmark_states(game: Game, config: EvalConfig, rng: np.random.Generator) -> list[State]:
    """A sample of the game's benchmark sets (connect four: Pons' ``config.pons_sets``); else, for a small
    deterministic game, its reachable positions (a sample of ``solver_positions`` when positive); other
    games: none."""
    published = game.benchmark_positions(config.pons_sets)
    if published:
        count = min(config.solver_positions or len(published), len(published))
        return [published[i] for i in rng.choice(len(published), size=count, replace=False)]
    if game.has_chance:
        return []
    states = reachable_states(game, REACHABLE_LIMIT)
    if config.solver_positions and len(states) > config.solver_positions:
        return [states[i] for i in sorted(rng.choice(len(states), size=config.solver_positions, replace=False))]
    return states


def reachable_states(game: Game, limit: int) -> list[State]:
    """Every non-terminal position reachable from the start, in depth-first order, or none when the
    game has more than ``limit``."""
    seen, order, stack = set(), [], [game.new_initial_state()]
    while stack:
        state = stack.pop()
        if state.is_terminal() or state.compact in seen:
            continue
        if len(seen) == limit:
            return []
        seen.add(state.compact)
        order.append(state)
        stack += [state.apply(action) for action in reversed(state.legal_actions())]
    return order


def solved(state: State) -> SolvedPosition:
    result = solve(state)
    preserving = frozenset(result.value_preserving_actions)
    sign = (result.value > 0) - (result.value < 0)  # the solver's value is a return, in the utility range
    return SolvedPosition(state, sign, preserving, len(preserving) < len(state.legal_actions()))


def network_search(evaluator: NetworkEvaluator, simulations: int, seed: int) -> MultiTreeMCTS:
    """MCTS with the network for evaluation: PUCT, no root noise, the most-visited move."""
    config = MCTSConfig(simulations=simulations, selection="puct", batch_size=min(LEAVES_PER_BATCH, simulations))
    return MultiTreeMCTS(config, evaluator, seed=seed)


def evaluate(
    game: Game,
    network: PolicyValueNet,
    config: EvalConfig,
    benchmark: SolverBenchmark | None,
    seed: int,
    device: str = "cpu",
) -> tuple[dict[str, float], float]:
    """All evaluation results (keys without the ``eval/`` prefix) and the seconds they took."""
    start = time.perf_counter()
    rng = np.random.default_rng(seed)
    evaluator = NetworkEvaluator(network, game, device=device)
    search = network_search(evaluator, config.simulations, seed)
    results = benchmark.score(evaluator, search, config.mcts_positions) if benchmark else {}
    player = MCTS(search.config, evaluator, seed=seed)
    for spec in config.opponents:
        tag = opponent_tag(spec)
        outcome = match(
            game, player, load_agent(spec, game), games=config.games, opening_plies=config.opening_plies, rng=rng
        )
        results |= {f"{name}_vs_{tag}": value for name, value in outcome.items()}
    return results, time.perf_counter() - start
