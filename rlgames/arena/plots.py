"""The arena's PNG plots, drawn with matplotlib's Agg renderer (no pyplot, no display)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from matplotlib.figure import Figure

from rlgames.arena.scores import score_matrices

if TYPE_CHECKING:
    from rlgames.arena.tournament import ArenaResult


def plot_elo(result: ArenaResult, path: Path) -> None:
    """The players' Elo with their confidence intervals as error bars, strongest on top."""
    elo = result.elo
    order = np.argsort(elo.ratings)
    ratings = np.array(elo.ratings)[order]
    errors = np.array([ratings - np.array(elo.lower)[order], np.array(elo.upper)[order] - ratings])
    figure = Figure(figsize=(7, 1.2 + 0.45 * len(order)), layout="constrained")
    axes = figure.add_subplot()
    axes.errorbar(ratings, np.arange(len(order)), xerr=errors, fmt="o", capsize=4)
    axes.set_yticks(np.arange(len(order)), [result.names[i] for i in order])
    axes.set_xlabel(f"Elo ({elo.confidence:.0%} interval; {result.names[elo.anchor]} = {elo.anchor_rating:g})")
    axes.grid(axis="x", alpha=0.3)
    figure.savefig(path, dpi=100)


def plot_scores(result: ArenaResult, path: Path) -> None:
    """The pairwise score matrix: the row player's score against the column player."""
    n = len(result.names)
    points, games = score_matrices(result.pairs, n)
    with np.errstate(invalid="ignore", divide="ignore"):
        scores = np.where(games > 0, points / games, np.nan)
    figure = Figure(figsize=(2 + 0.9 * n, 1.5 + 0.8 * n), layout="constrained")
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
