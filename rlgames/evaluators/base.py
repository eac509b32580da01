"""The evaluator protocol shared by hand-crafted, rollout and network evaluators.

An evaluator estimates a position for search:

* ``value(state) -> float`` in [-1, 1], **from the point of view of the side to move**;
* ``policy(state) -> np.ndarray | None``: a prior over ``game.num_actions`` actions, zero on illegal
  actions and summing to 1, or None when the evaluator has no policy;
* ``evaluate_batch(states) -> (values, priors)``: the same for many states at once (networks
  override it with one batched call);
* ``kernel``: an optional compiled face, an njit function ``(s) -> float`` giving the value from the
  side to move of a non-terminal, non-chance compact state ``s``. Compiled search (alpha-beta) calls
  it at the cut-off; an evaluator without one (a network) has ``kernel = None`` and compiled search
  falls back to Python search;
* ``incremental``: an optional efficiently updatable face (`rlgames.evaluators.nnue_incremental.Incremental`: an
  NNUE's accumulators kept on the search's stack and updated by each move), which compiled alpha-beta
  then uses instead of ``kernel``; None by default.

Every evaluator expects non-terminal, non-chance states: search scores terminal states from their
returns itself.
"""

from __future__ import annotations

import abc
import functools
import math
from typing import Callable, ClassVar, Sequence

import numpy as np
from numba import njit

from rlgames.game import State
from rlgames.jit.cache import cache_closure
from rlgames.jit.stack import stack_float64


class Evaluator(abc.ABC):
    """Base class of every evaluator: subclasses implement `value` and, optionally, `policy` and
    `kernel`; `evaluate_batch` loops over `value` and `policy`."""

    scores_chance_nodes: ClassVar[bool] = False
    """Whether `value` and `kernel` also score chance nodes, from the point of view of the player who
    moved into one (`GameKernels.observer`), as searches that cut off on them need (backgammon's plies)."""

    has_outcomes: ClassVar[bool] = False
    """Whether ``outcomes(states)`` gives, for each state's observer, the probabilities of the game's
    outcomes (`rlgames.evaluators.outcomes`), which the doubling cube's decisions read
    (`rlgames.games.backgammon.cube`)."""

    @abc.abstractmethod
    def value(self, state: State) -> float:
        """The value in [-1, 1] of a non-terminal ``state`` from the side to move's point of view."""

    def policy(self, state: State) -> np.ndarray | None:
        """float64[num_actions], a prior over the legal actions of ``state`` (zero elsewhere), or None."""
        return None

    @property
    def kernel(self) -> Callable[..., float] | None:
        """The compiled value ``(s) -> float`` over compact states, or None (the default)."""
        return None

    @property
    def incremental(self):
        """The efficiently updatable kernels (`rlgames.evaluators.nnue_incremental.Incremental`) that compiled
        alpha-beta uses instead of `kernel`, or None (the default)."""
        return None

    def seed(self, seed: int) -> None:
        """Restarts the randomness of an evaluator that draws moves (policy rollouts); the agents call it
        before every game. The default does nothing."""

    def evaluate_batch(self, states: Sequence[State]) -> tuple[np.ndarray, np.ndarray | None]:
        """``(values float64[B], priors float64[B, num_actions] or None)`` for a batch of states.

        The priors are None when the evaluator has no policy for some state of the batch.
        """
        values = np.array([self.value(state) for state in states], dtype=np.float64)
        policies = [p for p in (self.policy(state) for state in states) if p is not None]
        if not policies or len(policies) < len(states):  # some state has none
            return values, None
        return values, np.stack(policies).astype(np.float64, copy=False)


def uniform_policy(state: State) -> np.ndarray:
    """The uniform prior over the legal actions of ``state``."""
    prior = state.legal_action_mask().astype(np.float64)
    total = prior.sum()
    return prior / total if total else prior


class ZeroEvaluator(Evaluator):
    """Value 0 everywhere and a uniform prior: a neutral evaluator for tests and pure search."""

    def value(self, state: State) -> float:
        return 0.0

    def policy(self, state: State) -> np.ndarray:
        return uniform_policy(state)

    @property
    def kernel(self) -> Callable[..., float]:
        return _zero_kernel


@njit(cache=True)
def _zero_kernel(s) -> float:
    return 0.0


class LinearEvaluator(Evaluator):
    """A hand-crafted evaluation: a weighted sum of named features squashed into [-1, 1].

    ``value = tanh(score / scale)`` with ``score = weights . features(s)``, the weighted linear sum of
    the lecture notes (``Eval(s) = w1 f1(s) + ... + wn fn(s)``). Features are computed from the point
    of view of the side to move, so that one set of weights serves both players; ``scale`` sets how
    fast the score saturates and is kept fixed so that the weights can be learned later.

    Subclasses set the class attributes ``feature_names``, ``default_weights``, ``scale`` and
    ``features``, a compiled ``features(s, out: float64[n]) -> None``.
    """

    feature_names: ClassVar[tuple[str, ...]]
    default_weights: ClassVar[tuple[float, ...]]
    scale: ClassVar[float] = 1.0
    features: ClassVar[Callable[..., None]]

    def __init__(self, weights: Sequence[float] | np.ndarray | None = None) -> None:
        chosen = self.default_weights if weights is None else weights
        self.weights = np.array(chosen, dtype=np.float64)
        if self.weights.shape != (len(self.feature_names),):
            raise ValueError(
                f"{type(self).__name__}: expected {len(self.feature_names)} weights "
                f"for features {self.feature_names}, got shape {self.weights.shape}"
            )
        self.weights.flags.writeable = False

    def feature_values(self, state: State) -> np.ndarray:
        """float64[n]: the features of ``state`` from the side to move, in ``feature_names`` order."""
        out = np.zeros(len(self.feature_names), dtype=np.float64)
        type(self).features(state.compact, out)
        return out

    def score(self, state: State) -> float:
        """The raw weighted sum ``weights . features`` (before squashing)."""
        return float(self.weights @ self.feature_values(state))

    def value(self, state: State) -> float:
        return math.tanh(self.score(state) / self.scale)

    @property
    def kernel(self) -> Callable[..., float]:
        """Shared by every evaluator with the same features, weights and scale, so that compiled
        searches built on it (one per kernel) compile once per process."""
        return make_linear_kernel(type(self).features, tuple(self.weights.tolist()), self.scale)

    def __repr__(self) -> str:
        terms = ", ".join(f"{name}={w:g}" for name, w in zip(self.feature_names, self.weights))
        return f"{type(self).__name__}({terms})"


@functools.cache
def make_linear_kernel(features: Callable[..., None], weights: tuple[float, ...], scale: float) -> Callable[..., float]:
    """An njit ``(s) -> tanh(weights . features(s) / scale)``; ``weights`` are frozen into the code.
    The features go to an array on the stack: search calls the kernel at every leaf, and allocating
    a heap array there cost as much as the rest of a simple evaluation."""
    frozen = np.array(weights, dtype=np.float64)
    n = len(frozen)
    inverse_scale = 1.0 / scale

    @njit
    def kernel(s) -> float:
        out = stack_float64(n)
        out[:] = 0.0  # a feature left unwritten counts 0
        features(s, out)
        total = 0.0
        for i in range(n):
            total += frozen[i] * out[i]
        return math.tanh(total * inverse_scale)

    return cache_closure(kernel)
