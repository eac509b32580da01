"""The rollout evaluator: the mean outcome of random playouts, a knowledge-free estimate for any game.

``value(state)`` plays ``rollouts`` uniformly random playouts (chance outcomes by their probabilities,
`rlgames.playout`) from the state and returns the mean final return of the side to move (at a
chance node, of `State.observer`: pig's turn player), divided by the game's largest return so that it is
a value in [-1, 1]. The estimate is noisy, with standard error up to ``1 / sqrt(rollouts)``. In a game
whose rules look at earlier positions, `value`'s playouts start from the state's history; the compiled
``kernel``, given a compact state only, judges repetitions among the playout's own positions.

Randomness: each evaluator owns one PRNG state (`rlgames.jit.rng`), seeded from ``seed`` (or from
the operating system's entropy when ``seed`` is None) and advanced by every playout, so a seeded
evaluator replays the same sequence of values. The compiled ``kernel`` draws from the *same* state:
it is **stochastic** (two calls on one position usually differ) and advances the stream that `value`
uses. Each evaluator compiles its own kernel (its PRNG state is wired into the code by address), so a
compiled search built on it compiles once per evaluator, not once per process.
"""

from __future__ import annotations

import functools
import secrets
from collections.abc import Callable, Sequence

import numpy as np
from numba import njit

from rlgames.evaluators.base import Evaluator
from rlgames.game import Game, GameKernels, State
from rlgames.jit.cache import never_cache
from rlgames.jit.nrt import array_at
from rlgames.jit.rng import new_rng_state
from rlgames.playout import (
    make_buffered_playout,
    make_history_playout,
    make_playout_batch,
    make_playout_values,
)

_uint64_at, _int64_at, _float64_at = array_at(np.uint64), array_at(np.int64), array_at(np.float64)


def make_rollout_kernel(kernels: GameKernels, rollouts: int, rng_state: np.ndarray) -> Callable[..., float]:
    """An njit ``(s) -> float``: the mean value for the side to move ``s[0]`` of ``rollouts`` random
    playouts from ``s`` (returns divided by ``kernels.max_return``), drawing from ``rng_state``
    (uint64[4], advanced in place). In a game with a ``repetition`` kernel, the playouts judge
    repetitions among their own positions (the kernel is given no history).

    The kernel allocates nothing: it reaches ``rng_state`` and its own scratch buffers by address, and
    keeps them alive as its attribute ``buffers``."""
    has_repetition = kernels.provides("repetition")
    playout = make_history_playout(kernels) if has_repetition else make_buffered_playout(kernels)
    max_actions, scale = kernels.max_actions, float(kernels.max_return)
    actions = np.empty(max_actions, dtype=np.int64)
    probs = np.empty(max_actions, dtype=np.float64)
    keys = np.empty(256 if has_repetition else 1, dtype=np.int64)
    rng_address, actions_address, probs_address, keys_address = (
        a.ctypes.data for a in (rng_state, actions, probs, keys)
    )
    num_keys = len(keys)

    @njit
    def kernel(s) -> float:
        rng = _uint64_at(rng_address, 4)
        action_buffer = _int64_at(actions_address, max_actions)
        prob_buffer = _float64_at(probs_address, max_actions)
        total = 0
        for _ in range(rollouts):
            if has_repetition:
                key_buffer = _int64_at(keys_address, num_keys)
                end, _ = playout(s, rng, action_buffer, prob_buffer, key_buffer, 0)
            else:
                end, _ = playout(s, rng, action_buffer, prob_buffer)
            total += end[1]
        mean = total / (rollouts * scale)
        return mean if s[0] == 0 else -mean

    kernel.buffers = (rng_state, actions, probs, keys)  # type: ignore[attr-defined]  # an attribute of our own
    return never_cache(kernel)  # its addresses are this process's: no search around it is cached


class RolloutEvaluator(Evaluator):
    """The mean outcome of ``rollouts`` random playouts, from the side to move; no policy (see the
    module docstring for the PRNG and the stochastic compiled kernel)."""

    def __init__(self, game: Game, *, rollouts: int = 1, seed: int | None = None) -> None:
        if isinstance(rollouts, bool) or not isinstance(rollouts, (int, np.integer)) or rollouts < 1:
            raise ValueError(f"rollouts must be a positive int, got {rollouts!r}")
        self.game = game
        self.rollouts = int(rollouts)
        self.rng_state = new_rng_state(secrets.randbits(64) if seed is None else seed)
        self._returns = np.empty(self.rollouts, dtype=np.int64)
        self._lengths = np.empty(self.rollouts, dtype=np.int64)

    def value(self, state: State) -> float:
        history = np.array(state.history(), dtype=np.int64)
        make_playout_batch(self.game.kernels)(state.compact, self.rng_state, self._returns, self._lengths, history)
        mean = self.game.info.value(float(self._returns.mean()))
        return mean if state.observer() == 0 else -mean

    @functools.cached_property
    def kernel(self) -> Callable[..., float]:
        """The compiled, stochastic value ``(s) -> float`` sharing this evaluator's PRNG state."""
        return make_rollout_kernel(self.game.kernels, self.rollouts, self.rng_state)

    def __repr__(self) -> str:
        return f"RolloutEvaluator({self.game!r}, rollouts={self.rollouts})"


ALPHAGO_MIX = 0.5
"""AlphaGo's ``lambda``, the weight of the rollout's result against the value network's (Silver et al. 2016,
"Mastering the game of Go with deep neural networks and tree search", Nature 529: 0.5 won most games)."""


class PlayoutMixEvaluator(Evaluator):
    """AlphaGo's leaf values with its fast rollout policy compiled: ``(1 - mix) * v(s) + mix * z(s)``, ``v``
    the values of ``evaluator`` (a network, batched), ``z`` the result, from the side to move, of one
    compiled ``playout`` from ``s`` (`GameKernels.playout`'s signature: go's pattern playouts or a learned
    rollout policy p_pi); the priors are ``evaluator``'s. States are decisions (go has no chance nodes:
    a playout's own chance outcomes are drawn inside it). ``seed`` seeds the playouts' PRNG."""

    def __init__(self, game: Game, evaluator: Evaluator, playout: Callable, *, mix: float = ALPHAGO_MIX, seed: int = 0):
        if not 0.0 <= mix <= 1.0:
            raise ValueError(f"mix must be in [0, 1], got {mix}")
        self.game, self.evaluator, self.mix = game, evaluator, mix
        kernels = game.kernels
        size = len(game.initial_compact_state())
        self._playout_values = make_playout_values(playout, size, kernels.max_actions, kernels.max_return)
        self.seed(seed)

    def seed(self, seed: int) -> None:
        self.evaluator.seed(seed)
        self.rng_state = new_rng_state(seed)

    def value(self, state: State) -> float:
        return float(self.evaluate_batch([state])[0][0])

    def policy(self, state: State) -> np.ndarray | None:
        return self.evaluator.policy(state)

    def evaluate_batch(self, states: Sequence[State]) -> tuple[np.ndarray, np.ndarray | None]:
        values, priors = self.evaluator.evaluate_batch(states)
        if self.mix > 0.0 and len(states):
            values = (1.0 - self.mix) * np.asarray(values, dtype=np.float64) + self.mix * self.playout_results(states)
        return values, priors

    def playout_results(self, states: Sequence[State]) -> np.ndarray:
        """float64[B]: one playout's result from each state, for its side to move, in [-1, 1]."""
        compact = np.array([state.compact for state in states], dtype=np.int64)
        out = np.empty(len(states))
        self._playout_values(compact, self.rng_state, out)
        return out

    def __repr__(self) -> str:
        return f"PlayoutMixEvaluator({self.evaluator!r}, mix={self.mix})"
