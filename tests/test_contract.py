"""The game contract on a game that uses all of it (tests/tug.py: returns of ±2, repetition rules,
a tactical move): the facade, alpha-beta, quiescence, null move and expectiminimax, each against the
plain minimax reference over the `State` API."""

from __future__ import annotations

import numpy as np
import pytest
from tug import CASH, LEFT, RIGHT, Tug, TugEvaluator

import rlgames
from rlgames.game import GameInfo, IllegalActionError, Outcome
from rlgames.search import (
    AlphaBeta,
    AlphaBetaConfig,
    Expectiminimax,
    ExpectiminimaxConfig,
)
from rlgames.search.reference import minimax

RULES = ("twofold", "threefold", "superko")
EVALUATOR = TugEvaluator()


def random_positions(game: Tug, count: int, seed: int) -> list[rlgames.State]:
    """``count`` non-terminal positions reached by random legal moves (histories of 0 to 8 moves)."""
    rng, positions = np.random.default_rng(seed), []
    while len(positions) < count:
        state = game.new_initial_state()
        for _ in range(rng.integers(0, 9)):
            child = state.apply(int(rng.choice(state.legal_actions())))
            if child.is_terminal():
                break
            state = child
        positions.append(state)
    return positions


# --- the facade ------------------------------------------------------------------------------------
def test_game_info_declares_the_utility_and_history() -> None:
    info = Tug.describe()
    assert info.utility == (-2, 2) and info.history_dependent
    assert info.value(2) == 1.0 and info.value(-1) == -0.5
    with pytest.raises(ValueError, match="zero-sum"):
        GameInfo("lopsided", num_actions=1, observation_shape=(1,), max_game_length=1, utility=(-1, 2))


@pytest.mark.parametrize(
    "moves, returns, result",
    [
        ([RIGHT, RIGHT, RIGHT], (2.0, -2.0), "1-0 (2 points)"),  # player 0 pulls the marker home
        ([LEFT, LEFT, LEFT], (-2.0, 2.0), "0-1 (2 points)"),  # player 0 pulls it into player 1's goal
        ([RIGHT, CASH], (1.0, -1.0), "1-0"),  # player 1 cashes in on player 0's side
        ([LEFT, LEFT, CASH], (-1.0, 1.0), "0-1"),
        ([CASH], (0.0, 0.0), "1/2-1/2"),
    ],
)
def test_outcomes_from_both_seats(moves: list[int], returns: tuple[float, float], result: str) -> None:
    state = Tug().state_from_actions(moves)
    assert state.returns() == list(returns)
    outcome = state.outcome()
    assert outcome == Outcome(None if returns[0] == 0 else 0 if returns[0] > 0 else 1, returns, "normal")
    assert outcome.result == result


def test_repetition_rules_in_the_facade() -> None:
    drawn = Tug(rule="twofold").state_from_actions([RIGHT, LEFT])  # back to the start, player 0 to move
    assert drawn.is_terminal() and drawn.outcome() == Outcome(None, (0.0, 0.0), "repetition")
    assert len(drawn.history()) == 2
    game = Tug(rule="threefold")
    assert not game.state_from_actions([RIGHT, LEFT]).is_terminal()
    assert game.state_from_actions([RIGHT, LEFT, RIGHT, LEFT]).outcome().termination == "repetition"
    superko = Tug(rule="superko").state_from_actions([RIGHT])
    assert superko.legal_actions() == [RIGHT, CASH] and not superko.is_legal(LEFT)
    with pytest.raises(IllegalActionError, match="repeats an earlier position"):
        superko.apply(LEFT)
    assert superko.tactical_actions() == [CASH]


def test_states_with_different_histories_differ() -> None:
    game = Tug(rule="threefold")
    a = game.state_from_actions([RIGHT, LEFT])
    assert a.compact == game.new_initial_state().compact and a != game.new_initial_state()


# --- alpha-beta against minimax ----------------------------------------------------------------------
@pytest.mark.parametrize("rule", RULES)
def test_alphabeta_solves_like_minimax(rule: str) -> None:
    """Without a table alpha-beta is exact under every repetition rule. With one, a position's entry
    can carry the repetitions of the path it was searched on (the graph-history interaction), so only
    the move's legality is held there."""
    for state in random_positions(Tug(rule=rule), 25, seed=RULES.index(rule)):
        exact = minimax(state)
        result = AlphaBeta(EVALUATOR, AlphaBetaConfig(tt_size_mb=0)).search(state)
        assert result.value == exact.value, state.history()
        assert action_value(state, result.action) == exact.value
        with_table = AlphaBeta(EVALUATOR, AlphaBetaConfig(tt_size_mb=1)).search(state)
        assert with_table.action in state.legal_actions() and -1 <= with_table.value <= 1


def action_value(state: rlgames.State, action: int) -> float:
    """The exact value of playing ``action`` for the side to move."""
    child, player = state.apply(action), state.current_player()
    if child.is_terminal():
        return child.game.info.value(child.returns()[player])
    value = minimax(child).value
    return value if child.current_player() == player else -value


@pytest.mark.parametrize("rule", RULES)
@pytest.mark.parametrize("depth", [1, 2, 3])
@pytest.mark.parametrize("quiescence_depth", [0, 1, 2])
def test_depth_limited_alphabeta_and_quiescence_equal_minimax(rule: str, depth: int, quiescence_depth: int) -> None:
    config = AlphaBetaConfig(depth=depth, quiescence_depth=quiescence_depth, tt_size_mb=0, iterative_deepening=False)
    for state in random_positions(Tug(rule=rule), 15, seed=depth):
        expected = minimax(state, depth=depth, evaluator=EVALUATOR, quiescence_depth=quiescence_depth).value
        assert AlphaBeta(EVALUATOR, config).search(state).value == pytest.approx(expected, abs=1e-12)


def test_quiescence_sees_past_the_horizon() -> None:
    """Player 1 pulls the marker to -2 (worth 2/3 to it by the evaluator), but then player 0 cashes
    in, losing one point instead of standing there: the position is worth 0.5 to player 1, as the
    whole game tree says. Depth 1 misses it; depth 1 with one ply of quiescence sees it."""
    state = Tug().state_from_actions([LEFT])

    def search(q: int):
        return AlphaBeta(EVALUATOR, AlphaBetaConfig(depth=1, quiescence_depth=q)).search(state)

    assert search(0).value == pytest.approx(2 / 3)
    horizon = search(1)
    assert horizon.value == 0.5 == minimax(state).value
    assert horizon.principal_variation == (LEFT, CASH)
    assert horizon.stats.extra["quiescence_nodes"] > 0


def test_proven_two_point_win_beats_any_evaluation() -> None:
    state = Tug().state_from_actions([RIGHT, RIGHT])  # player 0 at 2 with goal next door
    result = AlphaBeta(EVALUATOR, AlphaBetaConfig(depth=3)).search(state)
    assert (result.action, result.value, result.plies_to_end) == (RIGHT, 1.0, 1)


def test_one_point_win_is_a_value_not_a_proven_win() -> None:
    state = Tug(size=1, rule="superko").state_from_actions([RIGHT])  # player 1 at 1: cash (lose 1) or lose 2
    result = AlphaBeta(EVALUATOR, AlphaBetaConfig()).search(state)
    assert result.value == minimax(state).value == -0.5 and result.plies_to_end is None


@pytest.mark.slow  # compiles the search twice more (about 25 s)
def test_null_move_pruning_is_off_by_default_and_prunes_when_on() -> None:
    state = Tug(size=3, rule="threefold", extras=True).new_initial_state()
    config = AlphaBetaConfig(depth=8, tt_size_mb=0)
    plain = AlphaBeta(EVALUATOR, config).search(state)
    assert config.null_reduction == 0 and plain.stats.extra["null_cutoffs"] == 0
    pruned = AlphaBeta(EVALUATOR, AlphaBetaConfig(depth=8, tt_size_mb=0, null_reduction=2)).search(state)
    assert pruned.stats.extra["null_cutoffs"] > 0 and pruned.stats.nodes != plain.stats.nodes
    assert pruned.action in state.legal_actions()


def test_move_score_orders_without_changing_the_value() -> None:
    """From the start, cashing in (a draw) and stepping right are worth the same; the first searched
    wins the tie, and the game's move score puts cashing in first."""
    config = AlphaBetaConfig(tt_size_mb=0)
    plain = AlphaBeta(EVALUATOR, config).search(Tug().new_initial_state())
    scored = AlphaBeta(EVALUATOR, config).search(Tug(extras=True).new_initial_state())
    assert plain.value == scored.value == 0.0
    assert (plain.action, scored.action) == (RIGHT, CASH)


# --- expectiminimax ----------------------------------------------------------------------------------
@pytest.mark.parametrize("rule", RULES)
def test_expectiminimax_solves_like_minimax(rule: str) -> None:
    for state in random_positions(Tug(rule=rule), 15, seed=10 + RULES.index(rule)):
        exact = minimax(state).value
        assert Expectiminimax(EVALUATOR, ExpectiminimaxConfig()).search(state).value == exact


def test_exact_solvers_refuse_history_dependent_games() -> None:
    from rlgames.solvers import solve

    with pytest.raises(ValueError, match="depend on earlier positions"):
        solve(Tug().new_initial_state())
