"""A small network's value, compiled: the NNUE evaluator that alpha-beta runs at every leaf.

Stockfish's answer to "learned evaluation at equal time" was a network small enough to evaluate
inside the search on a CPU (NNUE). Its value path -- the position's features into an accumulator,
two clipped-ReLU layers, a tanh -- is compiled here with numba from float32 weights exported by
`models.networks.NNUE`, so that the compiled alpha-beta calls it as any hand-crafted kernel: no torch
and no Python at search time. The features are the game's observation from the side to move
(``GameKernels.observation``); only its non-zero entries cost a row of the first layer.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from numba import njit

from rlgames.evaluators.stack import stack_float32
from rlgames.game import side_to_move_observer

Weights = tuple  # (w1[F, A] float32, b1[A], w2[A, H], b2[H], w3[H], b3: float)


def make_nnue_kernel(observation: Callable[..., None], observation_shape: tuple[int, ...],
                     weights: Weights, observer: Callable[..., int] = side_to_move_observer) -> Callable[..., float]:
    """The njit ``(s) -> value`` in [-1, 1] of the network with ``weights``, from the point of view of
    ``observer(s)`` (the game's ``GameKernels.observer``: the side to move at a decision node, the
    player who moved into a chance node), whose observation it reads; the weights are frozen into the
    compiled code (read-only constants)."""
    w1, b1, w2, b2, w3, b3 = (np.ascontiguousarray(w, dtype=np.float32) if isinstance(w, np.ndarray) else w
                              for w in weights)
    features, width = w1.shape
    hidden = w2.shape[1]
    w2t = np.ascontiguousarray(w2.T)  # [H, A]: each hidden unit's weights contiguous
    if math.prod(observation_shape) != features:
        raise ValueError(f"the network takes {features} features, the observation has {math.prod(observation_shape)}")
    b3 = float(b3)

    @njit(fastmath=True)
    def kernel(s) -> float:
        x = stack_float32(features)
        x[:] = 0.0
        observation(s, observer(s), x.reshape(observation_shape))
        accumulator = stack_float32(width)
        accumulator[:] = b1
        for i in range(features):
            if x[i] != 0.0:
                for k in range(width):
                    accumulator[k] += x[i] * w1[i, k]
        for k in range(width):
            accumulator[k] = min(np.float32(1.0), max(np.float32(0.0), accumulator[k]))
        out = b3
        for j in range(hidden):
            total = np.float32(0.0)
            for k in range(width):
                total += accumulator[k] * w2t[j, k]
            out += min(1.0, max(0.0, total + b2[j])) * w3[j]
        return math.tanh(out)

    return kernel
