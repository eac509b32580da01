"""What every transposition table in rlgames shares: the slot of a key, the table's size for a memory
budget, the bound flags, and float64 scores stored in int64 columns."""

from __future__ import annotations

import numba
import numpy as np
from llvmlite import ir as llvm_ir
from numba import njit, types
from numba.extending import intrinsic

EMPTY, EXACT, LOWER, UPPER = 0, 1, 2, 3
"""Bound flags of an entry: unused slot, exact value, lower bound (fail high), upper bound (fail low)."""


@njit(cache=True, inline="always")
def tt_slot(key: int, mask: int) -> int:
    """The slot of a key in a table of ``mask + 1`` slots (a power of 2): a multiplicative (Fibonacci)
    mix, so that raw bitboard keys spread."""
    mixed = key * -7046029254386353131  # 0x9E3779B97F4A7C15, wrapping
    return (mixed ^ (mixed >> 29)) & mask


def table_slots(megabytes: float, entry_bytes: int) -> int:
    """The largest power of two of ``entry_bytes`` entries that fits in ``megabytes`` (0 when none)."""
    entries = int(megabytes * 2**20) // entry_bytes
    return 0 if entries < 1 else 1 << (entries.bit_length() - 1)


@intrinsic
def float_bits(typingctx, x):
    """The bits of float64 ``x`` as an int64 (a reinterpretation, not a conversion)."""
    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], llvm_ir.IntType(64))
    return types.int64(types.float64), codegen


@intrinsic
def bits_float(typingctx, x):
    """The float64 whose bits are int64 ``x`` (the inverse of `float_bits`)."""
    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], llvm_ir.DoubleType())
    return types.float64(types.int64), codegen


if numba.config.DISABLE_JIT:  # plain Python: an intrinsic cannot run there

    def float_bits(x: float) -> int:
        return int(np.float64(x).view(np.int64))

    def bits_float(x: int) -> float:
        return float(np.int64(x).view(np.float64))
