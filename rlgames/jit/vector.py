"""Fixed-width copies as vector instructions: a copy of a few words without a loop whose exit the CPU
mispredicts (backgammon's move lists)."""

from __future__ import annotations

from collections.abc import Callable

from llvmlite import ir
from numba import types
from numba.extending import intrinsic
from numba.np.arrayobj import make_array


def fixed_add_copy(width: int) -> Callable[..., None]:
    """A numba intrinsic ``copy(out, at, source, base)``: ``out[at:at + width] = base + out[source:source +
    width]`` (int64 words, ranges that do not overlap) as one vector load, add and store; a loop where
    ``out`` is not C-contiguous."""

    def strided(out, at: int, source: int, base: int) -> None:
        for j in range(width):
            out[at + j] = base + out[source + j]

    @intrinsic
    def copy(typingctx, out, at, source, base):
        def codegen(context, builder, signature, args):
            if signature.args[0].layout != "C":
                return context.compile_internal(builder, strided, signature, args)
            data = make_array(signature.args[0])(context, builder, value=args[0]).data
            row = ir.VectorType(ir.IntType(64), width)
            words = builder.load(builder.bitcast(builder.gep(data, [args[2]]), row.as_pointer()), align=8)
            bases = ir.Constant(row, None)
            for j in range(width):
                bases = builder.insert_element(bases, args[3], ir.Constant(ir.IntType(32), j))
            builder.store(
                builder.add(words, bases), builder.bitcast(builder.gep(data, [args[1]]), row.as_pointer()), align=8
            )
            return context.get_dummy_value()

        return types.void(out, types.int64, types.int64, types.int64), codegen

    return copy
