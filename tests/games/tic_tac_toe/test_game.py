"""Tic-tac-toe, the template game: exact values of solved positions, a win, a loss and a draw from both
seats, illegal moves, notation, and the same games as OpenSpiel's ``tic_tac_toe``."""

from __future__ import annotations

import numpy as np
import pytest

import rlgames
from rlgames import IllegalActionError
from rlgames.solvers import solve

GAME = rlgames.load_game("tic_tac_toe")


def test_exact_values_of_solved_positions():
    assert solve(GAME.new_initial_state()).value == 0  # a draw with best play
    result = solve(GAME.state_from_moves("a1 b1 b2 c1"))  # x wins at c3
    assert (result.value, result.plies_to_end, result.best_actions) == (1, 1, (8,))


@pytest.mark.parametrize(
    "moves, returns, winner",
    [
        ("a1 b1 b2 c1 c3", [1.0, -1.0], 0),
        ("a2 a1 b3 b2 c2 c3", [-1.0, 1.0], 1),
        ("a1 b1 c1 b2 b3 c2 a2 a3 c3", [0.0, 0.0], None),
    ],
)
def test_wins_losses_and_draws_from_both_seats(moves, returns, winner):
    state = GAME.state_from_moves(moves)
    assert state.is_terminal() and state.returns() == returns and state.outcome().winner == winner


def test_illegal_moves_are_refused_and_notation_round_trips():
    state = GAME.state_from_moves("b2")
    with pytest.raises(IllegalActionError):
        state.apply(4)  # b2 is taken
    assert [state.string_to_action(state.action_to_string(a)) for a in state.legal_actions()] == state.legal_actions()
    with pytest.raises(ValueError, match="cannot read move 'd4'"):
        state.string_to_action("d4")


def test_same_games_as_openspiel():
    pyspiel = pytest.importorskip("pyspiel")
    theirs_game, rng = pyspiel.load_game("tic_tac_toe"), np.random.default_rng(0)
    for _ in range(200):
        ours, theirs = GAME.new_initial_state(), theirs_game.new_initial_state()
        while not ours.is_terminal():
            assert ours.legal_actions() == theirs.legal_actions()
            action = int(rng.choice(ours.legal_actions()))
            ours = ours.apply(action)
            theirs.apply_action(action)
        assert theirs.is_terminal() and ours.returns() == theirs.returns()
