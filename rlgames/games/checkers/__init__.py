"""Checkers (8x8 English draughts), as OpenSpiel's ``checkers``.

Modules, by concept: `rules` (the compact state's layout and the bitboard kernels), `game` (`Checkers` and
`CheckersState`, the Python facade, with the 1-32 square notation players write: ``11-15``, ``22x15``),
`evaluator` (the hand-crafted evaluation) and `pdn` (writing games as PDN).
"""

from rlgames.games.checkers.game import Checkers, CheckersState

__all__ = ["Checkers", "CheckersState"]
