"""MCTS's compiled simulation loop for leaves valued inside compiled code: random rollouts, a compiled
playout given as ``rollout``, or an evaluator's kernel. Whole simulations then run in one compiled call;
evaluators without a kernel (networks) are batched from Python instead (`rlgames.search.mcts.puct`)."""

from __future__ import annotations

import functools
from collections.abc import Callable

from numba import njit

from rlgames.game import GameKernels
from rlgames.jit.cache import cache_closure
from rlgames.jit.nrt import with_nrt
from rlgames.jit.unsafe import to_fixed_tuple
from rlgames.search.mcts.config import P_ROLLOUTS, P_SOLVER
from rlgames.search.mcts.ops import make_tree_ops
from rlgames.search.mcts.tree import SIZE, SOLVED, reserve_per_simulation


@functools.cache
def make_rollout_value(playout: Callable, max_return: int = 1, history: bool = False) -> Callable[..., float]:
    """A compiled leaf value ``(s, rng, actions, probs, rollouts, keys=None, n=0)``: player 0's mean
    value of ``rollouts`` playouts ``playout(s, rng, actions, probs) -> (s_terminal, plies)``, their
    returns divided by ``max_return``. With ``history``, the playout also takes the keys of the
    positions before ``s``, ``keys[:n]`` (`rlgames.playout.make_history_playout`)."""
    run_playout = playout
    scale = float(max_return)

    @njit
    def leaf_value(s, rng, actions, probs, rollouts, keys=None, n=0):
        total = 0.0
        for _ in range(rollouts):
            if history:
                end, _ = run_playout(s, rng, actions, probs, keys, n)
            else:
                end, _ = run_playout(s, rng, actions, probs)
            total += end[1]
        return total / (rollouts * scale)

    return cache_closure(leaf_value)


@functools.cache
def make_kernel_value(kernel: Callable) -> Callable[..., float]:
    """A compiled leaf value from an evaluator kernel (side to move), clipped and turned to player 0's."""
    evaluate = kernel

    @njit
    def leaf_value(s, rng, actions, probs, rollouts, keys=None, n=0):
        value = min(1.0, max(-1.0, evaluate(s)))
        return value if s[0] == 0 else -value

    return cache_closure(leaf_value)


@functools.cache
def make_run(kernels: GameKernels, state_size: int, leaf_value: Callable[..., float]) -> Callable[..., int]:
    """A compiled ``run(tree, t, params, rng, n, expanding) -> simulations`` doing up to ``n`` whole
    simulations in tree ``t``, each leaf scored by ``leaf_value`` (`make_rollout_value`,
    `make_kernel_value`), given the keys of the leaf's history and path in a game with a ``repetition``
    kernel. It stops early once the root is solved (with the solver) and, while ``expanding``, when
    fewer than `reserve_per_simulation` free nodes remain (the driver grows the tree and calls again).
    Not ``expanding`` (a timed driver that had no time left to grow the tree) it scores leaves without
    expanding them, until fewer free nodes remain than the chance outcomes on a path may take.

    The loop runs without numba's reference counting (``_nrt=False``, see `make_tree_ops`): it cannot
    allocate, and calls ``leaf_value``, which may, through `with_nrt`."""
    ops = make_tree_ops(kernels, state_size)
    select, expand, known_value, backup, path_keys = ops.select, ops.expand, ops.known_value, ops.backup, ops.path_keys
    evaluate = with_nrt(leaf_value)
    has_repetition = kernels.provides("repetition")
    S = state_size
    reserve = reserve_per_simulation(kernels)
    chance_reserve = reserve - kernels.max_actions

    @njit(_nrt=False)  # type: ignore[call-overload]  # _nrt: a numba option missing from its stubs
    def run(tree, t, params, rng, n, expanding):
        solver = params[P_SOLVER] != 0.0
        rollouts = int(params[P_ROLLOUTS])
        capacity = tree.nodes.shape[1]
        done = 0
        while done < n:
            if solver and tree.nodes[t, 0, SOLVED] != 0:
                break
            if tree.meta[t, SIZE] + (reserve if expanding else chance_reserve) > capacity:
                break
            leaf = select(tree, t, params, rng)
            known, result = known_value(tree, t, leaf)
            if not known:
                s = to_fixed_tuple(tree.states[t, leaf], S)
                keys = expand(tree, t, leaf, s) if expanding else path_keys(tree, t, leaf) if has_repetition else 0
                if has_repetition:  # the keys before the leaf: its history and path
                    result = evaluate(s, rng, tree.actions, tree.probs, rollouts, tree.keys[t], keys - 1)
                else:
                    result = evaluate(s, rng, tree.actions, tree.probs, rollouts)
            backup(tree, t, leaf, result, solver)
            done += 1
        return done

    return cache_closure(run)
