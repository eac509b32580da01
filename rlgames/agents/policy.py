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
        assert priors is not None  # a network's evaluator has a policy head
        policy = priors[0]
        action = int(sample_actions(priors[:1], self.temperature, self.rng)[0])
        return SearchResult(
            action=action,
            value=float(values[0]),
            policy=policy,
            principal_variation=(action,),
            stats=SearchStats(nodes=1, depth=0),
        )

    def act(self, state: State) -> int:
        return self.search(state).action

    def __repr__(self) -> str:
        return f"policy(temperature={self.temperature})"


def sample_actions(priors: np.ndarray, temperature: float, rng: np.random.Generator) -> np.ndarray:
    """int64[B]: one action per row of ``priors`` (float64[B, A], zero on illegal actions), drawn from
    the row raised to ``1 / temperature`` and renormalised; ``temperature=0`` takes each row's argmax.
    An action of zero prior is never drawn."""
    if temperature == 0:
        return np.argmax(priors, axis=1)
    weights = priors if temperature == 1 else priors ** (1.0 / temperature)  # [B, A]
    cumulative = np.cumsum(weights, axis=1)  # [B, A]
    thresholds = rng.random(len(priors)) * cumulative[:, -1]  # [B]
    return np.argmax(cumulative > thresholds[:, None], axis=1)
