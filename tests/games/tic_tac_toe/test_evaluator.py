"""The lecture notes' tic-tac-toe evaluation: open lines of the side to move minus the opponent's."""

from __future__ import annotations

import math

import pytest

import rlgames
from rlgames.games.tic_tac_toe.evaluator import OpenLinesEvaluator

TTT = rlgames.load_game("tic_tac_toe")


@pytest.mark.parametrize(
    "moves, mover_open, opponent_open",
    [
        ("", 8, 8),  # the notes: 8 - 8 = 0
        ("b2 b1", 6, 4),  # x in the centre, o on an edge: 6 - 4 = 2
        ("b2 a1 b1 b3", 3, 3),  # 3 - 3 = 0 (the notes' figure is not in the text; one such position)
    ],
)
def test_notes_open_lines_values(moves, mover_open, opponent_open):
    state = TTT.state_from_moves(moves)
    evaluator = OpenLinesEvaluator()
    assert evaluator.feature_values(state).tolist() == [mover_open, opponent_open]
    assert evaluator.score(state) == mover_open - opponent_open
    assert evaluator.value(state) == pytest.approx(math.tanh((mover_open - opponent_open) / 8))


def test_open_lines_are_from_the_side_to_move():
    evaluator = OpenLinesEvaluator()
    x_to_move = TTT.state_from_moves("b2 b1")
    o_to_move = TTT.state_from_moves("b2")  # x centre: open for x 8, for o 4
    assert evaluator.score(x_to_move) == 2
    assert evaluator.score(o_to_move) == 4 - 8
