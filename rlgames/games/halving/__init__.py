"""The lecture notes' halving game.

Modules, by concept: `rules` (the compact state's layout and the kernels), `game` (`Halving` and
`HalvingState`, the Python facade) and `evaluator` (the hand-crafted evaluation).
"""

from rlgames.games.halving.game import Halving, HalvingState

__all__ = ["Halving", "HalvingState"]
