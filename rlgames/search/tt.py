"""The transposition table of the compiled searches (alpha-beta, expectiminimax and the exhaustive
solver): the slot of a key, the table's size for a memory budget, the bound flags, one entry layout
(key, packed depth/flag/move, value bits) and its probe and store."""

from __future__ import annotations

import numpy as np
from numba import njit

from rlgames.jit.bits import bits_float, float_bits

EMPTY, EXACT, LOWER, UPPER = 0, 1, 2, 3
"""Bound flags of an entry: unused slot, exact value, lower bound (fail high), upper bound (fail low)."""


@njit(cache=True, inline="always")
def tt_slot(key: int, mask: int) -> int:
    """The slot of a key in a table of ``mask + 1`` slots (a power of 2): a multiplicative (Fibonacci)
    mix, so that raw bitboard keys spread."""
    mixed = key * -7046029254386353131  # 0x9E3779B97F4A7C15, wrapping
    return (mixed ^ (mixed >> 29)) & mask


def table_slots(megabytes: float, entry_bytes: int) -> int:
    """The largest power of two of ``entry_bytes`` entries that fits in ``megabytes`` (0 when none)."""
    entries = int(megabytes * 2**20) // entry_bytes
    return 0 if entries < 1 else 1 << (entries.bit_length() - 1)


# --- The entry layout shared by alpha-beta and expectiminimax -----------------------------------
# A table is int64[N, 3], one 24-byte entry per slot, so that a probe touches one cache line: the key,
# the packed info ``(depth + DEPTH_BIAS) << 32 | flag << 24 | (move + 1)`` and the value's float64 bits.
TT_KEY, TT_INFO, TT_VALUE = 0, 1, 2
ENTRY_BYTES = 24
DEPTH_BIAS = 1 << 15
"""Depths are stored biased: quiescence depths are negative."""


def new_table(megabytes: float) -> np.ndarray:
    """An empty table of the largest power-of-two size within ``megabytes`` (no slots for 0)."""
    return np.zeros((table_slots(megabytes, ENTRY_BYTES), 3), dtype=np.int64)


@njit(cache=True, inline="always")
def entry_depth(info: int) -> int:
    return (info >> 32) - DEPTH_BIAS


@njit(cache=True, inline="always")
def entry_flag(info: int) -> int:
    return (info >> 24) & 0xFF


@njit(cache=True, inline="always")
def entry_move(info: int) -> int:
    """The entry's best move, -1 when none."""
    return (info & 0xFFFFFF) - 1


@njit(cache=True, inline="always")
def tt_lookup(tt, key: int) -> int:
    """The packed info of ``key``'s entry; 0 (flag `EMPTY`) when the table holds none."""
    slot = tt_slot(key, len(tt) - 1)
    if tt[slot, TT_KEY] != key:
        return 0
    return tt[slot, TT_INFO]


@njit(cache=True, inline="always")
def tt_value(tt, key: int) -> float:
    """The value of ``key``'s entry (after a `tt_lookup` found one)."""
    return bits_float(tt[tt_slot(key, len(tt) - 1), TT_VALUE])


@njit(cache=True, inline="always")
def decides(flag: int, value: float, alpha: float, beta: float) -> bool:
    """Whether an entry's bound settles a search of window ``(alpha, beta)``."""
    return flag == EXACT or (flag == LOWER and value >= beta) or (flag == UPPER and value <= alpha)


@njit(cache=True, inline="always")
def bound_flag(value: float, alpha: float, beta: float) -> int:
    """The bound a fail-soft search of window ``(alpha, beta)`` proved with ``value``."""
    return UPPER if value <= alpha else LOWER if value >= beta else EXACT


@njit(cache=True, inline="always")
def tt_store(tt, key: int, value: float, depth: int, flag: int, move: int) -> None:
    """Stores an entry unless its slot holds another position searched deeper (replacement by depth;
    the same position always overwrites its entry)."""
    slot = tt_slot(key, len(tt) - 1)
    info = tt[slot, TT_INFO]
    if entry_flag(info) != EMPTY and tt[slot, TT_KEY] != key and entry_depth(info) > depth:
        return
    tt[slot, TT_KEY] = key
    tt[slot, TT_INFO] = (depth + DEPTH_BIAS) << 32 | flag << 24 | (move + 1)
    tt[slot, TT_VALUE] = float_bits(value)
