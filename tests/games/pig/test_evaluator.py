"""The pig evaluator: features from the turn player, a monotone, seat-symmetric value, chance nodes."""

from __future__ import annotations

import itertools

import pytest
from evaluator_checks import features

import rlgames
from rlgames.games.pig.evaluator import PigEvaluator

PIG = rlgames.load_game("pig")


def pig(score0: int, score1: int, total: int = 0, turn: int = 0, chance: bool = False):
    return PIG.state_at(score0, score1, total, turn, chance=chance)


def test_pig_features_from_the_turn_player():
    evaluator = PigEvaluator()
    assert evaluator.feature_values(PIG.new_initial_state()).tolist() == [0.0] * 5
    assert evaluator.value(PIG.new_initial_state()) == 0.0
    assert features(evaluator, pig(30, 50, total=25, turn=1)) == pytest.approx(
        {
            "score_difference": 0.2,
            "turn_total": 0.25,
            "held_turn_total": 0.25,
            "closeness": 0.75**2 - 0.3**2,
            "can_win_by_holding": 0.0,
        }
    )
    assert features(evaluator, pig(30, 50, total=19, turn=1))["held_turn_total"] == 0.0
    assert features(evaluator, pig(90, 0, total=10))["can_win_by_holding"] == 1.0
    assert evaluator.value(pig(90, 0, total=10)) > 0.99


def test_pig_value_is_monotone_and_seat_symmetric():
    evaluator = PigEvaluator()
    values = [evaluator.value(pig(mine, 40, total=5)) for mine in range(0, 95, 5)]
    assert all(a < b for a, b in itertools.pairwise(values))
    assert all(-1 < v < 1 for v in values)
    assert evaluator.value(pig(20, 60)) < 0 < evaluator.value(pig(60, 20))
    for score0, score1, total in ((10, 70, 12), (55, 3, 0), (80, 80, 21)):
        assert evaluator.value(pig(score0, score1, total, turn=0)) == evaluator.value(
            pig(score1, score0, total, turn=1)
        )


def test_pig_chance_node_is_valued_for_the_player_who_rolled():
    evaluator = PigEvaluator()
    decision = pig(10, 60, total=8, turn=1)
    rolled = decision.apply(0)  # roll: a chance node, player 1 still the turn player
    assert rolled.is_chance_node() and rolled.observer() == 1
    assert evaluator.value(rolled) == evaluator.value(decision) > 0.5
