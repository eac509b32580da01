"""Value targets from finished games: where a game's returns become values for the networks and fits.

Returns are in the game's utility range (``GameInfo.utility``: ±1 in most games, up to ±3 with
backgammon's gammons); the value heads (tanh) and the linear evaluator's ``tanh(w . f / scale)`` give
values in [-1, 1]. Every training target made from a final return goes through `outcome_values`, which
scales it by the game's `GameInfo.value` (``return / max``): a 2-point win of a game whose utility is
(-2, 2) is the target 1, a 1-point win 0.5. Self-play (`rlgames.train.alphazero.selfplay`) and the linear fit
(`rlgames.train.linear`) use it; this module imports neither torch nor the search.
"""

from __future__ import annotations

from rlgames.game import State


def outcome_values(state: State) -> tuple[float, float]:
    """The final returns of the terminal ``state`` as values in [-1, 1]: player 0's and player 1's."""
    if not state.is_terminal():
        raise ValueError(f"{state.game.name}: outcome values of a game that is not over")
    value = state.game.info.value
    first, second = state.returns()
    return value(first), value(second)
