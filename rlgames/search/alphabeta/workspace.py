"""The preallocated workspace of the compiled alpha-beta: its arrays, the slots of its control array,
and where its principal variation is kept (`rlgames.search.pv`)."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from rlgames.search import pv
from rlgames.search.alphabeta.config import (
    CONTROL_SIZE,
    HISTORY_LEN,
    KILLER_COL,
    LATE_MOVE_REDUCTION,
    NULL_COL,
    NULL_REDUCTION,
    PV_COL,
    PV_LEN_COL,
    QUIESCENCE_DEPTH,
    REPEAT_COL,
    USE_HISTORY,
    USE_KILLERS,
)
from rlgames.search.budget import DEADLINE, NO_DEADLINE, NODE_LIMIT
from rlgames.search.tt import new_table

HISTORY_ROW, PRIOR_ROW, ORDER_ROW = 0, 2, 3  # rows of `Workspace.scores`
NO_REPEAT = np.iinfo(np.int64).max


class Workspace(NamedTuple):
    """The arrays of one search: ``P`` plies, ``A = max_actions``, ``H`` keys of the game's history.

    Few arrays, because every array passed to a numba call costs: the recursion passes each array as
    7 to 9 machine words (pointers, shape, strides), so four arrays already make most of a call's cost.

    * ``plies`` int64[P + 2, W], one row per ply: the ply's moves (columns ``[0, A)``, reordered as
      they are searched), two killer moves (from ``control[KILLER_COL]``), the end of the ply's
      principal variation (``control[PV_LEN_COL]``), the lowest key-stack index a repetition below
      the node reached (``REPEAT_COL``: its value then depends on the path, and is not stored), whether
      the move to the next ply was a null move (``NULL_COL``), and the triangular PV table's row (from
      ``control[PV_COL]``: the line from ply p sits in columns ``PV_COL + p .. PV_COL + end``). The
      last row is the key stack of games with a repetition rule: the history's ``H`` keys, then the
      key of the position at each ply;
    * ``scores`` float64[3 + P, max(A, num_actions)]: the history table of each player (rows 0, 1), the
      root prior (row 2) and the ordering keys of each ply's moves (row ``3 + ply``);
    * ``tt`` int64[N, 3], the transposition table (`rlgames.search.tt`'s layout);
    * ``control`` int64[CONTROL_SIZE]: the counters and the settings (slots named above).
    """

    plies: np.ndarray
    scores: np.ndarray
    tt: np.ndarray
    control: np.ndarray


class EvalWorkspace(NamedTuple):
    """A `Workspace` with an incremental evaluator's ``accumulators`` float32[P + 2, 2, width] (an NNUE's
    first layer for each ply's position, seen by each player: `rlgames.evaluators.nnue_incremental.Incremental`)."""

    plies: np.ndarray
    scores: np.ndarray
    tt: np.ndarray
    control: np.ndarray
    accumulators: np.ndarray


def with_accumulators(ws: Workspace, width: int) -> EvalWorkspace:
    """``ws`` with room for an accumulator of ``width`` per ply and player."""
    return EvalWorkspace(*ws, accumulators=np.zeros((len(ws.plies), 2, width), dtype=np.float32))


def new_workspace(
    plies: int,
    max_actions: int,
    num_actions: int,
    history: tuple[int, ...],
    *,
    tt_size_mb: float,
    node_limit: int | None,
    quiescence_depth: int,
    null_reduction: int,
    late_move_reduction: int,
    use_killers: bool,
    use_history: bool,
    root_prior: np.ndarray | None,
) -> Workspace:
    """A workspace for searches of at most ``plies`` plies (quiescence included) from a root whose
    game history is ``history`` (keys, oldest first)."""
    a = max_actions
    scores = np.zeros((ORDER_ROW + plies, max(a, num_actions)))
    if root_prior is not None:
        prior = np.asarray(root_prior, dtype=np.float64)
        if prior.shape != (num_actions,):
            raise ValueError(f"root_prior must have shape ({num_actions},), got {prior.shape}")
        scores[PRIOR_ROW, :num_actions] = prior
    control = np.zeros(CONTROL_SIZE, dtype=np.int64)
    control[NODE_LIMIT] = node_limit or np.iinfo(np.int64).max
    control[DEADLINE] = NO_DEADLINE
    control[QUIESCENCE_DEPTH], control[NULL_REDUCTION] = quiescence_depth, null_reduction
    control[LATE_MOVE_REDUCTION] = late_move_reduction
    control[USE_KILLERS], control[USE_HISTORY] = use_killers, use_history
    control[HISTORY_LEN] = len(history)
    control[KILLER_COL], control[PV_LEN_COL], control[REPEAT_COL], control[NULL_COL] = a, a + 2, a + 3, a + 4
    control[PV_COL] = a + 5
    rows = np.zeros((plies + 2, max(a + 5 + plies + 1, len(history) + plies + 1)), dtype=np.int64)
    rows[:, a : a + 2] = -1  # no killers yet
    rows[-1, : len(history)] = history
    return Workspace(plies=rows, scores=scores, tt=new_table(tt_size_mb), control=control)


def principal_variation(ws: Workspace | EvalWorkspace) -> tuple[int, ...]:
    """The line from the root of the last completed search (`rlgames.search.pv`)."""
    return pv.principal_variation(ws.plies, ws.control[PV_COL], ws.control[PV_LEN_COL])
