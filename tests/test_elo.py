"""Elo by maximum likelihood, pair score intervals and the SPRT, against hand-computed values."""

from __future__ import annotations

import math

import numpy as np
import pytest

from rlgames.arena.elo import ELO_PER_NATURAL_UNIT, fit_elo
from rlgames.arena.scores import PairResult
from rlgames.arena.sprt import SprtConfig, log_likelihood_ratio, logistic_score, sprt


def two_players(points: float, games: int) -> tuple[np.ndarray, np.ndarray]:
    return np.array([[0.0, points], [games - points, 0.0]]), np.array([[0.0, games], [games, 0.0]])


def test_a_75_percent_score_is_400_log10_3_elo():
    fit = fit_elo(*two_players(75, 100), anchor=1, anchor_rating=1500.0)
    assert fit.ratings[1] == 1500.0
    assert fit.ratings[0] - 1500.0 == pytest.approx(400 * math.log10(3), abs=1e-6)  # 190.85


def test_two_player_interval_is_the_fisher_information_one():
    fit = fit_elo(*two_players(75, 100))
    standard_error = ELO_PER_NATURAL_UNIT / math.sqrt(100 * 0.75 * 0.25)  # 1 / sqrt(n p (1 - p)), in Elo
    assert fit.upper[1] - fit.ratings[1] == pytest.approx(1.959964 * standard_error, rel=1e-5)
    assert fit.ratings[1] - fit.lower[1] == pytest.approx(1.959964 * standard_error, rel=1e-5)
    assert fit.lower[0] == fit.ratings[0] == fit.upper[0] == 0.0  # the anchor


def test_interval_shrinks_with_more_games():
    fits = [fit_elo(*two_players(0.6 * n, n)) for n in (50, 200, 800)]
    widths = [fit.upper[1] - fit.lower[1] for fit in fits]
    assert widths[0] > widths[1] > widths[2]
    assert widths[0] / widths[1] == pytest.approx(2.0, rel=1e-6)  # 4x the games, half the width


def brute_force_maximum(points: np.ndarray) -> np.ndarray:
    """Maximises the likelihood over players 1 and 2 (player 0 at 0) by grid search, coarse to fine."""

    def log_likelihood(r1: np.ndarray, r2: np.ndarray) -> np.ndarray:
        ratings = [np.zeros_like(r1), r1, r2]
        total = np.zeros_like(r1)
        for i in range(3):
            for j in range(3):
                if i != j:
                    total += points[i, j] * np.log(logistic_score(ratings[i] - ratings[j]))
        return total

    center, span = np.zeros(2), 800.0
    for _ in range(8):
        axis = np.linspace(-span, span, 81)
        r1, r2 = np.meshgrid(center[0] + axis, center[1] + axis, indexing="ij")
        values = log_likelihood(r1, r2)
        k = np.unravel_index(np.argmax(values), values.shape)
        center, span = np.array([r1[k], r2[k]]), span / 8.0
    return center


def test_three_players_match_a_direct_maximisation_of_the_likelihood():
    points = np.array([[0.0, 14.5, 30.0], [25.5, 0.0, 22.0], [10.0, 18.0, 0.0]])
    games = points + points.T
    fit = fit_elo(points, games)
    assert fit.ratings[1:] == pytest.approx(brute_force_maximum(points).tolist(), abs=0.05)
    gradient = [
        sum(points[i, j] - games[i, j] * logistic_score(fit.ratings[i] - fit.ratings[j]) for j in range(3) if j != i)
        for i in range(3)
    ]
    assert gradient == pytest.approx([0, 0, 0], abs=1e-6)  # the likelihood equations hold


def test_perfect_scores_need_a_prior():
    with pytest.raises(ValueError, match="does not exist"):
        fit_elo(*two_players(20, 20))
    fit = fit_elo(*two_players(20, 20), prior_draws=1.0)  # 20.5 points of 21 games
    assert fit.ratings[0] - fit.ratings[1] == pytest.approx(400 * math.log10(20.5 / 0.5), abs=1e-6)


def test_bad_inputs_are_named():
    with pytest.raises(ValueError, match="anchor 2"):
        fit_elo(*two_players(5, 10), anchor=2)
    with pytest.raises(ValueError, match="points"):
        fit_elo(np.array([[0, 5], [6, 0]]), np.array([[0, 10], [10, 0]]))


def test_pair_score_interval_without_pairs_is_the_trinomial_model_with_its_correction():
    pair = PairResult((0, 1), wins=60, draws=20, losses=20)
    mean = (70 + 0.1) / 100.2  # a tenth of a pseudo-game scoring 0 and one scoring 1
    squares = 60 * (1 - mean) ** 2 + 20 * (0.5 - mean) ** 2 + 20 * mean**2 + 0.1 * (mean**2 + (1 - mean) ** 2)
    half = 1.984217 * math.sqrt(squares / 99.2 / 100.2)  # Student's t, 99 degrees of freedom
    assert pair.score == pytest.approx(0.7) and pair.estimate().model == "trinomial"
    assert pair.interval() == pytest.approx((mean - half, mean + half), rel=1e-5)
    low, high = PairResult((0, 1), 10, 0, 0).interval()  # a clean sweep still has an interval
    assert 0.6 < low < 1.0 and high == 1.0


def test_llr_matches_the_fishtest_formula_and_its_sign():
    s0, s1 = 0.5, logistic_score(10.0)
    expected = 100 * (s1 - s0) * (2 * 0.7 - s0 - s1) / (2 * 0.16)  # mean 0.7, variance 0.16
    assert log_likelihood_ratio((20, 20, 60), 0.0, 10.0) == pytest.approx(expected, rel=1e-3)
    assert log_likelihood_ratio((60, 20, 20), 0.0, 10.0) < 0 < log_likelihood_ratio((20, 20, 60), 0.0, 10.0)
    assert log_likelihood_ratio((0, 0, 0), 0.0, 10.0) == 0.0
    # Over pairs: a pair's score is the mean of its two games (0, 1/4, 1/2, 3/4, 1).
    pair_mean = (10 * 0.25 + 20 * 0.5 + 10 * 0.75 + 10 * 1.0) / 50
    pair_var = (10 * 0.25**2 + 20 * 0.5**2 + 10 * 0.75**2 + 10 * 1.0) / 50 - pair_mean**2
    pair_expected = 50 * (s1 - s0) * (2 * pair_mean - s0 - s1) / (2 * pair_var)
    assert log_likelihood_ratio((0, 10, 20, 10, 10), 0.0, 10.0) == pytest.approx(pair_expected, rel=1e-3)


def test_sprt_bounds_and_decisions():
    config = SprtConfig(0.0, 10.0, alpha=0.05, beta=0.05, min_games=20)
    assert (config.lower_bound, config.upper_bound) == pytest.approx((math.log(0.05 / 0.95), math.log(0.95 / 0.05)))
    assert sprt(config, 10, 0, 0).decision is None  # too few games
    assert sprt(config, 20, 0, 0).decision == "H1"
    assert sprt(config, 0, 0, 20).decision == "H0"
    assert sprt(config, 10, 10, 10).decision is None
    with pytest.raises(ValueError, match="elo0 < elo1"):
        SprtConfig(5.0, 0.0)
