"""Tic-tac-toe, the lecture notes' first game and rlgames' template for adding one (`docs/adding-a-game.md`).

Modules, by concept: `rules` (the compact state's layout and the kernels), `game` (`TicTacToe` and
`TicTacToeState`, the Python facade) and `evaluator` (the notes' open-lines evaluation).
"""

from rlgames.games.tic_tac_toe.game import TicTacToe, TicTacToeState

__all__ = ["TicTacToe", "TicTacToeState"]
