"""One statistical model for every match report: the score with its interval, and the Elo and
normalised Elo mapped from it, so that score, Elo and verdict always agree.

A match is a sample of independent *units*: the game pairs where each opening is played twice with
colours swapped (the **pentanomial** model: a pair scores 0, 1/2, 1, 3/2 or 2, as fishtest counts
them), or single games where games are not paired (the **trinomial** model: win, draw or loss). The
two games of a pair are correlated (the opening favours one colour), so only the pairs are
independent; treating their games as independent misstates the variance.

The score is the mean unit score scaled to [0, 1]. Its interval is Student's t over the units, with a
small-sample correction in the manner of Agresti and Coull: ``PRIOR_UNITS`` pseudo-units at each end
(one scoring 0, one scoring 1) enter the mean and the variance, so that a match without a single loss
still gets an interval of some width. Simulated matches keep the true score inside 95% intervals 94-96%
of the time over 40 single games or 20 correlated pairs and more, and up to 97% over 10 pairs
(``benchmarks/calibrate_intervals.py``; ``docs/research/statistics.md``).

The Elo interval is the score interval mapped through the logistic curve ``400 * log10(s / (1 - s))``
(a score clipped half a game from 0 and 1), so its verdict is the score's. Normalised Elo (fishtest's
nElo, for draw-heavy matches) divides the score's distance from 1/2 by its standard deviation per game
instead: ``(s - 1/2) / sigma_game * 800 / ln 10``, with ``sigma_game`` the standard deviation of one game's score,
``sqrt(2)`` times that of a pair's mean in the pentanomial model.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from statistics import NormalDist
from typing import Sequence

PRIOR_UNITS = 0.1
"""Pseudo-units added at each end of the score range (the small-sample correction)."""
PAIR_SCORES = (0.0, 0.25, 0.5, 0.75, 1.0)
"""A pair's mean score for each pentanomial outcome: the pair scored 0, 1/2, 1, 3/2 or 2 points."""
GAME_SCORES = (0.0, 0.5, 1.0)
"""A game's score for a loss, a draw and a win."""
NELO_PER_SIGMA = 800.0 / math.log(10.0)
"""fishtest's scale of normalised Elo: nElo per standard deviation of a game's score."""


@dataclass(frozen=True)
class ScoreEstimate:
    """A player's score over a match with its interval, and what follows from it."""

    score: float
    """The mean score per game, in [0, 1] (NaN before any game)."""
    low: float
    """The interval's lower end."""
    high: float
    """The interval's upper end."""
    model: str
    """``"pentanomial"`` (units are game pairs) or ``"trinomial"`` (units are games)."""
    units: int
    """How many pairs or games."""
    games: int
    """How many games."""
    sd_per_game: float
    """The standard deviation of one game's score (the pair's, times sqrt(2), in the pentanomial model)."""
    confidence: float = 0.95
    """The interval's confidence level."""

    @property
    def interval(self) -> tuple[float, float]:
        return self.low, self.high

    @property
    def elo(self) -> float:
        return score_to_elo(self.score, self.games)

    @property
    def elo_interval(self) -> tuple[float, float]:
        """The score's interval mapped through the logistic curve."""
        return score_to_elo(self.low, self.games), score_to_elo(self.high, self.games)

    @property
    def nelo(self) -> float:
        """Normalised Elo: the score's distance from 1/2 in standard deviations of a game, scaled."""
        return (self.score - 0.5) / self.sd_per_game * NELO_PER_SIGMA if self.sd_per_game > 0 else math.nan

    @property
    def verdict(self) -> str:
        """``"stronger"``, ``"weaker"`` or ``"no clear difference"``: where the interval lies against 1/2."""
        return "stronger" if self.low > 0.5 else "weaker" if self.high < 0.5 else "no clear difference"

    @property
    def method(self) -> str:
        """The one sentence a report gives about how its intervals were computed."""
        unit = "game pairs (each opening with colours swapped)" if self.model == "pentanomial" else "games"
        return (
            f"{self.confidence:.0%} intervals from the {self.model} model over {self.units:,} {unit}: Student's t "
            f"with {PRIOR_UNITS} pseudo-{'pair' if self.model == 'pentanomial' else 'game'} at each end; "
            "Elo is the score interval mapped through the logistic curve."
        )


def score_to_elo(score: float, games: int) -> float:
    """The Elo difference of a score, ``400 * log10(s / (1 - s))``, the score clipped half a game from 0
    and 1 so that a clean sweep stays finite."""
    if math.isnan(score) or games == 0:
        return math.nan
    clipped = min(max(score, 0.5 / games), 1.0 - 0.5 / games)
    return 400.0 * math.log10(clipped / (1.0 - clipped))


def _logit_elo(score: float) -> float:
    """``400 * log10(s / (1 - s))`` unclipped: -inf at 0, +inf at 1."""
    if score <= 0.0 or score >= 1.0:
        return math.copysign(math.inf, score - 0.5)
    return 400.0 * math.log10(score / (1.0 - score))


def estimate(
    values: Sequence[float], counts: Sequence[int], *, model: str, games: int, confidence: float = 0.95
) -> ScoreEstimate:
    """The score of units scoring ``values`` (in [0, 1]) ``counts`` times each (see the module's docstring)."""
    n = sum(counts)
    if n == 0:
        return ScoreEstimate(math.nan, math.nan, math.nan, model, 0, games, math.nan, confidence)
    total = sum(v * c for v, c in zip(values, counts))
    score = total / n
    mean = (total + PRIOR_UNITS) / (n + 2 * PRIOR_UNITS)  # the pseudo-units score 0 and 1
    squares = sum(c * (v - mean) ** 2 for v, c in zip(values, counts))
    squares += PRIOR_UNITS * (mean**2 + (1.0 - mean) ** 2)
    weight = n + 2 * PRIOR_UNITS
    variance = squares / (weight - 1.0) if weight > 1.0 else 0.25
    half = student_quantile(confidence, n) * math.sqrt(variance / weight)
    unit_sd = math.sqrt(sum(c * (v - score) ** 2 for v, c in zip(values, counts)) / n)
    sd_per_game = unit_sd * math.sqrt(2.0) if model == "pentanomial" else unit_sd
    return ScoreEstimate(score, max(mean - half, 0.0), min(mean + half, 1.0), model, n, games, sd_per_game, confidence)


@functools.lru_cache(maxsize=1024)
def student_quantile(confidence: float, units: int) -> float:
    """The two-sided quantile of Student's t with ``units - 1`` degrees of freedom (at least one): the
    exact distribution inverted by bisection up to ``EXACT_DEGREES``, past them the Cornish-Fisher
    expansion around the normal quantile (Abramowitz and Stegun 26.7.5), exact there to 1e-8."""
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    nu = max(units - 1, 1)
    if nu > EXACT_DEGREES:
        return _cornish_fisher(confidence, nu)
    low, high = 0.0, 1.0
    while _central_probability(high, nu) < confidence:
        high *= 2.0
    for _ in range(100):
        middle = (low + high) / 2.0
        low, high = (middle, high) if _central_probability(middle, nu) < confidence else (low, middle)
    return (low + high) / 2.0


EXACT_DEGREES = 100
"""Up to this many degrees of freedom `student_quantile` inverts the exact distribution."""


def _central_probability(t: float, nu: int) -> float:
    """P(|T| < t) for Student's t with ``nu`` degrees of freedom, by the finite series of Abramowitz and
    Stegun 26.7.3 (odd ``nu``) and 26.7.4 (even)."""
    theta = math.atan(t / math.sqrt(nu))
    c2 = math.cos(theta) ** 2
    if nu % 2 == 0:
        term, total = 1.0, 1.0
        for k in range(1, nu // 2):
            term *= c2 * (2 * k - 1) / (2 * k)
            total += term
        return math.sin(theta) * total
    if nu == 1:
        return 2.0 * theta / math.pi
    term, total = 1.0, 1.0
    for k in range(1, (nu - 1) // 2):
        term *= c2 * (2 * k) / (2 * k + 1)
        total += term
    return 2.0 / math.pi * (theta + math.sin(theta) * math.cos(theta) * total)


def _cornish_fisher(confidence: float, nu: int) -> float:
    z = NormalDist().inv_cdf(0.5 + confidence / 2.0)
    terms = (
        (z**3 + z) / 4.0,
        (5 * z**5 + 16 * z**3 + 3 * z) / 96.0,
        (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / 384.0,
        (79 * z**9 + 776 * z**7 + 1482 * z**5 - 1920 * z**3 - 945 * z) / 92160.0,
    )
    return z + sum(term / nu ** (k + 1) for k, term in enumerate(terms))


def pentanomial(pairs: Sequence[int], confidence: float = 0.95) -> ScoreEstimate:
    """The score from pentanomial counts: how many pairs scored 0, 1/2, 1, 3/2 and 2 points."""
    if len(pairs) != 5:
        raise ValueError(f"pentanomial counts are five, got {len(pairs)}")
    return estimate(PAIR_SCORES, pairs, model="pentanomial", games=2 * sum(pairs), confidence=confidence)


def trinomial(wins: int, draws: int, losses: int, confidence: float = 0.95) -> ScoreEstimate:
    """The score from single games' wins, draws and losses."""
    counts = (losses, draws, wins)
    return estimate(GAME_SCORES, counts, model="trinomial", games=sum(counts), confidence=confidence)


def points_estimate(
    points: Sequence[tuple[float, int]], bound: float, confidence: float = 0.95
) -> tuple[float, float, float]:
    """Mean points per unit (given as ``(points, count)``, within ``[-bound, bound]``) with the same
    interval as the score's: ``(mean, lower, upper)``, NaN for none."""
    if not math.isfinite(bound) or bound <= 0:
        raise ValueError(f"points need a finite positive bound, got {bound}")
    values = [(p + bound) / (2.0 * bound) for p, _ in points]  # onto [0, 1]
    counts = [c for _, c in points]
    result = estimate(values, counts, model="points", games=sum(counts), confidence=confidence)
    mean, low, high = (2.0 * bound * x - bound for x in (result.score, result.low, result.high))
    return mean, low, high


@dataclass(frozen=True)
class EloDifference:
    """The Elo of one player over another measured through common opponents (references), with its
    interval: `through_references`."""

    elo: float
    """The difference, in Elo (NaN without a reference)."""
    low: float
    """The interval's lower end."""
    high: float
    """The interval's upper end."""
    per_reference: tuple[float, ...]
    """The difference through each reference alone."""
    confidence: float = 0.95
    """The interval's confidence level."""

    @property
    def verdict(self) -> str:
        """``"stronger"``, ``"weaker"`` or ``"no clear difference"``: where the interval lies against 0."""
        return "stronger" if self.low > 0 else "weaker" if self.high < 0 else "no clear difference"


def through_references(
    matches: Sequence[tuple[ScoreEstimate, ScoreEstimate]], confidence: float = 0.95
) -> EloDifference:
    """Player A's Elo over player B through references: ``matches`` holds, per reference, A's and B's score
    against it (independent matches). Through one reference the difference is A's Elo against it less B's,
    with a standard error from their Elo intervals (each interval's half-width over its normal quantile,
    the errors added in quadrature); over several, the inverse-variance weighted mean (a fixed-effect
    meta-analysis: under the Elo model every reference measures the same difference), with a normal
    interval. The score intervals are mapped without the half-game clipping of `score_to_elo`: a side
    that the reference sweeps (or that sweeps it) has an Elo interval open at that end, so that reference
    measures nothing and weighs nothing. Without a reference that measures: NaN."""
    z = NormalDist().inv_cdf(0.5 + confidence / 2)
    differences, weights = [], []
    for a, b in matches:
        variance = sum(((_logit_elo(high) - _logit_elo(low)) / (2 * z)) ** 2 for low, high in (a.interval, b.interval))
        differences.append(a.elo - b.elo)
        weights.append(1.0 / variance if variance > 0 else math.nan)
    total = sum(weights)
    if math.isnan(total) or total == 0:
        return EloDifference(math.nan, -math.inf, math.inf, tuple(differences), confidence)
    elo = sum(w * d for w, d in zip(weights, differences)) / total
    half = z / math.sqrt(total)
    return EloDifference(elo, elo - half, elo + half, tuple(differences), confidence)
