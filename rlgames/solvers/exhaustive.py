"""An exact solver for small games, generic over a game's kernels (tic-tac-toe, nim, halving, the last
plies of connect four).

The search is a full-width negamax to the end of the game, compiled by `make_exhaustive` for one game:

* **Win-distance scoring.** A position is worth ``(value, plies)`` for the side to move: the value in
  {-1, 0, 1} and the plies to the end. A player prefers a higher value, then a faster win, a slower
  loss and, among draws, the longer game (see `SolveResult.plies_to_end`). A child's value is negated
  when the other player moves there and kept when the same player moves again.
* **Exact memo.** Every position reached is solved completely (no pruning) and stored in an open
  addressing table: slot from a mix of `GameKernels.hash_key`, linear probing, and the whole compact
  state stored and compared, so a hash collision costs a probe, never a wrong answer. Because nothing
  is pruned, every child of a solved position is in the memo: the best and the value-preserving
  actions cost one look-up per legal action. The table starts small and doubles when it is 3/4 full
  (the search stops, the table is rehashed, the search restarts and reuses what it stored), so its
  size fits the game; it is kept between solves, and solving another position of the same game
  reuses it.
* **Explicit stack** of ``max_game_length + 1`` levels instead of recursion, so that long games
  (halving from a large ``n``) cannot overflow the native stack. Games must be acyclic: a line longer
  than ``max_game_length`` raises.

Cost: one visit per position reachable from the root, so only for games with up to a few million
positions. `ExhaustiveSolver.solve` takes a time limit and the memo a memory limit (`MEMORY_MB`):
past either it raises `SolveBudgetError` (othello from the start would need far more of both), and
what it solved so far stays in the memo. Chance nodes are not supported.
"""

from __future__ import annotations

import functools
import math
import time
from typing import Callable, NamedTuple

import numpy as np
from numba import njit

from rlgames.game import PLAYER, RETURN, TERMINAL, Game, State
from rlgames.jit.cache import cache_closure
from rlgames.jit.entry import precompile
from rlgames.jit.unsafe import tuple_setitem
from rlgames.search.tt import tt_slot
from rlgames.solvers.result import SolveBudgetError, SolveResult

EMPTY = -1
"""``plies`` of an unused memo slot."""
NODES, OVERFLOW, TOO_DEEP, STOP_AT = range(4)  # counters (STOP_AT: the search returns at this many nodes)
INITIAL_SLOTS = 1 << 12
MAX_LOAD = 0.75
CHUNK_NODES = 1 << 22
"""Positions generated per compiled call when a time limit is set (the clock is read between calls)."""
MEMORY_MB = 2048.0
"""The memo's default memory limit: past it `solve` gives up with `SolveBudgetError`."""


class Memo(NamedTuple):
    """The exact memo: ``N`` slots (a power of 2) for compact states of ``L`` slots."""

    keys: np.ndarray  # int64[N]: hash_key of the stored state
    states: np.ndarray  # int64[N, L]
    values: np.ndarray  # int8[N]: the return for the side to move
    plies: np.ndarray  # int64[N]: plies to the end; EMPTY for an unused slot
    used: np.ndarray  # int64[1]: how many slots are used


class Stack(NamedTuple):
    """The search stack: ``P`` levels, ``A = max_actions``; level ``d`` holds a position ``d`` plies
    below the root, its moves and the best ``(value, plies)`` found so far."""

    states: np.ndarray  # int64[P, L]
    moves: np.ndarray  # int64[P, A]
    counts: np.ndarray  # int64[P]: number of moves
    next: np.ndarray  # int64[P]: index of the next move to try
    values: np.ndarray  # int64[P]
    plies: np.ndarray  # int64[P]


def new_memo(slots: int, state_length: int) -> Memo:
    return Memo(
        keys=np.zeros(slots, dtype=np.int64),
        states=np.zeros((slots, state_length), dtype=np.int64),
        values=np.zeros(slots, dtype=np.int8),
        plies=np.full(slots, EMPTY, dtype=np.int64),
        used=np.zeros(1, dtype=np.int64),
    )


def new_stack(levels: int, state_length: int, max_actions: int) -> Stack:
    return Stack(
        states=np.zeros((levels, state_length), dtype=np.int64),
        moves=np.zeros((levels, max_actions), dtype=np.int64),
        counts=np.zeros(levels, dtype=np.int64),
        next=np.zeros(levels, dtype=np.int64),
        values=np.zeros(levels, dtype=np.int64),
        plies=np.zeros(levels, dtype=np.int64),
    )


@njit(cache=True)
def same_state(row, s) -> bool:
    for i in range(len(s)):
        if row[i] != s[i]:
            return False
    return True


@njit(cache=True)
def store_state(row, s) -> None:
    for i in range(len(s)):
        row[i] = s[i]


@njit(cache=True)
def find(memo: Memo, s, key: int) -> int:
    """The slot holding ``s``, or the empty slot where it belongs."""
    mask = len(memo.keys) - 1
    slot = tt_slot(key, mask)
    while memo.plies[slot] != EMPTY and not (memo.keys[slot] == key and same_state(memo.states[slot], s)):
        slot = (slot + 1) & mask
    return slot


@njit(cache=True)
def put(memo: Memo, s, key: int, value: int, plies: int) -> bool:
    """Stores the solution of ``s``; False (nothing stored) when the memo is too full."""
    slot = find(memo, s, key)
    if memo.plies[slot] == EMPTY:
        if (memo.used[0] + 1) > MAX_LOAD * len(memo.keys):
            return False
        memo.used[0] += 1
    memo.keys[slot] = key
    store_state(memo.states[slot], s)
    memo.values[slot] = value
    memo.plies[slot] = plies
    return True


@njit(cache=True)
def rehash(old: Memo, new: Memo) -> None:
    """Moves every entry of ``old`` into the (larger, empty) ``new``."""
    mask = len(new.keys) - 1
    for i in range(len(old.keys)):
        if old.plies[i] == EMPTY:
            continue
        slot = tt_slot(old.keys[i], mask)
        while new.plies[slot] != EMPTY:
            slot = (slot + 1) & mask
        new.keys[slot] = old.keys[i]
        new.states[slot, :] = old.states[i]
        new.values[slot] = old.values[i]
        new.plies[slot] = old.plies[i]
    new.used[0] = old.used[0]


@njit(cache=True)
def load(row, template):
    """The compact state stored in ``row``, as a tuple typed like ``template``."""
    s = template
    for i in range(len(template)):
        s = tuple_setitem(s, i, row[i])
    return s


WORST = -(1 << 20)


@njit(cache=True)
def better(value: int, plies: int, best_value: int, best_plies: int) -> bool:
    """Whether ``(value, plies)`` is preferred by the side to move: a higher value, then a faster win, a
    slower loss, a longer draw."""
    if value != best_value:
        return value > best_value
    return plies < best_plies if value > 0 else plies > best_plies


@njit(cache=True)
def from_mover(value: int, player: int, mover: int) -> int:
    """A value for ``player`` seen by ``mover``."""
    return value if player == mover else -value


@njit(cache=True)
def terminal_value(child, mover: int) -> int:
    """The return of terminal state ``child`` for ``mover`` (in the game's utility range)."""
    return child[RETURN] if mover == 0 else -child[RETURN]


@njit(cache=True)
def improve(level: int, value: int, plies: int, stack: Stack) -> None:
    if better(value, plies, stack.values[level], stack.plies[level]):
        stack.values[level] = value
        stack.plies[level] = plies


@functools.cache
def make_exhaustive(legal_actions: Callable[..., int], apply: Callable, hash_key: Callable[..., int]) -> Callable:
    """The compiled ``search(root, memo, stack, counters)`` for one game's kernels, compiled on first call,
    kept for the process and cached on disk (`rlgames.jit.cache`).

    ``search`` solves ``root`` and every position below it into ``memo``; it stops early, setting
    ``counters[OVERFLOW]`` when the memo must grow or ``counters[TOO_DEEP]`` when a line is longer than
    the stack, and once ``counters[NODES]``, to which it adds every position it generates, reaches
    ``counters[STOP_AT]``. Positions it finished stay in the memo, so a search called again goes on.
    """

    @njit
    def push(s, level: int, stack: Stack) -> None:
        store_state(stack.states[level], s)
        stack.counts[level] = legal_actions(s, stack.moves[level])
        stack.next[level] = 0
        stack.values[level] = WORST  # worse than any return
        stack.plies[level] = 0

    @njit
    def search(root, memo: Memo, stack: Stack, counters) -> None:
        push(root, 0, stack)
        counters[NODES] += 1
        level = 0
        while level >= 0:
            s = load(stack.states[level], root)
            if stack.next[level] == stack.counts[level]:  # every move tried: s is solved
                if not put(memo, s, hash_key(s), stack.values[level], stack.plies[level]):
                    counters[OVERFLOW] = 1
                    return
                level -= 1
                if level >= 0:
                    mover = stack.states[level, PLAYER]
                    improve(
                        level, from_mover(stack.values[level + 1], s[PLAYER], mover), stack.plies[level + 1] + 1, stack
                    )
                continue
            if counters[NODES] >= counters[STOP_AT]:
                return
            child = apply(s, stack.moves[level, stack.next[level]])
            stack.next[level] += 1
            counters[NODES] += 1
            if child[PLAYER] == TERMINAL:
                improve(level, terminal_value(child, s[PLAYER]), 1, stack)
                continue
            slot = find(memo, child, hash_key(child))
            if memo.plies[slot] != EMPTY:
                improve(level, from_mover(memo.values[slot], child[PLAYER], s[PLAYER]), memo.plies[slot] + 1, stack)
            elif level + 1 == len(stack.counts):
                counters[TOO_DEEP] = 1
                return
            else:
                level += 1
                push(child, level, stack)

    return cache_closure(search)


class ExhaustiveSolver:
    """Solves positions of one game with `make_exhaustive`'s search, keeping its memo between solves.

    ``solve(state)`` returns a `SolveResult` whose ``best_actions`` and ``value_preserving_actions``
    were read from the memo right after the solve (one look-up per legal action).
    """

    def __init__(self, game: Game, initial_slots: int = INITIAL_SLOTS, *, memory_mb: float = MEMORY_MB) -> None:
        if game.has_chance:
            raise ValueError(f"{game.name} has chance nodes: the exact solvers handle deterministic games only")
        if initial_slots < 1 or initial_slots & (initial_slots - 1):
            raise ValueError(f"initial_slots must be a power of 2, got {initial_slots}")
        kernels = game.kernels
        self.game = game
        self.memory_mb = memory_mb
        self._search = make_exhaustive(kernels.legal_actions, kernels.apply, kernels.hash_key)
        length = len(game.initial_compact_state())
        self._memo = new_memo(initial_slots, length)
        self._stack = new_stack(game.max_game_length + 1, length, kernels.max_actions)
        # compiled now, so that solve times exclude it
        precompile(self._search, game.initial_compact_state(), self._memo, self._stack, np.zeros(4, dtype=np.int64))

    @property
    def memo_size(self) -> int:
        """The number of positions solved and kept so far."""
        return int(self._memo.used[0])

    def solve(self, state: State, *, time_limit: float | None = None) -> SolveResult:
        """Solves ``state``; raises `SolveBudgetError` past ``time_limit`` seconds (None: no limit) or
        the memory limit."""
        if state.game != self.game:
            raise ValueError(f"this solver solves {self.game!r}, not {state.game!r}")
        if state.is_terminal() or state.is_chance_node():
            raise ValueError("solve needs a position where a player is to move (not terminal, not chance)")
        start = time.perf_counter()
        deadline = math.inf if time_limit is None else start + time_limit
        counters = np.zeros(4, dtype=np.int64)
        value, plies = self._lookup(state)
        while plies == EMPTY:
            counters[STOP_AT] = counters[NODES] + CHUNK_NODES if time_limit is not None else np.iinfo(np.int64).max
            self._search(state.compact, self._memo, self._stack, counters)
            if counters[TOO_DEEP]:
                raise ValueError(
                    f"{self.game.name}: a line is longer than max_game_length "
                    f"({self.game.max_game_length}); the game is not acyclic"
                )
            if counters[OVERFLOW]:
                self._grow(counters)
                counters[OVERFLOW] = 0
            value, plies = self._lookup(state)
            if plies == EMPTY and time.perf_counter() > deadline:
                raise SolveBudgetError(
                    f"{self.game.name}: not solved within {time_limit:g} s "
                    f"({self._effort(counters)}); the exhaustive solver suits positions near "
                    "the end of a big game"
                )
        elapsed = time.perf_counter() - start
        children = self._children(state)
        best = tuple(a for a, v, p in children if v == value and p == plies)
        preserving = tuple(a for a, v, _ in children if v == value)
        return SolveResult(
            value=value,
            plies_to_end=plies,
            nodes=int(counters[NODES]),
            time_s=elapsed,
            find_best_actions=lambda: best,
            find_value_preserving_actions=lambda: preserving,
        )

    def _lookup(self, state: State) -> tuple[int, int]:
        """``(value, plies_to_end)`` of a non-terminal state from the memo; plies is EMPTY when absent."""
        slot = find(self._memo, state.compact, state.hash_key())
        return int(self._memo.values[slot]), int(self._memo.plies[slot])

    def _children(self, state: State) -> list[tuple[int, int, int]]:
        """``(action, value for the side to move, plies to the end)`` after each legal action."""
        mover = state.current_player()
        children = []
        for action in state.legal_actions():
            child = state.apply(action)
            if child.is_terminal():
                children.append((action, int(terminal_value(child.compact, mover)), 1))
            else:
                value, plies = self._lookup(child)
                children.append((action, int(from_mover(value, child.current_player(), mover)), plies + 1))
        return children

    def _grow(self, counters: np.ndarray) -> None:
        """Doubles the memo, or raises `SolveBudgetError` when that would pass the memory limit."""
        old = self._memo
        slot_bytes = sum(array.itemsize * array[:1].size for array in old[:4])
        if 2 * len(old.keys) * slot_bytes > self.memory_mb * 2**20:
            raise SolveBudgetError(
                f"{self.game.name}: not solved within the memo's {self.memory_mb:g} MB "
                f"({self._effort(counters)}); the exhaustive solver suits positions near "
                "the end of a big game"
            )
        self._memo = new_memo(2 * len(old.keys), old.states.shape[1])
        rehash(old, self._memo)

    def _effort(self, counters: np.ndarray) -> str:
        return f"{int(counters[NODES]):,} positions generated, {self.memo_size:,} solved"
