"""`MultiTreeSearch`: what self-play and evaluation need from a search over many positions at once.

`rlgames.search.mcts.MultiTreeMCTS` (PUCT, UCT) and `rlgames.search.gumbel.MultiTreeGumbel` both
follow it, so a caller holds "a multi-tree search" and never asks which one it is.
"""

from __future__ import annotations

from typing import Protocol, Sequence, runtime_checkable

import numpy as np

from rlgames.game import State
from rlgames.search.result import SearchResult


@runtime_checkable
class MultiTreeSearch(Protocol):
    """One tree per position, searched together (their leaves evaluated in shared batches)."""

    def search_many(self, states: Sequence[State]) -> list[SearchResult]:
        """One result per state (each with a player to move); tree ``i`` is kept for state ``i``."""

    def advance(self, index: int, action: int) -> None:
        """Moves tree ``index`` along ``action`` (a move or a chance outcome), keeping what it can reuse."""

    def play_action(self, index: int, result: SearchResult, explore: bool, rng: np.random.Generator) -> int:
        """The move a self-play game plays after ``result``, the search of tree ``index``: drawn so as
        to explore (the opening's moves) when ``explore``, else the search's choice."""

    def root_visit_counts(self, index: int = 0) -> np.ndarray:
        """int64[num_actions]: the visits of each root action of tree ``index``."""

    def seed(self, seed: int) -> None:
        """Restarts the search's randomness from ``seed``."""

    def reset(self) -> None:
        """Forgets the trees: the next search starts afresh."""
