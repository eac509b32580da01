"""The MCTS agent. Specs: ``mcts(simulations=800)`` (UCT, random rollouts), ``mcts(time=0.2)`` (as
many simulations as fit in 0.2 s a move; with ``simulations=`` too, whichever runs out first),
``mcts(simulations=200, model=checkpoints/connect_four.pt)`` (PUCT with a network's priors and values),
``mcts(eval=heuristic)`` (UCT with an evaluator's values at the leaves), and AlphaGo's mixed leaf
values: ``mcts(model=FILE, rollout=policy)`` (value head and rollouts sampled from the policy head,
mixed ``mix=0.5``) or ``mcts(model=FILE, rollout_model=SMALL.pt)`` (rollouts by a separate fast
network; see `rlgames.models.rollout.PolicyRolloutEvaluator`). A game's own playout policies are
rollouts too: ``mcts(rollout=patterns)`` plays go's hand-written pattern playouts (`rlgames.Game.playouts`),
and ``mcts(rollout=FILE.npz)`` a learned rollout policy's (`rlgames.Game.rollout_policy`: go's p_pi); with
``model=`` their results are mixed with the value head's (``mix=0.5``), AlphaGo's three learned pieces in one
spec: ``mcts(model=checkpoints/go9.pt, rollout=checkpoints/go9_rollout.npz)``.
``mcts(rave=true)`` adds MoGo's rapid action value estimation (`MCTSConfig.rave`, ``rave_equivalence=1000``)
to searches whose leaves are valued in compiled code. ``expansion_threshold=N`` sends a leaf to the network
on its N-th visit only, the visits before valued by one playout each (AlphaGo's ``n_thr``,
`MCTSConfig.expansion_threshold`): ``mcts(model=checkpoints/go9.pt, rollout=checkpoints/go9_rollout.npz,
expansion_threshold=4)``.

The tree is kept between moves: when the next position follows from the last one by the agent's move
and the opponent's reply, the search continues in that subtree (``reuse=false`` turns this off).
"""

from __future__ import annotations

import copy
import dataclasses
import os
import time
from collections.abc import Callable
from typing import Any, Literal

from rlgames.agents.base import Limits
from rlgames.evaluators.base import Evaluator
from rlgames.evaluators.rollout import ALPHAGO_MIX, PlayoutMixEvaluator
from rlgames.game import Game, State
from rlgames.search.mcts.config import MCTSConfig
from rlgames.search.mcts.puct import MCTS, UNLIMITED
from rlgames.search.result import SearchResult

ROLLOUTS = ("random", "policy")
DEFAULT_SIMULATIONS = 800
"""Simulations per move without a time budget (AlphaZero's 800, Silver et al. 2018)."""


class MCTSAgent:
    """Plays the most-visited move of `rlgames.search.mcts.puct.MCTS` (a proven win first)."""

    def __init__(
        self,
        game: Game,
        *,
        simulations: int | None = None,
        eval: str | None = None,
        model: str | None = None,
        rollout: str = "random",
        rollouts: int = 1,
        rollout_model: str | None = None,
        mix: float = ALPHAGO_MIX,
        c: float | None = None,
        time: float | None = None,
        batch: int = 8,
        solver: bool = True,
        reuse: bool = True,
        rave: bool = False,
        rave_equivalence: float = 1000.0,
        expansion_threshold: int = 1,
        seed: int = 0,
    ) -> None:
        if simulations is None:  # a time budget alone runs as many simulations as fit in it
            simulations = UNLIMITED if time is not None else DEFAULT_SIMULATIONS
        playout = playout_kernel(game, rollout)
        if playout is not None and eval is not None:
            raise ValueError(f"rollout={rollout} is a playout policy: it values leaves itself, or mixed with model=")
        if eval is not None and model is not None:
            raise ValueError("give eval= or model=, not both")
        if (rollout == "policy" or rollout_model is not None) and model is None:
            raise ValueError("policy rollouts (rollout=policy, rollout_model=FILE) need the main network: model=FILE")
        if expansion_threshold > 1 and (model is None or rollout == "policy" or rollout_model is not None):
            raise ValueError(
                "expansion_threshold values the leaves below it by compiled playouts before the network: "
                "it needs model=FILE, and rollout= random or one of the game's playout policies"
            )
        self.game = game
        self.evaluator = _evaluator(game, eval, model, rollout, rollout_model, mix, seed)
        if playout is not None and self.evaluator is not None:  # AlphaGo's leaves: the network mixed with p_pi
            self.evaluator = PlayoutMixEvaluator(game, self.evaluator, playout, mix=mix, seed=seed)
            if expansion_threshold == 1:  # else the playout also values the leaves below the threshold
                playout = None
        selection: Literal["uct", "puct"] = "puct" if model else "uct"
        knobs: dict[str, Any] = {} if c is None else {"c_puct" if model else "uct_c": c}
        self.config = MCTSConfig(
            simulations=simulations,
            time_limit=time,
            selection=selection,
            rollouts=rollouts,
            batch_size=batch,
            solver=solver,
            rave=rave,
            rave_equivalence=rave_equivalence,
            expansion_threshold=expansion_threshold,
            **knobs,
        )
        self.reuse = reuse
        self._seed = seed
        self._rollout = playout
        self._mcts = self._new_search(seed)
        self._root: State | None = None

    def _new_search(self, seed: int) -> MCTS:
        return MCTS(self.config, self.evaluator, rollout=self._rollout, seed=seed)

    def seed(self, seed: int) -> None:
        self._seed = seed
        if self.evaluator is not None:
            self.evaluator.seed(seed)
        self._mcts = self._new_search(seed)
        self._root = None

    def with_limits(self, limits: Limits) -> MCTSAgent:
        """The same player under ``limits``: ``nodes`` as simulations, ``seconds`` as its time; ``depth``
        alone (no meaning here) gives the default simulations, and no limit at all runs until `stop`."""
        simulations = limits.nodes
        if simulations is None:
            simulations = DEFAULT_SIMULATIONS if limits.depth is not None and limits.seconds is None else UNLIMITED
        agent = copy.copy(self)
        agent.config = dataclasses.replace(self.config, simulations=simulations, time_limit=limits.seconds)
        agent._mcts, agent._root = agent._new_search(self._seed), None
        return agent

    def stop(self) -> None:
        """Ends the running search (from another thread) within a few hundred simulations."""
        self._mcts.stop()

    def search(self, state: State, *, on_iteration: Callable[..., None] | None = None) -> SearchResult:
        """The search from ``state``; MCTS has no iterations to report, so ``on_iteration`` is not called."""
        start = time.perf_counter()  # moving the root to ``state`` counts against ``time=``
        self._follow(state)
        result = self._mcts.search(state, start=start)
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


def _evaluator(
    game: Game, eval: str | None, model: str | None, rollout: str, rollout_model: str | None, mix: float, seed: int
) -> Evaluator | None:
    """The leaf evaluator the spec asks for (None: random rollouts in compiled code)."""
    from rlgames.evaluators import load_evaluator

    if model is None:
        return None if eval is None else load_evaluator(eval, game)
    if rollout != "policy" and rollout_model is None:
        return load_evaluator("model", game, path=model)
    return load_evaluator("policy_rollout", game, path=model, rollout_path=rollout_model, mix=mix, seed=seed)


def playout_kernel(game: Game, rollout: str) -> Callable | None:
    """The compiled playout that ``rollout`` names: one of the game's own (`Game.playouts`), or a weights file
    of its learned rollout policy (`Game.rollout_policy`); None for ``random`` and ``policy``."""
    if rollout in ROLLOUTS:
        return None
    if rollout in game.playouts:
        return game.locate(game.playouts[rollout])
    if game.rollout_policy is not None and os.path.splitext(rollout)[1]:
        if not os.path.isfile(rollout):
            raise ValueError(f"rollout={rollout}: no such file")
        return game.locate(game.rollout_policy).playout(rollout)
    accepted = ", ".join([*ROLLOUTS, *game.playouts, *(["a weights file"] if game.rollout_policy else [])])
    raise ValueError(f"unknown rollout {rollout!r}; accepted in {game.name}: {accepted}")


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
