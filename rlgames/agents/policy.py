"""The raw network player: the move of a policy head, no search. Spec: ``policy(model=FILE)``.

``temperature=0`` plays the most probable legal move; ``temperature=T > 0`` samples from the policy
raised to ``1 / T`` (seeded). The reported value is the network's value head, from the side to move.
"""

from __future__ import annotations

import numpy as np

from rlgames.game import Game, State
from rlgames.search.result import SearchResult, SearchStats


class PolicyAgent:
    """Plays from an evaluator's prior (``model=CHECKPOINT``) without searching."""

    def __init__(self, game: Game, *, model: str, temperature: float = 0.0, seed: int = 0) -> None:
        from rlgames.evaluators import load_evaluator

        if temperature < 0:
            raise ValueError(f"temperature must be non-negative, got {temperature}")
        self.game = game
        self.evaluator = load_evaluator("model", game, path=model)
        self.temperature = temperature
        self.rng = np.random.default_rng(seed)

    def seed(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)

    def search(self, state: State) -> SearchResult:
        values, priors = self.evaluator.evaluate_batch([state])
        policy = priors[0]
        if self.temperature == 0:
            action = int(np.argmax(policy))
        else:
            weights = policy ** (1.0 / self.temperature)
            action = int(self.rng.choice(len(policy), p=weights / weights.sum()))
        return SearchResult(action=action, value=float(values[0]), policy=policy, principal_variation=(action,),
                            stats=SearchStats(nodes=1, depth=0))

    def act(self, state: State) -> int:
        return self.search(state).action

    def __repr__(self) -> str:
        return f"policy(temperature={self.temperature})"
