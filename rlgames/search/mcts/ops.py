"""The compiled operations of a Monte Carlo search on `rlgames.search.mcts.tree`'s arrays, generic over
a game's kernels and over the action selection, which MCTS and Gumbel search pass in.

A simulation:

1. **select** descends from the root. At a decision node it takes the child that the selection function
   picks (`rlgames.search.mcts.selection`): the root's, or the interior nodes'. At a chance node it expands
   every outcome (priors = probabilities) on the first visit and samples one with the compiled PRNG in
   proportion to its probability (so that a chance node's mean estimates the expectation). A child's
   compact state is computed on its first visit. The descent stops at a terminal node, a solved node,
   or an unexpanded decision node: the leaf. Every node on the path gets a virtual loss once the descent
   has left it: later descents count it as a visit lost by its ``POV`` player until the backup removes
   it. A descent never sees its own virtual losses, so only batched descents are spread out by them.
2. The leaf is **evaluated** by the caller (a terminal's return divided by the game's largest return, a
   solved value, rollouts, an evaluator) and, unless terminal or solved, **expanded** with the
   evaluator's priors over its legal actions (uniform without them).
3. **backup** adds the result to every node on the path and, with the solver, proves nodes upward
   (Winands, Bjornsson & Saito 2008, for any utility range): a node with a child solved at the best
   value for its mover (1) is solved at it, one whose children are all solved takes the best of them,
   a chance node whose outcomes are all solved equal takes that value. With RAVE, **amaf_backup** first
   adds it to the all-moves-as-first statistics of the children of every decision node on the path
   whose action its mover played later in the simulation, in the tree or in the leaf's playout.

Repetitions. When the game gives a ``repetition`` kernel (a closure constant: other games compile none
of this), a child's state is judged against the keys of the root's history and of its parent's path
(the tree is a tree, so the path is the node's own): one the rules draw becomes a terminal draw,
``(TERMINAL, 0, ...)`` as `HistoryState.apply` makes it. Where a repetition can be illegal
(``GameKernels.repetition_illegal``: superko as a rule of legality), expanding a node computes all its
children's states at once and leaves out those the rules forbid (the priors renormalise over the
others); where repetitions only draw (chess, go), each child is judged on its first visit, with its
state, so that an expansion costs no more than in a game without repetitions.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import NamedTuple

from numba import njit

from rlgames.game import (
    CHANCE,
    REPETITION_DRAW,
    REPETITION_ILLEGAL,
    TERMINAL,
    GameKernels,
)
from rlgames.jit.cache import cache_closure
from rlgames.jit.nrt import with_nrt
from rlgames.jit.rng import uniform
from rlgames.jit.unsafe import to_fixed_tuple
from rlgames.search.mcts.config import P_EXPANSION, P_SOLVER
from rlgames.search.mcts.selection import uct_or_puct_child
from rlgames.search.mcts.tree import (
    ACTION,
    AMAF_VALUE,
    AMAF_VISITS,
    COUNT,
    DEEPEST,
    FIRST,
    HISTORY,
    NODE_COLUMNS,
    PARENT,
    POV,
    PRIOR,
    READY,
    SIZE,
    SOLVED,
    SOLVED_VALUE,
    STAT_COLUMNS,
    VALUE,
    VIRTUAL,
    VISITS,
)


@njit
def no_playout(s, rng, actions, probs, rollouts, moves):
    """The leaf value of a `select_batch` compiled without playouts (never called)."""
    return 0.0, 0


class TreeOps(NamedTuple):
    """The compiled operations of `make_tree_ops` (see the module docstring)."""

    select: Callable[..., int]
    expand: Callable[..., int]
    known_value: Callable[..., tuple[bool, float]]
    backup: Callable[..., None]
    amaf_backup: Callable[..., None]
    path_keys: Callable[..., int]
    select_batch: Callable[..., tuple[int, int]]
    expand_and_backup_batch: Callable[..., None]


@functools.cache
def make_tree_ops(
    kernels: GameKernels,
    state_size: int,
    root_select: Callable = uct_or_puct_child,
    interior_select: Callable = uct_or_puct_child,
    playout_value: Callable | None = None,
) -> TreeOps:
    """The compiled tree operations for one game whose compact states have ``state_size`` slots and one
    pair of selection functions ``(tree, t, node, ctx) -> child``, compiled on first call, kept for
    the process and cached on disk (`rlgames.jit.cache`). MCTS's UCB1/PUCT rule is the default.

    Reference counting. Numba atomically increments and decrements the reference count of every array
    that a compiled function takes, inlined or not: for the `Tree`'s arrays at each operation of each
    simulation, that was the largest single cost of a simulation with short random playouts
    (``benchmarks/bench_mcts.py``). The operations only read and write arrays that their caller holds,
    so they are compiled without numba's runtime (``_nrt=False``, which forbids allocating): those that
    are not inlined, `expand_and_backup_batch`, and `rlgames.search.mcts.run`'s simulation loop, into
    which `select`, `expand`, `backup` and the selection functions are inlined (``inline="always"``).
    The kernels, which may allocate, are called through `with_nrt`. `select_batch` keeps the runtime,
    as a selection function may allocate (Gumbel's root selection does).

    With ``playout_value`` (`rlgames.search.mcts.run.make_rollout_value`'s), `select_batch` values a
    non-root leaf visited fewer than ``params[P_EXPANSION] - 1`` times by one playout, at once, rather
    than sending it to the evaluator (`MCTSConfig.expansion_threshold`)."""
    legal_actions, apply = with_nrt(kernels.legal_actions), with_nrt(kernels.apply)
    chance_outcomes = with_nrt(kernels.chance_outcomes)
    hash_key, repetition = with_nrt(kernels.hash_key), with_nrt(kernels.repetition)
    has_repetition = kernels.provides("repetition")
    judge_on_visit = has_repetition and not kernels.repetition_illegal
    separate_root = root_select is not interior_select
    max_return = float(kernels.max_return)
    S = state_size
    has_playouts = playout_value is not None
    leaf_playout = with_nrt(playout_value if playout_value is not None else no_playout)

    @njit(inline="always")
    def state_of(tree, t, node):
        return to_fixed_tuple(tree.states[t, node], S)

    @njit(_nrt=False)  # type: ignore[call-overload]  # _nrt: a numba option missing from its stubs
    def add_children(tree, t, node, n, pov):
        """Reserves ``n`` children for ``node`` (their action and prior are set by the caller)."""
        nodes = tree.nodes
        first = tree.meta[t, SIZE]
        if first + n > nodes.shape[1]:
            raise RuntimeError("MCTS tree is full: the driver must grow it before searching on")
        for c in range(first, first + n):
            nodes[t, c, PARENT] = node
            nodes[t, c, FIRST] = -1
            for column in range(COUNT, NODE_COLUMNS):
                nodes[t, c, column] = 0
            nodes[t, c, POV] = pov
            tree.stats[t, c, VALUE] = 0.0
            tree.stats[t, c, AMAF_VALUE] = 0.0
        nodes[t, node, FIRST] = first
        nodes[t, node, COUNT] = n
        tree.meta[t, SIZE] = first + n
        return first

    @njit(_nrt=False)  # type: ignore[call-overload]  # _nrt: a numba option missing from its stubs
    def path_keys(tree, t, node):
        """Writes the keys of the root's history and of the path from the root to ``node`` (included)
        into ``tree.keys[t]``, oldest first; returns their number."""
        nodes, history = tree.nodes, tree.meta[t, HISTORY]
        depth, x = 0, node
        while x != 0:
            x = nodes[t, x, PARENT]
            depth += 1
        n = history + depth + 1
        if n > tree.keys.shape[1]:
            raise RuntimeError("MCTS: a path longer than the game's max_game_length")
        x = node
        for i in range(n - 1, history - 1, -1):
            tree.keys[t, i] = hash_key(state_of(tree, t, x))
            x = nodes[t, x, PARENT]
        return n

    @njit(_nrt=False)  # type: ignore[call-overload]  # _nrt: a numba option missing from its stubs
    def judge_children(tree, t, node, s, drop_illegal):
        """Computes the states of ``node``'s children (state ``s``) and judges them by the repetition
        kernel against the keys of ``node``'s path: a drawn child becomes a terminal draw, an illegal
        one is removed when ``drop_illegal`` (chance outcomes are kept). Returns the number of keys."""
        nodes, states, stats = tree.nodes, tree.states, tree.stats
        n = path_keys(tree, t, node)
        keys = tree.keys[t]
        first, kept = nodes[t, node, FIRST], nodes[t, node, FIRST]
        for c in range(first, first + nodes[t, node, COUNT]):
            s2 = apply(s, nodes[t, c, ACTION])
            verdict = repetition(s2, keys, n)
            if verdict == REPETITION_ILLEGAL and drop_illegal:
                continue
            for column in range(NODE_COLUMNS):  # element by element: a row copy allocates
                nodes[t, kept, column] = nodes[t, c, column]
            for column in range(STAT_COLUMNS):
                stats[t, kept, column] = stats[t, c, column]
            for i in range(S):
                states[t, kept, i] = s2[i]
            if verdict == REPETITION_DRAW:
                states[t, kept, 0], states[t, kept, 1] = TERMINAL, 0
            nodes[t, kept, READY] = 1
            kept += 1
        if kept == first:
            raise ValueError("MCTS: every legal action repeats a position that the rules forbid")
        nodes[t, node, COUNT] = kept - first
        tree.meta[t, SIZE] = kept
        return n

    @njit(inline="always")
    def expand(tree, t, node, s):
        """Expands decision node ``node`` (state ``s``) with uniform priors; returns the number of keys
        of its path written into ``tree.keys[t]`` (0 for a game without repetitions)."""
        n = legal_actions(s, tree.actions)
        if n == 0:
            raise ValueError("MCTS: a non-terminal state has no legal action")
        first = add_children(tree, t, node, n, s[0])
        for i in range(n):
            tree.nodes[t, first + i, ACTION] = tree.actions[i]
        keys = 0
        if judge_on_visit:
            keys = path_keys(tree, t, node)
        elif has_repetition:
            keys = judge_children(tree, t, node, s, True)
            n = tree.nodes[t, node, COUNT]
        for c in range(first, first + n):
            tree.stats[t, c, PRIOR] = 1.0 / n
        return keys

    @njit(_nrt=False)  # type: ignore[call-overload]  # _nrt: a numba option missing from its stubs
    def expand_with_priors(tree, t, node, s, priors):
        """Expands decision node ``node`` with ``priors[action]`` renormalised over the legal actions
        (negative entries count as 0; uniform if none is positive)."""
        expand(tree, t, node, s)
        first, n = tree.nodes[t, node, FIRST], tree.nodes[t, node, COUNT]
        total = 0.0
        for c in range(first, first + n):
            total += max(priors[tree.nodes[t, c, ACTION]], 0.0)
        for c in range(first, first + n):
            prior = max(priors[tree.nodes[t, c, ACTION]], 0.0)
            tree.stats[t, c, PRIOR] = prior / total if total > 0.0 else 1.0 / n

    @njit(_nrt=False)  # type: ignore[call-overload]  # _nrt: a numba option missing from its stubs
    def expand_chance(tree, t, node, s):
        n = chance_outcomes(s, tree.actions, tree.probs)
        first = add_children(tree, t, node, n, tree.nodes[t, node, POV])
        for i in range(n):
            tree.nodes[t, first + i, ACTION] = tree.actions[i]
            tree.stats[t, first + i, PRIOR] = tree.probs[i]
        if has_repetition:
            judge_children(tree, t, node, s, False)

    @njit(inline="always")
    def sample_outcome(tree, t, node, rng):
        """An outcome child drawn in proportion to its probability (the last positive one on rounding)."""
        first = tree.nodes[t, node, FIRST]
        u = uniform(rng)
        total = 0.0
        last = first
        for c in range(first, first + tree.nodes[t, node, COUNT]):
            p = tree.stats[t, c, PRIOR]
            if p > 0.0:
                total += p
                last = c
                if u < total:
                    return c
        return last

    @njit(inline="always")
    def select(tree, t, ctx, rng):
        """The leaf reached from the root of tree ``t``; adds a virtual loss to every node on the path."""
        nodes, states = tree.nodes, tree.states
        node, depth = 0, 0
        while True:
            s = state_of(tree, t, node)
            if s[0] == TERMINAL or (node != 0 and nodes[t, node, SOLVED] != 0):
                break
            if nodes[t, node, FIRST] < 0:
                if s[0] != CHANCE:
                    break
                expand_chance(tree, t, node, s)
            if s[0] == CHANCE:
                child = sample_outcome(tree, t, node, rng)
            elif separate_root and node == 0:
                child = root_select(tree, t, node, ctx)
            else:
                child = interior_select(tree, t, node, ctx)
            nodes[t, node, VIRTUAL] += 1
            if nodes[t, child, READY] == 0:
                s2 = apply(s, nodes[t, child, ACTION])
                for i in range(S):
                    states[t, child, i] = s2[i]
                if judge_on_visit and repetition(s2, tree.keys[t], path_keys(tree, t, node)) == REPETITION_DRAW:
                    states[t, child, 0], states[t, child, 1] = TERMINAL, 0
                nodes[t, child, READY] = 1
            node = child
            depth += 1
        nodes[t, node, VIRTUAL] += 1
        tree.meta[t, DEEPEST] = max(tree.meta[t, DEEPEST], depth)
        return node

    @njit(_nrt=False)  # type: ignore[call-overload]  # _nrt: a numba option missing from its stubs
    def known_value(tree, t, leaf):
        """``(True, player 0's value)`` for a terminal or solved leaf, ``(False, 0.0)`` otherwise."""
        if tree.states[t, leaf, 0] == TERMINAL:
            return True, tree.states[t, leaf, 1] / max_return
        if tree.nodes[t, leaf, SOLVED] == 0:
            return False, 0.0
        value = tree.stats[t, leaf, SOLVED_VALUE]
        return True, value if tree.nodes[t, leaf, POV] == 0 else -value

    @njit(inline="always")
    def try_prove(tree, t, node):
        """Solves ``node`` if its children's solved values decide it; returns whether it did."""
        nodes, stats = tree.nodes, tree.stats
        mover = tree.states[t, node, 0]
        first, count = nodes[t, node, FIRST], nodes[t, node, COUNT]
        if mover == CHANCE:  # outcomes keep the node's point of view
            value = stats[t, first, SOLVED_VALUE]
            for child in range(first, first + count):
                if nodes[t, child, SOLVED] == 0 or stats[t, child, SOLVED_VALUE] != value:
                    return False
        else:  # children keep the mover's point of view
            value, complete = -2.0, True
            for child in range(first, first + count):
                if nodes[t, child, SOLVED] == 0:
                    complete = False
                else:
                    value = max(value, stats[t, child, SOLVED_VALUE])
            if value != 1.0 and not complete:
                return False
            if nodes[t, node, POV] != mover:
                value = -value
        nodes[t, node, SOLVED] = 1
        stats[t, node, SOLVED_VALUE] = value
        return True

    @njit(inline="always")
    def backup(tree, t, leaf, result, solver):
        """Adds player 0's ``result`` along the path from ``leaf`` and removes its virtual losses."""
        nodes, stats = tree.nodes, tree.stats
        if solver and tree.states[t, leaf, 0] == TERMINAL:
            nodes[t, leaf, SOLVED] = 1
            stats[t, leaf, SOLVED_VALUE] = result if nodes[t, leaf, POV] == 0 else -result
        proving = solver and nodes[t, leaf, SOLVED] != 0
        node = leaf
        while node >= 0:
            stats[t, node, VALUE] += result if nodes[t, node, POV] == 0 else -result
            nodes[t, node, VISITS] += 1
            nodes[t, node, VIRTUAL] -= 1
            parent = nodes[t, node, PARENT]
            if proving and parent >= 0:
                proving = try_prove(tree, t, parent)
            node = parent

    @njit(inline="always")
    def mark_playout(tree, recorded, mark):
        """Sets ``tree.played[player, action]`` to ``mark`` for the first ``recorded`` moves of ``tree.moves``
        (chance outcomes left out)."""
        for i in range(recorded):
            code = tree.moves[i]
            if code >= 0:
                tree.played[code & 1, code >> 1] = mark

    @njit(inline="always")
    def clear_marks(tree, t, leaf, recorded):
        """Clears `amaf_backup`'s marks: those of the playout's moves and of each move on the path from the
        root to ``leaf``."""
        played, nodes = tree.played, tree.nodes
        mark_playout(tree, recorded, 0)
        node = leaf
        while node > 0:
            parent = nodes[t, node, PARENT]
            mover = tree.states[t, parent, 0]
            if mover >= 0:
                played[mover, nodes[t, node, ACTION]] = 0
            node = parent

    @njit(inline="always")
    def amaf_backup(tree, t, leaf, result, recorded):
        """Adds player 0's ``result`` to the all-moves-as-first statistics along the path from ``leaf``:
        at every expanded decision node, to each child whose action the node's mover played at that node
        or later, on the path below it or among the first ``recorded`` moves of the leaf's playout
        (``tree.moves``). Walking up from the leaf, the marks in ``tree.played`` (over the game's
        actions) hold the moves played below the current node: the playout's, then the path's as the
        walk climbs past them."""
        nodes, stats, played = tree.nodes, tree.stats, tree.played
        mark_playout(tree, recorded, 1)
        node = leaf
        while node >= 0:
            mover = tree.states[t, node, 0]
            first = nodes[t, node, FIRST]
            if mover >= 0 and first >= 0:
                for c in range(first, first + nodes[t, node, COUNT]):
                    if played[mover, nodes[t, c, ACTION]]:
                        nodes[t, c, AMAF_VISITS] += 1
                        stats[t, c, AMAF_VALUE] += result if nodes[t, c, POV] == 0 else -result
            parent = nodes[t, node, PARENT]
            if parent >= 0 and tree.states[t, parent, 0] >= 0:
                played[tree.states[t, parent, 0], nodes[t, node, ACTION]] = 1
            node = parent
        clear_marks(tree, t, leaf, recorded)

    @njit(_nrt=False)  # type: ignore[call-overload]  # _nrt: a numba option missing from its stubs
    def remove_virtual(tree, t, leaf):
        node = leaf
        while node >= 0:
            tree.nodes[t, node, VIRTUAL] -= 1
            node = tree.nodes[t, node, PARENT]

    @njit
    def select_batch(tree, params, rng, budget, done, leaves, owners, rows, leaf_states):
        """Runs up to ``budget[t]`` simulations in every tree ``t``, selecting up to ``len(leaves) // T``
        leaves with virtual losses. Leaf ``j`` is node ``leaves[j]`` of tree ``owners[j]``; ``rows[j]`` is
        its row in ``leaf_states`` (the states to evaluate) or -1 for a terminal or solved leaf. A tree's
        batch ends early when a descent reaches a leaf already awaiting evaluation (its virtual losses are
        removed) and at once when its root is solved. Leaves below the expansion threshold (with
        ``playout_value``) are valued and backed up here, their simulations counted in ``done``.
        Returns ``(leaves, rows)`` filled."""
        num_trees = tree.nodes.shape[0]
        per_tree = leaves.shape[0] // num_trees
        solver = params[P_SOLVER] != 0.0
        threshold = params[P_EXPANSION]
        count = evaluations = 0
        for t in range(num_trees):
            if solver and tree.nodes[t, 0, SOLVED] != 0:
                budget[t] = 0
            selected = simulations = 0
            while selected < per_tree and simulations < budget[t]:
                leaf = select(tree, t, params, rng)
                known = tree.states[t, leaf, 0] == TERMINAL or tree.nodes[t, leaf, SOLVED] != 0
                if has_playouts and not known and leaf != 0 and tree.nodes[t, leaf, VISITS] + 1 < threshold:
                    result, _ = leaf_playout(state_of(tree, t, leaf), rng, tree.actions, tree.probs, 1, tree.moves)
                    backup(tree, t, leaf, result, solver)
                    simulations += 1
                    continue
                if not known and tree.nodes[t, leaf, VIRTUAL] > 1:
                    remove_virtual(tree, t, leaf)
                    break
                leaves[count], owners[count], rows[count] = leaf, t, -1
                if not known:
                    rows[count] = evaluations
                    leaf_states[evaluations] = tree.states[t, leaf]
                    evaluations += 1
                count += 1
                selected += 1
                simulations += 1
            budget[t] -= simulations
            done[t] += simulations
        return count, evaluations

    @njit(_nrt=False)  # type: ignore[call-overload]  # _nrt: a numba option missing from its stubs
    def expand_and_backup_batch(tree, solver, count, leaves, owners, rows, values, priors, use_priors):
        """Finishes a batch of simulations: ``values[rows[j]]`` (from the side to move, clipped to
        [-1, 1]) and ``priors[rows[j]]`` (over the game's actions, when ``use_priors``) for the evaluated
        leaves, the known value for the others; the MCTS-solver proves nodes when ``solver``."""
        for j in range(count):
            t, leaf, row = owners[j], leaves[j], rows[j]
            if row < 0:
                _, result = known_value(tree, t, leaf)
            else:
                s = state_of(tree, t, leaf)
                if use_priors:
                    expand_with_priors(tree, t, leaf, s, priors[row])
                else:
                    expand(tree, t, leaf, s)
                value = min(1.0, max(-1.0, values[row]))
                result = value if s[0] == 0 else -value
            backup(tree, t, leaf, result, solver)

    return TreeOps(
        select,
        expand,
        known_value,
        backup,
        amaf_backup,
        path_keys,
        cache_closure(select_batch),
        cache_closure(expand_and_backup_batch),
    )
