"""Do the match reports' intervals and SPRT keep their promises? Simulated matches with known outcome
probabilities, run through the arena's statistics (`rlgames.arena.stats`, `rlgames.arena.sprt`).

Prints, as JSON, the share of simulated matches whose 95% interval holds the true score, for single
games (the trinomial model) and for game pairs whose two games are correlated (the pentanomial model:
each opening favours one colour), small and large; and, for SPRT(0, ``--elo1``) over pairs, the error
rates at elo0 and at elo1 and the mean number of pairs played::

    python benchmarks/calibrate_intervals.py --matches 3000 --sprt-matches 400 --out benchmarks/results/intervals.json
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from rlgames.arena.sprt import SprtConfig, logistic_score, sprt_pairs
from rlgames.arena.stats import pentanomial, trinomial

OUTCOMES = ((0.45, 0.10, 0.45), (0.60, 0.20, 0.20), (0.20, 0.60, 0.20), (0.75, 0.15, 0.10))
"""A game's (win, draw, loss) probabilities: even, stronger, drawish, much stronger."""
OPENING_BIAS = 0.3
"""How far an opening may move the first game's win probability up (and the second's down)."""

Outcome = tuple[float, float, float]
"""A game's probabilities of a win, a draw and a loss."""


def games(
    rng: np.random.Generator,
    outcome: Outcome,
    shape: tuple[int, ...],
    bias: np.ndarray | float = 0.0,
) -> np.ndarray:
    """Scores of games (1, 1/2, 0) with the win probability moved by ``bias`` (the loss's the other way)."""
    win, draw, _ = outcome
    u = rng.random(shape)
    return np.where(u < win + bias, 1.0, np.where(u < win + bias + draw, 0.5, 0.0))


def paired_matches(rng: np.random.Generator, outcome: Outcome, pairs: int, matches: int) -> np.ndarray:
    """Pentanomial counts of ``matches`` matches of correlated pairs, one row each."""
    win, _, loss = outcome
    bias = rng.uniform(-1, 1, (matches, pairs)) * min(OPENING_BIAS, win, loss)
    points = games(rng, outcome, (matches, pairs), bias) + games(rng, outcome, (matches, pairs), -bias)
    index = np.rint(2 * points).astype(int)
    return np.stack([(index == k).sum(axis=1) for k in range(5)], axis=1)


def trinomial_coverage(outcome: Outcome, size: int, matches: int, seed: int) -> float:
    """The share of ``matches`` matches of ``size`` independent games whose interval holds the true score."""
    scores = games(np.random.default_rng(seed), outcome, (matches, size))
    true = outcome[0] + outcome[1] / 2
    covered = 0
    for match in scores:
        wins, draws = int((match == 1.0).sum()), int((match == 0.5).sum())
        low, high = trinomial(wins, draws, size - wins - draws).interval
        covered += low <= true <= high
    return covered / matches


def pentanomial_coverage(outcome: Outcome, pairs: int, matches: int, seed: int) -> float:
    """The share of ``matches`` matches of ``pairs`` correlated pairs whose interval holds the true score."""
    true = outcome[0] + outcome[1] / 2
    estimates = (
        pentanomial(tuple(int(c) for c in counts))
        for counts in paired_matches(np.random.default_rng(seed), outcome, pairs, matches)
    )
    return sum(e.low <= true <= e.high for e in estimates) / matches


def run_sprt(
    rng: np.random.Generator, elo: float, config: SprtConfig, draw: float = 0.3, most: int = 5000
) -> tuple[str | None, int]:
    """Plays game pairs of a player ``elo`` stronger until the test decides: (decision, pairs played)."""
    score = logistic_score(elo)
    outcome = (score - draw / 2, draw, 1 - score - draw / 2)
    counts = [0, 0, 0, 0, 0]
    for pairs, pair_points in enumerate(games(rng, outcome, (most, 2)).sum(axis=1), start=1):
        counts[int(round(2 * pair_points))] += 1
        status = sprt_pairs(config, counts)
        if status.decision is not None:
            return status.decision, pairs
    return None, most


def sprt_errors(config: SprtConfig, matches: int, seed: int) -> dict[str, float]:
    """Error rates and mean pairs of ``matches`` simulated matches at elo0 and at elo1."""
    rng = np.random.default_rng(seed)
    at_elo0 = [run_sprt(rng, config.elo0, config) for _ in range(matches)]
    at_elo1 = [run_sprt(rng, config.elo1, config) for _ in range(matches)]
    return {
        "false_positive": sum(decision == "H1" for decision, _ in at_elo0) / matches,
        "false_negative": sum(decision == "H0" for decision, _ in at_elo1) / matches,
        "undecided": sum(decision is None for decision, _ in at_elo0 + at_elo1) / (2 * matches),
        "mean_pairs_at_elo0": float(np.mean([pairs for _, pairs in at_elo0])),
        "mean_pairs_at_elo1": float(np.mean([pairs for _, pairs in at_elo1])),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--matches", type=int, default=3000, help="simulated matches per cell (default 3000)")
    parser.add_argument("--sprt-matches", type=int, default=400, help="simulated SPRT runs per hypothesis")
    parser.add_argument("--elo1", type=float, default=30.0, help="the SPRT's H1 (H0 is 0; default 30)")
    parser.add_argument("--out", help="also write the JSON here")
    args = parser.parse_args()
    report = {
        "trinomial": {
            f"{outcome} x {size} games": trinomial_coverage(outcome, size, args.matches, size)
            for outcome in OUTCOMES
            for size in (40, 400)
        },
        "pentanomial": {
            f"{outcome} x {pairs} pairs": pentanomial_coverage(outcome, pairs, args.matches, pairs)
            for outcome in OUTCOMES
            for pairs in (10, 20, 200)
        },
        "sprt": {
            "config": f"SPRT(0, {args.elo1:g}), alpha = beta = 0.05, draws 30%",
            **sprt_errors(SprtConfig(0.0, args.elo1), args.sprt_matches, 0),
        },
    }
    text = json.dumps(report, indent=2)
    print(text)
    if args.out:
        Path(args.out).write_text(text + "\n")


if __name__ == "__main__":
    main()
