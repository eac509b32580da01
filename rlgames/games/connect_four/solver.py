"""A strong connect-four solver after Pascal Pons' "Solving Connect 4: how to build a perfect AI".

It works on the game module's bitboards (`rlgames.games.connect_four.rules`) and computes Pons' *score*
of a position for the side to move: ``22 - k`` for a win with the winner's ``k``-th stone, ``-(22 - k)``
for a loss to the opponent's ``k``-th stone, 0 for a draw (README of the benchmark positions).

The search (numba-compiled, no allocation in the recursion):

* **Negamax with alpha-beta on score bounds**, clamped by what the remaining stones allow: the side
  to move cannot win before its next-but-one stone nor lose before the opponent's next one.
* **Null-window search**: the exact score comes from a binary search of null-window probes
  ``negamax(med, med + 1)``, with probes pulled towards 0 first (`solve_score`).
* **Transposition table** of `TT_SIZE` slots (a prime just above 2**23) holding the low 32 bits of
  the position key (``current + mask + BOTTOM`` < 2**49, so slot and stored bits identify it exactly)
  and one byte: an upper bound, or (above `LOWER_OFFSET`) a lower bound of the score. 42 MB,
  allocated once per `ConnectFourSolver` and reused across solves (entries are facts about
  positions, valid for any later search).
* **Move ordering**: central columns first, refined by the number of threats (cells that would
  complete a four) a move creates, the best first.
* **Immediate wins** are detected at the root; below it the side to move never has one, because
  **only non-losing moves are played** ("anticipate losing moves"): a forced block is the only move,
  a cell below an opponent threat is never played, and a position with two forced blocks (or a forced
  block under a threat) is lost at once.
"""

from __future__ import annotations

import functools
import time
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from numba import njit

from rlgames.game import State
from rlgames.games.connect_four.game import ConnectFour
from rlgames.games.connect_four.rules import (
    BOTTOM,
    HEIGHT,
    NUM_CELLS,
    WIDTH,
    possible_moves,
    winning_positions,
)
from rlgames.jit.bits import popcount
from rlgames.solvers.result import Actions, SolveBudgetError, SolveResult

MIN_SCORE = -(NUM_CELLS // 2) + 3
"""-18: the quickest loss, to the opponent's 4th stone."""
MAX_SCORE = (NUM_CELLS + 1) // 2 - 3
"""18: the quickest win, with one's own 4th stone."""
TT_SIZE = 8388617
"""The smallest prime above 2**23: with 32 key bits stored, 2**23 * 2**32 > 2**49 keys stay distinct."""
LOWER_OFFSET = MAX_SCORE - 2 * MIN_SCORE + 2
"""A TT byte above ``MAX_SCORE - MIN_SCORE + 1`` is a lower bound ``byte - LOWER_OFFSET``; a nonzero
byte up to it an upper bound ``byte + MIN_SCORE - 1``; 0 is an empty slot."""
KEY_BITS = 0xFFFFFFFF
COLUMN_ORDER = np.array([3, 2, 4, 1, 5, 0, 6], dtype=np.int64)
COLUMN = (1 << HEIGHT) - 1  # the playable cells of column 0


class Workspace(NamedTuple):
    """The solver's preallocated arrays."""

    tt_keys: np.ndarray  # uint32[TT_SIZE]: low 32 bits of the key
    tt_values: np.ndarray  # uint8[TT_SIZE]: bound byte, 0 when empty
    moves: np.ndarray  # int64[NUM_CELLS + 1, WIDTH]: per ply, the candidate moves (one bit each), sorted
    scores: np.ndarray  # int64[NUM_CELLS + 1, WIDTH]: their ordering scores
    nodes: np.ndarray  # int64[3]: nodes searched, the node count at which to stop, whether it stopped


NODE_LIMIT, STOPPED = 1, 2  # slots of `Workspace.nodes` after the count
NO_LIMIT = np.iinfo(np.int64).max
CHUNK_NODES = 1 << 22
"""Nodes per compiled call when a time limit is set (the clock is read between calls)."""


def new_workspace() -> Workspace:
    nodes = np.array([0, NO_LIMIT, 0], dtype=np.int64)
    return Workspace(
        tt_keys=np.zeros(TT_SIZE, dtype=np.uint32),
        tt_values=np.zeros(TT_SIZE, dtype=np.uint8),
        moves=np.zeros((NUM_CELLS + 1, WIDTH), dtype=np.int64),
        scores=np.zeros((NUM_CELLS + 1, WIDTH), dtype=np.int64),
        nodes=nodes,
    )


@njit(cache=True)
def half(x: int) -> int:
    """``x / 2`` rounded towards zero (C division, as in Pons' code)."""
    return x // 2 if x >= 0 else -(-x // 2)


@njit(cache=True)
def can_win_now(current: int, mask: int) -> bool:
    return winning_positions(current, mask) & possible_moves(mask) != 0


@njit(cache=True)
def non_losing_moves(current: int, mask: int) -> int:
    """The moves after which the opponent cannot win at once (Pons' ``possibleNonLosingMoves``); 0 when
    every move loses. Assumes the side to move cannot win at once."""
    possible = possible_moves(mask)
    opponent_wins = winning_positions(current ^ mask, mask)
    forced = possible & opponent_wins
    if forced:
        if forced & (forced - 1):
            return 0  # two threats to block
        possible = forced
    return possible & ~(opponent_wins >> 1)  # never play right below an opponent threat


@njit(cache=True)
def tt_get(key: int, ws: Workspace) -> int:
    slot = key % TT_SIZE
    return ws.tt_values[slot] if ws.tt_keys[slot] == key & KEY_BITS else 0


@njit(cache=True)
def tt_put(key: int, value: int, ws: Workspace) -> None:
    slot = key % TT_SIZE
    ws.tt_keys[slot] = key & KEY_BITS
    ws.tt_values[slot] = value


@njit(cache=True)
def sort_moves(current: int, mask: int, possible: int, plies: int, ws: Workspace) -> int:
    """Writes the moves of ``possible`` into ``ws.moves[plies]``, best first: more threats created first,
    ties central first; returns their number."""
    moves, scores = ws.moves[plies], ws.scores[plies]
    n = 0
    for col in COLUMN_ORDER:
        move = possible & (COLUMN << (HEIGHT + 1) * col)
        if move:
            score = popcount(winning_positions(current | move, mask))
            i = n
            while i > 0 and scores[i - 1] < score:  # insertion sort, stable: ties keep the column order
                moves[i], scores[i] = moves[i - 1], scores[i - 1]
                i -= 1
            moves[i], scores[i] = move, score
            n += 1
    return n


@njit(cache=True)
def negamax(current: int, mask: int, plies: int, alpha: int, beta: int, ws: Workspace) -> int:
    """Pons' negamax: the exact score if it lies in ``(alpha, beta)``; otherwise a bound on the same side
    (``<= alpha`` or ``>= beta``). Assumes ``alpha < beta`` and that the side to move cannot win at once.
    Once ``ws.nodes[NODE_LIMIT]`` nodes are searched it sets ``ws.nodes[STOPPED]`` and returns 0 at once
    at every level, storing nothing."""
    ws.nodes[0] += 1
    if ws.nodes[0] >= ws.nodes[NODE_LIMIT]:
        ws.nodes[STOPPED] = 1
        return 0
    possible = non_losing_moves(current, mask)
    if possible == 0:  # the opponent wins with its next stone
        return -((NUM_CELLS - plies) // 2)
    if plies >= NUM_CELLS - 2:  # neither side can win any more
        return 0
    lower = -((NUM_CELLS - 2 - plies) // 2)  # the opponent cannot win with its next stone
    if alpha < lower:
        alpha = lower
        if alpha >= beta:
            return alpha
    upper = (NUM_CELLS - 1 - plies) // 2  # we cannot win with our next stone
    key = current + mask + BOTTOM
    stored = tt_get(key, ws)
    if stored > MAX_SCORE - MIN_SCORE + 1:
        lower = stored - LOWER_OFFSET
        if alpha < lower:
            alpha = lower
            if alpha >= beta:
                return alpha
    elif stored:
        upper = stored + MIN_SCORE - 1
    if beta > upper:
        beta = upper
        if alpha >= beta:
            return beta
    n = sort_moves(current, mask, possible, plies, ws)
    for i in range(n):
        move = ws.moves[plies, i]
        score = -negamax(current ^ mask, mask | move, plies + 1, -beta, -alpha, ws)
        if ws.nodes[STOPPED]:
            return 0
        if score >= beta:
            tt_put(key, score + LOWER_OFFSET, ws)
            return score
        alpha = max(alpha, score)
    tt_put(key, alpha - MIN_SCORE + 1, ws)
    return alpha


@njit(cache=True)
def solve_score(current: int, mask: int, plies: int, ws: Workspace) -> int:
    """The exact score of a non-terminal position, by null-window probes of `negamax` (0 when the node
    limit stopped it: see ``ws.nodes[STOPPED]``)."""
    if can_win_now(current, mask):
        return (NUM_CELLS + 1 - plies) // 2
    low = max(-((NUM_CELLS - plies) // 2), MIN_SCORE)
    high = min((NUM_CELLS + 1 - plies) // 2, MAX_SCORE)
    while low < high:
        med = low + (high - low) // 2
        if med <= 0 and half(low) < med:
            med = half(low)
        elif med >= 0 and half(high) > med:
            med = half(high)
        score = negamax(current, mask, plies, med, med + 1, ws)
        if ws.nodes[STOPPED]:
            return 0
        if score <= med:
            high = score
        else:
            low = score
    return low


@njit(cache=True)
def move_reaches(current: int, mask: int, plies: int, col: int, bound: int, ws: Workspace) -> bool:
    """Whether playing column ``col`` (legal) is worth at least ``bound`` to the side to move: one
    null-window probe of the child."""
    move = possible_moves(mask) & (COLUMN << (HEIGHT + 1) * col)
    if winning_positions(current, mask) & move:
        return (NUM_CELLS + 1 - plies) // 2 >= bound
    child_current, child_mask = current ^ mask, mask | move
    if plies + 1 == NUM_CELLS:
        return 0 >= bound
    if can_win_now(child_current, child_mask):
        return -((NUM_CELLS - plies) // 2) >= bound
    return negamax(child_current, child_mask, plies + 1, -bound, -bound + 1, ws) <= -bound


def score_to_plies(score: int, plies: int) -> int:
    """Plies to the end of a game whose position, ``plies`` stones in, has Pons score ``score``."""
    if score == 0:
        return NUM_CELLS - plies
    stones = 22 - abs(score)  # the winner's stones when it completes four
    winner_moved_first = (plies % 2 == 0) == (score > 0)
    end = 2 * stones - 1 if winner_moved_first else 2 * stones
    return end - plies


@dataclass(frozen=True)
class ConnectFourSolveResult(SolveResult):
    """A `SolveResult` that also knows the stones on the board, for Pons' score."""

    plies_played: int

    @property
    def score(self) -> int:
        """Pons' score: ``22 - k`` for a win with the winner's ``k``-th stone, ``-(22 - k)`` for a loss,
        0 for a draw; the winner's stones after the winning move ``t = plies_played + plies_to_end``
        are ``ceil(t / 2)`` (the first player wins only on odd moves, the second on even ones)."""
        end = self.plies_played + self.plies_to_end
        return self.value * (22 - (end + 1) // 2)


class ConnectFourSolver:
    """Solves connect-four positions; keeps its 42 MB transposition table between solves.

    The result's ``best_actions`` cost one null-window probe per legal move, and so do its
    ``value_preserving_actions`` (no probe when the side to move loses: then every move keeps the value).
    Probes reuse the table the solve filled, so they usually cost a fraction of the solve.
    """

    def __init__(self) -> None:
        self.workspace = new_workspace()

    def reset(self) -> None:
        """Empties the transposition table."""
        self.workspace.tt_keys[:] = 0
        self.workspace.tt_values[:] = 0

    def solve(self, state: State, *, time_limit: float | None = None) -> ConnectFourSolveResult:
        """Solves ``state``; raises `SolveBudgetError` past ``time_limit`` seconds (None: no limit; the
        empty board needs far longer than a mid-game position)."""
        if not isinstance(state.game, ConnectFour):
            raise ValueError(f"the connect-four solver cannot solve {state.game.name}")
        if state.is_terminal():
            raise ValueError("solve needs a position where a player is to move; the game is over")
        _, _, current, mask, plies = state.compact
        ws = self.workspace
        ws.nodes[0] = 0
        start = time.perf_counter()
        score = self._score(current, mask, plies, time_limit)
        elapsed = time.perf_counter() - start
        value = (score > 0) - (score < 0)
        legal = state.legal_actions()
        # keeping a win means a move worth >= 1, keeping a draw >= 0; when losing, every move keeps the value
        preserving = (
            functools.partial(self._reaching, state, legal, value) if value >= 0 else functools.partial(tuple, legal)
        )
        return ConnectFourSolveResult(
            value=value,
            plies_to_end=score_to_plies(score, plies),
            nodes=int(ws.nodes[0]),
            time_s=elapsed,
            find_best_actions=functools.partial(self._reaching, state, legal, score),
            find_value_preserving_actions=preserving,
            plies_played=plies,
        )

    def _score(self, current: int, mask: int, plies: int, time_limit: float | None) -> int:
        """`solve_score` in calls of `CHUNK_NODES` nodes under a time limit; each call starts over but
        finds what the last one proved in the table."""
        ws = self.workspace
        if time_limit is None:
            return int(solve_score(current, mask, plies, ws))
        deadline = time.perf_counter() + time_limit
        try:
            while True:
                ws.nodes[NODE_LIMIT], ws.nodes[STOPPED] = ws.nodes[0] + CHUNK_NODES, 0
                score = int(solve_score(current, mask, plies, ws))
                if not ws.nodes[STOPPED]:
                    return score
                if time.perf_counter() > deadline:
                    raise SolveBudgetError(
                        f"connect_four: not solved within {time_limit:g} s ({int(ws.nodes[0]):,} positions searched)"
                    )
        finally:
            ws.nodes[NODE_LIMIT], ws.nodes[STOPPED] = NO_LIMIT, 0

    def _reaching(self, state: State, legal: list[int], bound: int) -> Actions:
        """The legal moves worth at least ``bound`` to the side to move."""
        _, _, current, mask, plies = state.compact
        return tuple(col for col in legal if move_reaches(current, mask, plies, col, bound, self.workspace))


@functools.cache
def default_solver() -> ConnectFourSolver:
    """The solver `solve` uses, created on first use and kept for the process."""
    return ConnectFourSolver()


def solve(state: State, *, time_limit: float | None = None) -> ConnectFourSolveResult:
    """Solves a connect-four position exactly with the process's `default_solver`."""
    return default_solver().solve(state, time_limit=time_limit)
