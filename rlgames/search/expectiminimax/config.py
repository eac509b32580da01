"""Expectiminimax's settings beside where the compiled search reads them: `ExpectiminimaxConfig`, the slots
of the control array that carries them into the recursion (after the budget's shared slots), and the
agent spec's keywords for the settings (`SPEC_KEYWORDS`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from rlgames.search.alphabeta.config import MAX_PLY
from rlgames.search.budget import SHARED_SLOTS


@dataclass(frozen=True)
class ExpectiminimaxConfig:
    """Knobs of `Expectiminimax`.

    * ``depth`` -- decisions searched (chance layers are free; see the module's notes); None: to the end
      of the game, or as deep as the budgets allow;
    * ``depth_unit`` -- ``"decision"``, or ``"turn"``: ``depth`` counts turns and the cut-off falls
      on the chance node that ends one (backgammon's plies; the evaluator must score chance nodes);
    * ``max_nodes`` / ``time_limit`` (seconds) -- budgets over all iterations (None: unlimited): with
      either, the search deepens one decision at a time from depth 1 and returns the deepest iteration
      completed within them (depth 1 is always completed), as `rlgames.search.alphabeta.driver` does;
    * ``pruning`` -- ``"star1"``: alpha-beta at decision nodes and Star1 at chance nodes;
      ``"alphabeta"``: alpha-beta only (a chance node's outcomes are searched with a full window);
      ``"none"``: plain expectiminimax. The value is the same (up to rounding) for all three;
    * ``tt_size_mb`` -- transposition-table memory (0 disables it); 24 bytes per entry, a power of 2;
    * ``root_filter`` -- forward pruning at the root, as gnubg's move filters: searches deeper than 1
      reach only the ``root_filter`` afterstates of the root's turn (where the player's turn ends:
      after both halves of a backgammon double) of best depth-1 value (None: all of them). It is not
      exact: a move the filter drops may be the best deeper (`benchmarks/bench_backgammon_search.py`
      measures its savings).
    """

    depth: int | None = 4
    depth_unit: Literal["decision", "turn"] = "decision"
    max_nodes: int | None = None
    time_limit: float | None = None
    pruning: Literal["none", "alphabeta", "star1"] = "star1"
    tt_size_mb: float = 0.0
    root_filter: int | None = None

    def __post_init__(self) -> None:
        if self.depth is not None and not 1 <= self.depth <= MAX_PLY:
            raise ValueError(f"depth must be in [1, {MAX_PLY}], got {self.depth}")
        if self.max_nodes is not None and self.max_nodes < 1:
            raise ValueError(f"max_nodes must be positive, got {self.max_nodes}")
        if self.time_limit is not None and self.time_limit <= 0:
            raise ValueError(f"time_limit must be positive, got {self.time_limit}")
        if self.depth_unit not in ("decision", "turn"):
            raise ValueError(f"depth_unit must be 'decision' or 'turn', got {self.depth_unit!r}")
        if self.pruning not in PRUNING_LEVELS:
            raise ValueError(f"pruning must be one of {sorted(PRUNING_LEVELS)}, got {self.pruning!r}")
        if self.tt_size_mb < 0:
            raise ValueError(f"tt_size_mb must be non-negative, got {self.tt_size_mb}")
        if self.root_filter is not None and self.root_filter < 1:
            raise ValueError(f"root_filter must be positive, got {self.root_filter}")

    @property
    def budgeted(self) -> bool:
        return self.max_nodes is not None or self.time_limit is not None


SPEC_KEYWORDS = {"nodes": "max_nodes", "time": "time_limit", "tt_mb": "tt_size_mb", "filter": "root_filter"}
"""The agent spec's keyword for each `ExpectiminimaxConfig` field it sets (``expectiminimax(time=1,
filter=8)``); ``depth`` is the field's own name, and ``plies`` sets ``depth`` counted in turns."""

# Slots of `Workspace.control` after the shared ones (`rlgames.search.budget`).
CHANCE_CUTOFFS, OVERFLOW, PRUNING, HISTORY_LEN, ROOT_DEPTH, FILTER_PASS, KEPT, AFTERSTATES = range(
    SHARED_SLOTS, SHARED_SLOTS + 8
)
CONTROL_SIZE = SHARED_SLOTS + 8
PRUNING_LEVELS = {"none": 0, "alphabeta": 1, "star1": 2}
