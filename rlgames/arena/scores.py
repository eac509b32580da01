"""Pairwise results: wins, draws and losses, and the score with its confidence interval; the points
per game with theirs; how the games ended.

The *score* counts a win 1, a draw 1/2 and a loss 0, whatever the points (the Elo fit and the SPRT
use it). The *points* are the player's returns, in the game's utility range (``GameInfo.utility``):
in a game whose wins are worth 1 or 2 points (backgammon's gammons), a 2-point win scores 1 and
counts 2 points.

The score's interval is the normal approximation with the trinomial variance: each game scores 1, 1/2
or 0 with the observed frequencies, so the score's standard error is ``sqrt(var / n)`` with
``var = (w + d/4) / n - score**2``. It ignores that the two games of an opening are paired (the
pentanomial model would be tighter when colours matter), and it is clipped to [0, 1]; a pair that
always ends the same way gets a zero-width interval. The points' interval is the same normal
approximation with the observed variance of the points per game, clipped to the utility range.
"""

from __future__ import annotations

import math
import statistics
from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import Any, Iterable

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
    points: tuple[tuple[float, int], ...] = ()
    """How many games ``players[0]`` ended with each number of points, by points, e.g.
    ``((-1.0, 3), (0.0, 1), (2.0, 2))``; empty where they were not recorded."""
    terminations: tuple[tuple[str, int], ...] = ()
    """How many games ended each way (``"normal"``, ``"repetition"``...), by name."""

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def points_per_game(self) -> float:
        """``players[0]``'s mean points per game (NaN where none were recorded)."""
        return points_interval(self.points)[0]

    def points_interval(self, confidence: float = 0.95, bound: float = math.inf) -> tuple[float, float]:
        """The interval of the points per game (see the module's docstring), clipped to
        ``[-bound, bound]``, the game's utility range."""
        return points_interval(self.points, confidence, bound)[1:]

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


def points_interval(
    points: Iterable[tuple[float, int]], confidence: float = 0.95, bound: float = math.inf
) -> tuple[float, float, float]:
    """The mean of points given as ``(points, games)`` counts, and its normal-approximation interval
    clipped to ``[-bound, bound]``: ``(mean, lower, upper)``, NaN for no games."""
    counts = [(float(value), count) for value, count in points if count]
    n = sum(count for _, count in counts)
    if n == 0:
        return math.nan, math.nan, math.nan
    mean = sum(value * count for value, count in counts) / n
    variance = max(sum(value * value * count for value, count in counts) / n - mean * mean, 0.0)
    half = normal_quantile(confidence) * math.sqrt(variance / n)
    return mean, max(mean - half, -bound), min(mean + half, bound)


def merge_counts(*tallies: Iterable[tuple[Any, int]]) -> tuple[tuple[Any, int], ...]:
    """Tallies of ``(key, count)`` added up, sorted by key."""
    total: Counter = Counter()
    for tally in tallies:
        for key, count in tally:
            total[key] += count
    return tuple(sorted(total.items()))


def pair_results(records: Iterable[GameRecord], num_players: int) -> tuple[PairResult, ...]:
    """One `PairResult` per pair ``i < j`` that played, in order."""
    counts = np.zeros((num_players, num_players, 3), dtype=np.int64)  # [i, j] -> wins, draws, losses of i
    points: dict[tuple[int, int], Counter] = defaultdict(Counter)  # (i, j) -> points of i -> games
    terminations: dict[tuple[int, int], Counter] = defaultdict(Counter)  # (i, j), i < j -> termination -> games
    for record in records:
        first, second = record.game.first, record.game.second
        outcome = {1.0: 0, 0.5: 1, 0.0: 2}[record.score]
        counts[first, second, outcome] += 1
        counts[second, first, 2 - outcome] += 1
        points[first, second][record.points] += 1
        points[second, first][0.0 - record.points] += 1  # 0.0 - 0.0 is 0.0, not -0.0
        terminations[min(first, second), max(first, second)][record.termination] += 1
    return tuple(
        PairResult(
            (i, j),
            *(int(c) for c in counts[i, j]),
            points=merge_counts(points[i, j].items()),
            terminations=merge_counts(terminations[i, j].items()),
        )
        for i in range(num_players)
        for j in range(i + 1, num_players)
        if counts[i, j].any()
    )


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
