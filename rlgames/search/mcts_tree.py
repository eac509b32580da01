"""The compiled Monte Carlo search tree: nodes in preallocated arrays, generic over a game's kernels.

A `Tree` holds ``T`` trees side by side (one per self-play game; ``T = 1`` for a single search), each
with room for ``N`` nodes. Node 0 of every tree is its root; the children of a node are contiguous, in
the order of the kernels' ``legal_actions`` (chance outcomes at a chance node). The arrays are reused
from one search to the next (`reset_root`) and grow by copying (`grow`) when a search needs more room.

Points of view. ``nodes[t, i, POV]`` is the player whose statistics node ``i`` keeps: the player who
moved into it (for an outcome of a chance node, the player who moved into the chance node; for a root,
the side to move there). ``stats[t, i, VALUE]`` sums the simulation results from that player's point of
view, and ``PROVEN`` (MCTS-solver) is ``2 + `` the proven result for that player (-1, 0 or 1), or
``UNPROVEN``. Backups carry player 0's result and add it with the sign of each node's ``POV``, so that
a change of mover is handled exactly where it happens and nowhere else (pig keeps the mover after a
roll; connect four and othello, whose pass is a move, alternate).

A simulation (`make_tree_ops`):

1. **select** descends from the root. At a decision node it takes the child of highest score -- UCB1
   (Kocsis & Szepesvari 2006) or PUCT (Silver et al. 2018) -- with unvisited children first under UCB1,
   and a proven child scored by its proven result. At a chance node it expands every outcome (priors =
   probabilities) on the first visit and samples one with the compiled PRNG in proportion to its
   probability (so that the outcome nodes' visits follow the distribution and a chance node's mean
   estimates the expectation). A child's compact state is computed on its first visit. The descent stops
   at a terminal node, a proven node, or an unexpanded decision node: the leaf. Every node on the path
   gets a virtual loss once the descent has left it: later descents count it as a visit lost by its
   ``POV`` player until the backup removes it. A descent never sees its own virtual losses, so a lone
   simulation is unaffected by them and only the batched descents (`select_batch`) are spread out.
2. The leaf is **evaluated** (a terminal's result, a proven value, random rollouts, an evaluator kernel,
   or a batched network call) and, unless terminal or proven, **expanded** with the evaluator's priors
   over its legal actions (uniform without them).
3. **backup** adds the result to every node on the path and, with the solver, proves nodes upward
   (Winands, Bjornsson & Saito 2008): a node with a child proven winning for its mover is a proven win,
   one whose children are all proven takes the best of them, a chance node whose outcomes are all proven
   equal takes that value.
"""

from __future__ import annotations

import functools
import math
from typing import Callable, NamedTuple, Sequence

import numpy as np
from numba import njit
from numba.np.unsafe.ndarray import to_fixed_tuple

from rlgames.game import CHANCE, TERMINAL, CompactState, Game, GameKernels, State
from rlgames.search.rng import uniform

# Columns of `Tree.nodes`.
PARENT, ACTION, FIRST, COUNT, VISITS, VIRTUAL, POV, PROVEN, READY = range(9)
NODE_COLUMNS = 9
# Columns of `Tree.stats`.
VALUE, PRIOR = 0, 1
STAT_COLUMNS = 2
# Columns of `Tree.meta`.
SIZE, MAX_DEPTH = 0, 1
META_COLUMNS = 2
# Codes of the PROVEN column: 2 + the proven result for the node's POV player.
UNPROVEN, PROVEN_LOSS, PROVEN_DRAW, PROVEN_WIN = 0, 1, 2, 3
# Slots of the search parameters (float64), set by the driver.
P_C, P_C_BASE, P_PUCT, P_SOLVER, P_UNVISITED, P_ROLLOUTS = range(6)
NUM_PARAMS = 6


class Tree(NamedTuple):
    """``T`` trees of ``N`` nodes; ``S`` is the compact-state length, ``A`` the game's ``max_actions``.

    * ``nodes`` int64[T, N, 9]: parent, action (the outcome under a chance node), first child (-1 until
      expanded), number of children, visits, virtual losses, POV player, PROVEN code, state-ready flag;
    * ``stats`` float64[T, N, 2]: value sum (for the POV player) and prior;
    * ``states`` int64[T, N, S]: compact states (valid once READY);
    * ``meta`` int64[T, 2]: nodes in use, deepest selection of the current search;
    * ``actions`` int64[A], ``probs`` float64[A]: scratch buffers for the kernels.
    """

    nodes: np.ndarray
    stats: np.ndarray
    states: np.ndarray
    meta: np.ndarray
    actions: np.ndarray
    probs: np.ndarray


class TreeOps(NamedTuple):
    """The compiled operations of `make_tree_ops` (see the module docstring)."""

    select: Callable[..., int]
    expand: Callable[..., None]
    known_value: Callable[..., tuple[bool, float]]
    backup: Callable[..., None]
    select_batch: Callable[..., tuple[int, int]]
    expand_and_backup_batch: Callable[..., None]
    compact_subtree: Callable[..., int]


def new_tree(num_trees: int, capacity: int, state_size: int, max_actions: int) -> Tree:
    """Empty trees (no root yet: ``meta[t, SIZE] == 0``) with room for ``capacity`` nodes each."""
    return Tree(
        nodes=np.zeros((num_trees, capacity, NODE_COLUMNS), dtype=np.int64),
        stats=np.zeros((num_trees, capacity, STAT_COLUMNS), dtype=np.float64),
        states=np.zeros((num_trees, capacity, state_size), dtype=np.int64),
        meta=np.zeros((num_trees, META_COLUMNS), dtype=np.int64),
        actions=np.zeros(max_actions, dtype=np.int64),
        probs=np.zeros(max_actions, dtype=np.float64),
    )


def grow(tree: Tree, capacity: int) -> Tree:
    """The same trees in arrays of ``capacity`` nodes each (copied; ``capacity`` >= the nodes in use)."""
    def widen(array: np.ndarray) -> np.ndarray:
        wider = np.zeros((array.shape[0], capacity) + array.shape[2:], dtype=array.dtype)
        wider[:, : array.shape[1]] = array
        return wider

    return tree._replace(nodes=widen(tree.nodes), stats=widen(tree.stats), states=widen(tree.states))


def reset_root(tree: Tree, t: int, compact: CompactState) -> None:
    """Makes tree ``t`` a lone root at ``compact`` whose statistics are kept for its side to move."""
    tree.nodes[t, 0] = (-1, -1, -1, 0, 0, 0, max(compact[0], 0), UNPROVEN, 1)
    tree.stats[t, 0] = 0.0
    tree.states[t, 0] = compact
    tree.meta[t] = (1, 0)


def children(tree: Tree, t: int, node: int) -> slice:
    """The slots of ``node``'s children in tree ``t`` (empty while it is unexpanded)."""
    first = int(tree.nodes[t, node, FIRST])
    return slice(first, first + int(tree.nodes[t, node, COUNT])) if first >= 0 else slice(0, 0)


def root_visit_counts(tree: Tree, t: int, num_actions: int) -> np.ndarray:
    """int64[num_actions]: the visits of each root action of tree ``t`` (0 where unexpanded)."""
    counts = np.zeros(num_actions, dtype=np.int64)
    root_children = children(tree, t, 0)
    counts[tree.nodes[t, root_children, ACTION]] = tree.nodes[t, root_children, VISITS]
    return counts


def check_roots(states: Sequence[State], search: str) -> Game:
    """The game of ``states``, which must be non-empty, of one game, and each with a player to move."""
    if not states:
        raise ValueError("search_many needs at least one state")
    game = states[0].game
    for state in states:
        if state.game != game:
            raise ValueError("search_many: every state must be of the same game")
        if state.is_terminal() or state.is_chance_node():
            raise ValueError(f"{search} needs a root where a player is to move (not terminal, not chance)")
    return game


@njit(cache=True)
def ucb1(total_utility: float, visits: float, parent_visits: float, c: float) -> float:
    """UCB1 as in the notes: ``U(n) / N(n) + C * sqrt(ln N(parent) / N(n))`` (Auer et al. 2002, used
    for trees by Kocsis & Szepesvari 2006); ``visits`` must be positive."""
    return ucb1_from_log(total_utility, visits, math.log(parent_visits), c)


@njit(cache=True)
def ucb1_from_log(total_utility: float, visits: float, log_parent_visits: float, c: float) -> float:
    """`ucb1` given ``ln N(parent)``, which selection computes once for all the children."""
    return total_utility / visits + c * math.sqrt(log_parent_visits / visits)


@njit(cache=True)
def puct_score(q: float, prior: float, visits: float, parent_visits: float, c: float) -> float:
    """AlphaZero's ``Q + c * P * sqrt(N(parent)) / (1 + N(child))`` (Silver et al. 2018)."""
    return q + c * prior * math.sqrt(parent_visits) / (1.0 + visits)


@njit(cache=True)
def puct_c(parent_visits: float, c_init: float, c_base: float) -> float:
    """AlphaZero's exploration rate ``c_init + log((1 + N + c_base) / c_base)``; ``c_init`` when
    ``c_base`` is 0 (a constant ``c_puct``)."""
    if c_base <= 0.0:
        return c_init
    return c_init + math.log((1.0 + parent_visits + c_base) / c_base)


@functools.cache
def make_tree_ops(kernels: GameKernels, state_size: int) -> TreeOps:
    """The compiled tree operations for one game whose compact states have ``state_size`` slots,
    compiled on first call and kept for the process (numba does not cache closures on disk).

    The operations called once or more per simulation are inlined (``inline="always"``): a call that
    passes the `Tree` costs an atomic reference-count increment and decrement for each of its arrays,
    which inlining avoids (``benchmarks/bench_mcts.py`` measures the simulation rate)."""
    legal_actions = kernels.legal_actions
    apply = kernels.apply
    chance_outcomes = kernels.chance_outcomes
    S = state_size

    @njit(inline="always")
    def state_of(tree, t, node):
        return to_fixed_tuple(tree.states[t, node], S)

    @njit
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
        nodes[t, node, FIRST] = first
        nodes[t, node, COUNT] = n
        tree.meta[t, SIZE] = first + n
        return first

    @njit
    def add_moves(tree, t, node, s):
        """Adds the children of decision node ``node`` (state ``s``) without priors; returns their count."""
        n = legal_actions(s, tree.actions)
        if n == 0:
            raise ValueError("MCTS: a non-terminal state has no legal action")
        first = add_children(tree, t, node, n, s[0])
        for i in range(n):
            tree.nodes[t, first + i, ACTION] = tree.actions[i]
        return n

    @njit(inline="always")
    def expand(tree, t, node, s):
        """Expands decision node ``node`` with uniform priors."""
        n = add_moves(tree, t, node, s)
        first = tree.nodes[t, node, FIRST]
        for c in range(first, first + n):
            tree.stats[t, c, PRIOR] = 1.0 / n

    @njit
    def expand_with_priors(tree, t, node, s, priors):
        """Expands decision node ``node`` with ``priors[action]`` renormalised over the legal actions
        (negative entries count as 0; uniform if none is positive)."""
        n = add_moves(tree, t, node, s)
        first = tree.nodes[t, node, FIRST]
        total = 0.0
        for c in range(first, first + n):
            total += max(priors[tree.nodes[t, c, ACTION]], 0.0)
        for c in range(first, first + n):
            prior = max(priors[tree.nodes[t, c, ACTION]], 0.0)
            tree.stats[t, c, PRIOR] = prior / total if total > 0.0 else 1.0 / n

    @njit
    def expand_chance(tree, t, node, s):
        n = chance_outcomes(s, tree.actions, tree.probs)
        first = add_children(tree, t, node, n, tree.nodes[t, node, POV])
        for i in range(n):
            tree.nodes[t, first + i, ACTION] = tree.actions[i]
            tree.stats[t, first + i, PRIOR] = tree.probs[i]

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
    def best_child(tree, t, node, params):
        """The child of highest UCB1 or PUCT score; virtual losses count as lost visits."""
        nodes, stats = tree.nodes, tree.stats
        parent_visits = max(float(nodes[t, node, VISITS] + nodes[t, node, VIRTUAL]), 1.0)
        puct = params[P_PUCT] != 0.0
        c = puct_c(parent_visits, params[P_C], params[P_C_BASE]) if puct else params[P_C]
        log_parent_visits = math.log(parent_visits)
        first = nodes[t, node, FIRST]
        best, best_score = first, -math.inf
        for child in range(first, first + nodes[t, node, COUNT]):
            proven = nodes[t, child, PROVEN]
            virtual = nodes[t, child, VIRTUAL]
            visits = float(nodes[t, child, VISITS] + virtual)
            total = stats[t, child, VALUE] - virtual
            if proven != UNPROVEN:
                score = float(proven - PROVEN_DRAW)
            elif puct:
                q = total / visits if visits > 0.0 else params[P_UNVISITED]
                score = puct_score(q, stats[t, child, PRIOR], visits, parent_visits, c)
            elif visits == 0.0:
                score = math.inf
            else:
                score = ucb1_from_log(total, visits, log_parent_visits, c)
            if score > best_score:
                best, best_score = child, score
        return best

    @njit(inline="always")
    def select(tree, t, params, rng):
        """The leaf reached from the root of tree ``t``; adds a virtual loss to every node on the path."""
        nodes, states = tree.nodes, tree.states
        node, depth = 0, 0
        while True:
            s = state_of(tree, t, node)
            if s[0] == TERMINAL or (node != 0 and nodes[t, node, PROVEN] != UNPROVEN):
                break
            if nodes[t, node, FIRST] < 0:
                if s[0] != CHANCE:
                    break
                expand_chance(tree, t, node, s)
            child = sample_outcome(tree, t, node, rng) if s[0] == CHANCE else best_child(tree, t, node, params)
            nodes[t, node, VIRTUAL] += 1
            if nodes[t, child, READY] == 0:
                s2 = apply(s, nodes[t, child, ACTION])
                for i in range(S):
                    states[t, child, i] = s2[i]
                nodes[t, child, READY] = 1
            node = child
            depth += 1
        nodes[t, node, VIRTUAL] += 1
        tree.meta[t, MAX_DEPTH] = max(tree.meta[t, MAX_DEPTH], depth)
        return node

    @njit
    def known_value(tree, t, leaf):
        """``(True, player 0's result)`` for a terminal or proven leaf, ``(False, 0.0)`` otherwise."""
        if tree.states[t, leaf, 0] == TERMINAL:
            return True, float(tree.states[t, leaf, 1])
        proven = tree.nodes[t, leaf, PROVEN]
        if proven == UNPROVEN:
            return False, 0.0
        result = float(proven - PROVEN_DRAW)
        return True, result if tree.nodes[t, leaf, POV] == 0 else -result

    @njit(inline="always")
    def try_prove(tree, t, node):
        """Marks ``node`` proven if its children's proven results decide it; returns whether it did."""
        nodes = tree.nodes
        mover = tree.states[t, node, 0]
        first, count = nodes[t, node, FIRST], nodes[t, node, COUNT]
        if mover == CHANCE:
            code = nodes[t, first, PROVEN]
            for child in range(first, first + count):
                if nodes[t, child, PROVEN] != code:
                    return False
        else:
            code, complete = UNPROVEN, True
            for child in range(first, first + count):  # children keep the mover's point of view
                proven = nodes[t, child, PROVEN]
                complete = complete and proven != UNPROVEN
                code = max(code, proven)
            if code != PROVEN_WIN and not complete:
                return False
            if nodes[t, node, POV] != mover:
                code = 2 * PROVEN_DRAW - code
        nodes[t, node, PROVEN] = code
        return code != UNPROVEN

    @njit(inline="always")
    def backup(tree, t, leaf, result, solver):
        """Adds player 0's ``result`` along the path from ``leaf`` and removes its virtual losses."""
        nodes, stats = tree.nodes, tree.stats
        if solver and tree.states[t, leaf, 0] == TERMINAL:
            for_pov = result if nodes[t, leaf, POV] == 0 else -result
            nodes[t, leaf, PROVEN] = PROVEN_DRAW + int(for_pov)
        proving = solver and nodes[t, leaf, PROVEN] != UNPROVEN
        node = leaf
        while node >= 0:
            stats[t, node, VALUE] += result if nodes[t, node, POV] == 0 else -result
            nodes[t, node, VISITS] += 1
            nodes[t, node, VIRTUAL] -= 1
            parent = nodes[t, node, PARENT]
            if proving and parent >= 0:
                proving = try_prove(tree, t, parent)
            node = parent

    @njit
    def remove_virtual(tree, t, leaf):
        node = leaf
        while node >= 0:
            tree.nodes[t, node, VIRTUAL] -= 1
            node = tree.nodes[t, node, PARENT]

    @njit
    def select_batch(tree, params, rng, budget, done, leaves, owners, rows, leaf_states):
        """Selects up to ``budget[t]`` leaves (at most ``len(leaves) // T``) in every tree ``t``, with
        virtual losses. Leaf ``j`` is node ``leaves[j]`` of tree ``owners[j]``; ``rows[j]`` is its row in
        ``leaf_states`` (the states to evaluate) or -1 for a terminal or proven leaf. A tree's batch ends
        early when a descent reaches a leaf already awaiting evaluation (its virtual losses are removed)
        and at once when its root is proven. Returns ``(leaves, rows)`` filled."""
        num_trees = tree.nodes.shape[0]
        per_tree = leaves.shape[0] // num_trees
        solver = params[P_SOLVER] != 0.0
        count = evaluations = 0
        for t in range(num_trees):
            if solver and tree.nodes[t, 0, PROVEN] != UNPROVEN:
                budget[t] = 0
            selected = 0
            while selected < min(per_tree, budget[t]):
                leaf = select(tree, t, params, rng)
                known = tree.states[t, leaf, 0] == TERMINAL or tree.nodes[t, leaf, PROVEN] != UNPROVEN
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
            budget[t] -= selected
            done[t] += selected
        return count, evaluations

    @njit
    def expand_and_backup_batch(tree, params, count, leaves, owners, rows, values, priors, use_priors):
        """Finishes the simulations of `select_batch`: ``values[rows[j]]`` (from the side to move, clipped
        to [-1, 1]) and ``priors[rows[j]]`` (over the game's actions, when ``use_priors``) for the
        evaluated leaves, the known result for the others."""
        solver = params[P_SOLVER] != 0.0
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

    @njit
    def compact_subtree(tree, t, root, nodes_out, stats_out, states_out, origin):
        """Copies the subtree of tree ``t`` under ``root`` into the ``*_out`` scratch arrays in
        breadth-first order (children stay contiguous), then back over tree ``t`` with ``root`` as node 0.
        ``origin`` is int64 scratch as long as the tree. Returns the new number of nodes."""
        nodes = tree.nodes
        origin[0] = root
        size, head = 1, 0
        while head < size:
            source = origin[head]
            nodes_out[head] = nodes[t, source]
            stats_out[head] = tree.stats[t, source]
            states_out[head] = tree.states[t, source]
            first, count = nodes[t, source, FIRST], nodes[t, source, COUNT]
            if first >= 0:
                nodes_out[head, FIRST] = size
                for i in range(count):
                    origin[size + i] = first + i
                size += count
            head += 1
        for i in range(size):
            nodes[t, i] = nodes_out[i]
            tree.stats[t, i] = stats_out[i]
            tree.states[t, i] = states_out[i]
        for i in range(size):  # parents from the renumbered children ranges
            first = nodes[t, i, FIRST]
            if first >= 0:
                for c in range(first, first + nodes[t, i, COUNT]):
                    nodes[t, c, PARENT] = i
        nodes[t, 0, PARENT] = -1
        nodes[t, 0, ACTION] = -1
        tree.meta[t, SIZE] = size
        return size

    return TreeOps(select, expand, known_value, backup, select_batch, expand_and_backup_batch, compact_subtree)


@functools.cache
def make_run(kernels: GameKernels, state_size: int, leaf_value: Callable[..., float]) -> Callable[..., int]:
    """A compiled ``run(tree, t, params, rng, n) -> simulations`` doing up to ``n`` whole simulations in
    tree ``t``, each leaf scored by ``leaf_value(s, rng, actions, probs, rollouts)`` (player 0's result
    from a decision state). It stops early once the root is proven (with the solver) or when fewer than
    `reserve_per_simulation` free nodes remain (the driver grows the tree and calls again)."""
    ops = make_tree_ops(kernels, state_size)
    select, expand, known_value, backup = ops.select, ops.expand, ops.known_value, ops.backup
    evaluate = leaf_value
    S = state_size
    reserve = reserve_per_simulation(kernels)

    @njit
    def run(tree, t, params, rng, n):
        solver = params[P_SOLVER] != 0.0
        rollouts = int(params[P_ROLLOUTS])
        capacity = tree.nodes.shape[1]
        done = 0
        while done < n:
            if solver and tree.nodes[t, 0, PROVEN] != UNPROVEN:
                break
            if tree.meta[t, SIZE] + reserve > capacity:
                break
            leaf = select(tree, t, params, rng)
            known, result = known_value(tree, t, leaf)
            if not known:
                s = to_fixed_tuple(tree.states[t, leaf], S)
                expand(tree, t, leaf, s)
                result = evaluate(s, rng, tree.actions, tree.probs, rollouts)
            backup(tree, t, leaf, result, solver)
            done += 1
        return done

    return run


def reserve_per_simulation(kernels: GameKernels) -> int:
    """Free nodes kept for one simulation: the leaf's children plus two chance nodes' outcomes on the
    way (a chance node leading straight to another chance node is rare; deeper chains raise)."""
    return 3 * kernels.max_actions
