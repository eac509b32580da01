"""The clock of the compiled searches: a deadline is a `time.perf_counter_ns` reading, read from
compiled code through ``numba.objmode`` (a round trip through the interpreter, far dearer than a node),
so searches read it every `TIME_CHECK_MASK` + 1 nodes."""

from __future__ import annotations

import time

import numba
import numpy as np
from numba import njit

NODES, CUTOFFS, TT_HITS, EVALS, ABORTED, NODE_LIMIT, DEADLINE = range(7)
"""Slots of the ``control`` array shared by the compiled searches (each adds its own after these):
counters of nodes, cut-offs, table hits and evaluations; the flag set when a budget runs out; the
node limit and the deadline (a `time.perf_counter_ns` reading)."""
SHARED_SLOTS = 7

TIME_CHECK_MASK = 4095
"""A search reads the clock when its node count has these bits clear."""
NO_DEADLINE = np.iinfo(np.int64).max


@njit(inline="always")
def over_budget(nodes: int, node_limit: int, deadline_ns: int) -> bool:
    """Whether a search that has just counted its ``nodes``-th node must stop: the node limit is
    reached or, read every `TIME_CHECK_MASK` + 1 nodes, the deadline has passed."""
    return nodes >= node_limit or (nodes & TIME_CHECK_MASK == 0 and out_of_time(deadline_ns))


@njit(_nrt=True)  # objmode needs numba's runtime; a recursion that calls it may run without
def out_of_time(deadline_ns: int) -> bool:
    """Whether `time.perf_counter_ns` has passed ``deadline_ns``."""
    with numba.objmode(now="int64"):
        now = time.perf_counter_ns()
    return now > deadline_ns


@njit(inline="always")
def out_of_budget(control) -> bool:
    """Counts a node; whether a budget has run out (then ``control[ABORTED]`` is set)."""
    control[NODES] += 1
    if over_budget(control[NODES], control[NODE_LIMIT], control[DEADLINE]):
        control[ABORTED] = 1
    return control[ABORTED] != 0
