"""The budgets of the compiled searches: the ``control`` slots they share (counters, the abort flag, the
node limit and the deadline) and the test each node makes. A deadline is a `rlgames.jit.clock.now_ns`
reading; searches read the clock every `TIME_CHECK_MASK` + 1 nodes."""

from __future__ import annotations

import numpy as np
from numba import njit

from rlgames.jit.clock import out_of_time

NODES, CUTOFFS, TT_HITS, EVALS, ABORTED, NODE_LIMIT, DEADLINE = range(7)
"""Slots of the ``control`` array shared by the compiled searches (each adds its own after these):
counters of nodes, cut-offs, table hits and evaluations; the flag set when a budget runs out; the
node limit and the deadline (a `now_ns` reading)."""
SHARED_SLOTS = 7

TIME_CHECK_MASK = 4095
"""A search reads the clock when its node count has these bits clear."""
NO_DEADLINE = np.iinfo(np.int64).max


@njit(inline="always")
def over_budget(nodes: int, node_limit: int, deadline_ns: int) -> bool:
    """Whether a search that has just counted its ``nodes``-th node must stop: the node limit is
    reached or, read every `TIME_CHECK_MASK` + 1 nodes, the deadline has passed."""
    return nodes >= node_limit or (nodes & TIME_CHECK_MASK == 0 and out_of_time(deadline_ns))


@njit(inline="always")
def out_of_budget(control) -> bool:
    """Counts a node; whether a budget has run out (then ``control[ABORTED]`` is set)."""
    control[NODES] += 1
    if over_budget(control[NODES], control[NODE_LIMIT], control[DEADLINE]):
        control[ABORTED] = 1
    return control[ABORTED] != 0


class OutOfBudget(Exception):
    """A search written in Python (the references, the batched alpha-beta) ran out of its node or time
    budget after ``nodes`` nodes (0: not counted); the iteration under way is discarded."""

    def __init__(self, nodes: int = 0) -> None:
        super().__init__(f"out of budget after {nodes} nodes")
        self.nodes = nodes
