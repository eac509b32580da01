"""The compiled plumbing under every game, search and evaluator: the one place that reaches into numba's
and llvmlite's internals (`tests/test_layout.py` holds everything else to numba's public API).

Modules, by concept: `cache` (on-disk caching of compiled closures), `entry` (compiled entry points and
compiling ahead of a timed call), `nrt` (calls out of code compiled without reference counting),
`clock` (the monotonic clock read from compiled code), `stack` (arrays on the native stack), `rng` (the
explicit-state PRNG), `bits` (popcount, lowest and highest set bit) and `unsafe` (numba's unchecked
tuple and array helpers, re-exported).
"""
