"""A small network's value, compiled: the NNUE evaluator that alpha-beta runs at every leaf.

Stockfish's answer to "learned evaluation at equal time" was a network small enough to evaluate
inside the search on a CPU (NNUE). Its value path -- the position's features into an accumulator,
two clipped-ReLU layers, a tanh -- is compiled here with numba from float32 weights exported by
`rlgames.models.networks.NNUE`, so that the compiled alpha-beta calls it as any hand-crafted kernel: no torch
and no Python at search time. The inputs are the game's sparse features where it has them
(the sets it names of `Game.feature_sets`: chess's 768 piece-square inputs and its threat and positional
inputs, connect four's 69 line patterns: `feature_set`), else its observation from the side to move
(``GameKernels.observation``) or the dense encoding it names (`Game.encodings`: backgammon's ``expert``,
`encoding_of`); only active or non-zero inputs
cost a row of the first layer. `rlgames.evaluators.nnue_incremental` updates the same network move by
move.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from numba import njit

from rlgames.game import FeatureSet, Game, side_to_move_observer
from rlgames.jit.cache import cache_closure
from rlgames.evaluators.outcomes import outcome_value
from rlgames.jit.stack import stack_float32, stack_int64
from rlgames.jit.vector import fixed_scaled_add

FASTMATH = {"nnan", "ninf", "nsz", "arcp", "afn"}
"""numba's fast-math flags for the NNUE kernels: every one but reassociation and contraction into fused
multiply-adds. With those two, LLVM rounds a sum differently where it inlines a kernel into the search
that calls it (a kernel compiled in the process) than where it calls it (a kernel loaded from numba's
cache), so a network's values, and a training run's labels, changed in the last bits with the state of
the cache (docs/research/reproducibility.md)."""

Weights = tuple
"""(w1[F, A + P] float32, b1[A + P], w2[A, H], b2[H], w3[H], b3: float), P = 1 with a PSQT unit; an outcome head
(`rlgames.evaluators.outcomes`) has w3[H, K] and b3[K]."""


def encoding_of(game: Game, inputs: Sequence[str]) -> tuple[Callable[..., None], tuple[int, ...]] | None:
    """What a network reading ``inputs`` takes when it reads positions densely: ``(kernel(s, player, out),
    shape)``, the observation where ``inputs`` is empty, the game's `Encoding` where it names one (alone);
    None where ``inputs`` names feature sets."""
    if not inputs:
        return game.kernels.observation, tuple(game.observation_shape)
    if inputs[0] not in game.encodings:
        return None
    if len(inputs) > 1:
        raise ValueError(f"{game.name}: a network reads its encoding {inputs[0]!r} alone, not {'+'.join(inputs)}")
    encoding = game.encodings[inputs[0]]
    return encoding.encode, tuple(encoding.shape)


def feature_set(game: Game, inputs: Sequence[str]) -> FeatureSet:
    """The game's feature sets named by ``inputs`` (`Game.feature_sets`) as one set, each numbered after
    the ones before it, each longest run the game computes in one kernel (`Game.fused_feature_sets`)
    through that kernel; raises `ValueError` naming an unknown set."""
    sets = [_named(game, name) for name in inputs]
    if not sets:
        raise ValueError(f"an NNUE of {game.name} must read at least one feature set")
    runs, start = [], 0
    while start < len(inputs):
        end = _fused_run_end(game, inputs, start)
        runs.append(game.fused_feature_sets[tuple(inputs[start:end])] if end > start + 1 else sets[start])
        start = end
    combined = runs[0]
    for later in runs[1:]:
        combined = FeatureSet(
            _followed_by(combined.features, later.features, combined.inputs),
            combined.inputs + later.inputs,
            combined.most + later.most,
        )
    return combined


def _fused_run_end(game: Game, inputs: Sequence[str], start: int) -> int:
    """Where the longest run of ``inputs`` from ``start`` that the game computes in one kernel ends;
    ``start + 1`` where no run of two or more sets has one."""
    for end in range(len(inputs), start + 1, -1):
        if tuple(inputs[start:end]) in game.fused_feature_sets:
            return end
    return start + 1


def updated_and_recomputed(game: Game, inputs: Sequence[str]) -> tuple[FeatureSet, FeatureSet | None]:
    """The set an NNUE updates move by move (the first of ``inputs``, with its ``changes``) and, as one
    set numbered from 0, those it recomputes at each evaluation (the rest, all `FeatureSet.recomputed`),
    or None."""
    first, rest = _named(game, inputs[0]), list(inputs[1:])
    if first.recomputed or not all(_named(game, name).recomputed for name in rest):
        raise ValueError(
            f"{game.name}: an NNUE reads the set it updates move by move first, then the sets it "
            f"recomputes at each evaluation; {'+'.join(inputs)} is not in that order"
        )
    return first, feature_set(game, rest) if rest else None


def _named(game: Game, name: str) -> FeatureSet:
    try:
        return game.feature_sets[name]
    except KeyError:
        known = ", ".join(game.feature_sets) or "none: its NNUE reads the observation"
        encodings = f"; its encodings: {', '.join(game.encodings)}" if game.encodings else ""
        raise ValueError(f"{game.name} has no feature set {name!r}; its sets: {known}{encodings}") from None


@functools.cache
def _followed_by(features: Callable[..., int], threats: Callable[..., int], offset: int) -> Callable[..., int]:
    """An njit features kernel: ``features``, then ``threats`` numbered from ``offset`` on."""

    @njit
    def combined(s, player: int, out) -> int:
        n = features(s, player, out)
        m = threats(s, player, out[n:])
        for i in range(n, n + m):
            out[i] += offset
        return n + m

    return combined


def frozen_weights(weights: Weights) -> tuple:
    """float32 contiguous arrays (an outcome head's ``w3`` transposed, each output's weights contiguous),
    ``b3``, and whether the first layer has a PSQT unit. Rows of over 64 floats are padded with zeros to a
    multiple of 8 (a chess network's 128 units and PSQT: 129 floats, 136 padded), so that every row starts
    on a 32-byte boundary of the vector loads (chess's alpha-beta 6% faster); a narrow row would grow by too
    much (connect four's 9 floats: its alpha-beta 14% slower at 16)."""
    w1, b1, w2, b2, w3, b3 = (
        np.ascontiguousarray(w, dtype=np.float32) if isinstance(w, np.ndarray) else w for w in weights
    )
    if w3.ndim == 2:  # an outcome head: w3[H, K] and b3[K] (`make_outcome_output`)
        return w1, b1, w2, b2, np.ascontiguousarray(w3.T), b3, False
    psqt = w1.shape[1] > w2.shape[0]
    pad = -w1.shape[1] % 8 if w1.shape[1] > 64 else 0
    w1, b1 = np.pad(w1, ((0, 0), (0, pad))), np.pad(b1, (0, pad))
    return w1, b1, w2, b2, w3, float(b3), psqt


BLOCK_BYTES = 10**6
"""The summed kernel freezes the first layer into the compiled code in blocks of rows of at most this
size: numba embeds an array of up to 1 MB as a constant and reads a larger one by its address, which
makes the search compiled around it impossible to cache on disk (othello's 55,744 rows, 3.8 MB at
width 17, would compile in every process). The incremental kernels keep it whole: they are the
default only in chess (768 rows, and the threats' 1,280 apart)."""


def _blocks(w1: np.ndarray) -> tuple[tuple[np.ndarray, ...], int] | None:
    """``w1``'s rows in blocks of ``1 << shift`` rows of at most `BLOCK_BYTES` each, and ``shift``; None
    where it fits in one."""
    if w1.nbytes <= BLOCK_BYTES:
        return None
    shift = max(1, BLOCK_BYTES // w1[0].nbytes).bit_length() - 1
    return tuple(np.ascontiguousarray(w1[i : i + (1 << shift)]) for i in range(0, len(w1), 1 << shift)), shift


def make_output(w2: np.ndarray, b2: np.ndarray, w3: np.ndarray, b3: Any, psqt: bool) -> Callable[..., float]:
    """The njit layers after the accumulator (float32[width + psqt]): the value, the PSQT unit
    (``accumulator[width]``, with ``psqt``) added before the tanh; for an outcome head (``w3`` [K, H]),
    `make_outcome_output`'s. The hidden layer is `hidden_layer`'s; its units' outputs are then summed eight
    at a time, the order the shipped networks' values were recorded in (tests/data/nnue_values.json)."""
    if w3.ndim == 2:
        return make_outcome_output(w2, b2, w3, b3)
    width, hidden = w2.shape
    blocked = hidden - hidden % 8
    layer = hidden_layer(w2, np.zeros(hidden, dtype=np.float32))

    @njit(fastmath=FASTMATH, inline="always")
    def unit(total, j: int) -> float:
        return min(1.0, max(0.0, total + b2[j])) * w3[j]

    @njit(fastmath=FASTMATH, inline="always")
    def output(accumulator) -> float:
        out = b3 + accumulator[width] if psqt else b3
        h = stack_float32(hidden)
        layer(accumulator, h)
        for j in range(0, blocked, 8):
            out += (
                unit(h[j], j)
                + unit(h[j + 1], j + 1)
                + unit(h[j + 2], j + 2)
                + unit(h[j + 3], j + 3)
                + unit(h[j + 4], j + 4)
                + unit(h[j + 5], j + 5)
                + unit(h[j + 6], j + 6)
                + unit(h[j + 7], j + 7)
            )
        for j in range(blocked, hidden):
            out += unit(h[j], j)
        return _tanh(out)

    return output


def hidden_layer(w2: np.ndarray, start: np.ndarray) -> Callable[..., None]:
    """The njit ``(accumulator, h)`` writing into ``h`` the hidden layer's sums before their activation:
    ``start[j]`` plus the clipped accumulator (its first ``len(w2)`` units, clipped to [0, 1] in place)
    times ``w2[:, j]``, summed in the order of the units. The sums run side by side across the hidden
    units, one vector multiply and add for each accumulator unit (`fixed_scaled_add`): without
    reassociation (`FASTMATH`) a sum over the accumulator units, one hidden unit at a time, is a chain of
    scalar additions (docs/research/nnue-speed.md#hidden-layer)."""
    width, hidden = w2.shape
    add = fixed_scaled_add(hidden)

    @njit(fastmath=FASTMATH, inline="always")
    def layer(accumulator, h) -> None:
        for j in range(hidden):
            h[j] = start[j]
        for k in range(width):
            a = min(np.float32(1.0), max(np.float32(0.0), accumulator[k]))
            accumulator[k] = a
            add(h, a, w2, k)

    return layer


def make_outcome_output(w2: np.ndarray, b2: np.ndarray, w3t: np.ndarray, b3: np.ndarray) -> Callable[..., float]:
    """`make_output` of an outcome head (`rlgames.evaluators.outcomes`): the K = 2R - 1 probabilities,
    each the sigmoid of its own output unit, and their expected return divided by R, the value."""
    hidden = w2.shape[1]
    k_out = w3t.shape[0]
    points = (k_out + 1) // 2
    layer = hidden_layer(w2, b2)

    @njit(fastmath=FASTMATH, inline="always")
    def output(accumulator) -> float:
        h = stack_float32(hidden)
        layer(accumulator, h)
        for j in range(hidden):
            h[j] = min(np.float32(1.0), max(np.float32(0.0), h[j]))
        o = stack_float32(k_out)
        for m in range(k_out):
            total = b3[m]
            for j in range(hidden):
                total += h[j] * w3t[m, j]
            o[m] = 1.0 / (1.0 + math.exp(-total))
        return outcome_value(o, points)

    return output


@njit(cache=True, fastmath=FASTMATH, inline="always")
def _tanh(x: float) -> float:
    """``math.tanh(x)`` to within 1e-15, from one ``exp``: a third of libm's tanh's time (a tenth of a chess
    evaluation's)."""
    e = math.exp(-2.0 * abs(x))
    return math.copysign((1.0 - e) / (1.0 + e), x)


def make_nnue_kernel(
    observation: Callable[..., None],
    observation_shape: tuple[int, ...],
    weights: Weights,
    observer: Callable[..., int] = side_to_move_observer,
    *,
    features: Callable[..., int] | None = None,
    max_active: int = 0,
) -> Callable[..., float]:
    """The njit ``(s) -> value`` in [-1, 1] of the network with ``weights``, from the point of view of
    ``observer(s)`` (the game's ``GameKernels.observer``: the side to move at a decision node, the
    player who moved into a chance node); the weights are frozen into the compiled code (read-only
    constants). Its inputs are the game's sparse ``features`` kernel (a `FeatureSet`'s: the
    accumulator adds one row of the first layer per active input; at most ``max_active`` of them, 0:
    as many as the inputs) when given, else the observation of ``observation_shape`` (a row per
    non-zero entry, scaled by it)."""
    w1, b1, w2, b2, w3, b3, psqt = frozen_weights(weights)
    inputs, width = w1.shape  # width: the accumulator's units, the PSQT unit if any, padding
    output = make_output(w2, b2, w3, b3, psqt=psqt)
    if features is None and math.prod(observation_shape) != inputs:
        raise ValueError(f"the network takes {inputs} inputs, the observation has {math.prod(observation_shape)}")

    if features is not None:
        return _sparse_kernel(features, observer, w1, b1, output, max_active or inputs)

    @njit(fastmath=FASTMATH)
    def kernel(s) -> float:
        x = stack_float32(inputs)
        x[:] = 0.0
        observation(s, observer(s), x.reshape(observation_shape))
        accumulator = stack_float32(width)
        copy_into(accumulator, b1)
        for i in range(inputs):
            if x[i] != 0.0:
                for k in range(width):
                    accumulator[k] += x[i] * w1[i, k]
        return output(accumulator)

    return cache_closure(kernel)


def _sparse_kernel(
    features: Callable[..., int],
    observer: Callable[..., int],
    w1: np.ndarray,
    b1: np.ndarray,
    output: Callable[..., float],
    most: int,
) -> Callable[..., float]:
    """`make_nnue_kernel`'s kernel over sparse features: the rows of the (at most ``most``) active
    inputs summed four at a time (a quarter of the stores into the accumulator), then ``output``;
    ``w1`` whole where it fits in a block (`_blocks`), as looking a row up in blocks costs a tenth of
    connect four's evaluation."""
    width = w1.shape[1]
    blocked = _blocks(w1)
    if blocked is None:

        @njit(fastmath=FASTMATH)
        def kernel(s) -> float:
            active = stack_int64(most)
            n = features(s, observer(s), active)
            accumulator = stack_float32(width)
            copy_into(accumulator, b1)
            j = 0
            while j + 4 <= n:
                r0, r1, r2, r3 = active[j], active[j + 1], active[j + 2], active[j + 3]
                for k in range(width):
                    accumulator[k] += (w1[r0, k] + w1[r1, k]) + (w1[r2, k] + w1[r3, k])
                j += 4
            for i in range(j, n):
                row = active[i]
                for k in range(width):
                    accumulator[k] += w1[row, k]
            return output(accumulator)

        return cache_closure(kernel)
    blocks, shift = blocked
    mask = (1 << shift) - 1

    @njit(fastmath=FASTMATH)
    def kernel_in_blocks(s) -> float:
        active = stack_int64(most)
        n = features(s, observer(s), active)
        accumulator = stack_float32(width)
        copy_into(accumulator, b1)
        j = 0
        while j + 4 <= n:
            r0, r1, r2, r3 = active[j], active[j + 1], active[j + 2], active[j + 3]
            a, b, c, d = blocks[r0 >> shift], blocks[r1 >> shift], blocks[r2 >> shift], blocks[r3 >> shift]
            r0, r1, r2, r3 = r0 & mask, r1 & mask, r2 & mask, r3 & mask
            for k in range(width):
                accumulator[k] += (a[r0, k] + b[r1, k]) + (c[r2, k] + d[r3, k])
            j += 4
        for i in range(j, n):
            block, row = blocks[active[i] >> shift], active[i] & mask
            for k in range(width):
                accumulator[k] += block[row, k]
        return output(accumulator)

    return cache_closure(kernel_in_blocks)


@njit(cache=True, inline="always")
def copy_into(target, source) -> None:
    """``target[:] = source``, element by element: numba's slice assignment between two arrays may copy
    through a temporary on the heap (it checks for overlap), an allocation at every evaluation."""
    for k in range(len(source)):
        target[k] = source[k]


def make_dense_features(features: Callable[..., int], num_features: int, max_active: int = 0) -> Callable[..., None]:
    """An njit ``(s, player, out: float32[num_features])`` writing the game's sparse features seen by
    ``player`` (at most ``max_active``, 0: ``num_features``) as a vector, each entry the number of
    times its input is active (ones and zeros but where an index is written twice), the input of an
    NNUE in torch; ``out`` must be zeroed."""
    most = max_active or num_features

    @njit
    def dense(s, player: int, out) -> None:
        active = stack_int64(most)
        for j in range(features(s, player, active)):
            out[active[j]] += 1.0

    return dense
