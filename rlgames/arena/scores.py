"""Pairwise results: wins, draws and losses, and the score with its confidence interval.

The interval is the normal approximation with the trinomial variance: each game scores 1, 1/2 or 0
with the observed frequencies, so the score's standard error is ``sqrt(var / n)`` with
``var = (w + d/4) / n - score**2``. It ignores that the two games of an opening are paired (the
pentanomial model would be tighter when colours matter), and it is clipped to [0, 1]; a pair that
always ends the same way gets a zero-width interval.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass
from typing import Iterable

import numpy as np

from rlgames.arena.match import GameRecord


def normal_quantile(confidence: float) -> float:
    """The two-sided normal quantile of a confidence level: 1.96 for 0.95."""
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    return statistics.NormalDist().inv_cdf(0.5 + confidence / 2.0)


@dataclass(frozen=True)
class PairResult:
    """The games between ``players[0]`` and ``players[1]`` (indices), counted from ``players[0]``'s side."""

    players: tuple[int, int]
    wins: int
    draws: int
    losses: int

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def score(self) -> float:
        """The first player's mean score per game (NaN before any game)."""
        return (self.wins + 0.5 * self.draws) / self.games if self.games else math.nan

    def interval(self, confidence: float = 0.95) -> tuple[float, float]:
        """The score's confidence interval (see the module's docstring)."""
        n, score = self.games, self.score
        if n == 0:
            return math.nan, math.nan
        variance = max((self.wins + 0.25 * self.draws) / n - score * score, 0.0)
        half = normal_quantile(confidence) * math.sqrt(variance / n)
        return max(score - half, 0.0), min(score + half, 1.0)


def pair_results(records: Iterable[GameRecord], num_players: int) -> tuple[PairResult, ...]:
    """One `PairResult` per pair ``i < j`` that played, in order."""
    counts = np.zeros((num_players, num_players, 3), dtype=np.int64)  # [i, j] -> wins, draws, losses of i
    for record in records:
        first, second = record.game.first, record.game.second
        outcome = {1.0: 0, 0.5: 1, 0.0: 2}[record.score]
        counts[first, second, outcome] += 1
        counts[second, first, 2 - outcome] += 1
    return tuple(PairResult((i, j), *(int(c) for c in counts[i, j]))
                 for i in range(num_players) for j in range(i + 1, num_players) if counts[i, j].any())


def score_matrices(pairs: Iterable[PairResult], num_players: int) -> tuple[np.ndarray, np.ndarray]:
    """``points[i, j]``, what player i scored against j, and ``games[i, j]``, how often they met."""
    points = np.zeros((num_players, num_players))
    games = np.zeros((num_players, num_players))
    for pair in pairs:
        i, j = pair.players
        points[i, j] = pair.wins + 0.5 * pair.draws
        points[j, i] = pair.losses + 0.5 * pair.draws
        games[i, j] = games[j, i] = pair.games
    return points, games
