"""Janowski's cubeful equities (`rlgames.games.backgammon.cube`) at the limits money-play theory knows: a dead
cube's take point is 25% and a live cube's 20% (gammonless); with a fully live cube the double comes exactly
at the cash point, earlier with a real cube's life; big gammon chances make a position too good to double."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import pytest

from rlgames.games.backgammon.cube import CubeEquities, cube_decision, cube_equities, cubeful_equity, win_values


def single(p: float) -> dict[str, float]:
    """Gammonless outcomes winning with probability ``p``."""
    return {"win": p, "win_2": 0.0, "win_3": 0.0, "lose": 1 - p, "lose_2": 0.0, "lose_3": 0.0}


def first_p(holds: Callable[[CubeEquities], bool], cube_life: float) -> float:
    """The doubler's smallest p in [0.5, 1] from which ``holds`` holds of a gammonless position with the
    cube in the middle (``holds`` false below it, true above), by bisection."""

    def at(p: float) -> bool:
        return holds(cube_equities(single(p), "centered", cube_life=cube_life))

    low, high = 0.5, 1.0
    if at(low):
        return low
    for _ in range(60):
        middle = (low + high) / 2
        low, high = (low, middle) if at(middle) else (middle, high)
    return high


def take_point(cube_life: float) -> float:
    """The taker's smallest chance of winning at which it takes."""
    return 1 - first_p(lambda equities: not equities.take, cube_life)


def double_point(cube_life: float) -> float:
    """The doubler's smallest chance of winning at which it doubles."""
    return first_p(lambda equities: equities.double, cube_life)


def test_the_take_points_of_a_dead_and_a_live_cube():
    assert take_point(0.0) == pytest.approx(0.25, abs=1e-9)
    assert take_point(1.0) == pytest.approx(0.20, abs=1e-9)
    assert 0.20 < take_point(0.68) < 0.25


def test_a_live_cube_doubles_at_the_cash_point_and_a_real_one_earlier():
    assert double_point(1.0) == pytest.approx(0.8, abs=1e-9)  # CP = (L + 1) / (W + L + 1/2)
    assert double_point(0.0) == pytest.approx(0.5, abs=1e-9)  # a dead cube: any edge
    assert 0.5 < double_point(0.68) < 0.8


def test_the_equities_are_those_of_the_dead_line_and_the_live_corners():
    assert cubeful_equity(0.3, 1.0, 1.0, "centered", cube_life=0.0) == pytest.approx(-0.4)
    assert cubeful_equity(0.2, 1.0, 1.0, "centered", cube_life=1.0) == pytest.approx(-1.0)  # the take point
    assert cubeful_equity(0.8, 1.0, 1.0, "me", cube_life=1.0) == pytest.approx(1.0)  # the cash point
    assert cubeful_equity(1.0, 2.0, 1.0, "opponent", cube_life=1.0) == pytest.approx(2.0)  # a sure gammon
    with pytest.raises(ValueError, match="owner"):
        cubeful_equity(0.5, 1.0, 1.0, "nobody")


def test_big_gammon_chances_make_a_position_too_good_to_double():
    outcomes = {"win": 0.9, "win_2": 0.6, "win_3": 0.0, "lose": 0.1, "lose_2": 0.0, "lose_3": 0.0}
    assert win_values(outcomes) == pytest.approx((0.9, 1.5 / 0.9, 1.0))
    decision = cube_equities(outcomes, "centered")
    assert not decision.double and not decision.take  # it would be a pass, but playing on is worth more
    assert decision.no_double > decision.double_pass
    with pytest.raises(ValueError, match="only the cube's holder"):
        cube_equities(outcomes, "opponent")


def test_a_cube_decision_reads_the_networks_outcomes_for_the_roller():
    """At a chance node the network speaks for the player who just moved: the roller's P(win) is one minus
    it, its gammons won are the mover's lost, and the decision is Janowski's on those."""
    from rlgames.models.evaluator import NNUEvaluator
    from rlgames.train import td

    import rlgames

    game = rlgames.load_game("backgammon", scoring_type="full_scoring")
    config = dataclasses.replace(td.PRESETS["backgammon_full"], accumulator=12, hidden=8, init_range=0.5)
    dims = td.network_dims(game, config)
    evaluator = NNUEvaluator(td.to_network(td.initial_params(dims, config), dims, game, seed=0), game)
    state = game.state_from_moves("31; 8/5 6/5")  # player 1 to roll
    assert state.is_chance_node() and not state.is_opening()
    mover = evaluator.outcomes([state])[0]
    win, win_2, win_3, lose_2, lose_3 = mover
    roller = {"win": 1 - win, "win_2": lose_2, "win_3": lose_3, "lose": win, "lose_2": win_2, "lose_3": win_3}
    roller = {k: min(v, roller["win"]) if k.startswith("win_") else v for k, v in roller.items()}
    roller = {k: min(v, roller["lose"]) if k.startswith("lose_") else v for k, v in roller.items()}
    roller["win_3"], roller["lose_3"] = min(roller["win_3"], roller["win_2"]), min(roller["lose_3"], roller["lose_2"])
    assert cube_decision(evaluator, state) == cube_equities(roller, "centered")
    assert cube_decision(evaluator, state, owner="me", cube_life=0.0) == cube_equities(roller, "me", cube_life=0.0)
    with pytest.raises(ValueError, match="before a roll"):
        cube_decision(evaluator, state.apply(0))
