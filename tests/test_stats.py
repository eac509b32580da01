"""The statistics of match reports (rlgames.arena.stats): intervals that cover the true score as often
as they claim, over simulated matches of single games and of correlated game pairs, small and large;
Elo intervals that are the score's mapped; and an SPRT whose error rates are the nominal ones."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import pytest

from rlgames.arena.sprt import SprtConfig
from rlgames.arena.stats import pentanomial, score_to_elo, student_quantile, through_references, trinomial

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
from calibrate_intervals import (  # noqa: E402  (the benchmark's simulations, run smaller here)
    OUTCOMES,
    games,
    pentanomial_coverage,
    sprt_errors,
    trinomial_coverage,
)

MATCHES = 3000


@pytest.mark.parametrize("outcome", OUTCOMES)
@pytest.mark.parametrize("size", [40, 400])
def test_trinomial_intervals_cover_the_true_score_95_percent_of_the_time(outcome, size):
    coverage = trinomial_coverage(outcome, size, MATCHES, seed=size)
    assert 0.93 <= coverage <= 0.97, coverage


@pytest.mark.parametrize("outcome", OUTCOMES)
@pytest.mark.parametrize("pairs", [20, 200])
def test_pentanomial_intervals_cover_the_true_score_of_correlated_pairs(outcome, pairs):
    coverage = pentanomial_coverage(outcome, pairs, MATCHES, seed=pairs)
    assert 0.93 <= coverage <= 0.97, coverage


def test_correlated_pairs_are_measured_tighter_than_their_games_counted_alone():
    """Pairs whose opening decides much: the pentanomial interval is the narrower, around the same score."""
    rng = np.random.default_rng(0)
    bias = rng.uniform(-0.3, 0.3, 200)
    first, second = games(rng, OUTCOMES[0], (200,), bias), games(rng, OUTCOMES[0], (200,), -bias)
    both = np.concatenate([first, second])
    index = np.rint(2 * (first + second)).astype(int)
    paired = pentanomial(tuple(int((index == k).sum()) for k in range(5)))
    single = trinomial(int((both == 1.0).sum()), int((both == 0.5).sum()), int((both == 0.0).sum()))
    assert paired.score == pytest.approx(single.score)
    assert paired.high - paired.low < 0.9 * (single.high - single.low)


@pytest.mark.parametrize("counts", [(3, 5, 20, 8, 4), (0, 0, 0, 2, 18), (10, 0, 0, 0, 0), (1, 2, 3, 4, 5)])
def test_elo_and_verdict_are_the_score_interval_mapped(counts):
    estimate = pentanomial(counts)
    assert estimate.elo_interval == (
        score_to_elo(estimate.low, estimate.games),
        score_to_elo(estimate.high, estimate.games),
    )
    assert (estimate.low > 0.5) == (estimate.elo_interval[0] > 0) == (estimate.verdict == "stronger")
    assert (estimate.high < 0.5) == (estimate.elo_interval[1] < 0) == (estimate.verdict == "weaker")
    assert math.isfinite(estimate.elo_interval[0]) and math.isfinite(estimate.elo_interval[1])


def test_normalised_elo_is_fishtests():
    estimate = pentanomial((10, 20, 40, 20, 10))  # pair means 0, 1/4, 1/2, 3/4, 1 around 1/2
    pair_sd = math.sqrt((10 * 0.25 + 20 * 0.0625 + 20 * 0.0625 + 10 * 0.25) / 100)
    assert estimate.sd_per_game == pytest.approx(math.sqrt(2) * pair_sd)
    assert pentanomial((0, 10, 20, 40, 30)).nelo == pytest.approx(
        (0.725 - 0.5)
        / (math.sqrt(2) * math.sqrt((10 * 0.475**2 + 20 * 0.225**2 + 40 * 0.025**2 + 30 * 0.275**2) / 100))
        * 800
        / math.log(10)
    )


def test_student_quantile_is_the_exact_distributions_and_tends_to_the_normal():
    assert student_quantile(0.95, 2) == pytest.approx(12.7062, abs=1e-4)
    assert student_quantile(0.95, 3) == pytest.approx(4.3027, abs=1e-4)
    assert student_quantile(0.95, 11) == pytest.approx(2.228139, abs=1e-6)
    assert student_quantile(0.99, 4) == pytest.approx(5.840909, abs=1e-6)
    assert student_quantile(0.95, 100_000) == pytest.approx(1.95996, abs=1e-4)


def test_sprt_over_pairs_errs_as_often_as_its_alpha_and_beta():
    """200 simulated matches at elo0 and 200 at elo1 (SPRT(0, 30), alpha = beta = 0.05, draws 30%): the
    wrong decision at most alpha or beta, within the simulation's noise (two standard errors: 8%)."""
    found = sprt_errors(SprtConfig(0.0, 30.0), matches=200, seed=0)
    assert found["false_positive"] <= 0.08 and found["false_negative"] <= 0.08, found
    assert found["undecided"] == 0.0
    assert 50 < found["mean_pairs_at_elo0"] < 1000 and 50 < found["mean_pairs_at_elo1"] < 1000, found


def test_the_difference_through_references_weighs_each_by_its_precision():
    a, b = trinomial(61, 0, 39), trinomial(55, 1, 44)
    one = through_references([(a, b)])
    assert one.elo == pytest.approx(a.elo - b.elo) and one.per_reference == (pytest.approx(a.elo - b.elo),)
    # the same evidence twice: the same difference, its interval narrower by sqrt(2)
    twice = through_references([(a, b), (a, b)])
    assert twice.elo == pytest.approx(one.elo)
    assert twice.high - twice.elo == pytest.approx((one.high - one.elo) / math.sqrt(2))
    # the sides swapped: the difference negated
    swapped = through_references([(b, a)])
    assert (swapped.elo, swapped.low, swapped.high) == pytest.approx((-one.elo, -one.high, -one.low))
    assert (
        one.verdict == "no clear difference" and through_references([(trinomial(90, 0, 10), b)]).verdict == "stronger"
    )
    # a reference that sweeps both sides has a wide Elo interval and weighs little beside an informative one
    swept = (trinomial(0, 0, 100), trinomial(0, 0, 100))
    assert abs(through_references([(a, b), swept]).elo - one.elo) < 0.2 * abs(one.elo)
    assert math.isnan(through_references([]).elo) and math.isnan(through_references([swept]).elo)
