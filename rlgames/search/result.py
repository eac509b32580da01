"""The record every search returns (the chosen action with its value, policy, line and statistics), and
`MultiTreeSearch`, what self-play and evaluation need from a search over many positions at once:
`rlgames.search.mcts.puct.MultiTreeMCTS` (PUCT, UCT) and `rlgames.search.mcts.puct.MultiTreeGumbel` both follow
it, so a caller holds "a multi-tree search" and never asks which one it is."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol, Sequence, runtime_checkable

import numpy as np

if TYPE_CHECKING:
    from rlgames.game import State


@dataclass(frozen=True)
class SearchStats:
    """What a search did.

    ``depth`` is the deepest completed iteration for iterative deepening, the depth limit for a
    single-depth search, the length of the principal variation for an unlimited one; ``cutoffs``
    counts beta cut-offs and ``tt_hits`` transposition-table probes whose entry was usable (zero where
    not applicable).
    """

    nodes: int
    depth: int
    cutoffs: int = 0
    tt_hits: int = 0
    time_s: float = 0.0
    extra: dict[str, float] = field(default_factory=dict)
    """Algorithm-specific counters, e.g. ``{"quiescence_nodes": ...}``."""

    @property
    def nodes_per_second(self) -> float:
        return self.nodes / self.time_s if self.time_s > 0 else 0.0


@dataclass(frozen=True, eq=False)
class SearchResult:
    """The outcome of a search from one root state.

    * ``action`` -- the chosen action (-1 when the root has no legal action);
    * ``value`` -- in [-1, 1], from the point of view of the side to move at the root;
    * ``policy`` -- float64[num_actions], a distribution over the root's actions (each algorithm
      documents how it builds it, e.g. one-hot on ``action`` for alpha-beta, visit counts for MCTS);
    * ``principal_variation`` -- the expected line of play, starting with ``action``;
    * ``stats`` -- `SearchStats`;
    * ``plies_to_end`` -- when the search proved a win (``value == 1``) or a loss (``value == -1``),
      the number of plies to the end of the game under the best play it found; None otherwise.
    """

    action: int
    value: float
    policy: np.ndarray
    principal_variation: tuple[int, ...]
    stats: SearchStats
    plies_to_end: int | None = None


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
