"""The clock of the compiled searches: a deadline is a `now_ns` reading (the monotonic clock, in
nanoseconds). Compiled code reads it with a direct call of the C library's ``clock_gettime`` (tens of
nanoseconds, and a call by symbol name, so a search that reads it can be cached on disk; where there
is none, through ``numba.objmode``, a round trip through the interpreter); searches read it every
`TIME_CHECK_MASK` + 1 nodes."""

from __future__ import annotations

import time

import numba
import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

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


if hasattr(time, "CLOCK_MONOTONIC"):

    def now_ns() -> int:
        """The monotonic clock that deadlines are read from, in nanoseconds."""
        return time.clock_gettime_ns(time.CLOCK_MONOTONIC)

    @intrinsic
    def _clock_ns(typingctx):
        """``() -> int64``: `now_ns` in compiled code (``clock_gettime(CLOCK_MONOTONIC)``)."""
        def codegen(context, builder, signature, args):
            int64 = ir.IntType(64)
            timespec = ir.LiteralStructType([int64, int64])  # (tv_sec, tv_nsec) on 64-bit POSIX
            clock_gettime = cgutils.get_or_insert_function(
                builder.module, ir.FunctionType(ir.IntType(32), [ir.IntType(32), timespec.as_pointer()]),
                "clock_gettime")
            ts = cgutils.alloca_once(builder, timespec)
            builder.call(clock_gettime, [ir.Constant(ir.IntType(32), time.CLOCK_MONOTONIC), ts])
            seconds = builder.load(cgutils.gep_inbounds(builder, ts, 0, 0))
            nanoseconds = builder.load(cgutils.gep_inbounds(builder, ts, 0, 1))
            return builder.add(builder.mul(seconds, ir.Constant(int64, 10**9)), nanoseconds)

        return types.int64(), codegen

    @njit(cache=True)
    def out_of_time(deadline_ns: int) -> bool:
        """Whether `now_ns` has passed ``deadline_ns``."""
        return _clock_ns() > deadline_ns

else:

    def now_ns() -> int:  # a platform without clock_gettime
        """The clock that deadlines are read from, in nanoseconds."""
        return time.perf_counter_ns()

    @njit(_nrt=True)  # objmode needs numba's runtime; a recursion that calls it may run without
    def out_of_time(deadline_ns: int) -> bool:
        """Whether `now_ns` has passed ``deadline_ns``."""
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
