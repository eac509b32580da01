"""One arena game: two agents play from an opening, re-seeded from the game's own seed.

A game's agents are re-seeded (``agent.seed(n)``) from ``SeedSequence(seed, spawn_key=(GAMES_KEY,
index))``, its first two numbers for the first and the second player. Chance outcomes (dice) come from
``SeedSequence(seed, spawn_key=(CHANCE_KEY, opening_index))``: the two games of an opening, played with
colours swapped, draw the same sequence of outcomes, so that each player meets the other's luck (duplicate
play, as duplicate bridge and backgammon tournaments deal it) and the pair's result depends less on the
dice. A game so depends only on the tournament's seed, its index and its opening, not on which process
plays it or what it played before; agents with a time budget remain non-deterministic.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np

from rlgames.arena.positions import Line
from rlgames.game import Game, IllegalActionError, Outcome, State

GAMES_KEY = 0
"""First spawn key of the games' agent seeds (openings use another)."""
CHANCE_KEY = 2
"""First spawn key of the chance outcomes' seeds, one per opening (openings use 1)."""


@dataclass(frozen=True)
class ScheduledGame:
    """A game to play: player ``first`` moves first (player 0) against ``second``, from an opening."""

    index: int
    first: int
    second: int
    opening_index: int
    opening: Line
    seed: int


@dataclass(frozen=True)
class MoveTimes:
    """One player's moves in a game and the wall-clock seconds they took (``agent.act`` calls)."""

    moves: int = 0
    total_s: float = 0.0
    max_s: float = 0.0

    def add(self, seconds: float) -> MoveTimes:
        return MoveTimes(self.moves + 1, self.total_s + seconds, max(self.max_s, seconds))

    @property
    def mean_s(self) -> float:
        """Seconds per move (NaN before any move)."""
        return self.total_s / self.moves if self.moves else math.nan


SCORES = {0: 1.0, None: 0.5, 1: 0.0}
"""The first player's score by the game's winner (player 0 is the first player): a win 1, a draw 0.5."""


@dataclass(frozen=True)
class GameRecord:
    """A played game: its `Outcome` (returns from the first player's side, as player 0; the
    termination); ``actions`` every action from the start position, the opening's and chance outcomes
    included; ``times`` holds the first and the second player's `MoveTimes` (measured, so left out of
    equality: two runs of a game are equal when they play the same moves)."""

    game: ScheduledGame
    outcome: Outcome
    actions: tuple[int, ...]
    times: tuple[MoveTimes, MoveTimes] = field(default=(MoveTimes(), MoveTimes()), compare=False)

    @property
    def plies(self) -> int:
        return len(self.actions)

    @property
    def score(self) -> float:
        """The first player's score, for Elo and the SPRT: 1 a win, 0.5 a draw, 0 a loss, whatever
        the points."""
        return SCORES[self.outcome.winner]

    @property
    def points(self) -> float:
        """The first player's points: its return, in the game's utility range (2.0 for a 2-point win)."""
        return self.outcome.returns[0]

    @property
    def termination(self) -> str:
        """Why the game ended (``"normal"``, ``"repetition"``, or the game's own word)."""
        return self.outcome.termination


def game_seeds(scheduled: ScheduledGame) -> tuple[int, int, int]:
    """The seeds of the first agent, the second agent and the chance generator of one game (shared by the
    games of its opening)."""
    agents = np.random.SeedSequence(scheduled.seed, spawn_key=(GAMES_KEY, scheduled.index))
    first, second = (int(n) for n in agents.generate_state(2, dtype=np.uint32))
    dice = np.random.SeedSequence(scheduled.seed, spawn_key=(CHANCE_KEY, scheduled.opening_index))
    return first, second, int(dice.generate_state(1, dtype=np.uint32)[0])


def play_game(game: Game, agents: Sequence[Any], scheduled: ScheduledGame) -> GameRecord:
    """Plays ``scheduled`` with ``agents[first]`` as player 0 and ``agents[second]`` as player 1."""
    seats = (agents[scheduled.first], agents[scheduled.second])
    first_seed, second_seed, chance_seed = game_seeds(scheduled)
    for agent, seed in zip(seats, (first_seed, second_seed)):
        agent.seed(seed)
    chance = np.random.default_rng(chance_seed)
    state = game.state_from_actions(scheduled.opening)
    actions = list(scheduled.opening)
    times = [MoveTimes(), MoveTimes()]
    while not state.is_terminal():
        if state.is_chance_node():
            action = state.sample_chance_outcome(chance)
        else:
            player = state.current_player()
            started = time.perf_counter()
            action = _agent_move(state, seats[player])
            times[player] = times[player].add(time.perf_counter() - started)
        state = state.apply(action)
        actions.append(action)
    outcome = state.outcome()
    assert outcome is not None  # the state is terminal
    return GameRecord(scheduled, outcome, tuple(actions), (times[0], times[1]))


def _agent_move(state: State, agent: Any) -> int:
    action = agent.act(state)
    try:
        state.check_legal(action)
    except IllegalActionError as error:
        raise IllegalActionError(f"agent {agent!r} played an illegal move: {error}") from None
    return action
