"""The checkers evaluator: its features on a hand-made position, the balanced start, and colour symmetry."""

from __future__ import annotations

import math

import numpy as np
import pytest
from evaluator_checks import features, random_states

import rlgames
from rlgames.games.checkers.evaluator import CheckersEvaluator
from rlgames.games.checkers.rules import JUMPER, NO_JUMPER

CHECKERS = rlgames.load_game("checkers")


def test_features_of_a_hand_made_position():
    # Player 0 to move: men on 2, 4, 14, 23 and a king on 19; player 1: men on 11, 21, 29 and a king on 6.
    state = CHECKERS.state_from_squares(0, men0=[2, 4, 14, 23], kings0=[19], men1=[11, 21, 29], kings1=[6])
    evaluator = CheckersEvaluator()
    assert features(evaluator, state) == {
        "men": 4 - 3,
        "kings": 1 - 1,
        "advancement": (0 + 0 + 3 + 5) - (5 + 2 + 0),  # rows from each side's own back row
        "back_rank": 2 - 1,  # 2 and 4 guard player 0's back row, 29 player 1's
        "centre": 3 - 1,  # 14, 19, 23 against 11
        "mobility": (2 + 1 + 2 + 2 + 3) - (1 + 1 + 2 + 3),  # 2's jump over 6 counts among player 0's
        "runaway": 1 - 0,  # nothing of player 1 stands before 23; 11 has 2 before it
    }
    score = 1.0 + 0.04 + 0.15 + 2 * 0.1 + 10 * 0.05 - 7 * 0.05 + 0.5
    assert evaluator.score(state) == pytest.approx(score)
    assert evaluator.value(state) == pytest.approx(math.tanh(score / 3))
    assert evaluator.kernel(state.compact) == pytest.approx(evaluator.value(state), abs=1e-12)


def test_start_is_balanced():
    assert CheckersEvaluator().feature_values(CHECKERS.new_initial_state()).tolist() == [0.0] * 7


def reversed_bits(board: int) -> int:
    """The 32-bit board turned half round: bit ``k`` to bit ``31 - k``."""
    return int(f"{board:032b}"[::-1], 2)


def colour_flipped(state):
    """The same position seen from the other side: the board turned half round, the colours swapped."""
    player, _, men0, kings0, men1, kings1, jumper, quiet = state.compact
    flipped = (1 - player, 0, *map(reversed_bits, (men1, kings1, men0, kings0)))
    return type(state)(CHECKERS, (*flipped, NO_JUMPER if jumper == NO_JUMPER else 31 - jumper, quiet))


def test_values_are_from_the_side_to_move_and_colour_symmetric():
    evaluator = CheckersEvaluator()
    states = random_states(CHECKERS, 60, seed=11, max_plies=80)
    assert any(state.compact[JUMPER] != NO_JUMPER for state in states)  # the middle of a multi-jump too
    for state in states:
        mirror = colour_flipped(state)
        assert mirror.legal_actions() == sorted(
            ((63 - a // 8) * 4 + (a // 2 % 4 + 2) % 4) * 2 + a % 2 for a in state.legal_actions()
        )
        assert np.array_equal(evaluator.feature_values(mirror), evaluator.feature_values(state))
        assert evaluator.value(mirror) == evaluator.value(state)
        assert -1.0 <= evaluator.value(state) <= 1.0
