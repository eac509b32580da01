"""The compiled plumbing of `rlgames.jit`: the bit operations against Python's integers, on int64 and
uint64 words, compiled and called from compiled code."""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit

from rlgames.jit.bits import bits_float, float_bits, lsb, msb, popcount
from rlgames.jit.vector import fixed_scaled_add

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


# --- boards of several words (go's 361 points) -----------------------------------------------------------
def _as_int(board: np.ndarray) -> int:
    return sum(int(word) << (64 * w) for w, word in enumerate(board))


def _as_board(value: int, words: int) -> np.ndarray:
    return np.array([(value >> (64 * w)) & (2**64 - 1) for w in range(words)], dtype=np.uint64)


def test_multi_word_boards_equal_python_integers():
    """Each operation on a board of 361 points, against the same set as one Python integer."""
    from rlgames.jit.bits import add, count, discard, first, has, shift_down, shift_up, words_for

    words, rng = words_for(361), np.random.default_rng(0)
    assert words == 6 and words_for(64) == 1 and words_for(65) == 2
    full = 2 ** (64 * words) - 1
    for _ in range(200):
        value = int.from_bytes(rng.bytes(48), "little") & int.from_bytes(rng.bytes(48), "little") & (2**361 - 1)
        board = _as_board(value, words)
        assert count(board) == value.bit_count()
        assert first(board) == ((value & -value).bit_length() - 1 if value else -1)
        i = int(rng.integers(361))
        assert has(board, i) == bool(value >> i & 1)
        add(board, i)
        assert _as_int(board) == value | 1 << i
        discard(board, i)
        assert _as_int(board) == value & ~(1 << i)
        n, out = int(rng.integers(64)), np.zeros(words, np.uint64)
        shift_up(out, board, n)
        assert _as_int(out) == (_as_int(board) << n) & full
        shift_down(out, board, n)
        assert _as_int(out) == _as_int(board) >> n
        shift_up(board, board, n)  # in place
        assert _as_int(board) == (value & ~(1 << i)) << n & full
    assert first(np.zeros(words, np.uint64)) == -1 and count(np.zeros(words, np.uint64)) == 0


@pytest.mark.parametrize("width", [1, 10, 16])
@pytest.mark.parametrize("contiguous", [True, False])
def test_fixed_scaled_add_rounds_each_lane_as_the_loop(width, contiguous):
    add = fixed_scaled_add(width)

    @njit
    def vector(out, scale, rows, row):
        add(out, scale, rows, row)

    @njit
    def loop(out, scale, rows, row):
        for j in range(width):
            out[j] += scale * rows[row, j]

    rng = np.random.default_rng(width)
    rows = rng.normal(size=(3, 2 * width)).astype(np.float32)
    rows = rows[:, :width] if contiguous else rows[:, ::2]
    rows = np.ascontiguousarray(rows) if contiguous else rows
    out = rng.normal(size=width + 2).astype(np.float32)
    before, expected = out.copy(), out.copy()
    scale = np.float32(rng.normal())
    vector(out, scale, rows, 2)
    loop(expected, scale, rows, 2)
    assert out.tobytes() == expected.tobytes()
    assert (out[:width] != before[:width]).all() and out[width:].tobytes() == before[width:].tobytes()
