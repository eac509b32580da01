"""An agent that a protocol engine (UCI, GTP) can put to work at once, even on a fresh install.

A search is compiled by numba the first time it runs (tens of seconds for chess's from an empty cache), and
a chess GUI or python-chess gives an engine a few seconds to answer. `Warmup` therefore compiles, in a
background thread, what the agent will run, in the order the protocol needs it:

1. the rules: the legal moves, a move made, moves written and read (a ``position`` command's work);
2. the game's hand-crafted evaluator, which a move asked for before the search is ready falls back on;
3. the agent's search, by a one-iteration search of the start (an `EngineAgent`; another agent compiles on
   its first move).

numba compiles one function at a time, under one lock, so what comes first in that order is ready first.
Until the search is ready, `fallback` answers a move with a one-ply search of the hand-crafted evaluator
(or, in the first seconds, a random legal move): a legal move in time, which the engine says is one.
"""

from __future__ import annotations

import threading
import time
from typing import Any

import numpy as np

from rlgames.agents.base import EngineAgent, Limits
from rlgames.game import Game, State
from rlgames.search.result import SearchResult, SearchStats


class Warmup:
    """``agent`` (built by the caller, so that a bad spec is refused at once) compiled in a background
    thread started now; ``rules_ready`` is set once the rules are compiled (step 1: a protocol may call
    them without waiting for the compiler), ``ready`` once the search is, and ``error`` holds what
    stopped the warm-up (the agent's first search then raises it again)."""

    def __init__(self, agent: Any, game: Game, *, seed: int = 0) -> None:
        self.agent, self.game = agent, game
        self.rules_ready = threading.Event()
        self.ready = threading.Event()
        self.error: BaseException | None = None
        self._heuristic: Any = None  # the hand-crafted kernel, once compiled
        self._rng = np.random.default_rng(seed)
        threading.Thread(target=self._warm, name="rlgames-warmup", daemon=True).start()

    def _warm(self) -> None:
        try:
            warm_rules(first_decision(self.game))
            self.rules_ready.set()
            self._heuristic = compiled_heuristic(self.game)
            warm_search(self.agent, self.game)
        except Exception as error:  # noqa: BLE001 -- reported by the engine's first search, not lost here
            self.error = error
        finally:
            self.rules_ready.set()
            self.ready.set()

    def fallback(self, state: State) -> SearchResult:
        """A legal move of ``state`` now: the best by the hand-crafted evaluator one ply ahead once it is
        compiled, else a random one."""
        started = time.perf_counter()
        actions = state.legal_actions()
        kernel = self._heuristic
        if kernel is None:
            action, value = actions[int(self._rng.integers(len(actions)))], 0.0
        else:
            values = [_value_for_mover(state, state.apply(a), kernel) for a in actions]
            best = int(np.argmax(values))
            action, value = actions[best], values[best]
        policy = np.zeros(self.game.num_actions)
        policy[action] = 1.0
        return SearchResult(
            action,
            value,
            policy,
            (action,),
            SearchStats(nodes=len(actions), depth=1, time_s=time.perf_counter() - started),
        )


def warm_rules(state: State) -> None:
    """Compiles (or loads from numba's cache) the rules that a protocol uses, the legal moves first (all a
    random move needs): the legal moves of ``state``, moves written and read in the game's notation, a move
    made, and the same one move further."""
    for _ in range(2):
        actions = state.legal_actions()
        for action in actions[:2]:
            state.string_to_action(state.action_to_string(action))
        state = state.apply(actions[0])
        if state.is_terminal() or state.is_chance_node():
            return


def compiled_heuristic(game: Game) -> Any:
    """The kernel of the game's hand-crafted evaluator, compiled (on the first decision of a game); None
    where there is none, or it has no kernel."""
    if game.heuristic is None:
        return None
    from rlgames.evaluators import load_evaluator

    kernel = load_evaluator("heuristic", game).kernel
    if kernel is not None:
        kernel(first_decision(game).compact)
    return kernel


def warm_search(agent: Any, game: Game) -> None:
    """Compiles ``agent``'s search by a one-iteration search of the first decision of a game (an
    `EngineAgent`: alpha-beta, expectiminimax, MCTS; another agent compiles on its first move)."""
    if isinstance(agent, EngineAgent):
        agent.with_limits(Limits(depth=1, nodes=64)).search(first_decision(game))


def first_decision(game: Game) -> State:
    """The start, past the chance outcomes a game may open with (backgammon's first roll: the first)."""
    state = game.new_initial_state()
    while state.is_chance_node():
        state = state.apply(state.legal_actions()[0])
    return state


def _value_for_mover(state: State, child: State, kernel: Any) -> float:
    """``child``'s value for the player to move in ``state``: its return at the end, else the kernel's value
    (for the child's mover), negated when the move passed the turn."""
    mover = state.current_player()
    if child.is_terminal():
        return state.game.info.value(float(child.returns()[mover]))
    if child.is_chance_node():
        return 0.0
    value = float(kernel(child.compact))
    return value if child.current_player() == mover else -value
