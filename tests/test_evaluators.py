"""The evaluator protocol (`Evaluator`, `LinearEvaluator`, `ZeroEvaluator`), on tic-tac-toe."""

from __future__ import annotations

import math

import numpy as np
import pytest

import rlgames
from rlgames.evaluators import Evaluator, ZeroEvaluator
from rlgames.games.tic_tac_toe.evaluator import OpenLinesEvaluator

TTT = rlgames.load_game("tic_tac_toe")


def test_kernel_equals_value_and_is_shared():
    evaluator = OpenLinesEvaluator()
    rng = np.random.default_rng(0)
    for _ in range(50):
        state = TTT.new_initial_state()
        for _ in range(rng.integers(0, 6)):
            state = state.apply(int(rng.choice(state.legal_actions())))
        if state.is_terminal():
            continue
        assert evaluator.kernel(state.compact) == pytest.approx(evaluator.value(state), abs=1e-15)
        assert -1 < evaluator.value(state) < 1
    assert OpenLinesEvaluator().kernel is evaluator.kernel
    assert OpenLinesEvaluator([2.0, -1.0]).kernel is not evaluator.kernel


def test_weights_are_checked_and_frozen():
    with pytest.raises(ValueError, match="2 weights"):
        OpenLinesEvaluator([1.0])
    evaluator = OpenLinesEvaluator([0.5, -0.25])
    assert evaluator.score(TTT.state_from_moves("b2 b1")) == 0.5 * 6 - 0.25 * 4
    with pytest.raises(ValueError):
        evaluator.weights[0] = 3.0


def test_zero_evaluator_batch():
    states = [TTT.new_initial_state(), TTT.state_from_moves("a1 b2")]
    values, priors = ZeroEvaluator().evaluate_batch(states)
    assert values.tolist() == [0.0, 0.0]
    assert priors.shape == (2, 9)
    np.testing.assert_allclose(priors.sum(axis=1), 1.0)
    assert priors[1, 0] == 0 and priors[1, 4] == 0 and priors[1, 1] == pytest.approx(1 / 7)
    assert ZeroEvaluator().kernel(states[0].compact) == 0.0


def test_batch_without_policy_has_no_priors():
    values, priors = OpenLinesEvaluator().evaluate_batch([TTT.state_from_moves("b2 b1")])
    assert priors is None and values[0] == pytest.approx(math.tanh(2 / 8))
    assert OpenLinesEvaluator().policy(TTT.new_initial_state()) is None


def test_evaluator_is_abstract():
    with pytest.raises(TypeError):
        Evaluator()  # type: ignore[abstract]
