"""The clock of the compiled searches: a deadline is a `time.perf_counter_ns` reading, read from
compiled code through ``numba.objmode`` (a round trip through the interpreter, far dearer than a node),
so searches read it every `TIME_CHECK_MASK` + 1 nodes."""

from __future__ import annotations

import time

import numba
import numpy as np
from numba import njit

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
