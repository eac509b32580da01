"""Chess: FIDE's rules over bitboards, with OpenSpiel's action numbering and observation planes.

Modules, by concept: `slots` (the compact state's layout), `bitboards` (attack tables and slider
attacks), `actions` (OpenSpiel's action numbering), `movegen` (legal moves), `position` (making
moves, Zobrist keys, the end of the game), `kernels` (the `GameKernels` and perft), `fen` (FEN) and
`game` (`Chess` and `ChessState`, the Python facade).
"""

from rlgames.games.chess.game import Chess, ChessState

__all__ = ["Chess", "ChessState"]
