"""`load_evaluator` and every game's heuristic (its kernel against `value`, values in range), and the
rollout evaluator (seeded means of playouts, its kernel in compiled alpha-beta).

Each game's own evaluator tests are in tests/games/<game>/test_evaluator.py."""

from __future__ import annotations

import pytest
from evaluator_checks import SMALL_TT, random_states

import rlgames
from rlgames.evaluators import Evaluator, ZeroEvaluator, list_evaluators, load_evaluator
from rlgames.evaluators.rollout import RolloutEvaluator
from rlgames.games.checkers.evaluator import CheckersEvaluator
from rlgames.games.connect_four.evaluator import ConnectFourEvaluator
from rlgames.games.halving.evaluator import HalvingEvaluator
from rlgames.games.nim.evaluator import MisereNimEvaluator, NimEvaluator
from rlgames.games.othello.evaluator import OthelloEvaluator
from rlgames.games.pig.evaluator import PigEvaluator
from rlgames.games.tic_tac_toe.evaluator import OpenLinesEvaluator
from rlgames.search import AlphaBeta, AlphaBetaConfig

C4 = rlgames.load_game("connect_four")


# --- every game -----------------------------------------------------------------------------------

GAMES = [
    ("tic_tac_toe", {}, 9),
    ("connect_four", {}, 30),
    ("othello", {}, 60),
    ("nim", {}, 10),
    ("nim", {"misere": True}, 10),
    ("halving", {"n": 1000}, 10),
    ("pig", {}, 80),
    ("checkers", {}, 80),
]


@pytest.mark.parametrize("name, params, plies", GAMES)
def test_kernel_equals_value_and_values_are_in_range(name, params, plies):
    game = rlgames.load_game(name, **params)
    evaluator = load_evaluator("heuristic", game)
    for state in random_states(game, 40, seed=4, max_plies=plies):
        value = evaluator.value(state)
        assert -1.0 <= value <= 1.0
        assert evaluator.kernel(state.compact) == pytest.approx(value, abs=1e-12)


@pytest.mark.parametrize("name, params, plies", GAMES)
def test_load_evaluator_for_every_game(name, params, plies):
    game = rlgames.load_game(name, **params)
    expected = {
        "tic_tac_toe": OpenLinesEvaluator,
        "connect_four": ConnectFourEvaluator,
        "othello": OthelloEvaluator,
        "nim": MisereNimEvaluator if params else NimEvaluator,
        "halving": HalvingEvaluator,
        "pig": PigEvaluator,
        "checkers": CheckersEvaluator,
    }[name]
    assert type(load_evaluator("heuristic", game)) is expected
    assert isinstance(load_evaluator("zero", game), ZeroEvaluator)
    rollout = load_evaluator("rollout", game, rollouts=2, seed=0)
    assert isinstance(rollout, RolloutEvaluator) and rollout.rollouts == 2
    for evaluator in (load_evaluator("heuristic", game), rollout):
        assert isinstance(evaluator, Evaluator) and evaluator.policy(game.new_initial_state()) is None


def test_load_evaluator_passes_params_and_rejects_unknown_names():
    weights = load_evaluator("heuristic", C4, weights=[0.0] * 10).weights
    assert weights.tolist() == [0.0] * 10
    assert {"heuristic", "learned", "rollout", "zero"} <= set(list_evaluators())
    with pytest.raises(ValueError, match="unknown evaluator 'neural'.*heuristic.*zero"):
        load_evaluator("neural", C4)


# --- rollouts -------------------------------------------------------------------------------------


def random_play_value(state) -> float:
    """The exact expected return of the side to move when both sides play uniformly at random."""
    total = 0.0
    actions = state.legal_actions()
    for action in actions:
        child = state.apply(action)
        if child.is_terminal():
            total += child.returns()[state.current_player()]
        else:
            total -= random_play_value(child)
    return total / len(actions)


def test_rollout_value_is_a_seeded_mean_of_playouts():
    ttt = rlgames.load_game("tic_tac_toe")
    evaluator = RolloutEvaluator(ttt, rollouts=8, seed=5)
    for moves_played, rollouts in (("a1 b1 a2 b2", 400), ("a1 b1 a2 b2 c3", 400), ("b2 a1", 400)):
        state = ttt.state_from_moves(moves_played)
        value = RolloutEvaluator(ttt, rollouts=rollouts, seed=0).value(state)
        assert value == pytest.approx(random_play_value(state), abs=0.15)  # about 3 standard errors
    state = ttt.state_from_moves("a1 b1 a2 b2")
    values = [evaluator.value(state) for _ in range(10)]
    assert all(-1 <= v <= 1 and (8 * v).is_integer() for v in values)
    replay = RolloutEvaluator(ttt, rollouts=8, seed=5)
    assert [replay.value(state) for _ in range(10)] == values
    last_move = ttt.state_from_moves("a1 a2 a3 b2 b1 b3 c2 c1")  # x to move: one cell left, a draw
    assert RolloutEvaluator(ttt, seed=1).value(last_move) == 0.0


def test_rollout_kernel_shares_the_stream_and_is_stochastic():
    first, second = RolloutEvaluator(C4, rollouts=3, seed=7), RolloutEvaluator(C4, rollouts=3, seed=7)
    states = random_states(C4, 10, seed=6, max_plies=20)
    assert [first.kernel(s.compact) for s in states] == [second.value(s) for s in states]
    start = C4.initial_compact_state()
    assert len({first.kernel(start) for _ in range(30)}) > 1


def test_rollout_kernel_drives_compiled_alphabeta():
    game = rlgames.load_game("nim", heaps=(1, 2, 3))
    result = AlphaBeta(
        RolloutEvaluator(game, rollouts=4, seed=0), AlphaBetaConfig(depth=2, tt_size_mb=SMALL_TT)
    ).search(game.new_initial_state())
    assert result.action in game.new_initial_state().legal_actions() and -1 <= result.value <= 1
