"""The clock of the compiled searches: `now_ns`, the monotonic clock in nanoseconds, and `out_of_time`
for compiled code, which reads it with a direct call of the C library's ``clock_gettime`` (tens of
nanoseconds, and a call by symbol name, so a search that reads it can be cached on disk; where there
is none, through ``numba.objmode``, a round trip through the interpreter)."""

from __future__ import annotations

import time

import numba
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

from rlgames.jit.unsafe import compiled_call

__all__ = ["now_ns", "out_of_time"]


if hasattr(time, "CLOCK_MONOTONIC"):

    def now_ns() -> int:
        """The monotonic clock that deadlines are read from, in nanoseconds."""
        return time.clock_gettime_ns(time.CLOCK_MONOTONIC)

    @compiled_call
    @intrinsic
    def _clock_ns(typingctx):
        """``() -> int64``: `now_ns` in compiled code (``clock_gettime(CLOCK_MONOTONIC)``)."""

        def codegen(context, builder, signature, args):
            int64 = ir.IntType(64)
            timespec = ir.LiteralStructType([int64, int64])  # (tv_sec, tv_nsec) on 64-bit POSIX
            clock_gettime = cgutils.get_or_insert_function(
                builder.module,
                ir.FunctionType(ir.IntType(32), [ir.IntType(32), timespec.as_pointer()]),
                "clock_gettime",
            )
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

    # objmode needs numba's runtime; a recursion that calls it may run without
    @njit(_nrt=True)  # type: ignore[call-overload]  # _nrt: a numba option missing from its stubs
    def out_of_time(deadline_ns: int) -> bool:
        """Whether `now_ns` has passed ``deadline_ns``."""
        with numba.objmode(now="int64"):
            now = time.perf_counter_ns()
        return now > deadline_ns
