"""The record every exact solver returns."""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Callable

Actions = tuple[int, ...]


class SolveBudgetError(ValueError):
    """The position could not be solved within the time or memory given to the solver."""


@dataclass(frozen=True)
class SolveResult:
    """The game-theoretic solution of one position (a player to move).

    * ``value`` -- the side to move's return under perfect play, in the game's utility range: -1, 0
      or 1 (loss, draw, win) in most games;
    * ``plies_to_end`` -- the plies until the game ends under perfect play in which the winner wins
      as fast as possible and the loser loses as slowly as possible. For a draw, the length of the
      longest game in which both sides keep the draw (for connect four and tic-tac-toe, where only a
      win ends a game early, the plies until the board is full);
    * ``nodes`` and ``time_s`` -- the work of the solve itself (the action sets below are extra);
    * ``best_actions`` -- every action that keeps both the value and ``plies_to_end`` (optimal in the
      strong sense), in increasing order;
    * ``value_preserving_actions`` -- every action that keeps the value (the weaker notion).

    The two action sets are computed on first access by the solver's ``find_*`` callables, and then
    kept; each solver documents what they cost (the connect-four solver runs one null-window search
    per legal action, the exhaustive solver reads its memo).
    """

    value: int
    plies_to_end: int
    nodes: int
    time_s: float
    find_best_actions: Callable[[], Actions] = field(repr=False, compare=False)
    find_value_preserving_actions: Callable[[], Actions] = field(repr=False, compare=False)

    @functools.cached_property
    def best_actions(self) -> Actions:
        return self.find_best_actions()

    @functools.cached_property
    def value_preserving_actions(self) -> Actions:
        return self.find_value_preserving_actions()

    @property
    def score(self) -> int | None:
        """The game's own score of the position, where it has one (connect four: Pons' score); else None."""
        return None

    @property
    def nodes_per_second(self) -> float:
        return self.nodes / self.time_s if self.time_s > 0 else 0.0
