"""Bit operations on 64-bit boards, written once: `popcount`, `lsb` and `msb` for int64 and uint64 words
(the bitboards of chess, othello and connect four, backgammon's bit planes), and `float_bits` and
`bits_float`, a float64's bits as an int64 and back (how a transposition table stores a value).

Each is one LLVM intrinsic (``ctpop``, ``cttz``, ``ctlz``: one instruction where the CPU has it) typed on
its argument, so an int64 board and a uint64 board compile to the same code; `lsb` and `msb` need a
non-zero word. With ``NUMBA_DISABLE_JIT=1`` they are plain Python over the word's 64 bits.
"""

from __future__ import annotations

import numba
import numpy as np
from llvmlite import ir as llvm_ir
from numba import njit, types
from numba.extending import intrinsic

__all__ = ["bits_float", "float_bits", "lsb", "msb", "popcount"]


def _unary_intrinsic(name: str):
    """LLVM's ``name`` (ctpop, cttz, ctlz) on a 64-bit integer, returning int64."""

    def generic(typingctx, x):
        if not (isinstance(x, types.Integer) and x.bitwidth == 64):
            return None

        def codegen(context, builder, signature, args):
            if name == "ctpop":
                return builder.ctpop(args[0])
            return getattr(builder, name)(args[0], llvm_ir.Constant(llvm_ir.IntType(1), 0))

        return types.int64(x), codegen

    generic.__name__ = f"_{name}"
    return intrinsic(generic)


if numba.config.DISABLE_JIT:  # plain Python: an intrinsic cannot run there

    def popcount(bits: int) -> int:
        return (int(bits) & (1 << 64) - 1).bit_count()

    def lsb(bits: int) -> int:
        bits = int(bits) & (1 << 64) - 1
        return (bits & -bits).bit_length() - 1

    def msb(bits: int) -> int:
        return (int(bits) & (1 << 64) - 1).bit_length() - 1

else:
    _ctpop = _unary_intrinsic("ctpop")
    _cttz = _unary_intrinsic("cttz")
    _ctlz = _unary_intrinsic("ctlz")

    @njit(cache=True)
    def popcount(bits) -> int:
        """The number of set bits of a 64-bit word (bit 63 included)."""
        return _ctpop(bits)

    @njit(cache=True)
    def lsb(bits) -> int:
        """The index of the lowest set bit of a non-zero 64-bit word."""
        return _cttz(bits)

    @njit(cache=True)
    def msb(bits) -> int:
        """The index of the highest set bit of a non-zero 64-bit word."""
        return 63 - _ctlz(bits)


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
