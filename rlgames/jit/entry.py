"""Compiled entry points: calling a numba function from Python without its type dispatch, and compiling
one ahead of a timed call."""

from __future__ import annotations

from collections.abc import Callable

import numba


def compiled_entry(kernel: Callable, *example_args: object) -> Callable:
    """The compiled entry point of a numba ``kernel`` for the types of ``example_args``, compiled (or
    loaded from numba's cache) now. It relies on numba's ``overloads[...].entry_point``, which is not
    public API; with ``NUMBA_DISABLE_JIT=1`` it returns ``kernel`` itself."""
    kernel(*example_args)
    overloads = getattr(kernel, "overloads", None)
    if overloads is None:
        return kernel
    return overloads[tuple(numba.typeof(arg) for arg in example_args)].entry_point


def precompile(function: Callable, *example_args: object) -> None:
    """Compiles the njit ``function`` for the types of ``example_args`` now, without calling it (so
    that a timed call later excludes the compilation); nothing to do with ``NUMBA_DISABLE_JIT=1``."""
    compile_now = getattr(function, "compile", None)
    if compile_now is not None:
        compile_now(tuple(numba.typeof(arg) for arg in example_args))
