"""Othello (reversi), as OpenSpiel's ``othello``.

Modules, by concept: `rules` (the compact state's layout and the kernels), `game` (`Othello` and
`OthelloState`, the Python facade), `evaluator` (the hand-crafted evaluation) and `features` (the NNUE's line
and corner patterns).
"""

from rlgames.games.othello.game import Othello, OthelloState

__all__ = ["Othello", "OthelloState"]
