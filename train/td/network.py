"""The TD network's parameters as the compiled kernels update them: one flat float64 vector of NNUE's value
path (`rlgames.models.networks.NNUE`: accumulator, hidden layer, output), laid out by
`rlgames.train.td.kernels.layout`, and the conversions to and from an `NNUE` for checkpoints."""

from __future__ import annotations

import math

import numpy as np
import torch
from rlgames.models.networks import NNUE, build_network
from rlgames.train.td.config import TDConfig
from rlgames.train.td.kernels import (
    layout,
)

from rlgames.game import Game


def network_dims(game: Game, config: TDConfig) -> tuple[int, int, int]:
    """``(F, A, H)``: features (the flattened observation), accumulator and hidden units."""
    return math.prod(game.observation_shape), config.accumulator, config.hidden


def initial_params(dims: tuple[int, int, int], config: TDConfig) -> np.ndarray:
    """float32[P]: every weight and bias uniform in [-init_range, init_range] (seeded).

    The clipped ReLU has no gradient outside [0, 1], so about half the units start off (z < 0) on a
    given input. Starting them all in the linear part instead (b1 = b2 = 0.5) did not help: on
    tic-tac-toe (32 + 16 units, alpha 0.025, epsilon 0.1, 6 seeds) 1-ply play kept the value in 85.8%
    of the 3,191 positions where some move loses it after 20,000 games (this init: 88.0%, torch's
    default init 88.5%) and 92.0% after 60,000 (93.0%). Units saturate during training either way
    (60-80% of them on a given position); units off on every position stayed rare (at most 6%)."""
    _, _, _, _, _, size = layout(dims)
    params = np.random.default_rng(config.seed).uniform(-config.init_range, config.init_range, size)
    return params.astype(np.float32)


def value_path(params: np.ndarray, dims: tuple[int, int, int]) -> dict[str, torch.Tensor]:
    """The entries of an `NNUE`'s state dict that hold its value path, from the flat ``params``."""
    features, width, hidden = dims
    b1, w2, b2, w3, b3, _ = layout(dims)
    arrays = {
        "accumulator.weight": params[:b1].reshape(features, width).T,
        "accumulator.bias": params[b1:w2],
        "hidden.weight": params[w2:b2].reshape(width, hidden).T,
        "hidden.bias": params[b2:w3],
        "value.weight": params[w3:b3].reshape(1, hidden),
        "value.bias": params[b3:],
    }
    return {name: torch.from_numpy(np.ascontiguousarray(array)) for name, array in arrays.items()}


def to_network(params: np.ndarray, dims: tuple[int, int, int], game: Game, seed: int) -> NNUE:
    """The `NNUE` whose value path holds ``params``; its policy head keeps its initialisation (``seed``)."""
    network: NNUE = build_network(game, "nnue", seed=seed, accumulator=dims[1], hidden=dims[2])  # type: ignore[assignment]
    network.load_state_dict(value_path(params, dims), strict=False)
    return network


def from_network(network: NNUE) -> np.ndarray:
    """float32[P]: the flat parameters of ``network``'s value path (inverse of `to_network`)."""
    w1, b1, w2, b2, w3, b3 = network.export()
    return np.concatenate([w1.ravel(), b1, w2.ravel(), b2, w3, [b3]]).astype(np.float32)
