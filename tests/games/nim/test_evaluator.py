"""The nim evaluators (normal and misère play): the exact game value, checked against the solver."""

from __future__ import annotations

import itertools

import pytest

import rlgames
from rlgames.evaluators import load_evaluator
from rlgames.games.nim.evaluator import MisereNimEvaluator, NimEvaluator
from rlgames.solvers import solve


@pytest.mark.parametrize("misere", [False, True])
def test_nim_value_is_the_exact_game_value_everywhere(misere):
    game = rlgames.load_game("nim", heaps=(1, 3, 5, 7), misere=misere)
    evaluator = load_evaluator("heuristic", game)
    assert type(evaluator) is (MisereNimEvaluator if misere else NimEvaluator)
    for heaps in itertools.product(*(range(h + 1) for h in game.heaps)):
        if sum(heaps) == 0:
            continue
        for player in (0, 1):
            state = game.state_class(game, (player, 0, *heaps))
            value = evaluator.value(state)
            assert value == solve(state).value, (heaps, value)
            assert evaluator.kernel(state.compact) == value


def test_nim_misere_differs_from_normal_play_only_when_every_heap_is_small():
    normal, misere = NimEvaluator(), MisereNimEvaluator()
    game = rlgames.load_game("nim", heaps=(3, 3))
    for heaps, same in (((1, 1), False), ((1, 0), False), ((2, 1), True), ((3, 3), True)):
        state = game.state_class(game, (0, 0, *heaps))
        assert (normal.value(state) == misere.value(state)) == same
