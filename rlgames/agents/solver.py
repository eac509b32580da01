"""The perfect player: an exact solver picks among the optimal moves. Spec: ``solver`` or ``solver(seed=1)``.

Optimal means `SolveResult.best_actions`: the value is kept, wins come as fast and losses as late as
possible. Ties are broken at random from ``seed``, so that games against the solver vary.
"""

from __future__ import annotations

import numpy as np

from rlgames.game import Game, State
from rlgames.search.result import SearchResult, SearchStats
from rlgames.solvers import solve


class SolverAgent:
    """Plays a uniformly random move among the solver's best moves; `search` reports the exact value."""

    def __init__(self, game: Game, *, seed: int | None = None) -> None:
        if game.has_chance:
            raise ValueError(f"{game.name} has chance nodes: the solver agent plays deterministic games only")
        self.game = game
        self.rng = np.random.default_rng(seed)

    def seed(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)

    def search(self, state: State) -> SearchResult:
        result = solve(state)
        best = result.best_actions
        action = int(best[self.rng.integers(len(best))])
        policy = np.zeros(self.game.num_actions)
        policy[list(best)] = 1.0 / len(best)
        stats = SearchStats(nodes=result.nodes, depth=result.plies_to_end, time_s=result.time_s)
        return SearchResult(
            action=action,
            value=float(result.value),
            policy=policy,
            principal_variation=(action,),
            stats=stats,
            plies_to_end=result.plies_to_end if result.value else None,
        )

    def act(self, state: State) -> int:
        return self.search(state).action

    def __repr__(self) -> str:
        return "solver"
