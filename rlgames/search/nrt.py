"""Compiled code without numba's reference counting: the searches' hot loops are compiled with
``_nrt=False`` (no atomic increment and decrement of every array a call passes, most of a short
simulation's cost), and call what may allocate (the game's kernels, evaluators, playouts) through
`with_nrt`."""

from __future__ import annotations

from collections.abc import Callable

from numba import njit


def with_nrt(kernel: Callable) -> Callable:
    """``kernel`` behind a forwarding njit function compiled with numba's runtime (NRT).

    A function that a ``_nrt=False`` function (the recursion) compiles is compiled without NRT too,
    unless its own options say otherwise: a kernel that allocates would then fail to compile, and one
    compiled there would be kept (and cached on disk) without reference counting. The forwarding
    function says ``_nrt=True``, so the kernels behind it are compiled as anywhere else; LLVM inlines it.
    """

    @njit(_nrt=True)
    def call(*args):
        return kernel(*args)

    return call
