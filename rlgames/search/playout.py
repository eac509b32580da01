"""Compiled random playouts, generic over a game's kernels.

A playout plays uniformly random legal actions, and chance outcomes by their probabilities, from a
compact state until the game is over. The factories close over one game's `GameKernels` and return
numba functions; they are cached so that each game's closures compile once per process (numba does
not cache closures on disk). For example, the mean result of random play at tic-tac-toe::

    stats = run_random_playouts(rlgames.load_game("tic_tac_toe"), 10_000, seed=0)
    stats.returns.mean()  # about 0.30: the first player wins more often
"""

from __future__ import annotations

import functools
from typing import Callable, NamedTuple

import numpy as np
from numba import njit

from rlgames.game import CHANCE, TERMINAL, CompactState, Game, GameKernels
from rlgames.search.rng import below, new_rng_state, sample_index


class PlayoutStats(NamedTuple):
    """The results of a batch of playouts, one entry per playout."""

    returns: np.ndarray
    """int64[n]: player 0's final return, in {-1, 0, 1}."""
    lengths: np.ndarray
    """int64[n]: the number of actions played (chance outcomes included)."""


@functools.cache
def make_buffered_playout(kernels: GameKernels) -> Callable[..., tuple[CompactState, int]]:
    """A compiled ``playout(s, rng_state, actions, probs) -> (s_terminal, plies)``.

    ``actions`` (int64) and ``probs`` (float64) are scratch buffers of ``kernels.max_actions``
    entries, so that callers running many playouts allocate them once.
    """
    legal_actions = kernels.legal_actions
    apply = kernels.apply
    chance_outcomes = kernels.chance_outcomes

    @njit
    def playout(s, rng_state, actions, probs):
        plies = 0
        while s[0] != TERMINAL:
            if s[0] == CHANCE:
                n = chance_outcomes(s, actions, probs)
                action = actions[sample_index(rng_state, probs, n)]
            else:
                n = legal_actions(s, actions)
                if n == 0:
                    raise ValueError("random playout: a non-terminal state has no legal action")
                action = actions[below(rng_state, n)]
            s = apply(s, action)
            plies += 1
        return s, plies

    return playout


@functools.cache
def make_random_playout(kernels: GameKernels) -> Callable[..., tuple[CompactState, int]]:
    """A compiled ``playout(s, rng_state) -> (s_terminal, plies)`` from compact state ``s``.

    ``rng_state`` comes from `rlgames.search.rng.new_rng_state` and is advanced in place; ``plies`` is
    the number of actions played, chance outcomes included.
    """
    buffered = make_buffered_playout(kernels)
    max_actions = kernels.max_actions

    @njit
    def playout(s, rng_state):
        actions = np.empty(max_actions, dtype=np.int64)
        probs = np.empty(max_actions, dtype=np.float64)
        return buffered(s, rng_state, actions, probs)

    return playout


@functools.cache
def make_playout_batch(kernels: GameKernels) -> Callable[..., None]:
    """A compiled ``playout_batch(s, rng_state, returns, lengths)`` running ``len(returns)`` playouts
    from ``s`` in one call; it writes player 0's return and the length of playout ``i`` into
    ``returns[i]`` and ``lengths[i]`` (int64 arrays of equal length)."""
    buffered = make_buffered_playout(kernels)
    max_actions = kernels.max_actions

    @njit
    def playout_batch(s, rng_state, returns, lengths):
        actions = np.empty(max_actions, dtype=np.int64)
        probs = np.empty(max_actions, dtype=np.float64)
        for i in range(returns.shape[0]):
            end, plies = buffered(s, rng_state, actions, probs)
            returns[i] = end[1]
            lengths[i] = plies

    return playout_batch


def run_random_playouts(
    game: Game,
    num_playouts: int,
    seed: int | np.ndarray,
    state: CompactState | None = None,
) -> PlayoutStats:
    """Runs ``num_playouts`` random playouts of ``game`` inside one compiled call.

    ``seed`` is an int, or a generator state from `new_rng_state` to continue (advanced in place);
    ``state`` is the compact state to start from, the initial position by default.
    """
    rng_state = seed if isinstance(seed, np.ndarray) else new_rng_state(int(seed))
    start = game.initial_compact_state() if state is None else state
    returns = np.empty(num_playouts, dtype=np.int64)
    lengths = np.empty(num_playouts, dtype=np.int64)
    make_playout_batch(game.kernels)(tuple(start), rng_state, returns, lengths)
    return PlayoutStats(returns, lengths)
