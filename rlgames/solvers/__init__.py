"""Exact solvers: the game-theoretic value of a position, with the plies to the end and the best moves.

`solve` picks the solver: a game-specific one where there is one (connect four: Pons' alpha-beta,
`rlgames.solvers.connect_four`), otherwise the generic `rlgames.solvers.exhaustive` solver, which visits
every position reachable from the root and so suits small games only. Games with chance nodes are
refused. Specialised solvers are imported lazily, by module path, so that generic code never imports a
game.
"""

from __future__ import annotations

import functools
import importlib
from typing import Callable

from rlgames.game import Game, State
from rlgames.solvers.exhaustive import ExhaustiveSolver
from rlgames.solvers.result import SolveResult

__all__ = ["SolveResult", "ExhaustiveSolver", "solve", "solver_for"]

_SPECIALISED: dict[str, str] = {"connect_four": "rlgames.solvers.connect_four:solve"}
"""Game name -> ``module:function`` of its specialised ``solve(state) -> SolveResult``."""


def solve(state: State) -> SolveResult:
    """Solves ``state`` exactly. Raises `ValueError` for a terminal state, a chance node, or a game with
    chance nodes.

    The first solve of a game compiles its search (a second or two). Solvers are kept for the process:
    the connect-four one holds a 42 MB transposition table, the exhaustive ones a memo of every
    position solved so far.
    """
    if state.game.has_chance or state.is_chance_node():
        raise ValueError(f"{state.game.name} has chance nodes: the exact solvers handle deterministic games only")
    if state.is_terminal():
        raise ValueError("solve needs a position where a player is to move; the game is over")
    return solver_for(state.game)(state)


@functools.cache
def solver_for(game: Game) -> Callable[[State], SolveResult]:
    """The ``solve(state)`` function used for ``game``'s positions, kept for the process."""
    target = _SPECIALISED.get(game.name)
    if target is None:
        return ExhaustiveSolver(game).solve
    module_name, function_name = target.split(":")
    return getattr(importlib.import_module(module_name), function_name)
