"""The sequential probability ratio test for a two-player match, as Stockfish's fishtest runs it.

H0: the first player is ``elo0`` stronger than the second; H1: ``elo1`` stronger (logistic Elo). The
log-likelihood ratio is the generalised-SPRT approximation of fishtest's ``LLR_logistic``, free of any
BayesElo draw model, over the match's independent units: the game pairs (pentanomial counts, each
opening played with colours swapped) or single games (trinomial counts)::

    LLR = N * (s1 - s0) * (2 * mean - s0 - s1) / (2 * var),   s = 1 / (1 + 10 ** (-elo / 400)),

with ``N`` the units, ``mean`` and ``var`` the empirical mean and variance of a unit's score in [0, 1]
(a pair's is the mean of its two games), and zero counts replaced by 1e-3 (fishtest's regularisation,
so that a one-sided match still has a variance). The test stops
as soon as the LLR leaves ``(log(beta / (1 - alpha)), log((1 - beta) / alpha))``: above, H1 is accepted;
below, H0. The approximation rests on the empirical variance of a game's score, which means nothing
after a handful of games (one win alone gives an LLR near 27), so no decision is taken before
``min_games`` games (fishtest, likewise, only looks at batches of games).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

REGULARISATION = 1e-3
"""What replaces a zero win, draw or loss count in the LLR (as in fishtest)."""


def logistic_score(elo: float) -> float:
    """The expected score of a player ``elo`` points stronger."""
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def log_likelihood_ratio(counts: Sequence[int], elo0: float, elo1: float) -> float:
    """The LLR of H1 (``elo1``) against H0 (``elo0``) after units of evenly spaced scores in [0, 1]
    counted from the worst: ``(losses, draws, wins)`` or the five pentanomial counts (0 before any)."""
    if sum(counts) == 0:
        return 0.0
    values = [k / (len(counts) - 1) for k in range(len(counts))]
    regularised = [max(float(c), REGULARISATION) for c in counts]
    n = sum(regularised)
    probs = [c / n for c in regularised]
    mean = sum(p * x for p, x in zip(probs, values))
    var = sum(p * (x - mean) ** 2 for p, x in zip(probs, values))
    s0, s1 = logistic_score(elo0), logistic_score(elo1)
    return n * (s1 - s0) * (2.0 * mean - s0 - s1) / (2.0 * var)


@dataclass(frozen=True)
class SprtConfig:
    """The hypotheses (Elo of the first player over the second) and the error rates."""

    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05
    min_games: int = 20

    def __post_init__(self) -> None:
        if not self.elo0 < self.elo1:
            raise ValueError(f"SPRT needs elo0 < elo1, got elo0={self.elo0}, elo1={self.elo1}")
        if not (0.0 < self.alpha < 1.0 and 0.0 < self.beta < 1.0 and self.alpha + self.beta < 1.0):
            raise ValueError(f"SPRT needs 0 < alpha, beta and alpha + beta < 1, got {self.alpha}, {self.beta}")
        if self.min_games < 1:
            raise ValueError(f"SPRT min_games must be at least 1, got {self.min_games}")

    @property
    def lower_bound(self) -> float:
        return math.log(self.beta / (1.0 - self.alpha))

    @property
    def upper_bound(self) -> float:
        return math.log((1.0 - self.beta) / self.alpha)


@dataclass(frozen=True)
class SprtResult:
    """Where the test stands after ``units`` pairs or games: the LLR, and the decision, ``"H1"``, ``"H0"``
    or None (go on)."""

    config: SprtConfig
    llr: float
    units: int
    paired: bool = False
    """Whether the units are game pairs (else single games)."""

    @property
    def games(self) -> int:
        return 2 * self.units if self.paired else self.units

    @property
    def unit_name(self) -> str:
        return "pairs" if self.paired else "games"

    @property
    def decision(self) -> str | None:
        if self.games < self.config.min_games:
            return None
        if self.llr >= self.config.upper_bound:
            return "H1"
        if self.llr <= self.config.lower_bound:
            return "H0"
        return None


def sprt(config: SprtConfig, wins: int, draws: int, losses: int) -> SprtResult:
    """The test after these single games of the first player."""
    return SprtResult(
        config, log_likelihood_ratio((losses, draws, wins), config.elo0, config.elo1), wins + draws + losses
    )


def sprt_pairs(config: SprtConfig, pairs: Sequence[int]) -> SprtResult:
    """The test after game pairs: how many the first player scored 0, 1/2, 1, 3/2 and 2 points in."""
    if len(pairs) != 5:
        raise ValueError(f"pentanomial counts are five, got {len(pairs)}")
    return SprtResult(config, log_likelihood_ratio(pairs, config.elo0, config.elo1), sum(pairs), paired=True)
