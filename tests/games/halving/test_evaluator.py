"""The halving evaluator: a value with the sign of the solver's game value, and its features."""

from __future__ import annotations

import math

import numpy as np
import pytest
from evaluator_checks import features

import rlgames
from rlgames.games.halving.evaluator import HalvingEvaluator
from rlgames.solvers import solve


def test_halving_value_has_the_sign_of_the_game_value():
    game = rlgames.load_game("halving", n=300)
    evaluator = HalvingEvaluator()
    for n in range(1, 301):
        state = game.state_class(game, (n % 2, 0, n))
        value = evaluator.value(state)
        assert abs(value) == pytest.approx(math.tanh(2.0))
        assert np.sign(value) == solve(state).value, n
    assert features(evaluator, game.state_class(game, (0, 0, 12))) == {
        "trailing_zeros_parity": 1,
        "power_of_two_parity": 0,
    }
    assert features(evaluator, game.state_class(game, (0, 0, 8))) == {
        "trailing_zeros_parity": -1,
        "power_of_two_parity": -1,
    }
