"""`NetworkEvaluator`: a policy/value network behind the rlgames `Evaluator` protocol."""

from __future__ import annotations

import functools
import hashlib
import os
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import torch
from numba import njit

from rlgames.models.checkpoint import load_network
from rlgames.models.folded import FoldedResNet, fold
from rlgames.models.precision import autocast
from rlgames.models.precision import check as check_precision
from rlgames.models.networks import (
    NNUE,
    PolicyValueNet,
    ResNet,
    feature_inputs,
    input_shape,
)
from rlgames.evaluators.base import Evaluator
from rlgames.evaluators.nnue import (
    encoding_of,
    feature_set,
    make_dense_features,
    make_nnue_kernel,
    updated_and_recomputed,
)
from rlgames.evaluators.nnue_incremental import Incremental, make_incremental_nnue
from rlgames.game import CompactState, Game, State
from rlgames.jit.entry import compiled_entry


class NetworkEvaluator(Evaluator):
    """Values and priors from a network, batched, with an LRU cache of positions.

    ``evaluate_batch`` encodes the positions not in the cache into a preallocated float32 batch (the
    game's compiled observation kernel, from the side to move) and runs one ``torch.inference_mode``
    forward per ``batch_size`` positions, the network in eval mode (its mode is restored afterwards); a
    ResNet runs with its batch norms folded into its convolutions (`rlgames.models.folded`): the same
    values, in much less time at a search's small batches. Values are float64 from the side to move,
    priors the softmax over the legal actions (exactly zero elsewhere). The cache is keyed by the compact
    state (exact; states of another game are refused), so call `clear_cache` after changing the weights
    (it folds them again). ``precision``: the forward's arithmetic, float32 or bfloat16
    (`rlgames.models.precision`: faster where the hardware multiplies bfloat16, values rounded to about
    0.4%). Statistics: ``evaluations`` (positions sent to the network), ``cache_hits``
    (positions answered without it) and ``batches`` (forward calls).
    The network is moved to ``device``. Its values are multiplied by ``value_scale``: a network trained
    under another scoring of the game (`rlgames.game.Game.value_scale`, `from_checkpoint`'s ``rescore``).
    """

    def __init__(
        self,
        network: PolicyValueNet,
        game: Game,
        *,
        batch_size: int = 256,
        cache_size: int = 100_000,
        device: str | torch.device = "cpu",
        value_scale: float = 1.0,
        precision: str = "float32",
    ) -> None:
        if batch_size < 1 or cache_size < 0:
            raise ValueError(f"batch_size must be >= 1 and cache_size >= 0, got {batch_size} and {cache_size}")
        check_precision(precision)
        config = network.config
        expected = input_shape(game, config.arch, inputs=feature_inputs(config.args))
        if config.observation_shape != expected or config.num_actions != game.num_actions:
            raise ValueError(
                f"network {config.describe()} takes inputs {config.observation_shape} and "
                f"{config.num_actions} actions; {game.name} has {expected} "
                f"and {game.num_actions}"
            )
        self.game = game
        self.device = torch.device(device)
        self.network = network.to(self.device)
        self.batch_size = batch_size
        self.cache_size = cache_size
        self.value_scale = value_scale
        self.precision = precision
        self._cache: OrderedDict[CompactState, tuple[float, np.ndarray]] = OrderedDict()
        self.input_shape = expected
        """What the network reads of a position (`inputs`): the observation's shape or its encoding's."""
        self._obs = np.zeros((batch_size, *expected), dtype=np.float32)  # [N, *input_shape]
        self._mask = np.zeros((batch_size, game.num_actions), dtype=np.bool_)  # [N, A]
        self._actions = np.empty(game.kernels.max_actions, dtype=np.int64)
        start = game.initial_compact_state()
        self._observe = compiled_entry(
            input_kernel(game, config.arch, inputs=feature_inputs(config.args)), start, 0, self._obs[0]
        )
        self._legal = compiled_entry(game.kernels.legal_actions, start, self._actions)
        self._observer = compiled_entry(game.kernels.observer, start)
        self._folded: FoldedResNet | None = None
        self.evaluations = 0
        self.cache_hits = 0
        self.batches = 0

    @classmethod
    def from_checkpoint(
        cls, path: str | os.PathLike, game: Game, *, rescore: bool = False, **kwargs: Any
    ) -> NetworkEvaluator:
        """The evaluator of the network saved at ``path`` (which must be for ``game``, or with ``rescore``
        for another scoring of it, its values rescaled: `rlgames.game.Game.value_scale`); an NNUE's also
        has a compiled ``kernel``."""
        network, info = load_network(path, game, rescore=rescore)
        scale = game.value_scale(info.game_params) or 1.0
        return (NNUEvaluator if isinstance(network, NNUE) else cls)(network, game, value_scale=scale, **kwargs)

    def value(self, state: State) -> float:
        return float(self.evaluate_batch([state])[0][0])

    def policy(self, state: State) -> np.ndarray:
        return self.evaluate_batch([state])[1][0]

    def inputs(self, state: State, player: int | None = None) -> np.ndarray:
        """float32[*input_shape], a new array: what the network reads of ``state`` seen by ``player`` (by
        default the side to move): the observation, or the encoding the network names."""
        out = np.zeros(self.input_shape, dtype=np.float32)
        compact = state.compact
        self._observe(compact, self._observer(compact) if player is None else player, out)
        return out

    def clear_cache(self) -> None:
        """Forgets every position evaluated, and the folded copy of a ResNet's weights: call it after
        changing the weights."""
        self._cache.clear()
        self._folded = None

    def evaluate_batch(self, states: Sequence[State]) -> tuple[np.ndarray, np.ndarray]:
        """``(values float64[B], priors float64[B, A])`` of non-terminal, non-chance ``states``."""
        values = np.empty(len(states), dtype=np.float64)  # [B]
        priors = np.empty((len(states), self.game.num_actions), dtype=np.float64)  # [B, A]
        pending: dict[CompactState, list[int]] = {}
        for i, state in enumerate(states):
            compact = self._compact(state)
            cached = self._cache.get(compact)
            if cached is not None:
                self._cache.move_to_end(compact)
                values[i], priors[i] = cached
                self.cache_hits += 1
            elif compact in pending:
                pending[compact].append(i)
                self.cache_hits += 1
            else:
                pending[compact] = [i]
        compacts = list(pending)
        for start in range(0, len(compacts), self.batch_size):
            chunk = compacts[start : start + self.batch_size]
            chunk_values, chunk_priors = self._forward(chunk)
            for compact, value, prior in zip(chunk, chunk_values, chunk_priors):
                values[pending[compact]], priors[pending[compact]] = value, prior
                self._remember(compact, float(value), prior)
        return values, priors

    def _compact(self, state: State) -> CompactState:
        if state.game is not self.game and state.game != self.game:
            raise ValueError(f"this evaluator is for {self.game!r}, got a state of {state.game!r}")
        compact = state.compact
        if compact[0] < 0:
            raise ValueError(
                f"{self.game.name}: a network evaluates states where a player is to move, "
                f"not terminal or chance states ({compact})"
            )
        return compact

    def _forward(self, compacts: list[CompactState]) -> tuple[np.ndarray, np.ndarray]:
        """Values float64[n] and priors float64[n, A] of ``n <= batch_size`` positions."""
        n = len(compacts)
        obs, mask = self._inputs(compacts)
        network = self.network
        was_training = network.training
        if was_training:
            network.eval()
        try:
            with torch.inference_mode(), autocast(self.precision, self.device):
                forward = self._folded_forward() or network
                logits, value = forward(torch.from_numpy(obs).to(self.device), torch.from_numpy(mask).to(self.device))
                priors = torch.softmax(logits.to(torch.float64), dim=1)  # [n, A], exactly 0 where masked
        finally:
            if was_training:
                network.train()
        self.evaluations += n
        self.batches += 1
        return self.value_scale * value.to(torch.float64).cpu().numpy(), priors.cpu().numpy()

    def _folded_forward(self) -> FoldedResNet | None:
        """A ResNet's forward with its batch norms folded (`rlgames.models.folded`), made on first use."""
        if type(self.network) is ResNet and self._folded is None:
            self._folded = fold(self.network)
        return self._folded

    def _inputs(self, compacts: Sequence[CompactState]) -> tuple[np.ndarray, np.ndarray]:
        """The observations [n, *obs_shape] (from the side to move; at a chance node from the game's
        observer) and legal masks [n, A] of ``n <= batch_size`` positions (views of the evaluator's
        buffers)."""
        n = len(compacts)
        obs, mask, actions = self._obs[:n], self._mask[:n], self._actions
        obs.fill(0.0)
        mask.fill(False)
        for j, compact in enumerate(compacts):
            self._observe(compact, self._observer(compact), obs[j])
            mask[j, actions[: self._legal(compact, actions)]] = True
        return obs, mask

    def _remember(self, compact: CompactState, value: float, prior: np.ndarray) -> None:
        if self.cache_size == 0:
            return
        self._cache[compact] = (value, prior.copy())
        if len(self._cache) > self.cache_size:
            self._cache.popitem(last=False)

    def __repr__(self) -> str:
        return f"NetworkEvaluator({self.network.config.describe()}, {self.game!r})"


class NNUEvaluator(NetworkEvaluator):
    """An `NNUE` network: batched values and priors through torch, as any network, and a compiled
    ``kernel`` of its value path (`rlgames.evaluators.nnue`), which the compiled searches call at
    every leaf (a chance node too, observed from the game's ``observer``). With ``incremental`` it is
    also efficiently updatable (`make_incremental_nnue`): compiled alpha-beta keeps its accumulators
    on the search's stack and updates them move by move instead of calling ``kernel``. By default
    (None) it is where the game lists the inputs a move changes (chess: `benchmarks/bench_nnue.py`
    measured the shipped 64-unit network updated at 1.09x the nodes/s of summed). Where the two
    positions' inputs must be compared instead (connect four's and othello's patterns, of which a move
    changes many), updating costs more than it saves.
    """

    scores_chance_nodes = True

    def __init__(self, network: NNUE, game: Game, *, incremental: bool | None = None, **kwargs: Any) -> None:
        super().__init__(network, game, **kwargs)
        self._weights = network.export()
        inputs = feature_inputs(network.config.args)
        self._key = (game, _digest(self._weights), inputs, self.value_scale)
        self._kernel = _nnue_kernel(self._key, self._weights)
        if incremental is None:  # where the first set lists a move's changes
            incremental = encoding_of(game, inputs) is None and game.feature_sets[inputs[0]].changes is not None
        self._incremental = incremental and not game.has_chance and self.value_scale == 1.0

    @property
    def kernel(self) -> Callable[..., float]:
        return self._kernel

    @property
    def has_outcomes(self) -> bool:
        """Whether the network gives outcome probabilities (an outcome head), which `outcomes` reads."""
        return bool(getattr(self.network, "points", 0))

    def outcomes(self, states: Sequence[State]) -> np.ndarray:
        """float64[B, 2R - 1]: the outcome probabilities of ``states`` for their observer, as the network
        says them (a network with an outcome head: `rlgames.evaluators.outcomes`; read them with its
        ``consistent``). The observer is the compiled kernel's: the side to move at a decision node, the
        player who moved into a chance node (backgammon's afterstates)."""
        if any(state.is_terminal() for state in states):
            raise ValueError(f"{self.game.name}: a terminal state has no outcome probabilities, only its return")
        rows = []
        for start in range(0, len(states), self.batch_size):
            obs, _ = self._inputs([state.compact for state in states[start : start + self.batch_size]])
            with torch.inference_mode():
                rows.append(self.network.outcomes(torch.from_numpy(obs).to(self.device)).double().cpu().numpy())
        return np.concatenate(rows) if rows else np.zeros((0, 1))

    @property
    def incremental(self) -> Incremental | None:
        return _incremental_nnue(self._key, self._weights) if self._incremental else None


def _digest(weights: tuple) -> bytes:
    digest = hashlib.sha256()
    for w in weights:
        digest.update(np.asarray(w, dtype=np.float32).tobytes())
    return digest.digest()


Key = tuple[Game, bytes, tuple[str, ...], float]
"""A compiled NNUE's game, weights' digest, the feature sets it reads (none: the observation), and the
scale of its values."""
_KERNELS: dict[Key, Callable[..., float]] = {}
_INCREMENTAL: dict[Key, Incremental] = {}
"""Compiled NNUE kernels by `Key`: the weights are constants of the compiled code, so loading the same
network again (an arena's every match, a worker's every game) reuses its kernels and the searches
compiled around them instead of compiling them anew."""


def _nnue_kernel(key: Key, weights: tuple) -> Callable[..., float]:
    if key not in _KERNELS:
        game, _, names, scale = key
        kernels = game.kernels
        dense = encoding_of(game, names)
        if dense:
            kernel = make_nnue_kernel(*dense, weights, kernels.observer)
        else:
            inputs = feature_set(game, names)
            kernel = make_nnue_kernel(
                kernels.observation,
                tuple(game.observation_shape),
                weights,
                kernels.observer,
                features=inputs.features,
                max_active=inputs.most,
            )
        _KERNELS[key] = kernel if scale == 1.0 else _scaled(kernel, scale)
    return _KERNELS[key]


def _scaled(kernel: Callable[..., float], scale: float) -> Callable[..., float]:
    @njit
    def scaled(s) -> float:
        return scale * kernel(s)

    return scaled


def _incremental_nnue(key: Key, weights: tuple) -> Incremental:
    if key not in _INCREMENTAL:
        game, _, names, _ = key
        kernels = game.kernels
        dense = encoding_of(game, names)
        updated, later = (None, None) if dense else updated_and_recomputed(game, names)
        encode, shape = dense or (kernels.observation, tuple(game.observation_shape))
        _INCREMENTAL[key] = make_incremental_nnue(
            encode,
            shape,
            weights,
            kernels.observer,
            features=updated and updated.features,
            feature_changes=updated and updated.changes,
            max_active=updated.most if updated else 0,
            threats=later and later.features,
            threat_offset=updated.inputs if updated else 0,
            max_threats=later.most if later else 0,
        )
    return _INCREMENTAL[key]


def input_kernel(game: Game, arch: str, *, inputs: tuple[str, ...] = ()) -> Callable[..., None]:
    """The njit ``(s, player, out)`` writing what a network of ``arch`` reads (`rlgames.models.networks.input_shape`):
    the feature sets ``inputs`` (`feature_set`) as a vector (each entry how often its input is active),
    else the encoding they name or the observation (`encoding_of`)."""
    dense = encoding_of(game, inputs)
    if dense:
        return dense[0]
    sets = feature_set(game, inputs)
    return _dense_features(sets.features, sets.inputs, sets.most)


@functools.cache
def _dense_features(features: Callable[..., int], num_features: int, max_active: int) -> Callable[..., None]:
    return make_dense_features(features, num_features, max_active)


def network_inputs(game: Game, arch: str, states: Sequence[State], *, inputs: tuple[str, ...] = ()) -> np.ndarray:
    """float32[len(states), *input_shape]: what a network of ``arch`` reading the feature sets ``inputs``
    (none: the observation) reads of each state, from its side to move (the training data of `rlgames.train.nnue`)."""
    shape = input_shape(game, arch, inputs=inputs)
    rows = np.zeros((len(states), *shape), dtype=np.float32)
    if states:
        write = compiled_entry(
            input_kernel(game, arch, inputs=inputs), states[0].compact, 0, np.zeros(shape, dtype=np.float32)
        )
        for row, state in zip(rows, states):
            write(state.compact, state.current_player(), row)
    return rows
