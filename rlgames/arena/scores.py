"""Pairwise results: wins, draws and losses, the game pairs' pentanomial counts, and the score with its
confidence interval; the points per game with theirs; how the games ended.

The *score* counts a win 1, a draw 1/2 and a loss 0, whatever the points (the Elo fit and the SPRT
use it). The *points* are the player's returns, in the game's utility range (``GameInfo.utility``):
in a game whose wins are worth 1 or 2 points (backgammon's gammons), a 2-point win scores 1 and
counts 2 points.

The arena plays every opening twice, colours swapped: the two games are a *pair*, and a pair scores 0,
1/2, 1, 3/2 or 2 points (its pentanomial outcome). The score's interval, and the Elo's mapped from it,
come from `rlgames.arena.stats`: over the pairs where every game belongs to a finished pair, over
single games otherwise. The points' interval is the same estimator over single games.
"""

from __future__ import annotations

import math
import statistics
from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import Any, Iterable

import numpy as np

from rlgames.arena.match import GameRecord
from rlgames.arena.stats import ScoreEstimate, pentanomial, points_estimate, trinomial


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
    pairs: tuple[int, ...] = ()
    """How many game pairs (an opening with colours swapped) ``players[0]`` scored 0, 1/2, 1, 3/2 and 2
    points in; empty where the games are not all in finished pairs."""
    pair_points: tuple[tuple[float, int], ...] = ()
    """How many game pairs ``players[0]`` ended with each total of points over the two games, by total;
    empty where the games are not all in finished pairs."""

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def points_per_game(self) -> float:
        """``players[0]``'s mean points per game (NaN where none were recorded)."""
        games = sum(count for _, count in self.points)
        return sum(value * count for value, count in self.points) / games if games else math.nan

    def points_interval(self, confidence: float = 0.95) -> tuple[float, float]:
        """The interval of the points per game, within the largest return the games reached (the range of
        the small-sample correction: backgammon's cube could reach 192, and its pseudo-games there would
        swamp the games): over the game pairs when every game is in one (the pair's mean), over the games
        otherwise."""
        bound = reached(self.points)
        if self.pair_points and 2 * sum(count for _, count in self.pair_points) == self.games:
            pair_means = [(total / 2.0, count) for total, count in self.pair_points]
            return points_interval(pair_means, confidence, bound)[1:]
        return points_interval(self.points, confidence, bound)[1:]

    @property
    def score(self) -> float:
        """The first player's mean score per game (NaN before any game)."""
        return (self.wins + 0.5 * self.draws) / self.games if self.games else math.nan

    def estimate(self, confidence: float = 0.95) -> ScoreEstimate:
        """The score with its interval, Elo and normalised Elo: the pentanomial model over the pairs when
        every game is in one, the trinomial over the games otherwise."""
        if self.pairs and 2 * sum(self.pairs) == self.games:
            return pentanomial(self.pairs, confidence)
        return trinomial(self.wins, self.draws, self.losses, confidence)

    def interval(self, confidence: float = 0.95) -> tuple[float, float]:
        """The score's confidence interval (`estimate`)."""
        return self.estimate(confidence).interval


def points_interval(
    points: Iterable[tuple[float, int]], confidence: float = 0.95, bound: float = 1.0
) -> tuple[float, float, float]:
    """The mean of points given as ``(points, games)`` counts within ``[-bound, bound]``, and its interval
    (`rlgames.arena.stats.points_estimate`): ``(mean, lower, upper)``, NaN for no games."""
    return points_estimate([(float(value), count) for value, count in points if count], bound, confidence)


def reached(points: Iterable[tuple[float, int]]) -> float:
    """The largest return, in size, of points given as ``(points, games)`` counts, and at least 1 (a win's)."""
    return max((abs(value) for value, count in points if count), default=1.0) or 1.0


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
    openings: dict[tuple[int, int, int], list[tuple[float, float]]] = defaultdict(list)  # (i, j, k) -> i's results
    for record in records:
        first, second = record.game.first, record.game.second
        outcome = {1.0: 0, 0.5: 1, 0.0: 2}[record.score]
        counts[first, second, outcome] += 1
        counts[second, first, 2 - outcome] += 1
        points[first, second][record.points] += 1
        points[second, first][0.0 - record.points] += 1  # 0.0 - 0.0 is 0.0, not -0.0
        terminations[min(first, second), max(first, second)][record.termination] += 1
        i_result = (record.score, record.points) if first < second else (1.0 - record.score, 0.0 - record.points)
        openings[min(first, second), max(first, second), record.game.opening_index].append(i_result)
    found = []
    for i, j in zip(*np.nonzero(np.triu(counts.any(axis=2), k=1))):
        by_opening = [results for (a, b, _), results in openings.items() if (a, b) == (i, j)]
        found.append(
            PairResult(
                (int(i), int(j)),
                int(counts[i, j, 0]),
                int(counts[i, j, 1]),
                int(counts[i, j, 2]),
                points=merge_counts(points[i, j].items()),
                terminations=merge_counts(terminations[i, j].items()),
                pairs=pentanomial_counts([[score for score, _ in results] for results in by_opening]),
                pair_points=pair_point_counts([[points for _, points in results] for results in by_opening]),
            )
        )
    return tuple(found)


def pentanomial_counts(openings: Iterable[list[float]]) -> tuple[int, ...]:
    """How many openings gave 0, 1/2, 1, 3/2 and 2 points over their two games; empty unless every
    opening was played exactly twice."""
    counts = [0] * 5
    for scores in openings:
        if len(scores) != 2:
            return ()
        counts[int(round(2 * sum(scores)))] += 1
    return tuple(counts)


def pair_point_counts(openings: Iterable[list[float]]) -> tuple[tuple[float, int], ...]:
    """How many openings gave each total of points over their two games; empty unless every opening was
    played exactly twice."""
    totals: Counter = Counter()
    for points in openings:
        if len(points) != 2:
            return ()
        totals[sum(points)] += 1
    return tuple(sorted(totals.items()))


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
