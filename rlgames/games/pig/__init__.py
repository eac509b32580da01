"""Pig, the dice game, as OpenSpiel's ``pig``.

Modules, by concept: `rules` (the compact state's layout and the kernels), `game` (`Pig` and `PigState`, the
Python facade) and `evaluator` (the hand-crafted evaluation).
"""

from rlgames.games.pig.game import Pig, PigState

__all__ = ["Pig", "PigState"]
