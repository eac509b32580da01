"""A small network's value, compiled: the NNUE evaluator that alpha-beta runs at every leaf.

Stockfish's answer to "learned evaluation at equal time" was a network small enough to evaluate
inside the search on a CPU (NNUE). Its value path -- the position's features into an accumulator,
two clipped-ReLU layers, a tanh -- is compiled here with numba from float32 weights exported by
`models.networks.NNUE`, so that the compiled alpha-beta calls it as any hand-crafted kernel: no torch
and no Python at search time. The inputs are the game's sparse features where it has them
(``GameKernels.features``: chess's 768 piece-square inputs), else its observation from the side to
move (``GameKernels.observation``); only active or non-zero inputs cost a row of the first layer.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from numba import njit

from rlgames.evaluators.stack import stack_float32, stack_int64
from rlgames.game import side_to_move_observer

Weights = tuple  # (w1[F, A] float32, b1[A], w2[A, H], b2[H], w3[H], b3: float)


def make_nnue_kernel(observation: Callable[..., None], observation_shape: tuple[int, ...],
                     weights: Weights, observer: Callable[..., int] = side_to_move_observer, *,
                     features: Callable[..., int] | None = None) -> Callable[..., float]:
    """The njit ``(s) -> value`` in [-1, 1] of the network with ``weights``, from the point of view of
    ``observer(s)`` (the game's ``GameKernels.observer``: the side to move at a decision node, the
    player who moved into a chance node); the weights are frozen into the compiled code (read-only
    constants). Its inputs are the game's sparse ``features`` kernel (``GameKernels.features``: the
    accumulator adds one row of the first layer per active input) when given, else the observation
    of ``observation_shape`` (a row per non-zero entry, scaled by it)."""
    w1, b1, w2, b2, w3, b3 = (np.ascontiguousarray(w, dtype=np.float32) if isinstance(w, np.ndarray) else w
                              for w in weights)
    inputs, width = w1.shape
    hidden = w2.shape[1]
    w2t = np.ascontiguousarray(w2.T)  # [H, A]: each hidden unit's weights contiguous
    if features is None and math.prod(observation_shape) != inputs:
        raise ValueError(f"the network takes {inputs} inputs, the observation has {math.prod(observation_shape)}")
    b3 = float(b3)

    @njit(fastmath=True, inline="always")
    def output(accumulator) -> float:
        """The layers after the accumulator (float32[width], clipped here in place)."""
        for k in range(width):
            accumulator[k] = min(np.float32(1.0), max(np.float32(0.0), accumulator[k]))
        out = b3
        for j in range(hidden):
            total = np.float32(0.0)
            for k in range(width):
                total += accumulator[k] * w2t[j, k]
            out += min(1.0, max(0.0, total + b2[j])) * w3[j]
        return math.tanh(out)

    if features is not None:
        @njit(fastmath=True)
        def sparse_kernel(s) -> float:
            active = stack_int64(inputs)
            n = features(s, active)
            accumulator = stack_float32(width)
            accumulator[:] = b1
            for j in range(n):
                row = active[j]
                for k in range(width):
                    accumulator[k] += w1[row, k]
            return output(accumulator)

        return sparse_kernel

    @njit(fastmath=True)
    def kernel(s) -> float:
        x = stack_float32(inputs)
        x[:] = 0.0
        observation(s, observer(s), x.reshape(observation_shape))
        accumulator = stack_float32(width)
        accumulator[:] = b1
        for i in range(inputs):
            if x[i] != 0.0:
                for k in range(width):
                    accumulator[k] += x[i] * w1[i, k]
        return output(accumulator)

    return kernel


def make_dense_features(features: Callable[..., int], num_features: int) -> Callable[..., None]:
    """An njit ``(s, player, out: float32[num_features])`` writing the game's sparse features as a
    vector of ones and zeros (``player`` is not read: the features are the observer's), the input of an
    NNUE in torch; ``out`` must be zeroed."""

    @njit
    def dense(s, player: int, out) -> None:
        active = stack_int64(num_features)
        for j in range(features(s, active)):
            out[active[j]] = 1.0

    return dense
