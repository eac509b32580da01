"""Connect Four on Pascal Pons' bitboards, with his exact solver and test sets.

Modules, by concept: `rules` (the compact state's layout and the kernels), `game` (`ConnectFour` and
`ConnectFourState`, the Python facade), `evaluator` (the hand-crafted evaluation), `features` (the NNUE's line
patterns), `solver` (Pons' alpha-beta) and `data` (his labelled test sets).
"""

from rlgames.games.connect_four.game import ConnectFour, ConnectFourState

__all__ = ["ConnectFour", "ConnectFourState"]
