"""rlgames: two-player board games, compiled search and learned evaluation.

>>> import rlgames
>>> game = rlgames.load_game("connect_four")
>>> state = game.new_initial_state().apply(3)
"""

from rlgames.game import (
    CHANCE,
    TERMINAL,
    Game,
    GameKernels,
    IllegalActionError,
    State,
    Symmetry,
)
from rlgames.registry import list_games, load_game

__all__ = [
    "CHANCE",
    "TERMINAL",
    "Game",
    "GameKernels",
    "IllegalActionError",
    "State",
    "Symmetry",
    "list_games",
    "load_game",
]
__version__ = "0.1.0"
