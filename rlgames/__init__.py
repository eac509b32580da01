"""rlgames: two-player board games, compiled search and learned evaluation.

>>> import rlgames
>>> game = rlgames.load_game("connect_four")
>>> state = game.new_initial_state().apply(3)
>>> agent = rlgames.load_agent("alphabeta(depth=6, eval=heuristic)", game)
>>> result = agent.search(state)  # action, value, policy, principal variation, statistics
"""

from rlgames.agents.spec import load_agent
from rlgames.game import (
    CHANCE,
    TERMINAL,
    Game,
    GameInfo,
    GameKernels,
    HistoryState,
    IllegalActionError,
    Outcome,
    State,
    Symmetry,
)
from rlgames.registry import list_games, load_game

__all__ = [
    "CHANCE",
    "TERMINAL",
    "Game",
    "GameInfo",
    "GameKernels",
    "HistoryState",
    "IllegalActionError",
    "Outcome",
    "State",
    "Symmetry",
    "list_games",
    "load_agent",
    "load_game",
]
__version__ = "0.1.0"
