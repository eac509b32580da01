"""A small compiled PRNG with explicit state: xoshiro256** seeded by splitmix64.

There is no global generator anywhere in rlgames: every random draw takes a state, a ``uint64[4]``
array made by `new_rng_state` and advanced in place. The draws are numba functions, callable from
compiled code and (more slowly) from Python, so a Python loop can replay a compiled one exactly.

Reference: Blackman and Vigna, *Scrambled linear pseudorandom number generators* (2021);
``below`` uses Lemire's multiply-and-reject method on 32-bit words (*Fast random integer generation in
an interval*, 2019), which is exactly unbiased.
"""

from __future__ import annotations

import numpy as np
from numba import njit

_MASK64 = (1 << 64) - 1
_GOLDEN = 0x9E3779B97F4A7C15

_U5 = np.uint64(5)
_U7 = np.uint64(7)
_U9 = np.uint64(9)
_U11 = np.uint64(11)
_U17 = np.uint64(17)
_U32 = np.uint64(32)
_U45 = np.uint64(45)
_LOW32 = np.uint64(0xFFFFFFFF)
_TWO32 = np.uint64(1 << 32)
_INV_2_53 = 1.0 / 9007199254740992.0  # 2 ** -53


def _splitmix64(x: int) -> tuple[int, int]:
    """One splitmix64 step on a Python int: ``(new x, output)``."""
    x = (x + _GOLDEN) & _MASK64
    z = x
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
    return x, z ^ (z >> 31)


def new_rng_state(seed: int) -> np.ndarray:
    """A fresh generator state, ``uint64[4]``, from any integer seed (taken modulo 2**64).

    Equal seeds give equal streams; the four words come from splitmix64, as the xoshiro authors
    recommend, so they are never all zero.
    """
    x = seed & _MASK64
    words = []
    for _ in range(4):
        x, z = _splitmix64(x)
        words.append(z)
    return np.array(words, dtype=np.uint64)


@njit(cache=True, inline="always")
def _rotl(x: np.uint64, k: np.uint64) -> np.uint64:
    return (x << k) | (x >> (np.uint64(64) - k))


@njit(cache=True)
def next_u64(state: np.ndarray) -> np.uint64:
    """The next 64 random bits (xoshiro256**); advances ``state`` in place."""
    s0, s1, s2, s3 = state[0], state[1], state[2], state[3]
    result = _rotl(s1 * _U5, _U7) * _U9
    t = s1 << _U17
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    state[0], state[1], state[2], state[3] = s0, s1, s2, _rotl(s3, _U45)
    return result


@njit(cache=True)
def uniform(state: np.ndarray) -> float:
    """A float in [0, 1), a multiple of 2**-53."""
    return float(next_u64(state) >> _U11) * _INV_2_53


@njit(cache=True)
def below(state: np.ndarray, n: int) -> int:
    """An int uniform in ``[0, n)``, exactly unbiased; requires ``1 <= n < 2**32``.

    Lemire's method: the high half of ``x * n`` for a 32-bit ``x``, rejecting the few ``x`` that would
    favour small results (the division that finds them runs only when rejection is possible).
    """
    un = np.uint64(n)
    m = (next_u64(state) >> _U32) * un
    low = m & _LOW32
    if low < un:
        threshold = (_TWO32 - un) % un
        while low < threshold:
            m = (next_u64(state) >> _U32) * un
            low = m & _LOW32
    return int(m >> _U32)


@njit(cache=True)
def sample_index(state: np.ndarray, probs: np.ndarray, n: int) -> int:
    """An index ``i`` in ``[0, n)`` drawn with probability ``probs[i]`` (which should sum to 1).

    If rounding leaves the draw past the cumulative sum, the last index of positive probability wins.
    """
    u = uniform(state)
    total = 0.0
    last = 0
    for i in range(n):
        if probs[i] > 0.0:
            total += probs[i]
            last = i
            if u < total:
                return i
    return last
