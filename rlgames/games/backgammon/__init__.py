"""Backgammon, exactly as OpenSpiel's ``backgammon``: its action numbering, chance outcomes, legal
moves, turn order, turn limit and scoring types (no doubling cube).

Modules, by concept: `slots` (the compact state's layout), `moves` (OpenSpiel's action encoding, move
masks, legality, making a checker move), `generate` (listing the legal actions), `rules` (the
`GameKernels`, and `view`, `perspective` and `dice` for evaluators and TD training), `notation`
(OpenSpiel's strings, moves as people write them, the ASCII board, gnubg's Position ID), `game`
(`Backgammon` and `BackgammonState`, the Python facade), `evaluator` (the hand-crafted evaluation and
Tesauro's pubeval) and `evaluator_terms` (the board terms they weigh).

Player 0 is OpenSpiel's X (``x``), player 1 its O (``o``). The opening roll (30 outcomes, never a
double) decides who starts and is that player's first roll; see `rules` for the turn order and the
end of the game, and `moves` for the action numbering and the legal moves.
"""

from rlgames.games.backgammon.game import Backgammon, BackgammonState

__all__ = ["Backgammon", "BackgammonState"]
