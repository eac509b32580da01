"""What the tree searches' Python drivers share: the trees of many root states kept side by side
(`TreeDriver`, under `MultiTreeMCTS` and `MultiTreeGumbel`), the evaluator's batch call, and the
one-tree wrappers (`OneTree`, under `MCTS` and `Gumbel`).

A root keeps its `State`, so that a game whose rules look at earlier positions gives its history to the
compiled operations (`mcts_tree.reset_root`) and a tree is reused only for the same position reached by
the same history."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from rlgames.evaluators.base import Evaluator
from rlgames.game import Game, State
from rlgames.search.mcts.tree import (
    Tree,
    check_roots,
    children,
    key_room,
    reset_root,
    root_visit_counts,
    with_key_room,
)


class TreeDriver:
    """The trees of `search_many`'s states, one per state, and the evaluator that values their leaves.
    Subclasses set ``config`` and ``evaluator`` and build the trees for a game in ``_build``."""

    config: Any
    evaluator: Evaluator | None
    _game: Game | None = None
    _tree: Tree | None = None
    _roots: list[State | None]
    _stopped: bool = False

    def stop(self) -> None:
        """Asks the running search (from another thread) to end after its current chunk of simulations
        (MCTS: a search of `rlgames.search.mcts.puct.UNLIMITED` simulations and no time limit runs until
        then); a search that plans its simulations ahead (Gumbel's Sequential Halving) runs them all."""
        self._stopped = True

    def seed(self, seed: int) -> None:
        """Restarts the PRNG from ``seed``."""
        raise NotImplementedError

    def reset(self) -> None:
        """Forgets the trees: the next search starts afresh."""
        raise NotImplementedError

    def root_visit_counts(self, index: int = 0) -> np.ndarray:
        """int64[num_actions]: the visits of each root action of tree ``index`` (0 if unexpanded)."""
        assert self._tree is not None and self._game is not None, "no trees: search first"
        return root_visit_counts(self._tree, index, self._game.num_actions)

    def _build(self, game: Game, num_trees: int) -> None:
        raise NotImplementedError

    def _trees_for(self, states: Sequence[State], search: str) -> Game:
        """Checks the roots (`check_roots`), builds the trees when the game or their number changed, and
        makes room for the roots' histories; returns the game."""
        game = check_roots(states, search)
        if self._tree is None or game != self._game or self._tree.meta.shape[0] != len(states):
            self._build(game, len(states))
            self._roots = [None] * len(states)
        assert self._tree is not None  # built now or before
        self._tree = with_key_room(self._tree, key_room(game, states))
        return game

    def _set_root(self, t: int, state: State) -> None:
        """Makes tree ``t`` a lone root at ``state``, with its history."""
        assert self._tree is not None  # built by `_trees_for`
        reset_root(self._tree, t, state.compact, state.history())
        self._roots[t] = state

    def _children(self, t: int, node: int) -> slice:
        assert self._tree is not None  # built by `_trees_for`
        return children(self._tree, t, node)

    def _evaluate(self, leaf_states: np.ndarray) -> tuple[np.ndarray, np.ndarray, bool]:
        """``(values, priors, use_priors)`` of the evaluator for a batch of compact states; no rows of
        priors when there are no states or the evaluator gives none."""
        game, n, evaluator = self._game, len(leaf_states), self.evaluator
        assert game is not None and evaluator is not None  # built; a batched search has an evaluator
        no_priors = np.zeros((0, game.num_actions))
        if n == 0:
            return np.zeros(0), no_priors, False
        states = [game.state_class(game, tuple(row)) for row in leaf_states.tolist()]
        values, priors = evaluator.evaluate_batch(states)
        values = np.ascontiguousarray(values, dtype=np.float64)
        if values.shape != (n,):
            raise ValueError(f"evaluate_batch returned values of shape {values.shape}, expected ({n},)")
        if priors is None:
            return values, no_priors, False
        priors = np.ascontiguousarray(priors, dtype=np.float64)
        if priors.shape != (n, game.num_actions):
            raise ValueError(
                f"evaluate_batch returned priors of shape {priors.shape}, expected ({n}, {game.num_actions})"
            )
        return values, priors, True


class OneTree:
    """A search from one state at a time: a `TreeDriver` of one tree, ``self._trees``."""

    def __init__(self, trees: TreeDriver) -> None:
        self._trees = trees

    @property
    def config(self) -> Any:
        return self._trees.config

    @property
    def evaluator(self) -> Evaluator | None:
        return self._trees.evaluator

    def seed(self, seed: int) -> None:
        """Restarts the PRNG from ``seed``."""
        self._trees.seed(seed)

    def stop(self) -> None:
        """Ends the running search from another thread (`TreeDriver.stop`)."""
        self._trees.stop()

    def reset(self) -> None:
        """Forgets the tree: the next search starts afresh."""
        self._trees.reset()

    def root_visit_counts(self) -> np.ndarray:
        """int64[num_actions]: the visits of each root action of the last search."""
        return self._trees.root_visit_counts(0)
