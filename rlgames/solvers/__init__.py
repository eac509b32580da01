"""Exact solvers: the game-theoretic value of a position, with the plies to the end and the best moves.

`solve` picks the solver: the one a game names (`Game.solver`; connect four: Pons' alpha-beta,
`rlgames.games.connect_four.solver`), otherwise the generic `rlgames.solvers.exhaustive` solver, which visits
every position reachable from the root and so suits small games only. Games with chance nodes are
refused, and so are games whose rules depend on earlier positions. Specialised solvers are imported lazily, by
module path, so that generic code never imports a
game.
"""

from __future__ import annotations

import functools

from rlgames.game import Game, State
from rlgames.solvers.exhaustive import ExhaustiveSolver
from rlgames.solvers.result import SolveBudgetError, SolveResult

__all__ = ["ExhaustiveSolver", "SolveBudgetError", "SolveResult", "exhaustive_solver", "solve"]


def solve(state: State, *, time_limit: float | None = None) -> SolveResult:
    """Solves ``state`` exactly. Raises `ValueError` for a terminal state, a chance node, a game with
    chance nodes or one whose rules depend on history, a position the game says is too big for the
    exhaustive solver (`Game.too_big_to_solve`), and `SolveBudgetError` when the solver runs out of
    ``time_limit`` seconds (None: no
    limit) or, for the exhaustive solver, of its memo's memory.

    The first solve of a game also compiles its search. Solvers are kept for the process:
    the connect-four one holds a 42 MB transposition table, the exhaustive ones a memo of every
    position solved so far.
    """
    if state.game.has_chance or state.is_chance_node():
        raise ValueError(f"{state.game.name} has chance nodes: the exact solvers handle deterministic games only")
    if state.is_terminal():
        raise ValueError("solve needs a position where a player is to move; the game is over")
    if state.game.info.history_dependent:
        raise ValueError(
            f"{state.game.name}'s rules depend on earlier positions: the exact solvers "
            f"remember positions, not paths (search it with minimax or alpha-beta)"
        )
    target = state.game.solver
    if target is None:
        reason = state.game.too_big_to_solve(state)
        if reason is not None:
            raise ValueError(f"{reason}: solve a position nearer the end")
        return exhaustive_solver(state.game).solve(state, time_limit=time_limit)
    return state.game.locate(target)(state, time_limit=time_limit)


@functools.cache
def exhaustive_solver(game: Game) -> ExhaustiveSolver:
    """The generic solver of ``game``, kept for the process with its memo."""
    return ExhaustiveSolver(game)
