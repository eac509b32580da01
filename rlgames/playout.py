"""Compiled random playouts, generic over a game's kernels.

A playout plays uniformly random legal actions, and chance outcomes by their probabilities, from a
compact state until the game is over, unless the game gives its own playout policy (the ``playout``
kernel: go's light playouts). The factories close over one game's `GameKernels` and return
numba functions; they are cached so that each game's closures compile once per process, and the
compiled code on disk (`rlgames.jit.cache`). For example, the mean result of random play at tic-tac-toe::

    stats = run_random_playouts(rlgames.load_game("tic_tac_toe"), 10_000, seed=0)
    stats.returns.mean()  # about 0.30: the first player wins more often

Recorded moves. Every playout takes an optional ``moves`` (int64) and writes there its first
``len(moves)`` plies, each ``2 * action + player`` for a decision and -1 for a chance outcome
(`rlgames.game.record_move`): MCTS's all-moves-as-first statistics (RAVE) read them.

Repetitions. In a game with a ``repetition`` kernel a playout keeps a stack of the keys of the
positions it passes: a move into a position the rules forbid is redrawn among the other legal moves,
and one into a position the rules draw ends the playout, drawn. `make_history_playout`'s playouts start
from the keys of the positions before ``s`` (a search's history and path); the others know only the
positions of the playout itself. Games without the kernel compile none of this.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import NamedTuple

import numpy as np
from numba import njit

from rlgames.game import (
    CHANCE,
    REPETITION_DRAW,
    REPETITION_ILLEGAL,
    TERMINAL,
    CompactState,
    Game,
    GameKernels,
    record_move,
)
from rlgames.jit.cache import cache_closure
from rlgames.jit.rng import below, new_rng_state, sample_index
from rlgames.jit.unsafe import to_fixed_tuple, tuple_setitem


class PlayoutStats(NamedTuple):
    """The results of a batch of playouts, one entry per playout."""

    returns: np.ndarray
    """int64[n]: player 0's final return, in the game's utility range."""
    lengths: np.ndarray
    """int64[n]: the number of actions played (chance outcomes included)."""


@functools.cache
def make_buffered_playout(kernels: GameKernels) -> Callable[..., tuple[CompactState, int]]:
    """A compiled ``playout(s, rng_state, actions, probs, moves=None) -> (s_terminal, plies)``.

    ``actions`` (int64) and ``probs`` (float64) are scratch buffers of ``kernels.max_actions``
    entries, so that callers running many playouts allocate them once; ``moves`` records the playout's
    moves (see the module docstring). In a game with a ``repetition``
    kernel the playout judges repetitions among its own positions only (see the module docstring). A game
    with its own ``playout`` kernel plays that instead.
    """
    if kernels.playout is not None:
        return kernels.playout
    if kernels.provides("repetition"):
        history_playout = make_history_playout(kernels)

        @njit
        def playout_without_history(s, rng_state, actions, probs, moves=None):
            return history_playout(s, rng_state, actions, probs, np.empty(64, dtype=np.int64), 0, moves)

        return cache_closure(playout_without_history)

    legal_actions = kernels.legal_actions
    apply = kernels.apply
    chance_outcomes = kernels.chance_outcomes

    @njit
    def playout(s, rng_state, actions, probs, moves=None):
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
            record_move(moves, plies, s[0], action)
            s = apply(s, action)
            plies += 1
        return s, plies

    return cache_closure(playout)


@functools.cache
def make_history_playout(kernels: GameKernels) -> Callable[..., tuple[CompactState, int]]:
    """A compiled ``playout(s, rng_state, actions, probs, keys, n, moves=None) -> (s_terminal, plies)`` for
    a game with a ``repetition`` kernel: ``keys[:n]`` (int64) are the keys of the positions before ``s``,
    oldest first, and the playout pushes its own behind them (into a larger copy when ``keys`` is
    full). A move into a position the rules forbid is redrawn among the remaining legal moves, and one
    the rules draw ends the playout in a draw, ``(TERMINAL, 0, ...)``. A game with its own ``playout``
    kernel plays that instead, without the keys."""
    if kernels.playout is not None:
        own = kernels.playout

        @njit
        def own_playout(s, rng_state, actions, probs, keys, n, moves=None):
            return own(s, rng_state, actions, probs, moves)

        return cache_closure(own_playout)
    legal_actions, apply, chance_outcomes = kernels.legal_actions, kernels.apply, kernels.chance_outcomes
    hash_key, repetition = kernels.hash_key, kernels.repetition

    @njit
    def playout(s, rng_state, actions, probs, keys, n, moves=None):
        plies = 0
        while s[0] != TERMINAL:
            if n == keys.shape[0]:
                wider = np.empty(2 * n + 16, dtype=np.int64)
                wider[:n] = keys[:n]
                keys = wider
            keys[n] = hash_key(s)
            n += 1
            if s[0] == CHANCE:
                count = chance_outcomes(s, actions, probs)
                action = actions[sample_index(rng_state, probs, count)]
                child = apply(s, action)
                verdict = repetition(child, keys, n)
            else:
                count = legal_actions(s, actions)
                while True:
                    if count == 0:
                        raise ValueError("random playout: a non-terminal state has no legal action")
                    i = below(rng_state, count)
                    action = actions[i]
                    child = apply(s, action)
                    verdict = repetition(child, keys, n)
                    if verdict != REPETITION_ILLEGAL:
                        break
                    count -= 1
                    actions[i] = actions[count]
            record_move(moves, plies, s[0], action)
            if verdict == REPETITION_DRAW:
                child = tuple_setitem(tuple_setitem(child, 0, TERMINAL), 1, 0)
            s = child
            plies += 1
        return s, plies

    return cache_closure(playout)


@functools.cache
def make_random_playout(kernels: GameKernels) -> Callable[..., tuple[CompactState, int]]:
    """A compiled ``playout(s, rng_state) -> (s_terminal, plies)`` from compact state ``s``.

    ``rng_state`` comes from `rlgames.jit.rng.new_rng_state` and is advanced in place; ``plies`` is
    the number of actions played, chance outcomes included.
    """
    buffered = make_buffered_playout(kernels)
    max_actions = kernels.max_actions

    @njit
    def playout(s, rng_state):
        actions = np.empty(max_actions, dtype=np.int64)
        probs = np.empty(max_actions, dtype=np.float64)
        return buffered(s, rng_state, actions, probs)

    return cache_closure(playout)


@functools.cache
def make_playout_batch(kernels: GameKernels) -> Callable[..., None]:
    """A compiled ``playout_batch(s, rng_state, returns, lengths, history)`` running ``len(returns)``
    playouts from ``s`` in one call; it writes player 0's return and the length of playout ``i`` into
    ``returns[i]`` and ``lengths[i]`` (int64 arrays of equal length). ``history`` (int64) holds the keys
    of the positions before ``s`` for a game with a ``repetition`` kernel; other games ignore it."""
    has_repetition = kernels.provides("repetition")
    history_playout = make_history_playout(kernels) if has_repetition else None
    buffered = make_buffered_playout(kernels)
    max_actions = kernels.max_actions

    @njit
    def playout_batch(s, rng_state, returns, lengths, history):
        actions = np.empty(max_actions, dtype=np.int64)
        probs = np.empty(max_actions, dtype=np.float64)
        keys = np.empty(history.shape[0] + 64, dtype=np.int64)
        keys[: history.shape[0]] = history
        for i in range(returns.shape[0]):
            if has_repetition:
                end, plies = history_playout(s, rng_state, actions, probs, keys, history.shape[0])
            else:
                end, plies = buffered(s, rng_state, actions, probs)
            returns[i] = end[1]
            lengths[i] = plies

    return cache_closure(playout_batch)


@functools.cache
def make_playout_values(playout: Callable, state_size: int, max_actions: int, max_return: int) -> Callable[..., None]:
    """A compiled ``playout_values(states, rng_state, out)``: for each row of ``states`` (int64[B,
    state_size], compact states), the result of one ``playout(s, rng_state, actions, probs)`` from it, for
    its side to move, divided by ``max_return`` (a value in [-1, 1]), written into ``out[i]``: the rollout
    half of AlphaGo's mixed leaf values (`rlgames.evaluators.rollout.PlayoutMixEvaluator`)."""
    run_playout = playout
    scale = float(max_return)

    @njit
    def playout_values(states, rng_state, out):
        actions = np.empty(max_actions, dtype=np.int64)
        probs = np.empty(max_actions, dtype=np.float64)
        for i in range(states.shape[0]):
            s = to_fixed_tuple(states[i], state_size)
            end, _ = run_playout(s, rng_state, actions, probs)
            out[i] = end[1] / scale if s[0] == 0 else -end[1] / scale

    return cache_closure(playout_values)


def run_random_playouts(
    game: Game,
    num_playouts: int,
    seed: int | np.ndarray,
    state: CompactState | None = None,
    history: tuple[int, ...] = (),
) -> PlayoutStats:
    """Runs ``num_playouts`` random playouts of ``game`` inside one compiled call.

    ``seed`` is an int, or a generator state from `new_rng_state` to continue (advanced in place);
    ``state`` is the compact state to start from, the initial position by default, and ``history``
    the keys of the positions before it (`State.history`) for a game with a ``repetition`` kernel.
    """
    rng_state = seed if isinstance(seed, np.ndarray) else new_rng_state(int(seed))
    start = game.initial_compact_state() if state is None else state
    returns = np.empty(num_playouts, dtype=np.int64)
    lengths = np.empty(num_playouts, dtype=np.int64)
    keys = np.array(history, dtype=np.int64)
    make_playout_batch(game.kernels)(tuple(start), rng_state, returns, lengths, keys)
    return PlayoutStats(returns, lengths)
