"""Depth-limited alpha-beta (negamax with a transposition table, iterative deepening, quiescence, null-move
and late-move reductions), compiled over a game's kernels and an evaluator.

Modules, by concept: `config` (`AlphaBetaConfig`, the control slots that carry it into the kernel, and
the agent spec's keywords), `driver` (`AlphaBeta`: iterative deepening and budgets),
`negamax` (the compiled recursion and quiescence), `workspace` (its arrays and control slots, and the
principal variation), `ordering` (move ordering: killers and history), `hooks` (how an evaluator's
kernel or an NNUE's accumulators enter the recursion) and `batched` (the search for evaluators without a
kernel, which evaluates leaves in batches).
"""

from rlgames.search.alphabeta.config import AlphaBetaConfig
from rlgames.search.alphabeta.driver import AlphaBeta, Iteration

__all__ = ["AlphaBeta", "AlphaBetaConfig", "Iteration"]
