"""The compiled alpha-beta against exact oracles and the Python reference searches."""

from __future__ import annotations

import functools
import math
import time

import numpy as np
import pytest
from numba import njit

import rlgames
from rlgames.agents import AgentSpecError
from rlgames.evaluators import Evaluator, ZeroEvaluator
from rlgames.game import TERMINAL
from rlgames.games.tic_tac_toe.evaluator import OpenLinesEvaluator
from rlgames.search import AlphaBeta, AlphaBetaConfig
from rlgames.search.reference import alphabeta as reference_alphabeta

TTT = rlgames.load_game("tic_tac_toe")
SMALL_TT = 0.25  # MB: plenty for tic-tac-toe, cheap to allocate thousands of times
ORDERINGS = [
    dict(tt_size_mb=SMALL_TT, use_killers=True, use_history=True),
    dict(tt_size_mb=0, use_killers=True, use_history=True),
    dict(tt_size_mb=SMALL_TT, use_killers=False, use_history=False),
    dict(tt_size_mb=0, use_killers=False, use_history=False),
]


@functools.cache
def exact(compact: tuple) -> tuple[int, int]:
    """``(result for the side to move, plies to the end)`` of a tic-tac-toe position under perfect play
    that wins as fast and loses as slowly as possible (the distance of a draw is irrelevant)."""
    best = None
    for child in _children(compact):
        if child[0] == TERMINAL:
            candidate = (child[1] * (1 - 2 * compact[0]), 1)
        else:
            result, plies = exact(child)
            candidate = (-result, plies + 1)
        if best is None or _rank(candidate) > _rank(best):
            best = candidate
    return best


def _rank(outcome: tuple[int, int]) -> int:
    result, plies = outcome
    return result * (100 - plies)


def _children(compact: tuple) -> list[tuple]:
    state = TTT.state_class(TTT, compact)
    return [TTT.kernels.apply(compact, a) for a in state.legal_actions()]


def _reachable_positions() -> list[tuple]:
    seen, stack = set(), [TTT.initial_compact_state()]
    while stack:
        compact = stack.pop()
        if compact in seen or compact[0] == TERMINAL:
            continue
        seen.add(compact)
        stack.extend(_children(compact))
    return sorted(seen)


POSITIONS = _reachable_positions()


def _state(compact: tuple):
    return TTT.state_class(TTT, compact)


def _check_pv(state, result) -> None:
    line = state
    for action in result.principal_variation:  # raises IllegalActionError on an illegal move
        line = line.apply(action)
    assert result.principal_variation[0] == result.action
    if result.plies_to_end is not None:
        assert line.is_terminal()
        assert len(result.principal_variation) == result.plies_to_end
        winner = 0 if line.returns()[0] > 0 else 1
        assert (winner == state.current_player()) == (result.value > 0)


def test_reachable_positions_are_all_of_tic_tac_toe():
    assert len(POSITIONS) == 4520
    assert exact(TTT.initial_compact_state())[0] == 0


def test_full_depth_equals_the_exact_value_and_win_distance_everywhere():
    search = AlphaBeta(ZeroEvaluator(), AlphaBetaConfig(tt_size_mb=SMALL_TT))
    for compact in POSITIONS:
        state = _state(compact)
        result = search.search(state)
        expected, plies = exact(compact)
        assert result.value == expected, state
        assert result.plies_to_end == (plies if expected else None), state
        _check_pv(state, result)


@pytest.mark.parametrize("knobs", ORDERINGS)
def test_orderings_and_tt_do_not_change_the_result(knobs):
    search = AlphaBeta(ZeroEvaluator(), AlphaBetaConfig(**knobs))
    for compact in POSITIONS[::7]:
        expected, plies = exact(compact)
        result = search.search(_state(compact))
        assert (result.value, result.plies_to_end) == (expected, plies if expected else None)


def test_empty_board_is_a_draw_and_the_pv_plays_it_out():
    result = AlphaBeta(ZeroEvaluator()).search(TTT.new_initial_state())
    assert result.value == 0 and result.plies_to_end is None
    assert result.policy.sum() == 1 and result.policy[result.action] == 1
    line = TTT.state_from_actions(result.principal_variation)
    assert line.is_terminal() and line.returns() == [0.0, 0.0]


def test_prefers_the_win_in_one_over_a_win_in_three():
    # x holds c2 and c3 and wins now at c1; a1, a2 and b2 also win, two moves later.
    state = TTT.state_from_moves("c3 a3 c2 b3")
    result = AlphaBeta(ZeroEvaluator()).search(state)
    assert result.value == 1 and result.plies_to_end == 1
    assert state.apply(result.action).is_terminal()
    assert reference_alphabeta(state).action != result.action  # plain minimax takes a slower win


def test_a_win_in_one_scores_higher_than_a_win_in_three():
    search = AlphaBeta(ZeroEvaluator())
    fast = search.search(TTT.state_from_moves("c3 a3 c2 b3"))
    slow = search.search(TTT.state_from_moves("a1 b1 c1 a2"))  # no immediate win, but the fork b2
    assert (fast.value, slow.value) == (1, 1)
    assert (fast.plies_to_end, slow.plies_to_end) == (1, 3)


def test_a_lost_position_prefers_the_slowest_loss():
    # o must block c1 to lose in 4 plies rather than 2.
    state = TTT.state_from_moves("c3 b3 c2")
    result = AlphaBeta(ZeroEvaluator()).search(state)
    assert result.value == -1 and result.plies_to_end == 4
    assert state.action_to_string(result.action) == "c1"


def test_depth_limited_search_matches_the_reference_with_every_ordering():
    evaluator = OpenLinesEvaluator()
    rng = np.random.default_rng(1)
    sample = [POSITIONS[i] for i in rng.choice(len(POSITIONS), 60, replace=False)]
    searches = [AlphaBeta(evaluator, AlphaBetaConfig(depth=3, **knobs)) for knobs in ORDERINGS]
    for compact in sample:
        state = _state(compact)
        expected = reference_alphabeta(state, depth=3, evaluator=evaluator).value
        for search in searches:
            result = search.search(state)
            assert result.value == pytest.approx(expected, abs=1e-12)
            assert -1 <= result.value <= 1
            _check_pv(state, result)


def test_iterative_deepening_returns_the_deepest_completed_iteration():
    evaluator = OpenLinesEvaluator()
    state = TTT.new_initial_state()
    budget = 400
    result = AlphaBeta(evaluator, AlphaBetaConfig(max_nodes=budget)).search(state)
    depth = result.stats.depth
    assert 1 <= depth < 9
    completed = AlphaBeta(evaluator, AlphaBetaConfig(depth=depth)).search(state)
    deeper = AlphaBeta(evaluator, AlphaBetaConfig(depth=depth + 1)).search(state)
    assert completed.stats.nodes <= budget < deeper.stats.nodes
    assert (result.action, result.value) == (completed.action, completed.value)
    assert result.principal_variation == completed.principal_variation


def test_an_interrupted_iteration_gives_a_better_move_it_searched_to_the_end():
    """When the budget runs out inside depth d + 1, after the completed depth d's move was searched
    first, the result is the best root move the iteration searched to the end: its value is its exact
    depth-(d + 1) value, and at least that of depth d's move at depth d + 1."""
    game = rlgames.load_game("connect_four")
    evaluator = rlgames.evaluators.load_evaluator("heuristic", game)
    # A connect four position is always met at the same ply (its number of discs), so a table entry
    # from an earlier iteration is too shallow to cut anything: each iteration's values are exact.
    plain = dict(tt_size_mb=1)

    def value_at(state, action: int, depth: int) -> float:  # the mover's exact value of ``action``
        return -AlphaBeta(evaluator, AlphaBetaConfig(depth=depth, **plain)).search(state.apply(action)).value

    interrupted = 0
    for state in _random_positions(game, 12, 10, seed=4):
        if any(state.apply(a).is_terminal() for a in state.legal_actions()):
            continue
        for budget in (300, 1000, 3000, 10000):
            result = AlphaBeta(evaluator, AlphaBetaConfig(max_nodes=budget, **plain)).search(state)
            depth = result.stats.depth
            completed = AlphaBeta(evaluator, AlphaBetaConfig(depth=depth, **plain)).search(state)  # the same iterations
            if (result.action, result.value) == (completed.action, completed.value):
                continue
            interrupted += 1
            assert result.value == pytest.approx(value_at(state, result.action, depth), abs=1e-12)
            assert result.value >= value_at(state, completed.action, depth) - 1e-12
            _check_pv(state, result)
    assert interrupted >= 5


def test_a_time_limit_stops_the_search():
    evaluator = OpenLinesEvaluator()
    search = AlphaBeta(evaluator, AlphaBetaConfig(time_limit=0.01, tt_size_mb=0))
    search.search(TTT.new_initial_state())  # compiles
    start = time.perf_counter()
    result = search.search(TTT.new_initial_state())
    assert time.perf_counter() - start < 1.0
    assert result.stats.depth >= 1


def test_root_prior_orders_the_root():
    prior = np.zeros(9)
    prior[8] = 1.0
    config = AlphaBetaConfig(depth=1, tt_size_mb=0)
    result = AlphaBeta(ZeroEvaluator(), config).search(TTT.new_initial_state(), root_prior=prior)
    assert result.action == 8  # every move scores 0: the first one searched is kept


@njit
def _never_quiet(s) -> bool:
    return False


def test_quiescence_searches_non_quiet_positions_further():
    evaluator = OpenLinesEvaluator()
    state = TTT.state_from_moves("b2 a1")
    extended = AlphaBeta(
        evaluator, AlphaBetaConfig(depth=1, quiescence_depth=2, tt_size_mb=0), is_quiet=_never_quiet
    ).search(state)
    plain = AlphaBeta(evaluator, AlphaBetaConfig(depth=3, tt_size_mb=0)).search(state)
    assert extended.value == pytest.approx(plain.value)
    assert extended.stats.extra["quiescence_nodes"] > 0


class PythonOnly(Evaluator):
    """An evaluator without a compiled kernel, as a network is."""

    def value(self, state) -> float:
        return OpenLinesEvaluator().value(state)


def test_an_evaluator_without_kernel_falls_back_to_python():
    state = TTT.state_from_moves("b2")
    fallback = AlphaBeta(PythonOnly(), AlphaBetaConfig(depth=2)).search(state)
    compiled = AlphaBeta(OpenLinesEvaluator(), AlphaBetaConfig(depth=2)).search(state)
    assert fallback.value == pytest.approx(compiled.value)


def test_config_rejects_nonsense():
    with pytest.raises(ValueError):
        AlphaBetaConfig(depth=0)
    with pytest.raises(ValueError):
        AlphaBetaConfig(max_nodes=0)
    with pytest.raises(ValueError):
        AlphaBeta(ZeroEvaluator()).search(TTT.state_from_moves("a1 a2 b1 b2 c1"))


# --- connect four ----------------------------------------------------------------------------------
CENTER = 0b111111 << 21  # connect four's middle column (7 bits per column)


@njit
def _center_kernel(s) -> float:
    """A simple connect four evaluation: stones in the middle column, mover's minus opponent's."""
    mine = s[2] & CENTER
    theirs = (s[3] ^ s[2]) & CENTER
    count = 0
    while mine:
        mine &= mine - 1
        count += 1
    while theirs:
        theirs &= theirs - 1
        count -= 1
    return 0.2 * count


class CenterEvaluator(Evaluator):
    def value(self, state) -> float:
        return _center_kernel(state.compact)

    @property
    def kernel(self):
        return _center_kernel


@pytest.mark.slow
def test_connect_four_matches_the_reference_at_depth_3_and_4():
    game = rlgames.load_game("connect_four")
    evaluator = CenterEvaluator()
    rng = np.random.default_rng(2)
    for depth, count in ((3, 200), (4, 40)):
        search = AlphaBeta(evaluator, AlphaBetaConfig(depth=depth, tt_size_mb=1))
        for _ in range(count):
            state = game.new_initial_state()
            for _ in range(rng.integers(0, 30)):
                state = state.apply(int(rng.choice(state.legal_actions())))
                if state.is_terminal():
                    break
            if state.is_terminal():
                continue
            expected = reference_alphabeta(state, depth=depth, evaluator=evaluator).value
            result = search.search(state)
            assert result.value == pytest.approx(expected, abs=1e-12)
            _check_pv(state, result)


@pytest.mark.slow
def test_connect_four_budgeted_search_is_legal_and_fast():
    game = rlgames.load_game("connect_four")
    search = AlphaBeta(CenterEvaluator(), AlphaBetaConfig(max_nodes=200_000))
    result = search.search(game.new_initial_state())
    assert result.stats.nodes <= 200_000 and result.stats.depth >= 6
    _check_pv(game.new_initial_state(), result)
    assert math.isfinite(result.value)


def _random_positions(game: rlgames.Game, count: int, max_plies: int, seed: int) -> list[rlgames.State]:
    rng, positions = np.random.default_rng(seed), []
    while len(positions) < count:
        state = game.new_initial_state()
        for _ in range(rng.integers(0, max_plies)):
            state = state.apply(int(rng.choice(state.legal_actions())))
            if state.is_terminal():
                break
        if not state.is_terminal():
            positions.append(state)
    return positions


@pytest.mark.parametrize("name, depth, count", [("connect_four", 3, 60), ("othello", 2, 40)])
def test_compiled_alphabeta_equals_plain_minimax_with_the_heuristic(name, depth, count):
    """Alpha-beta's value equals minimax's, with every ordering heuristic and with or without
    iterative deepening, on random positions of the big games."""
    from rlgames.evaluators import load_evaluator
    from rlgames.search.reference import minimax

    game = rlgames.load_game(name)
    evaluator = load_evaluator("heuristic", game)
    searches = [
        AlphaBeta(evaluator, AlphaBetaConfig(depth=depth)),
        AlphaBeta(evaluator, AlphaBetaConfig(depth=depth, iterative_deepening=False, tt_size_mb=0)),
    ]
    for state in _random_positions(game, count, 40 if name == "connect_four" else 50, seed=depth):
        expected = minimax(state, depth=depth, evaluator=evaluator).value
        for search in searches:
            result = search.search(state)
            assert result.value == pytest.approx(expected, abs=1e-9)
            _check_pv(state, result)


def test_alphabeta_refuses_games_with_chance_in_one_line():
    pig = rlgames.load_game("pig")
    with pytest.raises(ValueError, match="pig has chance nodes: alpha-beta searches deterministic games"):
        AlphaBeta(ZeroEvaluator(), AlphaBetaConfig(depth=2)).search(pig.new_initial_state())
    with pytest.raises(AgentSpecError, match="use expectiminimax"):
        rlgames.load_agent("alphabeta(depth=2)", pig)
