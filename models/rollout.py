"""`PolicyRolloutEvaluator`: leaf values mixed from a value network and rollouts that sample a policy
network's moves, as AlphaGo's MCTS does (Silver et al. 2016, "Mastering the game of Go with deep neural
networks and tree search", Nature 529).

A leaf ``s`` is valued ``V(s) = (1 - mix) * v(s) + mix * z(s)``: ``v`` is the value head of the main
network, ``z`` the result (from the side to move of ``s``, as a value: the return scaled by the game's
`GameInfo.value`) of one game played out from ``s`` with moves drawn from a rollout policy, chance
outcomes by their probabilities. AlphaGo's mixing parameter ``lambda = 0.5`` won most games, the
default here. The rollout policy is the main network's policy head or, as AlphaGo's fast rollout
policy, a separate small network (any checkpoint of the same game). The priors are always the main
network's.

Rollouts are batched: every step of the playouts of a whole `evaluate_batch` call is one network call,
so MCTS's batched leaves (``mcts(batch=...)``) share them. Values stay in [-1, 1] from the side to move.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from rlgames.agents.policy import sample_actions
from rlgames.evaluators.base import Evaluator
from rlgames.evaluators.rollout import ALPHAGO_MIX
from rlgames.game import State


class PolicyRolloutEvaluator(Evaluator):
    """Priors of ``network``; values ``(1 - mix) * value head + mix * policy rollout result``.

    ``network`` and ``rollout`` are evaluators with priors (`rlgames.models.NetworkEvaluator`, usually):

    * ``rollout`` -- the network whose policy head plays the rollouts (default: ``network``'s);
    * ``mix`` -- AlphaGo's ``lambda`` in [0, 1]: 0 uses the value head only, 1 rollouts only;
    * ``temperature`` -- rollout moves are drawn from the policy raised to ``1 / temperature`` (1: the
      policy itself; 0: its most probable move, deterministic rollouts);
    * ``seed`` -- of the generator that draws rollout moves and chance outcomes (`seed` restarts it).
    """

    def __init__(
        self,
        network: Evaluator,
        *,
        rollout: Evaluator | None = None,
        mix: float = ALPHAGO_MIX,
        temperature: float = 1.0,
        seed: int = 0,
    ) -> None:
        if not 0.0 <= mix <= 1.0:
            raise ValueError(f"mix must be in [0, 1], got {mix}")
        if temperature < 0:
            raise ValueError(f"temperature must be non-negative, got {temperature}")
        self.network = network
        self.rollout = network if rollout is None else rollout
        self.mix = mix
        self.temperature = temperature
        self.rollout_plies = 0
        self.seed(seed)

    def seed(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)

    def value(self, state: State) -> float:
        return float(self.evaluate_batch([state])[0][0])

    def policy(self, state: State) -> np.ndarray:
        return self.network.evaluate_batch([state])[1][0]

    def evaluate_batch(self, states: Sequence[State]) -> tuple[np.ndarray, np.ndarray]:
        """``(values float64[B], priors float64[B, A])`` of non-terminal, non-chance ``states``."""
        values, priors = self.network.evaluate_batch(states)
        if self.mix > 0.0:
            values = (1.0 - self.mix) * values + self.mix * self.rollout_results(states)
        return values, priors

    def rollout_results(self, states: Sequence[State]) -> np.ndarray:
        """float64[B]: the final return, for the side to move of ``states[i]``, of one game played out
        from each state by the rollout policy, as a value in [-1, 1] (`GameInfo.value`: a 2-point win of
        a game whose utility is (-2, 2) is 1); one network call per ply for all unfinished games."""
        results = np.zeros(len(states))
        movers = [state.current_player() for state in states]
        current = list(states)
        playing = list(range(len(states)))
        while playing:
            to_move = []
            for i in playing:
                state = current[i]
                while state.is_chance_node():
                    state = state.apply(state.sample_chance_outcome(self.rng))
                current[i] = state
                if state.is_terminal():
                    results[i] = state.game.info.value(state.returns()[movers[i]])
                else:
                    to_move.append(i)
            if to_move:
                _, priors = self.rollout.evaluate_batch([current[i] for i in to_move])  # [n, A]
                for i, action in zip(to_move, sample_actions(priors, self.temperature, self.rng)):
                    current[i] = current[i].apply(int(action))
                self.rollout_plies += len(to_move)
            playing = to_move
        return results

    def __repr__(self) -> str:
        rollout = "its own policy" if self.rollout is self.network else repr(self.rollout)
        return f"PolicyRolloutEvaluator({self.network!r}, rollouts by {rollout}, mix={self.mix})"
