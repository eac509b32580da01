"""numba's unchecked helpers, re-exported so that games and searches import them from one place: a numba
upgrade that moves them is fixed here.

* ``tuple_setitem(tup, i, value)``: a copy of a homogeneous tuple with item ``i`` replaced (``i`` not
  checked), how kernels change one slot of a compact state;
* ``to_fixed_tuple(array, n)``: the first ``n`` items of a 1-d array as a UniTuple (``n`` a
  compile-time constant), how compiled code builds a compact state from a buffer;
* ``trailing_zeros(x)``, ``leading_zeros(x)``: LLVM's ``cttz`` and ``ctlz`` (undefined at 0).
"""

from numba.cpython.unsafe.numbers import leading_zeros, trailing_zeros
from numba.cpython.unsafe.tuple import tuple_setitem
from numba.np.unsafe.ndarray import to_fixed_tuple

__all__ = ["leading_zeros", "to_fixed_tuple", "trailing_zeros", "tuple_setitem"]
