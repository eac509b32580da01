"""The othello evaluator: corners, X/C-squares, stable discs, mobility, colour symmetry, strength."""

from __future__ import annotations

import numpy as np
import pytest
from evaluator_checks import SMALL_TT, features, random_states, score_vs

import rlgames
from rlgames.games.othello.evaluator import OthelloEvaluator
from rlgames.games.othello.rules import PASS
from rlgames.search import AlphaBeta, AlphaBetaConfig

OTHELLO = rlgames.load_game("othello")


def sq(name: str) -> int:
    return OTHELLO.new_initial_state().string_to_action(name)


def board(*names: str) -> int:
    return sum(1 << sq(n) for n in names)


def othello(black: tuple[str, ...], white: tuple[str, ...], player: int = 0):
    return OTHELLO.state_from_boards(board(*black), board(*white), player)


def moves(state) -> int:
    """The number of legal disc placements (a pass is not one)."""
    return len([a for a in state.legal_actions() if a != PASS])


def test_othello_corners_x_c_squares_positional_and_stable_discs():
    # black: corner a1 with b1 c1 along the top edge, g7 (the X-square of the empty h8);
    # white: d1, h2 (a C-square of the empty h1), b2 (the X-square of a1, which is taken).
    state = othello(("a1", "b1", "c1", "g7"), ("d1", "h2", "b2"))
    f = features(OthelloEvaluator(), state)
    assert f["disc_difference"] == 1
    assert f["corners"] == 1
    assert f["x_squares"] == 1 - 0  # white's b2 does not count: a1 is occupied
    assert f["c_squares"] == 0 - 1  # black's b1 does not count either
    assert f["positional"] == (100 - 20 + 10 - 50) - (5 - 20 - 50)
    assert f["stable"] == 3 - 0  # a1 b1 c1: a run from black's corner
    white_to_move = othello(("a1", "b1", "c1", "g7"), ("d1", "h2", "b2"), player=1)
    assert f["mobility"] == moves(state) - moves(white_to_move) == 4 - 0  # white would pass
    assert features(OthelloEvaluator(), white_to_move) == {k: -v for k, v in f.items()}


def test_othello_a_full_edge_is_stable_and_a_broken_one_is_not():
    full = othello(("a8", "h8", "d4"), ("b8", "c8", "d8", "e8", "f8", "g8", "e4"))
    assert features(OthelloEvaluator(), full)["stable"] == 2 - 6
    broken = othello(("a8", "h8", "d4"), ("b8", "c8", "d8", "f8", "g8", "e4"))  # e8 empty
    assert features(OthelloEvaluator(), broken)["stable"] == 2 - 0


def test_othello_start_is_balanced_and_mobility_counts_moves():
    start = OTHELLO.new_initial_state()
    assert OthelloEvaluator().feature_values(start).tolist() == [0.0] * 7
    for state in random_states(OTHELLO, 10, seed=7, max_plies=40):
        player, _, black, white, _ = state.compact
        other = OTHELLO.state_from_boards(black, white, 1 - player)  # the same discs, the opponent to move
        assert features(OthelloEvaluator(), state)["mobility"] == moves(state) - moves(other)


def test_othello_swapping_colours_negates_every_feature():
    evaluator = OthelloEvaluator()
    for state in random_states(OTHELLO, 40, seed=3, max_plies=50):
        player, _, black, white, _ = state.compact
        swapped = OTHELLO.state_from_boards(white, black, player)
        np.testing.assert_allclose(evaluator.feature_values(swapped), -evaluator.feature_values(state))
        assert evaluator.value(swapped) == pytest.approx(-evaluator.value(state), abs=1e-12)


def test_othello_heuristic_beats_random_play():
    searcher = AlphaBeta(OthelloEvaluator(), AlphaBetaConfig(depth=2, tt_size_mb=SMALL_TT))
    assert score_vs(OTHELLO, searcher, None, games=20, seed=0) >= 17
