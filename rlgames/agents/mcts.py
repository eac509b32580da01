"""The MCTS agent. Specs: ``mcts(simulations=800)`` (UCT, random rollouts), ``mcts(simulations=200,
model=checkpoints/connect_four.pt)`` (PUCT with a network's priors and values), ``mcts(eval=heuristic)``
(UCT with an evaluator's values at the leaves).

The tree is kept between moves: when the next position follows from the last one by the agent's move
and the opponent's reply, the search continues in that subtree (``reuse=false`` turns this off).
"""

from __future__ import annotations

from rlgames.game import Game, State
from rlgames.search.mcts import MCTS, MCTSConfig
from rlgames.search.result import SearchResult

ROLLOUTS = ("random",)


class MCTSAgent:
    """Plays the most-visited move of `rlgames.search.mcts.MCTS` (a proven win first)."""

    def __init__(self, game: Game, *, simulations: int = 800, eval: str | None = None, model: str | None = None,
                 rollout: str = "random", rollouts: int = 1, c: float | None = None, time: float | None = None,
                 batch: int = 8, solver: bool = True, reuse: bool = True, seed: int = 0) -> None:
        from rlgames.evaluators import load_evaluator

        if rollout not in ROLLOUTS:
            raise ValueError(f"unknown rollout {rollout!r}; accepted: {', '.join(ROLLOUTS)}")
        if eval is not None and model is not None:
            raise ValueError("give eval= or model=, not both")
        self.game = game
        if model is not None:
            self.evaluator = load_evaluator("model", game, path=model)
        else:
            self.evaluator = None if eval is None else load_evaluator(eval, game)
        selection = "puct" if model else "uct"
        knobs = {} if c is None else {"c_puct" if model else "uct_c": c}
        self.config = MCTSConfig(simulations=simulations, time_limit=time, selection=selection, rollouts=rollouts,
                                 batch_size=batch, solver=solver, **knobs)
        self.reuse = reuse
        self._seed = seed
        self._mcts = MCTS(self.config, self.evaluator, seed=seed)
        self._root: State | None = None

    def seed(self, seed: int) -> None:
        self._seed = seed
        self._mcts = MCTS(self.config, self.evaluator, seed=seed)
        self._root = None

    def search(self, state: State) -> SearchResult:
        self._follow(state)
        result = self._mcts.search(state)
        self._root = state
        return result

    def act(self, state: State) -> int:
        return self.search(state).action

    def _follow(self, state: State) -> None:
        """Moves the tree's root to ``state`` when it is at most two plies below the last root."""
        if self._root is None or not self.reuse or self._root == state:
            return
        path = _path(self._root, state)
        if path is None:
            self._mcts.reset()
            return
        for action in path:
            self._mcts.advance(action)

    def __repr__(self) -> str:
        return f"mcts(simulations={self.config.simulations}, selection={self.config.selection})"


def _path(root: State, state: State) -> list[int] | None:
    """The actions leading from ``root`` to ``state`` in one or two plies, or None."""
    for first in root.legal_actions():
        child = root.apply(first)
        if child == state:
            return [first]
        for second in [] if child.is_terminal() else child.legal_actions():
            if child.apply(second) == state:
                return [first, second]
    return None
