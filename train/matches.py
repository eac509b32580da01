"""Evaluation matches during training, played by `rlgames.arena`: a trainer's new network against a fixed
opponent from random openings, each opening once with either colour, scored as the arena scores a game."""

from __future__ import annotations

from typing import Any

import numpy as np

from rlgames.agents.spec import parse_spec
from rlgames.arena.match import ScheduledGame, play_game
from rlgames.arena.openings import random_openings
from rlgames.arena.scores import pair_results
from rlgames.game import Game, State


class _Player:
    """Anything with ``search`` and ``seed`` (an agent, an `MCTS`) as an arena player."""

    def __init__(self, searcher: Any) -> None:
        self.searcher = searcher

    def act(self, state: State) -> int:
        return self.searcher.search(state).action

    def seed(self, seed: int) -> None:
        self.searcher.seed(seed)


def match(
    game: Game, player: Any, opponent: Any, *, games: int, opening_plies: int, rng: np.random.Generator
) -> dict[str, float]:
    """``games`` games (``games // 2`` openings of ``opening_plies`` random plies, each played with both
    colours) of ``player`` against ``opponent`` (anything with ``search`` and ``seed``: an agent, an
    `MCTS`). A win scores 1 and a draw 1/2, whatever the points (a 2-point win counts as a win). Returns
    ``player``'s score, its 95% interval and the Elo difference with its interval, by the arena's model
    over the game pairs (`rlgames.arena.stats`), and its win rate."""
    openings = random_openings(game, games // 2, opening_plies, rng)
    seed = int(rng.integers(2**63))
    players = (_Player(player), _Player(opponent))
    records = [
        play_game(game, players, ScheduledGame(2 * i + seat, seat, 1 - seat, i, line, seed))
        for i, line in enumerate(openings)
        for seat in (0, 1)
    ]
    (pair,) = pair_results(records, 2)
    estimate = pair.estimate()
    return {
        "score": estimate.score,
        "score_low": estimate.low,
        "score_high": estimate.high,
        "win_rate": pair.wins / pair.games,
        "elo": estimate.elo,
        "elo_low": estimate.elo_interval[0],
        "elo_high": estimate.elo_interval[1],
    }


def opponent_tag(spec: str) -> str:
    """A TensorBoard-friendly name: ``alphabeta(depth=2, eval=heuristic)`` -> ``alphabeta_depth2_heuristic``."""
    parsed = parse_spec(spec)
    return "_".join([parsed.name] + [f"{k}{v}" if k != "eval" else str(v) for k, v in parsed.params.items()])
