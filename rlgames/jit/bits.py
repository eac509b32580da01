"""Bit operations on 64-bit boards, written once: `popcount`, `lsb` and `msb` for int64 and uint64 words
(the bitboards of chess, othello and connect four, backgammon's bit planes), and `float_bits` and
`bits_float`, a float64's bits as an int64 and back (how a transposition table stores a value), and
`mix64`, the splitmix64 finaliser that the games' position keys are made with.

Boards of more than 64 points (go's 361) are arrays of uint64 words, point ``i`` at bit ``i % 64`` of word
``i // 64``, the bits past the last point zero: `words_for`, `has`, `add`, `discard`, `count`, `first`,
`shift_up` and `shift_down` (across words, the bits shifted past the last word dropped), written once for
every such game. The set operations are numpy's (``a & b``, ``a | ~b``) on the arrays.

Each is one LLVM intrinsic (``ctpop``, ``cttz``, ``ctlz``: one instruction where the CPU has it) typed on
its argument, so an int64 board and a uint64 board compile to the same code; `lsb` and `msb` need a
non-zero word. With ``NUMBA_DISABLE_JIT=1`` they are plain Python over the word's 64 bits.
"""

from __future__ import annotations

import numba
import numpy as np
from llvmlite import ir as llvm_ir
from numba import njit, types
from numba.extending import intrinsic

__all__ = [
    "add",
    "bits_float",
    "count",
    "discard",
    "first",
    "float_bits",
    "GOLDEN",
    "has",
    "lsb",
    "mix64",
    "msb",
    "popcount",
    "shift_down",
    "shift_up",
    "words_for",
]


def _unary_intrinsic(name: str):
    """LLVM's ``name`` (ctpop, cttz, ctlz) on a 64-bit integer, returning int64."""

    def generic(typingctx, x):
        if not (isinstance(x, types.Integer) and x.bitwidth == 64):
            return None

        def codegen(context, builder, signature, args):
            if name == "ctpop":
                return builder.ctpop(args[0])
            return getattr(builder, name)(args[0], llvm_ir.Constant(llvm_ir.IntType(1), 0))

        return types.int64(x), codegen

    generic.__name__ = f"_{name}"
    return intrinsic(generic)


if numba.config.DISABLE_JIT:  # type: ignore[attr-defined]  # (set at run time) plain Python: no intrinsic

    def popcount(bits: int | np.integer) -> int:
        return (int(bits) & (1 << 64) - 1).bit_count()

    def lsb(bits: int | np.integer) -> int:
        bits = int(bits) & (1 << 64) - 1
        return (bits & -bits).bit_length() - 1

    def msb(bits: int | np.integer) -> int:
        return (int(bits) & (1 << 64) - 1).bit_length() - 1

else:
    _ctpop = _unary_intrinsic("ctpop")
    _cttz = _unary_intrinsic("cttz")
    _ctlz = _unary_intrinsic("ctlz")

    @njit(cache=True)
    def popcount(bits) -> int:
        """The number of set bits of a 64-bit word (bit 63 included)."""
        return _ctpop(bits)

    @njit(cache=True)
    def lsb(bits) -> int:
        """The index of the lowest set bit of a non-zero 64-bit word."""
        return _cttz(bits)

    @njit(cache=True)
    def msb(bits) -> int:
        """The index of the highest set bit of a non-zero 64-bit word."""
        return 63 - _ctlz(bits)


if numba.config.DISABLE_JIT:  # type: ignore[attr-defined]  # (set at run time) plain Python: no intrinsic

    def float_bits(x: float) -> int:
        return int(np.float64(x).view(np.int64))

    def bits_float(x: int) -> float:
        return float(np.int64(x).view(np.float64))

else:

    @intrinsic
    def float_bits(typingctx, x):
        """The bits of float64 ``x`` as an int64 (a reinterpretation, not a conversion)."""

        def codegen(context, builder, signature, args):
            return builder.bitcast(args[0], llvm_ir.IntType(64))

        return types.int64(types.float64), codegen

    @intrinsic
    def bits_float(typingctx, x):
        """The float64 whose bits are int64 ``x`` (the inverse of `float_bits`)."""

        def codegen(context, builder, signature, args):
            return builder.bitcast(args[0], llvm_ir.DoubleType())

        return types.float64(types.int64), codegen


# ---------------------------------------------------------------------------------------------------
# Boards of several words.

_ONE = np.uint64(1)


def words_for(points: int) -> int:
    """The number of 64-bit words of a board of ``points`` points (6 for go's 361)."""
    return (points + 63) // 64


@njit(cache=True)
def has(board: np.ndarray, i: int) -> bool:
    """Whether point ``i`` is on ``board``."""
    return (board[i >> 6] >> np.uint64(i & 63)) & _ONE != 0


@njit(cache=True)
def add(board: np.ndarray, i: int) -> None:
    """Puts point ``i`` on ``board``, in place."""
    board[i >> 6] |= _ONE << np.uint64(i & 63)


@njit(cache=True)
def discard(board: np.ndarray, i: int) -> None:
    """Takes point ``i`` off ``board``, in place."""
    board[i >> 6] &= ~(_ONE << np.uint64(i & 63))


@njit(cache=True)
def count(board: np.ndarray) -> int:
    """The number of points on ``board``."""
    total = 0
    for word in board:
        total += popcount(word)
    return total


@njit(cache=True)
def first(board: np.ndarray) -> int:
    """The lowest point on ``board``, or -1 for an empty board."""
    for w in range(len(board)):
        if board[w]:
            return 64 * w + lsb(board[w])
    return -1


@njit(cache=True)
def shift_up(out: np.ndarray, board: np.ndarray, n: int) -> None:
    """``out = board << n`` (point ``i`` to ``i + n``, for 0 <= n < 64), the bits past the last word dropped;
    ``out`` may be ``board``. A board's width, the caller masks the points that leave its rows."""
    if n == 0:
        out[:] = board
        return
    up, down = np.uint64(n), np.uint64(64 - n)
    for w in range(len(board) - 1, 0, -1):
        out[w] = board[w] << up | board[w - 1] >> down
    out[0] = board[0] << up


@njit(cache=True)
def shift_down(out: np.ndarray, board: np.ndarray, n: int) -> None:
    """``out = board >> n`` (point ``i`` to ``i - n``, for 0 <= n < 64), the bits below point 0 dropped;
    ``out`` may be ``board``."""
    if n == 0:
        out[:] = board
        return
    down, up = np.uint64(n), np.uint64(64 - n)
    last = len(board) - 1
    for w in range(last):
        out[w] = board[w] >> down | board[w + 1] << up
    out[last] = board[last] >> down


# ---------------------------------------------------------------------------------------------------
# Hashing.

GOLDEN = np.uint64(0x9E37_79B9_7F4A_7C15)
"""The 64-bit golden-ratio constant, which spreads small integers over the word before mixing."""
_MIX1 = np.uint64(0xBF58_476D_1CE4_E5B9)
_MIX2 = np.uint64(0x94D0_49BB_1331_11EB)


@njit(cache=True)
def mix64(z: np.uint64) -> np.uint64:
    """The splitmix64 finaliser: a bijection of 64-bit words that spreads every bit over all others (the
    games' position keys, where a Zobrist table would cost more than it gives)."""
    z = (z ^ (z >> np.uint64(30))) * _MIX1
    z = (z ^ (z >> np.uint64(27))) * _MIX2
    return z ^ (z >> np.uint64(31))
