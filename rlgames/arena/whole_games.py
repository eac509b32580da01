"""Whole games against a perfect opponent: does the agent keep the result of a won or drawn position?

Per-move accuracy counts mistakes one position at a time, but one mistake loses a game. Here the agent
plays the side to move of each position to the end against the exact solver (`SolverAgent`: it picks
among its optimal replies at random, wins as fast and losses as late as possible), and the game counts
as kept when the agent's result is at least the position's game-theoretic one: a won position won, a
drawn one drawn or won. Lost positions are left out (nothing can be kept there). Each game is played
by `rlgames.arena.match.play_game`, its agents re-seeded from ``seed`` and its index as the arena does.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from tqdm import tqdm

from rlgames.agents.solver import SolverAgent
from rlgames.analysis import position_state, value_sign
from rlgames.arena.match import ScheduledGame, play_game
from rlgames.arena.positions import PositionLine
from rlgames.game import Game
from rlgames.solvers import solve


@dataclass(frozen=True)
class WholeGame:
    """One game from a position: its plies from the start, its result for the agent's side under perfect
    play (``value``) and as played (``result``), both -1, 0 or 1, and the moves played."""

    plies: int
    value: int
    result: int
    actions: tuple[int, ...]

    @property
    def kept(self) -> bool:
        return self.result >= self.value


@dataclass(frozen=True)
class WholeGames:
    """The games played from every won or drawn position, and how many lost positions were left out."""

    games: tuple[WholeGame, ...]
    lost_left_out: int = 0

    @property
    def kept(self) -> int:
        return sum(game.kept for game in self.games)

    @property
    def kept_rate(self) -> float:
        return self.kept / len(self.games) if self.games else float("nan")

    def starting(self, value: int) -> WholeGames:
        """The games from the positions of this result (1: won, 0: drawn)."""
        return WholeGames(tuple(game for game in self.games if game.value == value))


def play_whole_games(
    game: Game, agent: Any, positions: Sequence[PositionLine], *, seed: int = 0, progress: bool = False
) -> WholeGames:
    """Plays each won or drawn position to the end, ``agent`` to move against the exact solver."""
    if game.has_chance:
        raise ValueError(f"{game.name} has chance nodes: whole games against the solver need a deterministic game")
    seats = (agent, SolverAgent(game))
    games, lost = [], 0
    for index, position in enumerate(tqdm(positions, unit="game", disable=not progress)):
        state = position_state(game, position)
        value = position.result
        if value is None:
            value = value_sign(solve(state).value)
        if value < 0:
            lost += 1
            continue
        mover = state.current_player()
        first, second = (0, 1) if mover == 0 else (1, 0)
        record = play_game(game, seats, ScheduledGame(index, first, second, index, position.actions, seed))
        result = value_sign(record.outcome.returns[mover])
        games.append(WholeGame(len(position.actions), value, result, record.actions[len(position.actions) :]))
    return WholeGames(tuple(games), lost)
