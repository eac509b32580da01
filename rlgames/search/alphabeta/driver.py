"""Iterative-deepening alpha-beta: the driver of the compiled negamax (`rlgames.search.alphabeta.negamax`),
with its knobs, budgets and result.

`AlphaBeta` searches depth 1, 2, ... (each iteration's principal variation and table entries order the
next) until the depth, a node limit or a deadline is reached, and returns the deepest completed
iteration (or the better move an interrupted one found: `_interrupted`) as a `SearchResult`: the
value in [-1, 1] from the side to move (a proven win 1, a proven loss -1) and, for a proven result,
``plies_to_end``. An evaluator without a compiled kernel (a network) is searched by
`rlgames.search.alphabeta.batched` instead. Games with chance nodes are refused (they use
expectiminimax).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from rlgames.evaluators.base import Evaluator
from rlgames.game import State
from rlgames.jit.clock import now_ns
from rlgames.search.alphabeta.batched import batched_alphabeta
from rlgames.search.alphabeta.config import (
    LMR_RESEARCHES,
    MAX_PLY,
    NULL_CUTOFFS,
    QUIESCENCE_NODES,
    AlphaBetaConfig,
)
from rlgames.search.alphabeta.negamax import (
    PROVEN,
    WIN,
    CompiledAlphaBeta,
    always_quiet,
    make_alphabeta,
)
from rlgames.search.alphabeta.workspace import (
    EvalWorkspace,
    Workspace,
    new_workspace,
    principal_variation,
    with_accumulators,
)
from rlgames.search.budget import (
    ABORTED,
    CUTOFFS,
    DEADLINE,
    EVALS,
    NO_DEADLINE,
    NODE_LIMIT,
    NODES,
    TT_HITS,
)
from rlgames.search.result import SearchResult, SearchStats

__all__ = ["MAX_PLY", "PROVEN", "WIN", "AlphaBeta", "AlphaBetaConfig", "Iteration"]


@dataclass(frozen=True)
class Iteration:
    """A completed iteration of iterative deepening, as a UCI ``info`` line reports it: its depth, its
    score (``value`` in [-1, 1] from the side to move, ``plies_to_end`` when proven), its principal
    variation, and the nodes and seconds spent so far."""

    depth: int
    value: float
    plies_to_end: int | None
    principal_variation: tuple[int, ...]
    nodes: int
    seconds: float


class AlphaBeta:
    """Iterative-deepening alpha-beta with an evaluator at the cut-off; ``search(state)`` returns a
    `SearchResult` whose policy is one-hot on the chosen action. ``stop()``, from another thread, ends a
    compiled search at once (as a budget does).

    With an evaluator that has a compiled ``kernel`` the search runs in `make_alphabeta`'s compiled
    code; without one (a network) it runs `batched_alphabeta`, which evaluates each node's children in
    one batch and orders moves by the evaluator's priors. Both honour ``depth``, ``max_nodes`` and
    ``time_limit`` alike (the deepest iteration completed within the budgets); the batched search has
    no table, killers or history, and runs a fixed depth without budgets once.
    """

    def __init__(
        self,
        evaluator: Evaluator,
        config: AlphaBetaConfig = AlphaBetaConfig(),
        *,
        is_quiet: Callable[..., bool] = always_quiet,
    ) -> None:
        self.evaluator = evaluator
        self.config = config
        self.is_quiet = is_quiet
        self._stopped = False
        self._control: np.ndarray | None = None  # the running search's control slots, for `stop`

    def stop(self) -> None:
        """Ends the running compiled search (from another thread: it runs without the GIL) after the
        first iteration; a later search is not affected."""
        self._stopped = True
        control = self._control
        if control is not None:
            control[DEADLINE] = 0

    def search(
        self,
        state: State,
        *,
        root_prior: np.ndarray | None = None,
        on_iteration: Callable[[Iteration], None] | None = None,
    ) -> SearchResult:
        """Searches ``state`` (a player to move); ``root_prior`` (float[num_actions], e.g. a policy)
        orders the root's moves after the TT move and killers; ``on_iteration`` is called after each
        completed iteration of the compiled search."""
        if state.game.has_chance:
            raise ValueError(
                f"{state.game.name} has chance nodes: alpha-beta searches deterministic games (use expectiminimax)"
            )
        if state.is_terminal():
            raise ValueError("alpha-beta needs a root where a player is to move; the game is over")
        kernel = self.evaluator.kernel
        if kernel is None:  # a network: sibling leaves are evaluated together, one batch per parent
            config = self.config
            return batched_alphabeta(
                state,
                depth=config.depth,
                evaluator=self.evaluator,
                root_prior=root_prior,
                max_nodes=config.max_nodes,
                time_limit=config.time_limit,
            )
        compiled = make_alphabeta(state.game.kernels, kernel, self.is_quiet, self.evaluator.incremental)
        self._stopped = False
        try:
            return self._iterate(state, compiled, root_prior, on_iteration)
        finally:
            self._control = None

    def _iterate(
        self,
        state: State,
        compiled: CompiledAlphaBeta,
        root_prior: np.ndarray | None,
        on_iteration: Callable[[Iteration], None] | None,
    ) -> SearchResult:
        config = self.config
        max_depth = min(
            config.depth or state.game.max_game_length, state.game.max_game_length, MAX_PLY - config.quiescence_depth
        )
        ws = self._workspace(state, max_depth, root_prior)
        start = now_ns()
        deadline = start + int(config.time_limit * 1e9) if config.time_limit is not None else NO_DEADLINE
        best: tuple[float, tuple[int, ...], int] | None = None
        node_limit = ws.control[NODE_LIMIT]
        ws.control[NODE_LIMIT] = np.iinfo(np.int64).max  # the first iteration always completes
        for depth in range(1 if config.iterative_deepening else max_depth, max_depth + 1):
            ws.control[DEADLINE] = NO_DEADLINE if best is None else deadline
            self._control = None if best is None else ws.control  # `stop` spares the first iteration
            if best is not None and self._stopped:
                break
            score = compiled.search(state.compact, depth, ws)
            ws.control[NODE_LIMIT] = node_limit
            if ws.control[ABORTED]:
                assert best is not None  # the first iteration always completes
                best = _interrupted(score, ws, best)
                break
            best = (score, principal_variation(ws), depth)
            if on_iteration is not None:
                on_iteration(
                    Iteration(
                        depth,
                        _value(score),
                        _plies_to_end(score),
                        best[1],
                        int(ws.control[NODES]),
                        (now_ns() - start) * 1e-9,
                    )
                )
            if abs(score) >= PROVEN and WIN - abs(score) <= depth:
                break  # a proven result within the horizon: deeper iterations cannot change it
            if now_ns() >= deadline or self._stopped:
                break
        assert best is not None  # the first iteration always completes
        return self._result(state, *best, ws, (now_ns() - start) * 1e-9)

    def _workspace(self, state: State, max_depth: int, root_prior: np.ndarray | None) -> Workspace | EvalWorkspace:
        config = self.config
        ws = new_workspace(
            min(max_depth + config.quiescence_depth, MAX_PLY) + 1,
            state.game.kernels.max_actions,
            state.game.num_actions,
            state.history(),
            tt_size_mb=config.tt_size_mb,
            node_limit=config.max_nodes,
            quiescence_depth=config.quiescence_depth,
            null_reduction=config.null_reduction,
            late_move_reduction=config.late_move_reduction,
            use_killers=config.use_killers,
            use_history=config.use_history,
            root_prior=root_prior,
        )
        incremental = self.evaluator.incremental
        return ws if incremental is None else with_accumulators(ws, incremental.width)

    def _result(
        self,
        state: State,
        score: float,
        line: tuple[int, ...],
        depth: int,
        ws: Workspace | EvalWorkspace,
        elapsed: float,
    ) -> SearchResult:
        counters = ws.control
        policy = np.zeros(state.game.num_actions, dtype=np.float64)
        policy[line[0]] = 1.0
        stats = SearchStats(
            nodes=int(counters[NODES]),
            depth=depth,
            cutoffs=int(counters[CUTOFFS]),
            tt_hits=int(counters[TT_HITS]),
            time_s=elapsed,
            extra={
                "evaluations": int(counters[EVALS]),
                "quiescence_nodes": int(counters[QUIESCENCE_NODES]),
                "null_cutoffs": int(counters[NULL_CUTOFFS]),
                "lmr_researches": int(counters[LMR_RESEARCHES]),
            },
        )
        return SearchResult(
            action=line[0],
            value=_value(score),
            policy=policy,
            principal_variation=line,
            stats=stats,
            plies_to_end=_plies_to_end(score),
        )


def _interrupted(
    score: float, ws: Workspace | EvalWorkspace, best: tuple[float, tuple[int, ...], int]
) -> tuple[float, tuple[int, ...], int]:
    """The result after an iteration ran out of budget: its best root move searched to the end, with its
    score and line (the depth stays the last completed one), where the previous iteration's move was
    searched first and to the end: the best of those is then at least as good at the deeper depth, as in
    most engines; else the previous iteration's ``best``."""
    line = principal_variation(ws)
    if not line or ws.plies[0, 0] != best[1][0]:
        return best
    return score, line, best[2]


def _value(score: float) -> float:
    """A compiled score as a value in [-1, 1] (proven wins and losses are beyond)."""
    return float(min(1.0, max(-1.0, score))) + 0.0  # + 0.0 turns -0.0 into 0.0


def _plies_to_end(score: float) -> int | None:
    return int(WIN - abs(score)) if abs(score) >= PROVEN else None
