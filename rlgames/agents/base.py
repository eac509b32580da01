"""The agent protocol, and the uniformly random agent.

An agent chooses moves: ``agent.search(state)`` returns a `SearchResult` record (action, value from the
side to move, policy, principal variation, statistics) and ``agent.act(state)`` just the action.
``agent.seed(n)`` restarts its randomness (the arena and environments call it before every game, so
games are reproducible); a deterministic agent accepts it and does nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import numpy as np

from rlgames.game import Game, State
from rlgames.search.result import SearchResult, SearchStats


@runtime_checkable
class Agent(Protocol):
    """Anything with ``search``, ``act`` and ``seed``; built from a spec string by `rlgames.load_agent`."""

    def search(self, state: State) -> SearchResult: ...

    def act(self, state: State) -> int: ...

    def seed(self, seed: int) -> None: ...


@dataclass(frozen=True)
class Limits:
    """A move's budget set by a front end (UCI's ``go``, GTP's time settings): the deepest iteration,
    the nodes, the seconds, None for no limit (all three None: search until stopped); and the memory of
    the transposition table in MB (UCI's ``Hash``), None for the agent's own."""

    depth: int | None = None
    nodes: int | None = None
    seconds: float | None = None
    hash_mb: float | None = None


@runtime_checkable
class EngineAgent(Agent, Protocol):
    """An agent a protocol front end can drive: ``with_limits`` gives the same player under another
    budget, ``search`` reports each completed iteration to ``on_iteration``, and ``stop`` (from another
    thread) ends the running search, which then returns its best result so far."""

    def with_limits(self, limits: Limits) -> EngineAgent: ...

    def search(self, state: State, *, on_iteration: Callable[[Any], None] | None = None) -> SearchResult: ...

    def stop(self) -> None: ...


class RandomAgent:
    """Plays a uniformly random legal move. Spec: ``random`` or ``random(seed=3)``."""

    def __init__(self, game: Game, *, seed: int | None = None) -> None:
        self.game = game
        self.rng = np.random.default_rng(seed)

    def seed(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)

    def search(self, state: State) -> SearchResult:
        actions = state.legal_actions()
        if not actions or state.is_chance_node():
            raise ValueError(f"{self.game.name}: the random agent needs a decision node to move from")
        action = int(actions[self.rng.integers(len(actions))])
        policy = np.zeros(self.game.num_actions)
        policy[actions] = 1.0 / len(actions)
        return SearchResult(
            action=action, value=0.0, policy=policy, principal_variation=(action,), stats=SearchStats(nodes=1, depth=1)
        )

    def act(self, state: State) -> int:
        return self.search(state).action

    def __repr__(self) -> str:
        return "random"
