"""Expectiminimax with chance nodes (star1-style bounds), compiled over a game's kernels and an evaluator.

Modules, by concept: `config` (`ExpectiminimaxConfig`, its control slots and the agent spec's keywords),
`driver` (`Expectiminimax`: iterative deepening and budgets) and `kernel` (the compiled recursion and its
workspace).
"""

from rlgames.search.expectiminimax.config import ExpectiminimaxConfig
from rlgames.search.expectiminimax.driver import Expectiminimax

__all__ = ["Expectiminimax", "ExpectiminimaxConfig"]
