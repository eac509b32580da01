"""Expectiminimax with chance nodes (star1-style bounds), compiled over a game's kernels and an evaluator.

Modules, by concept: `driver` (`Expectiminimax` and `ExpectiminimaxConfig`: iterative deepening and
budgets) and `kernel` (the compiled recursion and its workspace).
"""

from rlgames.search.expectiminimax.driver import Expectiminimax, ExpectiminimaxConfig

__all__ = ["Expectiminimax", "ExpectiminimaxConfig"]
