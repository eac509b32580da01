"""Depth-limited expectiminimax for games with chance nodes, compiled over any game's kernels.

E-MINIMAX of the lecture notes in negamax form: a decision node takes the maximum of its children's
values (negated where the other player moves next), a chance node the probability-weighted mean of
its outcomes' values, a terminal state its exact return. On a deterministic game it is negamax.

Conventions:

* **Values** are in [-1, 1], from the point of view of the side to move. At a chance node the point
  of view is that of the player who moved into it (pig: the turn player, who rolled): the kernels do
  not say whose turn it is at a chance node. A child's value is negated only when the player to move
  changes (pig: rolling a 1 passes the turn, rolling anything else keeps it).
* **Depth counts decisions** (``depth_unit="decision"``, the default): every decision node lowers the
  remaining depth by one, chance layers are free. The cut-off therefore always falls on a decision
  node (the evaluator's compiled ``kernel`` is called there, the value clipped to [-1, 1]); chance
  nodes are always expanded. In pig a depth of ``horizon - decisions`` searches the whole remaining
  game.
* **Or turns** (``depth_unit="turn"``: backgammon's plies, a ply being one player's roll and move): a
  turn is a player's run of decisions up to the next chance node or the other player's decision
  (backgammon's doubles are two decisions, one turn), and the cut-off falls where a turn ends: on a
  chance node, scored by an evaluator that scores chance nodes (`Evaluator.scores_chance_nodes`: from
  the point of view of the player who moved into it, the game's ``observer``), or on the other
  player's decision. Depth 1 is TD-Gammon's 1-ply: every way to play the roll, each afterstate
  evaluated; depth 2 adds the opponent's 21 rolls and replies.
* **Pruning** (`ExpectiminimaxConfig.pruning`; it changes the value only by rounding): fail-soft
  alpha-beta at decision nodes and Ballard's Star1 at chance nodes (B. W. Ballard, "The *-minimax
  search procedure for trees containing chance nodes", Artificial Intelligence 21(3), 1983), which uses the known bounds
  ``L = -1``, ``U = 1`` of every value. After outcomes with probabilities ``p_1 .. p_k`` and values
  ``v_1 .. v_k``, with ``S = sum p_i v_i`` and ``R = 1 - sum p_i``, the chance node's value lies in
  ``[S + R L, S + R U]``: it is cut off once ``S + R U <= alpha`` (returning that upper bound) or
  ``S + R L >= beta`` (returning that lower bound). The next outcome, of probability ``p``, is
  searched with the window ``(max(L, (alpha - S - (R - p) U) / p), min(U, (beta - S - (R - p) L) / p))``,
  outside which it would cause one of these cut-offs.
* **Terminal states** are worth their return scaled into a value (``return / max_return``).
* **Decisions taken by formula** (`rlgames.game.Game.formula_decision`: backgammon's cube) are not searched:
  every child is settled (`GameKernels.settle`: the roll that follows a cube decision), a root that would
  settle elsewhere is refused, and the evaluator's values, per unit of the stakes, are multiplied by the
  stakes the position is played for (`GameKernels.stakes`: the cube over the largest cube), the returns
  counting them already.
* **Transposition table** (optional; `rlgames.search.tt`): the key mixes `GameKernels.hash_key` with
  the point of view (which a chance node's state need not determine). An entry answers a probe when
  it was searched at least as deep and its bound decides the window, so depth-limited values may
  differ from a search without it (they come from deeper searches); full-depth values are exact
  either way. A game with a repetition rule is searched without it (its values depend on the path).
* **Repetition** (a game with a ``repetition`` kernel): the search keeps the key stack (the root's
  history, then the path) and asks the kernel about every child: a drawn repetition is worth 0, a
  forbidden one is skipped.
* **Principal variation**: the expected line from the root, replayable with `State.apply`: the best
  decision at a decision node and, at a chance node, its most likely outcome (the first of equally
  likely ones), each followed by the line below it. Below a pruned node or a table hit the line is
  cut short, and with pruning the line under a chance node comes from windowed searches.

`make_expectiminimax` builds the compiled recursion for one game and one evaluator kernel;
`Expectiminimax` is the driver; `expectiminimax` (`rlgames.search.reference`) is the
readable Python reference (no pruning).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import replace

import numpy as np

from rlgames.evaluators.base import Evaluator
from rlgames.game import State
from rlgames.jit.clock import now_ns
from rlgames.search.alphabeta.config import MAX_PLY
from rlgames.search.budget import (
    ABORTED,
    CUTOFFS,
    DEADLINE,
    EVALS,
    NO_DEADLINE,
    NODE_LIMIT,
    NODES,
    TT_HITS,
    OutOfBudget,
)
from rlgames.search.expectiminimax.config import (
    AFTERSTATES,
    CHANCE_CUTOFFS,
    CONTROL_SIZE,
    FILTER_PASS,
    HISTORY_LEN,
    KEPT,
    OVERFLOW,
    PRUNING,
    PRUNING_LEVELS,
    ROOT_DEPTH,
    ExpectiminimaxConfig,
)
from rlgames.search.expectiminimax.kernel import (
    INF,
    LAYERS_PER_DECISION,
    LAYERS_PER_TURN,
    Workspace,
    make_expectiminimax,
    principal_variation,
)
from rlgames.search.reference import Budget, check_decision_root, expectiminimax
from rlgames.search.result import SearchResult, SearchStats
from rlgames.search.tt import new_table

__all__ = ["Expectiminimax", "ExpectiminimaxConfig", "expectiminimax", "make_expectiminimax"]

AFTERSTATE_CAPACITY = 1 << 15
"""Afterstates of one turn the move filter can rank (backgammon's doubles reach a few hundred)."""


class Expectiminimax:
    """Depth-limited expectiminimax with an evaluator at the cut-off; ``search(state)`` returns a
    `SearchResult` whose policy is one-hot on the best action (ties go to the first legal action) and
    whose ``stats.depth`` is the depth of the (deepest completed) search.

    With an evaluator that has a compiled ``kernel`` the search runs in `make_expectiminimax`'s
    compiled code; without one (a network) it falls back to the Python reference `expectiminimax`
    (no pruning, no table). Both honour the budgets.
    """

    def __init__(self, evaluator: Evaluator, config: ExpectiminimaxConfig = ExpectiminimaxConfig()) -> None:
        if config.depth_unit == "turn" and not evaluator.scores_chance_nodes:
            raise ValueError(
                f"depth counted in turns cuts off on chance nodes, which {evaluator!r} does not score; "
                "count decisions instead"
            )
        if config.root_filter is not None and evaluator.kernel is None:
            raise ValueError(f"a root filter needs an evaluator with a compiled kernel, which {evaluator!r} lacks")
        self.evaluator = evaluator
        self.config = config

    def search(self, state: State) -> SearchResult:
        """Searches ``state``, where a player is to move, ``config.depth`` decisions deep or as deep as
        the budgets allow."""
        check_decision_root(state)
        config = self.config
        max_depth = min(config.depth or state.game.max_game_length, MAX_PLY)
        depths = range(1, max_depth + 1) if config.budgeted else [max_depth]
        if self.evaluator.kernel is None:
            return self._search_reference(state, depths)
        by_turn = config.depth_unit == "turn"
        value = make_expectiminimax(state.game.kernels, self.evaluator.kernel, by_turn=by_turn)
        ws = self._workspace(state, max_depth)
        start = now_ns()
        deadline = start + int(config.time_limit * 1e9) if config.time_limit is not None else NO_DEADLINE
        best = None
        for depth in depths:
            control = ws.control
            control[ABORTED] = 0
            if config.root_filter is not None and depth > 1 and not control[KEPT]:
                self._filter_root(state, value, ws)  # before the budgets bind: it always completes
            control[ROOT_DEPTH] = depth
            if best is not None:  # the first iteration always completes
                control[NODE_LIMIT] = config.max_nodes or np.iinfo(np.int64).max
                control[DEADLINE] = deadline
            score = value(state.compact, state.compact[0], depth, 0, -INF, INF, ws)
            if control[OVERFLOW]:
                raise RuntimeError(
                    f"{state.game.name}: more plies per decision or turn than expectiminimax "
                    f"reserves ({LAYERS_PER_TURN if by_turn else LAYERS_PER_DECISION})"
                )
            if control[ABORTED]:
                break
            best = (score, principal_variation(ws), depth)
            if now_ns() >= deadline:
                break
        assert best is not None  # the first iteration always completes
        return self._result(state, *best, ws, (now_ns() - start) * 1e-9)

    def _filter_root(self, state: State, value: Callable[..., float], ws: Workspace) -> None:
        """Restricts the root's turn to the ``config.root_filter`` afterstates of best depth-1 value: a
        search 1 deep without pruning records every afterstate (`expectiminimax_kernel.Workspace`)."""
        control = ws.control
        pruning, control[PRUNING] = control[PRUNING], 0
        control[FILTER_PASS], control[ROOT_DEPTH], control[AFTERSTATES] = 1, 1, 0
        value(state.compact, state.compact[0], 1, 0, -INF, INF, ws)
        control[FILTER_PASS], control[PRUNING] = 0, pruning
        if control[OVERFLOW]:
            raise RuntimeError(f"{state.game.name}: more afterstates in a turn than the filter holds ({len(ws.keys)})")
        n = control[AFTERSTATES]
        first = np.sort(np.unique(ws.keys[:n], return_index=True)[1])  # each afterstate once, in search order
        best = first[np.argsort(-ws.values[first], kind="stable")[: self.config.root_filter]]
        ws.keys[: len(best)] = ws.keys[best]
        control[KEPT] = len(best)

    def _search_reference(self, state: State, depths: Sequence[int]) -> SearchResult:
        """Iterations of the Python reference under the budgets (an evaluator without a kernel)."""
        config, start, best, nodes = self.config, time.perf_counter(), None, 0
        for depth in depths:
            budget = None
            if best is not None:
                budget = Budget(
                    config.max_nodes - nodes if config.max_nodes else math.inf,
                    start + config.time_limit if config.time_limit else math.inf,
                )
            try:
                result = expectiminimax(
                    state, depth, self.evaluator, budget=budget, by_turn=config.depth_unit == "turn"
                )
            except OutOfBudget as stopped:
                nodes += stopped.nodes
                break
            nodes += result.stats.nodes
            best = result
        assert best is not None  # the first iteration, without a budget, always completes
        stats = replace(best.stats, nodes=nodes, time_s=time.perf_counter() - start)
        return replace(best, stats=stats)

    def _workspace(self, state: State, max_depth: int) -> Workspace:
        config = self.config
        per_unit = LAYERS_PER_TURN if config.depth_unit == "turn" else LAYERS_PER_DECISION
        plies = min(state.game.max_game_length, per_unit * max_depth) + 1
        actions, history = state.game.kernels.max_actions, state.history()
        control = np.zeros(CONTROL_SIZE, dtype=np.int64)
        control[PRUNING] = PRUNING_LEVELS[config.pruning]
        control[NODE_LIMIT], control[DEADLINE] = np.iinfo(np.int64).max, NO_DEADLINE
        control[HISTORY_LEN] = len(history)
        rows = np.zeros((plies + 1, max(actions + 1 + plies, len(history) + plies)), dtype=np.int64)
        rows[-1, : len(history)] = history
        filtered = AFTERSTATE_CAPACITY if config.root_filter is not None else 0
        table_mb = config.tt_size_mb if max_depth > 1 else 0.0  # 1 deep, nothing transposes: no table to clear
        return Workspace(
            plies=rows,
            probs=np.zeros((plies, actions)),
            tt=new_table(table_mb),
            control=control,
            keys=np.zeros(filtered, dtype=np.int64),
            values=np.zeros(filtered),
        )

    def _result(
        self, state: State, score: float, line: tuple[int, ...], depth: int, ws: Workspace, elapsed: float
    ) -> SearchResult:
        counters = ws.control
        policy = np.zeros(state.game.num_actions, dtype=np.float64)
        policy[line[0]] = 1.0
        chance_cutoffs = int(counters[CHANCE_CUTOFFS])
        stats = SearchStats(
            nodes=int(counters[NODES]),
            depth=depth,
            cutoffs=int(counters[CUTOFFS]) + chance_cutoffs,
            tt_hits=int(counters[TT_HITS]),
            time_s=elapsed,
            extra={"evaluations": int(counters[EVALS]), "chance_cutoffs": chance_cutoffs},
        )
        return SearchResult(
            action=line[0],
            value=float(score) + 0.0,  # + 0.0 turns -0.0 into 0.0
            policy=policy,
            principal_variation=line,
            stats=stats,
        )
