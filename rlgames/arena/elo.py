"""Elo ratings by maximum likelihood, with confidence intervals from the Fisher information.

The model is Bradley-Terry on the logistic Elo scale: player i scores against player j with
expectation ``p_ij = 1 / (1 + 10 ** ((r_j - r_i) / 400))``, and a draw counts as half a win and half a
loss, so the log-likelihood is ``sum_ij points_ij * log p_ij`` over ordered pairs (Davidson's draw
model is not used: with draws as half-points the fit reproduces the usual score-to-Elo formula, e.g.
a 75% score is ``400 * log10(3)`` ~ 190.85 Elo). Colours are not modelled: the arena plays each
opening with both.

The ratings are fitted by Newton's method on the concave log-likelihood, with the anchor's rating held
fixed and step halving. The covariance of the other ratings is the inverse of the Fisher information
(the observed and expected ones coincide for this model) with the anchor's row and column removed, so
each interval is relative to the anchor, whose own interval has zero width. Treating draws as two
half-games overstates a game's variance when draws are common, which makes the intervals conservative.

A maximum exists only when no group of players scored every point (or none) against the others.
``prior_draws`` adds that many virtual draws to every pair that met (a weak prior, as in BayesElo),
which keeps ratings finite after perfect scores; with 0 the fit is the plain maximum likelihood and
raises `ValueError` when it does not exist.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from rlgames.arena.scores import normal_quantile

ELO_PER_NATURAL_UNIT = 400.0 / math.log(10.0)
"""Elo points per unit of the natural (log-odds) scale."""
MAX_ITERATIONS = 100
TOLERANCE = 1e-10


@dataclass(frozen=True)
class EloFit:
    """Ratings with their confidence intervals (``lower``, ``upper``), relative to ``anchor``."""

    ratings: tuple[float, ...]
    lower: tuple[float, ...]
    upper: tuple[float, ...]
    anchor: int
    anchor_rating: float
    prior_draws: float
    confidence: float
    iterations: int


def fit_elo(
    points: np.ndarray,
    games: np.ndarray,
    *,
    anchor: int = 0,
    anchor_rating: float = 0.0,
    prior_draws: float = 0.0,
    confidence: float = 0.95,
) -> EloFit:
    """Fits ratings to ``points[i, j]`` (what i scored against j) over ``games[i, j]`` games."""
    points, games = _checked(points, games, anchor, prior_draws)
    meets = games > 0
    points = points + 0.5 * prior_draws * meets
    games = games + prior_draws * meets
    if prior_draws == 0.0:
        _check_maximum_exists(points, games)
    theta, iterations = _newton(points, games, anchor)
    covariance = _covariance(theta, games, anchor)
    half = normal_quantile(confidence) * np.sqrt(np.diag(covariance)) * ELO_PER_NATURAL_UNIT
    ratings = anchor_rating + theta * ELO_PER_NATURAL_UNIT
    return EloFit(
        tuple(ratings.tolist()),
        tuple((ratings - half).tolist()),
        tuple((ratings + half).tolist()),
        anchor,
        anchor_rating,
        prior_draws,
        confidence,
        iterations,
    )


def _checked(points: np.ndarray, games: np.ndarray, anchor: int, prior_draws: float) -> tuple[np.ndarray, np.ndarray]:
    points, games = np.asarray(points, dtype=np.float64), np.asarray(games, dtype=np.float64)
    n = len(games)
    if points.shape != (n, n) or games.shape != (n, n) or n < 2:
        raise ValueError(f"Elo needs square matrices for at least 2 players, got {points.shape} and {games.shape}")
    if not np.allclose(games, games.T) or not np.allclose(points + points.T, games):
        raise ValueError("Elo needs games[i, j] == games[j, i] and points[i, j] + points[j, i] == games[i, j]")
    if not 0 <= anchor < n:
        raise ValueError(f"anchor {anchor} is not a player index in [0, {n})")
    if prior_draws < 0:
        raise ValueError(f"prior_draws must be >= 0, got {prior_draws}")
    return points, games


def _check_maximum_exists(points: np.ndarray, games: np.ndarray) -> None:
    """Raises unless every player can reach every other through 'scored something against' links."""
    reach = points > 0
    np.fill_diagonal(reach, True)
    for _ in range(len(reach)):
        reach = (reach.astype(np.int64) @ reach.astype(np.int64)) > 0
    if not reach.all():
        i, j = (int(k) for k in np.argwhere(~reach)[0])
        raise ValueError(
            f"the maximum-likelihood Elo does not exist: player {i} scored no point against player "
            f"{j}, directly or through other players (a perfect score is worth infinitely many "
            f"Elo); use prior_draws > 0"
        )


def _log_likelihood(theta: np.ndarray, points: np.ndarray) -> float:
    diff = theta[:, None] - theta[None, :]
    return float(-(points * np.logaddexp(0.0, -diff)).sum())


def _newton(points: np.ndarray, games: np.ndarray, anchor: int) -> tuple[np.ndarray, int]:
    free = np.arange(len(games)) != anchor
    theta = np.zeros(len(games))
    likelihood = _log_likelihood(theta, points)
    for iteration in range(1, MAX_ITERATIONS + 1):
        p = 1.0 / (1.0 + np.exp(theta[None, :] - theta[:, None]))
        gradient = (points - games * p).sum(axis=1)
        step = np.linalg.solve(_information(p, games)[np.ix_(free, free)], gradient[free])
        while True:
            candidate = theta.copy()
            candidate[free] += step
            new_likelihood = _log_likelihood(candidate, points)
            if new_likelihood >= likelihood - 1e-12 or np.abs(step).max() < TOLERANCE:
                break
            step = step / 2.0
        theta, likelihood = candidate, new_likelihood
        if np.abs(step).max() < TOLERANCE:
            return theta, iteration
    raise ValueError(f"the Elo fit did not converge in {MAX_ITERATIONS} Newton iterations")


def _information(p: np.ndarray, games: np.ndarray) -> np.ndarray:
    """The Fisher information of the natural-scale ratings: a graph Laplacian with weights n p (1 - p)."""
    weights = games * p * (1.0 - p)
    np.fill_diagonal(weights, 0.0)
    return np.diag(weights.sum(axis=1)) - weights


def _covariance(theta: np.ndarray, games: np.ndarray, anchor: int) -> np.ndarray:
    free = np.arange(len(games)) != anchor
    p = 1.0 / (1.0 + np.exp(theta[None, :] - theta[:, None]))
    covariance = np.zeros((len(games), len(games)))
    try:
        covariance[np.ix_(free, free)] = np.linalg.inv(_information(p, games)[np.ix_(free, free)])
    except np.linalg.LinAlgError:
        raise ValueError("the Elo fit needs every player connected to the anchor by games") from None
    return covariance
