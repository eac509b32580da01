"""The expectiminimax agent, for games with chance nodes (pig). Spec: ``expectiminimax(depth=4)``.

``depth`` counts decisions (chance layers are free); ``eval`` names the evaluator at the cut-off; the
transposition table (``tt_mb``) pays off in pig, whose positions transpose a lot.
"""

from __future__ import annotations

from rlgames.game import Game, State
from rlgames.search.expectiminimax import Expectiminimax, ExpectiminimaxConfig
from rlgames.search.result import SearchResult


class ExpectiminimaxAgent:
    """Plays the move of `rlgames.search.expectiminimax.Expectiminimax` (Star1 pruning)."""

    def __init__(self, game: Game, *, depth: int = 4, eval: str = "heuristic",
                 weights: str | None = None, model: str | None = None,
                 tt_mb: float = 16.0) -> None:
        from rlgames.evaluators import load_evaluator

        self.game = game
        if model is not None:
            self.evaluator = load_evaluator("model", game, path=model)
        else:
            self.evaluator = load_evaluator(eval, game, **({} if weights is None else {"weights": weights}))
        self.search_algorithm = Expectiminimax(self.evaluator, ExpectiminimaxConfig(depth=depth, tt_size_mb=tt_mb))

    def search(self, state: State) -> SearchResult:
        return self.search_algorithm.search(state)

    def act(self, state: State) -> int:
        return self.search(state).action

    def __repr__(self) -> str:
        return f"expectiminimax(depth={self.search_algorithm.config.depth}, eval={self.evaluator!r})"
