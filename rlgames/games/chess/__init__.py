"""Chess: FIDE's rules over bitboards, with OpenSpiel's action numbering and observation planes.

Modules, by concept: `slots` (the compact state's layout), `bitboards` (attack tables and slider
attacks, for the rules, the evaluator and the features), `actions` (OpenSpiel's action numbering), `movegen`
(legal moves), `position` (making
moves, Zobrist keys, the end of the game), `rules` (the `GameKernels` and perft), `notation` (FEN),
`game` (`Chess` and `ChessState`, the Python facade), `evaluator` (the hand-crafted evaluation, with
PeSTO's tables in `pesto`), `features` (the NNUE's feature sets: pieces,
threats, positional) and `uci` (the UCI engine, `Chess.protocols`).
"""

from rlgames.games.chess.game import Chess, ChessState

__all__ = ["Chess", "ChessState"]
