"""Nim, normal or misere, as OpenSpiel's ``nim``.

Modules, by concept: `rules` (the compact state's layout and the kernels), `game` (`Nim` and `NimState`, the
Python facade) and `evaluator` (the nim-sum evaluation).
"""

from rlgames.games.nim.game import Nim, NimState

__all__ = ["Nim", "NimState"]
