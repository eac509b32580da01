"""Fixed-width operations as vector instructions: a copy of a few words without a loop whose exit the CPU
mispredicts (backgammon's move lists), and a scaled row added to a short vector, which numba's loops
leave scalar (an NNUE's hidden layer)."""

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


def fixed_scaled_add(width: int) -> Callable[..., None]:
    """A numba intrinsic ``add(out, scale, rows, row)``: ``out[:width] += scale * rows[row, :width]``
    (float32, ``rows`` two-dimensional) as one vector multiply and one vector add, each lane rounded as the
    loop would round it; a loop where an array is not C-contiguous. numba leaves LLVM's superword
    vectorizer off (``NUMBA_SLP_VECTORIZE``), and LLVM unrolls a loop of a few constant iterations before
    its loop vectorizer could see it, so such a loop stays scalar: a network's hidden layer."""

    def strided(out, scale, rows, row: int) -> None:
        for j in range(width):
            out[j] += scale * rows[row, j]

    @intrinsic
    def add(typingctx, out, scale, rows, row):
        def codegen(context, builder, signature, args):
            out_type, _, rows_type, _ = signature.args
            if out_type.layout != "C" or rows_type.layout != "C":
                return context.compile_internal(builder, strided, signature, args)
            target = make_array(out_type)(context, builder, value=args[0]).data
            matrix = make_array(rows_type)(context, builder, value=args[2])
            columns = builder.extract_value(matrix.shape, 1)
            source = builder.gep(matrix.data, [builder.mul(args[3], columns)])
            lanes = ir.VectorType(ir.FloatType(), width)
            first = builder.insert_element(ir.Constant(lanes, None), args[1], ir.Constant(ir.IntType(32), 0))
            everywhere = ir.Constant(ir.VectorType(ir.IntType(32), width), [0] * width)
            scales = builder.shuffle_vector(first, ir.Constant(lanes, None), everywhere)
            pointer = builder.bitcast(target, lanes.as_pointer())
            products = builder.fmul(scales, builder.load(builder.bitcast(source, lanes.as_pointer()), align=4))
            builder.store(builder.fadd(builder.load(pointer, align=4), products), pointer, align=4)
            return context.get_dummy_value()

        return types.void(out, types.float32, rows, types.int64), codegen

    return add
