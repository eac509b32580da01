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
from rlgames.search.mcts.config import P_RAVE, P_ROLLOUTS, P_SOLVER
from rlgames.search.mcts.ops import make_tree_ops
from rlgames.search.mcts.tree import SIZE, SOLVED, reserve_per_simulation


@functools.cache
def make_rollout_value(playout: Callable, max_return: int = 1, history: bool = False) -> Callable[..., tuple]:
    """A compiled leaf value ``(s, rng, actions, probs, rollouts, moves, keys=None, n=0) -> (value,
    recorded)``: player 0's mean value of ``rollouts`` playouts ``playout(s, rng, actions, probs, moves)
    -> (s_terminal, plies)``, their returns divided by ``max_return``, and the number of the first
    playout's moves recorded into ``moves`` (RAVE's). With ``history``, the playout also takes the keys of
    the positions before ``s``, ``keys[:n]`` (`rlgames.playout.make_history_playout`)."""
    run_playout = playout
    scale = float(max_return)

    @njit
    def leaf_value(s, rng, actions, probs, rollouts, moves, keys=None, n=0):
        total, recorded = 0.0, 0
        for i in range(rollouts):
            if history:
                end, plies = run_playout(s, rng, actions, probs, keys, n, moves if i == 0 else moves[:0])
            else:
                end, plies = run_playout(s, rng, actions, probs, moves if i == 0 else moves[:0])
            if i == 0:
                recorded = min(plies, moves.shape[0])
            total += end[1]
        return total / (rollouts * scale), recorded

    return cache_closure(leaf_value)


@functools.cache
def make_kernel_value(kernel: Callable) -> Callable[..., tuple]:
    """A compiled leaf value from an evaluator kernel (side to move), clipped and turned to player 0's,
    as `make_rollout_value`'s (no playout: no moves recorded)."""
    evaluate = kernel

    @njit
    def leaf_value(s, rng, actions, probs, rollouts, moves, keys=None, n=0):
        value = min(1.0, max(-1.0, evaluate(s)))
        return (value if s[0] == 0 else -value), 0

    return cache_closure(leaf_value)


@functools.cache
def make_run(kernels: GameKernels, state_size: int, leaf_value: Callable[..., float]) -> Callable[..., int]:
    """A compiled ``run(tree, t, params, rng, n, expanding) -> simulations`` doing up to ``n`` whole
    simulations in tree ``t``, each leaf scored by ``leaf_value`` (`make_rollout_value`,
    `make_kernel_value`), given the keys of the leaf's history and path in a game with a ``repetition``
    kernel. It stops early once the root is solved (with the solver) and, while ``expanding``, when
    fewer than `reserve_per_simulation` free nodes remain (the driver grows the tree and calls again).
    Not ``expanding`` (a timed driver that had no time left to grow the tree) it scores leaves without
    expanding them, until fewer free nodes remain than the chance outcomes on a path may take. With RAVE
    (``params[P_RAVE]``) the leaf's playout records its moves into ``tree.moves`` and every simulation
    updates the all-moves-as-first statistics (`rlgames.search.mcts.ops`' ``amaf_backup``).

    The loop runs without numba's reference counting (``_nrt=False``, see `make_tree_ops`): it cannot
    allocate, and calls ``leaf_value``, which may, through `with_nrt`."""
    ops = make_tree_ops(kernels, state_size)
    select, expand, known_value, backup, path_keys = ops.select, ops.expand, ops.known_value, ops.backup, ops.path_keys
    amaf_backup = ops.amaf_backup
    evaluate = with_nrt(leaf_value)
    has_repetition = kernels.provides("repetition")
    S = state_size
    reserve = reserve_per_simulation(kernels)
    chance_reserve = reserve - kernels.max_actions

    @njit(_nrt=False)  # type: ignore[call-overload]  # _nrt: a numba option missing from its stubs
    def run(tree, t, params, rng, n, expanding):
        solver = params[P_SOLVER] != 0.0
        rave = params[P_RAVE] != 0.0
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
            recorded = 0
            if not known:
                s = to_fixed_tuple(tree.states[t, leaf], S)
                keys = expand(tree, t, leaf, s) if expanding else path_keys(tree, t, leaf) if has_repetition else 0
                if has_repetition:  # the keys before the leaf: its history and path
                    result, recorded = evaluate(
                        s, rng, tree.actions, tree.probs, rollouts, tree.moves, tree.keys[t], keys - 1
                    )
                else:
                    result, recorded = evaluate(s, rng, tree.actions, tree.probs, rollouts, tree.moves)
            if rave:
                amaf_backup(tree, t, leaf, result, recorded)
            backup(tree, t, leaf, result, solver)
            done += 1
        return done

    return cache_closure(run)
