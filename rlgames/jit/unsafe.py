"""numba's unchecked helpers, re-exported so that games and searches import them from one place: a numba
upgrade that moves them is fixed here.

* ``tuple_setitem(tup, i, value)``: a copy of a homogeneous tuple with item ``i`` replaced (``i`` not
  checked), how kernels change one slot of a compact state;
* ``to_fixed_tuple(array, n)``: the first ``n`` items of a 1-d array as a UniTuple (``n`` a
  compile-time constant), how compiled code builds a compact state from a buffer;
* ``trailing_zeros(x)``, ``leading_zeros(x)``: LLVM's ``cttz`` and ``ctlz`` (undefined at 0).

Each is re-exported through `compiled_call`, typed as compiled code calls it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Concatenate, ParamSpec, cast

from numba.cpython.unsafe.numbers import leading_zeros as _leading_zeros
from numba.cpython.unsafe.numbers import trailing_zeros as _trailing_zeros
from numba.cpython.unsafe.tuple import tuple_setitem as _tuple_setitem
from numba.np.unsafe.ndarray import to_fixed_tuple as _to_fixed_tuple

__all__ = ["compiled_call", "leading_zeros", "to_fixed_tuple", "trailing_zeros", "tuple_setitem"]

_P = ParamSpec("_P")


def compiled_call(intrinsic: Callable[Concatenate[Any, _P], object]) -> Callable[_P, Any]:
    """A numba intrinsic, unchanged, typed as compiled code calls it: without the typing context (its
    definition's first argument, which numba passes) and returning a value. numba's stubs type a call
    from Python, which raises."""
    return cast("Callable[_P, Any]", intrinsic)


leading_zeros = compiled_call(_leading_zeros)
trailing_zeros = compiled_call(_trailing_zeros)
tuple_setitem = compiled_call(_tuple_setitem)
to_fixed_tuple = compiled_call(_to_fixed_tuple)
