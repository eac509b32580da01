"""The arena's PNG plots, drawn with matplotlib's Agg renderer (no pyplot, no display)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Sequence

import numpy as np
from matplotlib.figure import Figure

from rlgames.arena.scores import score_matrices

if TYPE_CHECKING:
    from rlgames.arena.tournament import ArenaResult

INCHES_PER_CHAR = 0.075
"""About the width of one character of a tick label (10 pt): figures grow to fit the players' specs."""


def label_inches(names: Sequence[str]) -> float:
    """The width the longest of ``names`` takes as a tick label."""
    return INCHES_PER_CHAR * max(len(name) for name in names)


def plot_elo(result: ArenaResult, path: Path) -> None:
    """The players' Elo with their confidence intervals as error bars, strongest on top."""
    elo = result.elo
    order = np.argsort(elo.ratings)
    ratings = np.array(elo.ratings)[order]
    errors = np.array([ratings - np.array(elo.lower)[order], np.array(elo.upper)[order] - ratings])
    figure = Figure(figsize=(4.5 + label_inches(result.names), 1.5 + 0.45 * len(order)), layout="constrained")
    axes = figure.add_subplot()
    axes.errorbar(ratings, np.arange(len(order)), xerr=errors, fmt="o", capsize=4)
    axes.set_yticks(np.arange(len(order)), [result.names[i] for i in order])
    axes.set_xlabel(f"Elo ({elo.confidence:.0%} interval)")
    figure.suptitle(f"anchored at {result.names[elo.anchor]} = {elo.anchor_rating:g}", fontsize="medium")
    axes.grid(axis="x", alpha=0.3)
    figure.savefig(path, dpi=100)


def plot_scores(result: ArenaResult, path: Path) -> None:
    """The pairwise score matrix: the row player's score against the column player."""
    n = len(result.names)
    points, games = score_matrices(result.pairs, n)
    with np.errstate(invalid="ignore", divide="ignore"):
        scores = np.where(games > 0, points / games, np.nan)
    labels = label_inches(result.names)  # the row labels' width; the slanted column labels take half as high
    figure = Figure(figsize=(2.5 + 0.9 * n + labels, 1.5 + 0.8 * n + 0.5 * labels), layout="constrained")
    axes = figure.add_subplot()
    image = axes.imshow(scores, vmin=0.0, vmax=1.0, cmap="RdYlGn")
    for (i, j), value in np.ndenumerate(scores):
        if not np.isnan(value):
            axes.text(j, i, f"{value:.0%}", ha="center", va="center")
    axes.set_xticks(np.arange(n), result.names, rotation=30, ha="right")
    axes.set_yticks(np.arange(n), result.names)
    axes.set_title("score of row vs column")
    figure.colorbar(image, ax=axes)
    figure.savefig(path, dpi=100)
