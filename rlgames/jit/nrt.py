"""Compiled code without numba's reference counting: the searches' hot loops are compiled with
``_nrt=False`` (no atomic increment and decrement of every array a call passes, most of a short
simulation's cost), and call what may allocate (the game's kernels, evaluators, playouts) through
`with_nrt`; `borrowed` views an array without its reference count, and `array_at` reaches an array by
its address."""

from __future__ import annotations

from collections.abc import Callable

import numba
import numpy as np
from numba import njit, types
from numba.core import cgutils
from numba.core.typing import signature as typing_signature
from numba.extending import intrinsic
from numba.np.arrayobj import make_array, np_cfarray, populate_array

from rlgames.jit.unsafe import compiled_call


def with_nrt(kernel: Callable) -> Callable:
    """``kernel`` behind a forwarding njit function compiled with numba's runtime (NRT).

    A function that a ``_nrt=False`` function (the recursion) compiles is compiled without NRT too,
    unless its own options say otherwise: a kernel that allocates would then fail to compile, and one
    compiled there would be kept (and cached on disk) without reference counting. The forwarding
    function says ``_nrt=True``, so the kernels behind it are compiled as anywhere else; LLVM inlines it.
    """

    @njit(_nrt=True)  # type: ignore[call-overload]  # _nrt: a numba option missing from its stubs
    def call(*args):
        return kernel(*args)

    return call


@compiled_call
@intrinsic
def borrowed(typingctx, array):
    """A view of ``array`` that numba does not reference-count (no meminfo), for the caller's lifetime.

    Why: numba increments and decrements an array argument's reference count around code it cannot
    prune (inlined functions with loops and exits): two atomic operations per call, which cost more than
    a short kernel's work (listing backgammon's moves with checkers on the bar)."""

    def codegen(context, builder, signature, args):
        source = make_array(array)(context, builder, value=args[0])
        view = make_array(array)(context, builder)
        populate_array(
            view, data=source.data, shape=source.shape, strides=source.strides, itemsize=source.itemsize, meminfo=None
        )
        return view._getvalue()

    return array(array), codegen


def array_at(dtype: type) -> Callable[..., np.ndarray]:
    """A numba intrinsic ``(address, length) -> array``: the 1-d ``dtype`` array of ``length`` items
    at memory ``address``, not memory-managed. Compiled code without arguments reaches a mutable
    array this way only (numba freezes global arrays as read-only constants); being an intrinsic,
    it also compiles where numba's runtime is disabled (``njit(_nrt=False)``), unlike `numba.carray`.
    The caller keeps the array at ``address`` alive."""
    array_type = types.Array(numba.from_dtype(np.dtype(dtype)), 1, "C")

    @intrinsic
    def array_at(typingctx, address, length):
        def codegen(context, builder, signature, args):
            pointer = builder.inttoptr(args[0], cgutils.voidptr_t)
            view = typing_signature(array_type, types.voidptr, signature.args[1])
            return np_cfarray(context, builder, view, (pointer, args[1]))

        return array_type(address, length), codegen

    return array_at
