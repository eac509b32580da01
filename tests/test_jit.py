"""The compiled plumbing of `rlgames.jit`: the bit operations against Python's integers, on int64 and
uint64 words, compiled and called from compiled code."""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit

from rlgames.jit.bits import bits_float, float_bits, lsb, msb, popcount

WORDS = [1, 2, 3, 0x8000_0000_0000_0000, 0xFFFF_FFFF_FFFF_FFFF, 0x0123_4567_89AB_CDEF, 0xAA55_AA55_AA55_AA55]


def signed(word: int) -> int:
    return word - (1 << 64) if word >= 1 << 63 else word


@pytest.mark.parametrize("word", WORDS)
def test_bit_operations_agree_with_python_on_both_signednesses(word):
    for value in (np.int64(signed(word)), np.uint64(word)):
        assert popcount(value) == word.bit_count()
        assert lsb(value) == (word & -word).bit_length() - 1
        assert msb(value) == word.bit_length() - 1


def test_bit_operations_inline_into_compiled_code():
    @njit
    def total(words):
        n = 0
        for w in words:
            n += popcount(w) + lsb(w) + msb(w)
        return n

    words = np.array([signed(w) for w in WORDS], dtype=np.int64)
    assert total(words) == sum(w.bit_count() + (w & -w).bit_length() - 1 + w.bit_length() - 1 for w in WORDS)


@njit
def to_bits(value):
    return float_bits(value)


@njit
def from_bits(bits):
    return bits_float(bits)


@pytest.mark.parametrize("value", [0.0, -0.0, 1.5, -2.75, 1e300, float("inf")])
def test_float_bits_round_trip_and_match_numpy(value):
    """As a transposition table stores a value: its bits, reinterpreted (compiled code only)."""
    bits = to_bits(value)
    assert bits == np.float64(value).view(np.int64)
    assert from_bits(bits) == value and np.signbit(from_bits(bits)) == np.signbit(value)
