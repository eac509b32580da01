"""Room in MCTS's trees for a search's simulations, planned against its deadline.

The trees grow by copying into arrays twice as large (`rlgames.search.mcts.tree.grow`), which a timed
search must fit before its deadline. Copying into memory the process has not touched before ran at
~0.7 GB/s on the 2-core machines here, where the first touch of each page is the cost (15 GB/s into
memory touched before), so the last growth's pace did not predict the next: a tree of 1M connect four
nodes (120 MB) took 0.17 s to double where the doubling before had taken 0.01 s. So `TreeRoom` plans
a growth at the slower of the last one's pace and `FRESH_MEMORY_SECONDS_PER_BYTE`, grows the trees at
the start of a timed search to what the last one's expansion adds by the deadline (paid out of that
move's time, once a doubling, where the plan takes at most half of it; the new arrays' bytes priced,
`grown_bytes`), and otherwise lets a search without time to grow go on without
expanding its leaves (`rlgames.search.mcts.run.make_run`). It also keeps the scratch of moving a root
(`compact_subtree`), so that moving one touches no fresh memory either.
"""

from __future__ import annotations

import time

import numpy as np

from rlgames.search.mcts.tree import SIZE, Tree, compact_subtree, grow

FRESH_MEMORY_SECONDS_PER_BYTE = 1.5e-9
"""The slowest pace of growth planned for, per byte of tree copied (see the module docstring)."""


class TreeRoom:
    """When a search's trees grow: the pace of the last growth and of the last timed search's expansion.
    ``reserve`` is the free nodes a simulation needs (`rlgames.search.mcts.tree.reserve_per_simulation`)."""

    def __init__(self, reserve: int) -> None:
        self.reserve = reserve
        self._seconds_per_byte = FRESH_MEMORY_SECONDS_PER_BYTE
        self._nodes_per_second = 0.0
        self._renumbered = np.empty(0, dtype=np.int64)

    def for_search(self, tree: Tree, deadline: float) -> Tree:
        """The trees, grown to hold what the last timed search's pace of expansion adds by ``deadline``
        where that fits before it."""
        now = time.perf_counter()
        expected = int(tree.meta[:, SIZE].max() + self._nodes_per_second * (deadline - now))
        if expected <= tree.nodes.shape[1]:
            return tree
        grown = self._grown(tree, expected, now + (deadline - now) / 2)  # half the move's time at most
        return tree if grown is None else grown

    def searched(self, tree: Tree, sizes: np.ndarray, seconds: float) -> None:
        """Records a timed search's pace of expansion: the trees had ``sizes`` nodes ``seconds`` ago."""
        self._nodes_per_second = (tree.meta[:, SIZE] - sizes).max() / max(seconds, 1e-3)

    def for_simulations(self, tree: Tree, simulations_per_tree: int, deadline: float) -> Tree | None:
        """The trees with room for that many more simulations each (grown, doubling at least, where they
        had not), or None where growing them would not end before ``deadline``."""
        needed = int(tree.meta[:, SIZE].max()) + simulations_per_tree * self.reserve
        return tree if needed <= tree.nodes.shape[1] else self._grown(tree, needed, deadline)

    def move_root(self, tree: Tree, t: int, child: int) -> None:
        """Makes node ``child`` of tree ``t`` its root, keeping its subtree (`compact_subtree`)."""
        if len(self._renumbered) < tree.meta[t, SIZE]:
            self._renumbered = np.empty(tree.nodes.shape[1], dtype=np.int64)
        compact_subtree(tree, t, child, self._renumbered)

    def _grown(self, tree: Tree, needed: int, deadline: float) -> Tree | None:
        """The trees grown to at least ``needed`` nodes each (doubling at least), or None where, at the
        pace planned, that would end after ``deadline``."""
        capacity = max(2 * tree.nodes.shape[1], needed)
        size = grown_bytes(tree, capacity)
        if time.perf_counter() + self._seconds_per_byte * size > deadline:
            return None
        started = time.perf_counter()
        grown = grow(tree, capacity)
        self._seconds_per_byte = max(FRESH_MEMORY_SECONDS_PER_BYTE, (time.perf_counter() - started) / size)
        return grown


def grown_bytes(tree: Tree, capacity: int) -> int:
    """The bytes of the arrays that `grow` allocates (and first touches) for ``capacity`` nodes a tree:
    the pace of a growth is per byte of the new arrays, which may be many times the old ones where a
    search's expansion is fast (go's 80-odd children a node)."""
    per_node = tree.nodes.nbytes + tree.stats.nbytes + tree.states.nbytes
    return per_node * capacity // tree.nodes.shape[1]
