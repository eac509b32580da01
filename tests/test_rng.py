"""The compiled PRNG: the xoshiro256** algorithm exactly, determinism, range and rough uniformity."""

from __future__ import annotations

import numpy as np
import pytest

from rlgames.jit.rng import below, new_rng_state, next_u64, sample_index, uniform

MASK = (1 << 64) - 1


def reference_xoshiro(words: list[int], count: int) -> list[int]:
    """xoshiro256** in plain Python, from the authors' C code."""
    s = list(words)
    rotl = lambda x, k: ((x << k) | (x >> (64 - k))) & MASK  # noqa: E731
    out = []
    for _ in range(count):
        out.append(rotl(s[1] * 5 & MASK, 7) * 9 & MASK)
        t = s[1] << 17 & MASK
        s[2] ^= s[0]
        s[3] ^= s[1]
        s[1] ^= s[2]
        s[0] ^= s[3]
        s[2] ^= t
        s[3] = rotl(s[3], 45)
    return out


def chi_square(counts: np.ndarray, expected: np.ndarray) -> float:
    return float(((counts - expected) ** 2 / expected).sum())


def test_seeding_is_splitmix64():
    # The first splitmix64 outputs from seed 0, as published with the reference implementation.
    assert [int(w) for w in new_rng_state(0)] == [
        0xE220A8397B1DCDAF,
        0x6E789E6AA1B965F4,
        0x06C45D188009454F,
        0xF88BB8A8724C81EC,
    ]


def test_next_u64_matches_reference():
    state = new_rng_state(12345)
    expected = reference_xoshiro([int(w) for w in state], 200)
    assert [int(next_u64(state)) for _ in range(200)] == expected


def test_same_seed_same_stream_different_seed_different():
    a, b, c = new_rng_state(7), new_rng_state(7), new_rng_state(8)
    stream_a = [int(next_u64(a)) for _ in range(50)]
    assert stream_a == [int(next_u64(b)) for _ in range(50)]
    assert stream_a != [int(next_u64(c)) for _ in range(50)]


def test_seed_is_taken_modulo_2_64():
    assert np.array_equal(new_rng_state(-1), new_rng_state(MASK))


def test_uniform_range_and_uniformity():
    state = new_rng_state(1)
    draws = np.array([uniform(state) for _ in range(40_000)])
    assert draws.min() >= 0.0 and draws.max() < 1.0
    counts = np.histogram(draws, bins=20, range=(0.0, 1.0))[0]
    assert chi_square(counts, np.full(20, 2_000.0)) < 60  # 19 dof: p < 1e-5


@pytest.mark.parametrize("n", [1, 2, 7, 10])
def test_below_range_and_uniformity(n):
    state = new_rng_state(n)
    draws = np.array([below(state, n) for _ in range(20_000)])
    assert draws.min() >= 0 and draws.max() < n
    counts = np.bincount(draws, minlength=n)
    assert chi_square(counts, np.full(n, 20_000 / n)) < 20 + 3 * n  # generous: p < 1e-5


def test_below_is_unbiased_where_rejection_matters():
    # n = 3 * 2**30: a plain high-half multiply would favour no bin, but a modulo would favour bin 0
    # (2/4 vs 1/4); rejection happens on about a quarter of the draws here.
    n = 3 << 30
    state = new_rng_state(3)
    draws = np.array([below(state, n) for _ in range(30_000)])
    assert draws.max() < n
    counts = np.bincount(draws >> 30, minlength=3)
    assert chi_square(counts, np.full(3, 10_000.0)) < 25


def test_sample_index_follows_probabilities():
    probs = np.array([0.1, 0.0, 0.6, 0.3, 99.0])  # the last entry lies past n and must be ignored
    state = new_rng_state(4)
    draws = np.array([sample_index(state, probs, 4) for _ in range(20_000)])
    counts = np.bincount(draws, minlength=4)
    assert counts[1] == 0
    expected = 20_000 * probs[[0, 2, 3]]
    assert chi_square(counts[[0, 2, 3]], expected) < 25


def test_sample_index_rounding_falls_back_to_last_positive():
    probs = np.array([0.0, 1e-300, 0.0])  # sums far below any draw
    state = new_rng_state(5)
    assert {sample_index(state, probs, 3) for _ in range(20)} == {1}
