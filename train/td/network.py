"""The TD network's parameters as the compiled kernels update them: one flat float64 vector of NNUE's value
path (`rlgames.models.networks.NNUE`: accumulator, hidden layer, output), laid out by
`rlgames.train.td.kernels.layout`, and the conversions to and from an `NNUE` for checkpoints."""

from __future__ import annotations

import math

from collections.abc import Callable

import numpy as np
import torch
from rlgames.models.networks import NNUE, build_network
from rlgames.train.td.config import TDConfig
from rlgames.train.td.kernels import (
    layout,
)

from rlgames.evaluators.nnue import encoding_of
from rlgames.evaluators.outcomes import outcome_count
from rlgames.game import Game
from rlgames.train.settings import ConfigError


Dims = tuple[int, int, int, int]
"""``(F, A, H, R)``: features (the flattened observation), accumulator and hidden units, and the points of
the outcome head (0: one tanh value; `rlgames.train.td.kernels`)."""


def td_inputs(game: Game, inputs: str) -> tuple[Callable[..., None], tuple[int, ...]]:
    """The kernel writing what a network reading ``inputs`` (`TDConfig.inputs`) takes, and its shape: the
    observation, or the game's encoding of that name (`rlgames.game.Encoding`)."""
    if inputs and inputs not in game.encodings:
        known = ", ".join(game.encodings) or "none"
        raise ConfigError(f"inputs: {game.name} has no encoding {inputs!r} (its encodings: {known})")
    dense = encoding_of(game, (inputs,) if inputs else ())
    assert dense is not None  # the observation, or an encoding
    return dense


def network_dims(game: Game, config: TDConfig) -> Dims:
    """The `Dims` of ``config``'s network for ``game``; with ``outcomes``, R is the game's largest return,
    which must be a whole number of points."""
    points = 0
    if config.outcomes:
        points = int(game.kernels.max_return)
        if points != game.kernels.max_return or points < 1:
            raise ConfigError(f"outcomes: {game.name}'s returns are not whole points (up to {game.kernels.max_return})")
    return math.prod(td_inputs(game, config.inputs)[1]), config.accumulator, config.hidden, points


def initial_params(dims: Dims, config: TDConfig) -> np.ndarray:
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


def value_path(params: np.ndarray, dims: Dims) -> dict[str, torch.Tensor]:
    """The entries of an `NNUE`'s state dict that hold its value path, from the flat ``params``."""
    features, width, hidden, points = dims
    k_out = outcome_count(points) if points else 1
    b1, w2, b2, w3, b3, _ = layout(dims)
    arrays = {
        "accumulator.weight": params[:b1].reshape(features, width).T,
        "accumulator.bias": params[b1:w2],
        "hidden.weight": params[w2:b2].reshape(width, hidden).T,
        "hidden.bias": params[b2:w3],
        "value.weight": params[w3:b3].reshape(hidden, k_out).T,
        "value.bias": params[b3:],
    }
    return {name: torch.from_numpy(np.ascontiguousarray(array)) for name, array in arrays.items()}


def to_network(params: np.ndarray, dims: Dims, game: Game, seed: int, inputs: str = "") -> NNUE:
    """The `NNUE` reading ``inputs`` (`TDConfig.inputs`) whose value path holds ``params``; its policy head
    keeps its initialisation (``seed``)."""
    network: NNUE = build_network(  # type: ignore[assignment]
        game,
        "nnue",
        seed=seed,
        accumulator=dims[1],
        hidden=dims[2],
        outcomes=dims[3],
        inputs=(inputs,) if inputs else (),
    )
    network.load_state_dict(value_path(params, dims), strict=False)
    return network


def from_network(network: NNUE, features: int = 0) -> np.ndarray:
    """float32[P]: the flat parameters of ``network``'s value path (inverse of `to_network`); with
    ``features`` beyond the network's inputs, their first-layer rows at 0 (a network of the observation
    starting one of an encoding that extends it: the same values until TD teaches the new rows)."""
    w1, b1, w2, b2, w3, b3 = network.export()
    w1 = _padded(w1, features)
    return np.concatenate([w1.ravel(), b1, w2.ravel(), b2, w3.ravel(), np.atleast_1d(b3)]).astype(np.float32)


def _padded(w1: np.ndarray, features: int) -> np.ndarray:
    """``w1`` with rows of zeros up to ``features`` rows."""
    return np.vstack([w1, np.zeros((max(features - len(w1), 0), w1.shape[1]), dtype=w1.dtype)])


OUTCOME_START = 0.1
"""Where `outcomes_from_value` starts the probabilities of the wins and losses by 2 points or more."""


def outcomes_from_value(network: NNUE, dims: Dims) -> np.ndarray:
    """float32[P]: the parameters of an outcome head of ``dims`` started from a one-value ``network`` of the
    same layers (a win/loss network going on at full scoring): the layers as they are, P(win) from the
    value (``tanh z = 2 sigmoid(2 z) - 1``: the output's weights doubled), the other outcomes at
    `OUTCOME_START` whatever the position (zero weights), for TD to learn; the first layer's rows of
    inputs beyond the network's at 0 (`from_network`)."""
    w1, b1, w2, b2, w3, b3 = network.export()
    w1 = _padded(w1, dims[0])
    k_out = outcome_count(dims[3])
    head = np.zeros((len(w3), k_out), dtype=np.float32)
    head[:, 0] = 2.0 * w3
    bias = np.full(k_out, math.log(OUTCOME_START / (1.0 - OUTCOME_START)), dtype=np.float32)
    bias[0] = 2.0 * b3
    return np.concatenate([w1.ravel(), b1, w2.ravel(), b2, head.ravel(), bias]).astype(np.float32)
