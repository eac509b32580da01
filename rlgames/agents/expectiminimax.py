"""The expectiminimax agent, for games with chance nodes (pig, backgammon). Spec: ``expectiminimax(depth=4)``,
``expectiminimax(plies=2, eval=pubeval)``.

``depth`` counts decisions (chance layers are free); ``plies`` instead counts turns, backgammon's plies
(a ply is one player's roll and move, cut off on the afterstate: ``plies=1`` is TD-Gammon's 1-ply),
for evaluators that score chance nodes; budgets ``nodes=`` and ``time=`` (seconds per move)
stop iterative deepening, and without a ``depth`` the search deepens until a budget runs out; ``eval``
names the evaluator at the cut-off; the transposition table (``tt_mb``) pays off in pig, whose
positions transpose a lot; ``filter=K`` searches deeper than 1 only the K root moves of best depth-1
value (gnubg's move filter: faster, not exact), e.g. ``expectiminimax(plies=2, filter=8)``. ``model=``
with ``rescore=true`` plays a network trained under another scoring of the game, its values read as
expected returns there (`rlgames.game.Game.value_scale`): a win/loss backgammon network at full scoring,
``expectiminimax(plies=1, model=checkpoints/backgammon.pt, rescore=true)``.

Decisions a game takes by formula rather than search (`rlgames.game.Game.formula_decision`: backgammon's
cube, by Janowski's formula over the evaluator's outcome probabilities) are taken so, without search;
``passive=true`` declines them (backgammon: never doubles, always takes).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from rlgames.game import Game, State
from rlgames.search import Expectiminimax, ExpectiminimaxConfig
from rlgames.search.expectiminimax.config import SPEC_KEYWORDS
from rlgames.search.result import SearchResult, SearchStats

DEFAULT_DEPTH = 4


class ExpectiminimaxAgent:
    """Plays the move of `rlgames.search.expectiminimax.driver.Expectiminimax` (Star1 pruning)."""

    def __init__(
        self,
        game: Game,
        *,
        depth: int | None = None,
        plies: int | None = None,
        eval: str = "heuristic",
        weights: str | None = None,
        model: str | None = None,
        rescore: bool = False,
        nodes: int | None = None,
        time: float | None = None,
        tt_mb: float = 16.0,
        filter: int | None = None,
        passive: bool = False,
    ) -> None:
        from rlgames.evaluators import load_evaluator

        if depth is not None and plies is not None:
            raise ValueError("give depth= (decisions) or plies= (turns), not both")
        if depth is None and plies is None and nodes is None and time is None:
            depth = DEFAULT_DEPTH
        self.game = game
        self.passive = passive
        if model is not None:
            self.evaluator = load_evaluator("model", game, path=model, rescore=rescore)
        else:
            self.evaluator = load_evaluator(eval, game, **({} if weights is None else {"weights": weights}))
        knobs: dict[str, Any] = {"nodes": nodes, "time": time, "tt_mb": tt_mb, "filter": filter}
        config = ExpectiminimaxConfig(
            depth=depth if plies is None else plies,
            depth_unit="decision" if plies is None else "turn",
            **{SPEC_KEYWORDS[key]: value for key, value in knobs.items()},
        )
        self.search_algorithm = Expectiminimax(self.evaluator, config)

    def search(self, state: State) -> SearchResult:
        decided = self.game.formula_decision(state, self.evaluator, passive=self.passive)
        if decided is None:
            return self.search_algorithm.search(state)
        action, value = decided
        policy = np.zeros(self.game.num_actions)
        policy[action] = 1.0
        return SearchResult(
            action=action,
            value=value,
            policy=policy,
            principal_variation=(action,),
            stats=SearchStats(nodes=1, depth=0),
        )

    def act(self, state: State) -> int:
        return self.search(state).action

    def seed(self, seed: int) -> None:
        """Nothing to seed: the search is deterministic."""

    def __repr__(self) -> str:
        config = self.search_algorithm.config
        depth = f"plies={config.depth}" if config.depth_unit == "turn" else f"depth={config.depth}"
        kept = "" if config.root_filter is None else f", filter={config.root_filter}"
        passive = ", passive=true" if self.passive else ""
        return f"expectiminimax({depth}{kept}{passive}, eval={self.evaluator!r})"
