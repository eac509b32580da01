"""Go, as OpenSpiel plays it: Tromp-Taylor area scoring, positional superko, any board from 2x2 to 19x19.

Modules, by concept: `rules` (the compact state's layout and the kernels), `game` (`Go` and `GoState`,
the Python facade, with the notation players write: ``D4``, no ``I``), `evaluator` (the area score with
influence) and `sgf` (reading and writing games as SGF).
"""

from rlgames.games.go.game import Go, GoState

__all__ = ["Go", "GoState"]
