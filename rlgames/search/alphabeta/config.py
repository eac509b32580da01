"""Alpha-beta's settings beside where the compiled search reads them: `AlphaBetaConfig`, the slots of the
control array that carries the settings and counters into the recursion (after the budget's shared
slots), and the agent spec's keywords for the settings (`SPEC_KEYWORDS`), as KataGo keeps its search
settings in one ``searchparams``. A new setting is a field here, a slot here, and a line in the kernel."""

from __future__ import annotations

from dataclasses import dataclass

from rlgames.search.budget import SHARED_SLOTS

MAX_PLY = 500
"""The deepest ply any search reaches (depth plus quiescence plies)."""


@dataclass(frozen=True)
class AlphaBetaConfig:
    """Knobs of `AlphaBeta`.

    * ``depth`` -- the deepest iteration, in plies (None: up to ``game.max_game_length``);
    * ``max_nodes`` / ``time_limit`` (seconds) -- budgets over all iterations (None: unlimited); the
      result is the deepest iteration completed within them (at least depth 1 is always completed),
      or a better move the iteration they interrupted had found (`_interrupted`);
    * ``tt_size_mb`` -- transposition-table memory (0 disables it); 24 bytes per entry, a power of 2;
    * ``use_killers``, ``use_history`` -- move-ordering heuristics;
    * ``quiescence_depth`` -- plies of quiescence search allowed past the depth limit: tactical moves
      after a stand-pat in games with ``tactical_actions``, else every move while ``is_quiet`` says no;
    * ``null_reduction`` -- R of null-move pruning in games with a ``null_move`` (0: off, the default,
      as it is unsound where passing can help: zugzwang; 2 or 3 in chess engines, Heinz 1999);
    * ``late_move_reduction`` -- R of late-move reductions (0: off, the default, as they are unsound;
      1 in chess; see `rlgames.search.alphabeta.negamax`);
    * ``iterative_deepening`` -- False searches the final depth only (one search, as a plain fixed-depth
      alpha-beta does, e.g. to compare searches at equal depth); that search always completes, so the
      budgets then do not apply.
    """

    depth: int | None = None
    max_nodes: int | None = None
    time_limit: float | None = None
    tt_size_mb: float = 16.0
    use_killers: bool = True
    use_history: bool = True
    quiescence_depth: int = 0
    null_reduction: int = 0
    late_move_reduction: int = 0
    iterative_deepening: bool = True

    def __post_init__(self) -> None:
        if self.depth is not None and not 1 <= self.depth <= MAX_PLY - self.quiescence_depth:
            raise ValueError(f"depth must be in [1, {MAX_PLY - self.quiescence_depth}], got {self.depth}")
        if self.max_nodes is not None and self.max_nodes < 1:
            raise ValueError(f"max_nodes must be positive, got {self.max_nodes}")
        if self.time_limit is not None and self.time_limit <= 0:
            raise ValueError(f"time_limit must be positive, got {self.time_limit}")
        if min(self.tt_size_mb, self.quiescence_depth, self.null_reduction, self.late_move_reduction) < 0:
            raise ValueError(
                "tt_size_mb, quiescence_depth, null_reduction and late_move_reduction must be non-negative"
            )


SPEC_KEYWORDS = {
    "nodes": "max_nodes",
    "time": "time_limit",
    "tt_mb": "tt_size_mb",
    "quiescence": "quiescence_depth",
    "null": "null_reduction",
    "lmr": "late_move_reduction",
}
"""The agent spec's keyword for each `AlphaBetaConfig` field it sets (``alphabeta(time=0.1, lmr=1)``): short
names, as engines' options are; ``depth`` is the field's own name."""

# Slots of `Workspace.control` after the shared ones (`rlgames.search.budget`): a counter, the settings,
# and the columns of a ply's row.
(
    QUIESCENCE_NODES,
    NULL_CUTOFFS,
    QUIESCENCE_DEPTH,
    NULL_REDUCTION,
    USE_KILLERS,
    USE_HISTORY,
    HISTORY_LEN,
    KILLER_COL,
    PV_LEN_COL,
    REPEAT_COL,
    NULL_COL,
    PV_COL,
    LATE_MOVE_REDUCTION,
    LMR_RESEARCHES,
) = range(SHARED_SLOTS, SHARED_SLOTS + 14)
CONTROL_SIZE = SHARED_SLOTS + 14
