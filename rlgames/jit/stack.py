"""Arrays on the stack of a compiled function, for the evaluators' scratch vectors (features, an
accumulator): no allocation and no reference counting in the searches' hot loops."""

from __future__ import annotations

from collections.abc import Callable

import numba
import numpy as np
from llvmlite import ir as llvm_ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic


def _stack_array(dtype: types.Number) -> Callable:
    """An intrinsic ``stack(size)``: a C-contiguous ``dtype`` array of ``size`` (a compile-time constant)
    on the calling function's stack. It must not outlive that function, and it is not zeroed."""
    if numba.config.DISABLE_JIT:  # type: ignore[attr-defined]  # (set at run time) plain Python: no intrinsic
        return lambda size: np.zeros(size, dtype=np.dtype(str(dtype)))

    @intrinsic
    def stack(typingctx, size):
        if not isinstance(size, types.IntegerLiteral):
            return None
        array_type = types.Array(dtype, 1, "C")

        def codegen(context, builder, signature, args):
            n, intp = size.literal_value, context.get_value_type(types.intp)
            element = context.get_data_type(dtype)
            itemsize = context.get_abi_sizeof(element)
            data = cgutils.alloca_once(builder, element, size=n)
            array = context.make_array(array_type)(context, builder)
            context.populate_array(
                array,
                data=data,
                shape=(llvm_ir.Constant(intp, n),),
                strides=(llvm_ir.Constant(intp, itemsize),),
                itemsize=llvm_ir.Constant(intp, itemsize),
                meminfo=None,
            )
            return array._getvalue()

        return array_type(size), codegen

    return stack


stack_float64 = _stack_array(types.float64)
stack_float32 = _stack_array(types.float32)
stack_int64 = _stack_array(types.int64)
stack_uint64 = _stack_array(types.uint64)
