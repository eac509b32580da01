"""The alpha-beta agent: iterative-deepening negamax with an evaluator at the cut-off.

Spec: ``alphabeta(depth=6, eval=heuristic)``; ``eval=learned, weights=FILE.json`` uses linear weights
fitted by ``python -m rlgames.train.linear``; budgets ``nodes=`` and ``time=`` (seconds per move) stop
iterative deepening, and without a ``depth`` the search deepens until a budget runs out;
``quiescence=4`` searches up to 4 plies of tactical moves past the horizon (games with
``tactical_actions``); ``null=2`` turns on null-move pruning with R = 2 (games with a ``null_move``);
``lmr=1`` reduces late quiet moves by one ply.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Callable
from typing import Any

from rlgames.agents.base import Limits
from rlgames.game import Game, State
from rlgames.search.alphabeta.config import MAX_PLY, SPEC_KEYWORDS, AlphaBetaConfig
from rlgames.search.alphabeta.driver import AlphaBeta, Iteration
from rlgames.search.result import SearchResult

DEFAULT_DEPTH = 6


class AlphaBetaAgent:
    """Plays the move of `rlgames.search.alphabeta.driver.AlphaBeta` with the evaluator named by ``eval``
    (see `rlgames.evaluators.load_evaluator`: ``heuristic``, ``zero``, ``rollout``, ...)."""

    def __init__(
        self,
        game: Game,
        *,
        depth: int | None = None,
        eval: str = "heuristic",
        weights: str | None = None,
        model: str | None = None,
        nodes: int | None = None,
        time: float | None = None,
        tt_mb: float = 16.0,
        quiescence: int = 0,
        null: int = 0,
        lmr: int = 0,
    ) -> None:
        from rlgames.evaluators import load_evaluator

        if game.has_chance:
            raise ValueError(
                f"{game.name} has chance nodes: alpha-beta searches deterministic games; use expectiminimax(depth=4)"
            )
        if depth is None and nodes is None and time is None:
            depth = DEFAULT_DEPTH
        self.game = game
        if model is not None:
            self.evaluator = load_evaluator("model", game, path=model)
        else:
            self.evaluator = load_evaluator(eval, game, **({} if weights is None else {"weights": weights}))
        knobs: dict[str, Any] = {  # AlphaBetaConfig's keywords, by the spec's names
            "depth": depth,
            "nodes": nodes,
            "time": time,
            "tt_mb": tt_mb,
            "quiescence": quiescence,
            "null": null,
            "lmr": lmr,
        }
        self.search_algorithm = AlphaBeta(
            self.evaluator, AlphaBetaConfig(**{SPEC_KEYWORDS.get(key, key): value for key, value in knobs.items()})
        )

    def search(self, state: State, *, on_iteration: Callable[[Iteration], None] | None = None) -> SearchResult:
        return self.search_algorithm.search(state, on_iteration=on_iteration)

    def with_limits(self, limits: Limits) -> AlphaBetaAgent:
        """The same player (evaluator, quiescence, null moves) under ``limits``; no limit at all deepens
        until `stop`."""
        agent = copy.copy(self)
        config = self.search_algorithm.config
        depth = limits.depth
        if depth is None and limits.nodes is None and limits.seconds is None:
            depth = MAX_PLY - config.quiescence_depth
        tt_size_mb = config.tt_size_mb if limits.hash_mb is None else limits.hash_mb
        agent.search_algorithm = AlphaBeta(
            self.evaluator,
            dataclasses.replace(
                config, depth=depth, max_nodes=limits.nodes, time_limit=limits.seconds, tt_size_mb=tt_size_mb
            ),
        )
        return agent

    def stop(self) -> None:
        """Ends the running search (from another thread); it returns its deepest completed iteration, or
        a better move the interrupted one found (`rlgames.search.alphabeta.driver.AlphaBeta`)."""
        self.search_algorithm.stop()

    def act(self, state: State) -> int:
        return self.search(state).action

    def seed(self, seed: int) -> None:
        """Nothing to seed: the search is deterministic."""

    def __repr__(self) -> str:
        config = self.search_algorithm.config
        return f"alphabeta(depth={config.depth}, eval={self.evaluator!r})"
