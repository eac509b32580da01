"""The Monte Carlo search tree's arrays: ``T`` trees of preallocated nodes, side by side.

One `Tree` holds a tree per self-play game (``T = 1`` for a single search), each with room for ``N``
nodes, so that compiled code walks plain arrays and many searches share one evaluator batch. Node 0 of
every tree is its root; the children of a node are contiguous, in the order of the kernels'
``legal_actions`` (chance outcomes at a chance node). The arrays are reused from one search to the next
(`reset_root`) and grow by copying (`grow`). The operations on them are `rlgames.search.mcts.ops`'.

Points of view. ``nodes[t, i, POV]`` is the player whose statistics node ``i`` keeps: the player who
moved into it (for an outcome of a chance node, the player who moved into the chance node; for a root,
the side to move there). ``stats[t, i, VALUE]`` sums the simulation results, values in [-1, 1], from
that player's point of view, and a node the MCTS-solver proved (``nodes[t, i, SOLVED] == 1``) keeps its
exact value for that player in ``stats[t, i, SOLVED_VALUE]`` (a return divided by the game's largest
return, so that ±2 games keep their 1-point wins apart from their 2-point ones).

All moves as first (RAVE). ``nodes[t, i, AMAF_VISITS]`` and ``stats[t, i, AMAF_VALUE]`` count the
simulations through node ``i``'s parent in which its action was played later by the same player, in the
tree or in the playout, and sum their results for that player (Gelly & Silver 2007); they stay 0 unless
the search asks for them (`MCTSConfig.rave`).

Histories. In a game with a ``repetition`` kernel, ``keys[t, :meta[t, HISTORY]]`` holds the keys of the
positions before tree ``t``'s root (`State.history`), oldest first; the operations append the keys of a
node's path behind them when they judge its children.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
from numba import njit

from rlgames.game import Game, GameKernels, State

# Columns of `Tree.nodes`.
PARENT, ACTION, FIRST, COUNT, VISITS, VIRTUAL, POV, SOLVED, READY, AMAF_VISITS = range(10)
NODE_COLUMNS = 10
# Columns of `Tree.stats`.
VALUE, PRIOR, SOLVED_VALUE, AMAF_VALUE = range(4)
STAT_COLUMNS = 4
# Columns of `Tree.meta`.
SIZE, DEEPEST, HISTORY = range(3)
META_COLUMNS = 3


class Tree(NamedTuple):
    """``T`` trees of ``N`` nodes; ``S`` is the compact-state length, ``A`` the game's ``max_actions``.

    * ``nodes`` int64[T, N, 10]: parent, action (the outcome under a chance node), first child (-1 until
      expanded), number of children, visits, virtual losses, POV player, solved flag, state-ready flag,
      all-moves-as-first visits;
    * ``stats`` float64[T, N, 4]: value sum, prior, solved value and all-moves-as-first value sum (the
      sums and the solved value for the POV player);
    * ``states`` int64[T, N, S]: compact states (valid once READY);
    * ``meta`` int64[T, 3]: nodes in use, deepest descent of the current search, history length;
    * ``keys`` int64[T, K]: each root's history, then room for the keys of a path (games with a
      ``repetition`` kernel; ``K = 0`` otherwise);
    * ``actions`` int64[A], ``probs`` float64[A]: scratch buffers for the kernels and the selection;
    * ``moves`` int64[M]: a playout's moves (``GameKernels.playout``'s ``moves``), ``M = 0`` without RAVE;
    * ``played`` int8[2, num_actions]: scratch marks of the actions each player played in a simulation
      (RAVE's; ``[2, 0]`` without it).
    """

    nodes: np.ndarray
    stats: np.ndarray
    states: np.ndarray
    meta: np.ndarray
    keys: np.ndarray
    actions: np.ndarray
    probs: np.ndarray
    moves: np.ndarray
    played: np.ndarray


def new_tree(
    num_trees: int,
    capacity: int,
    state_size: int,
    max_actions: int,
    key_room: int = 0,
    *,
    num_actions: int = 0,
    playout_room: int = 0,
) -> Tree:
    """Empty trees (no root yet: ``meta[t, SIZE] == 0``) with room for ``capacity`` nodes each,
    ``key_room`` keys of history and path, and, for RAVE, ``playout_room`` moves of a playout over
    ``num_actions`` actions."""
    return Tree(
        nodes=np.zeros((num_trees, capacity, NODE_COLUMNS), dtype=np.int64),
        stats=np.zeros((num_trees, capacity, STAT_COLUMNS), dtype=np.float64),
        states=np.zeros((num_trees, capacity, state_size), dtype=np.int64),
        meta=np.zeros((num_trees, META_COLUMNS), dtype=np.int64),
        keys=np.zeros((num_trees, key_room), dtype=np.int64),
        actions=np.zeros(max_actions, dtype=np.int64),
        probs=np.zeros(max_actions, dtype=np.float64),
        moves=np.zeros(playout_room, dtype=np.int64),
        played=np.zeros((2, num_actions), dtype=np.int8),
    )


def grow(tree: Tree, capacity: int) -> Tree:
    """The same trees in arrays of ``capacity`` nodes each (copied; ``capacity`` >= the nodes in use), all of
    their memory touched: ``np.zeros`` maps fresh pages lazily, which moved the cost of their first touch
    into the next search's simulations, past the growth's timing and its plan."""

    def widen(array: np.ndarray) -> np.ndarray:
        wider = np.empty((array.shape[0], capacity) + array.shape[2:], dtype=array.dtype)
        wider[:, : array.shape[1]] = array
        wider[:, array.shape[1] :] = 0  # every page touched here, where `TreeRoom` times it, not in a search
        return wider

    return tree._replace(nodes=widen(tree.nodes), stats=widen(tree.stats), states=widen(tree.states))


def key_room(game: Game, states: Sequence[State]) -> int:
    """Keys a tree needs for the longest history of ``states`` and a path to the end of the game (0
    for a game without a ``repetition`` kernel)."""
    if not game.kernels.provides("repetition"):
        return 0
    return max(len(state.history()) for state in states) + game.max_game_length + 2


def with_key_room(tree: Tree, room: int) -> Tree:
    """``tree`` with at least ``room`` keys per tree (copied into arrays at least twice as wide when it
    has fewer, so that a history growing by a move a search copies them rarely)."""
    if tree.keys.shape[1] >= room:
        return tree
    keys = np.zeros((tree.keys.shape[0], max(room, 2 * tree.keys.shape[1])), dtype=np.int64)
    keys[:, : tree.keys.shape[1]] = tree.keys
    return tree._replace(keys=keys)


def reset_root(tree: Tree, t: int, compact: Sequence[int], history: Sequence[int] = ()) -> None:
    """Makes tree ``t`` a lone root at ``compact`` whose statistics are kept for its side to move;
    ``history`` (the keys of the positions before it) must fit in ``tree.keys``."""
    tree.nodes[t, 0] = (-1, -1, -1, 0, 0, 0, max(compact[0], 0), 0, 1, 0)
    tree.stats[t, 0] = 0.0
    tree.states[t, 0] = compact
    tree.meta[t] = (1, 0, len(history))
    tree.keys[t, : len(history)] = history


def set_history(tree: Tree, t: int, history: Sequence[int]) -> None:
    """Replaces the history of tree ``t``'s root (which must fit in ``tree.keys``)."""
    tree.meta[t, HISTORY] = len(history)
    tree.keys[t, : len(history)] = history


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
    """The game of ``states``, which must be non-empty, of one game, and each with a player to move; not a
    game that adds decisions taken by formula (`Game.network_game` differs: backgammon with the cube), whose
    settled states and stakes only expectiminimax reads."""
    if not states:
        raise ValueError("search_many needs at least one state")
    game = states[0].game
    if game.network_game() != game:
        raise ValueError(f"{search} does not play {game!r}: it takes decisions by formula (use expectiminimax)")
    for state in states:
        if state.game != game:
            raise ValueError("search_many: every state must be of the same game")
        if state.is_terminal() or state.is_chance_node():
            raise ValueError(f"{search} needs a root where a player is to move (not terminal, not chance)")
    return game


def reserve_per_simulation(kernels: GameKernels) -> int:
    """Free nodes kept for one simulation: the leaf's children plus two chance nodes' outcomes on the
    way (a chance node leading straight to another chance node is rare; deeper chains raise)."""
    return 3 * kernels.max_actions


@njit(cache=True)
def compact_subtree(tree, t, root, renumbered):
    """Makes the subtree of tree ``t`` under ``root`` the whole tree, with ``root`` as node 0, in place:
    its nodes keep their order, so each moves down (or stays) and children stay contiguous.
    ``renumbered`` is int64 scratch as long as the nodes in use. Returns the new number of nodes.

    One ascending sweep finds the subtree, since a node is expanded after its parent (the parent's
    index is the smaller). No copy of the tree is made: writing one into memory the process had not
    touched before cost more than the search when a timed search moved its root."""
    nodes, stats, states = tree.nodes[t], tree.stats[t], tree.states[t]
    kept = 0
    for i in range(root, tree.meta[t, SIZE]):
        parent = nodes[i, PARENT]
        if i > root and (parent < root or renumbered[parent] < 0):
            renumbered[i] = -1
            continue
        renumbered[i] = kept
        nodes[kept] = nodes[i]
        stats[kept] = stats[i]
        states[kept] = states[i]
        kept += 1
    for i in range(kept):
        if nodes[i, FIRST] >= 0:
            nodes[i, FIRST] = renumbered[nodes[i, FIRST]]
        nodes[i, PARENT] = renumbered[nodes[i, PARENT]] if i else -1
    nodes[0, ACTION] = -1
    tree.meta[t, SIZE] = kept
    return kept
