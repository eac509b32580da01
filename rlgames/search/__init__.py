"""Search algorithms, generic over every game: they use only a game's kernels and its `State` API, and
each returns a `SearchResult`.

Subpackages by family: `alphabeta`, `expectiminimax` and `mcts` (Gumbel inside it); shared by them:
`budget` (node and time budgets), `tt` (the transposition table), `pv` (the principal variation's
table), `result` (the record every search returns, and the multi-tree protocol); `reference` holds the
readable searches (minimax, alpha-beta, expectiminimax) the compiled ones are tested against.

The drivers, configs and results are re-exported here (``from rlgames.search import AlphaBeta``),
imported on first use so that importing one search module loads none of the others.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

_EXPORTS = {
    "AlphaBeta": "alphabeta",
    "AlphaBetaConfig": "alphabeta",
    "Iteration": "alphabeta",
    "Expectiminimax": "expectiminimax",
    "ExpectiminimaxConfig": "expectiminimax",
    "MCTS": "mcts",
    "MCTSConfig": "mcts",
    "MultiTreeMCTS": "mcts",
    "Gumbel": "mcts",
    "GumbelConfig": "mcts",
    "MultiTreeGumbel": "mcts",
    "SearchResult": "result",
    "SearchStats": "result",
    "MultiTreeSearch": "result",
}
__all__ = [
    "MCTS",
    "AlphaBeta",
    "AlphaBetaConfig",
    "Expectiminimax",
    "ExpectiminimaxConfig",
    "Gumbel",
    "GumbelConfig",
    "Iteration",
    "MCTSConfig",
    "MultiTreeGumbel",
    "MultiTreeMCTS",
    "MultiTreeSearch",
    "SearchResult",
    "SearchStats",
]

if TYPE_CHECKING:
    from rlgames.search.alphabeta import AlphaBeta, AlphaBetaConfig, Iteration
    from rlgames.search.expectiminimax import Expectiminimax, ExpectiminimaxConfig
    from rlgames.search.mcts import (
        MCTS,
        Gumbel,
        GumbelConfig,
        MCTSConfig,
        MultiTreeGumbel,
        MultiTreeMCTS,
    )
    from rlgames.search.result import MultiTreeSearch, SearchResult, SearchStats


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module 'rlgames.search' has no attribute {name!r}")
    return getattr(importlib.import_module(f"rlgames.search.{_EXPORTS[name]}"), name)
