"""Backgammon's ``expert`` encoding: the observation first, the hand-crafted terms after it with exact
values at the start, the same position read from either side, and the heuristic's own value."""

from __future__ import annotations

import math

import numpy as np
import pytest

import rlgames
from rlgames.games.backgammon import evaluator_terms as bf
from rlgames.games.backgammon.encoding import EXPERT_NAMES, EXPERT_SIZE, OBSERVATION_SIZE, expert
from rlgames.games.backgammon.evaluator import BackgammonEvaluator

GAME = rlgames.load_game("backgammon")
PAIRED = [name[: -len("_mine")] for name in EXPERT_NAMES if name.endswith("_mine")]


def inputs(state: rlgames.State, player: int) -> dict[str, float]:
    """The named inputs after the observation of ``state`` seen by ``player``."""
    out = np.full(EXPERT_SIZE, np.nan, dtype=np.float32)
    expert(state.compact, player, out)
    assert not np.isnan(out).any()
    return dict(zip(EXPERT_NAMES, out[OBSERVATION_SIZE:].astype(float)))


def random_states(count: int, seed: int) -> list[rlgames.State]:
    """Decision and chance states of random games, the opening roll left out."""
    rng = np.random.default_rng(seed)
    states: list[rlgames.State] = []
    while len(states) < count:
        state = GAME.new_initial_state().apply(int(rng.integers(30)))
        while not state.is_terminal() and len(states) < count:
            states.append(state)
            actions = [a for a, _ in state.chance_outcomes()] if state.is_chance_node() else state.legal_actions()
            state = state.apply(int(rng.choice(actions)))
    return states


@pytest.mark.parametrize("player", [0, 1])
def test_the_observation_comes_first(player: int) -> None:
    for state in random_states(40, seed=player):
        out = np.zeros(EXPERT_SIZE, dtype=np.float32)
        expert(state.compact, player, out)
        np.testing.assert_array_equal(out[:OBSERVATION_SIZE], state.observation(player).ravel())


def test_exact_values_at_the_start() -> None:
    """After the opening roll, from the side on roll: no race, level counts, no blots, the 6- and
    8-points and the mid-point made, the 24-point anchor, no prime of two."""
    state = GAME.new_initial_state().apply(0)
    seen = inputs(state, state.current_player())
    keith = 167 + 2  # 167 pips, and the 4- and 5-points empty
    assert seen["race"] == 0 and seen["pip_lead"] == 0 and seen["keith_lead"] == 0
    assert seen["keith_total"] == pytest.approx(2 * keith / 300)
    for side in ("mine", "theirs"):
        assert seen[f"blots_{side}"] == 0 and seen[f"shot_risk_{side}"] == 0 and seen[f"prime_{side}"] == 0
        assert seen[f"home_points_{side}"] == pytest.approx(1.2 / bf.HOME_VALUE.sum())
        assert seen[f"outer_points_{side}"] == pytest.approx((1.0 + 0.6) / bf.OUTER_VALUE.sum())
        assert seen[f"anchors_{side}"] == pytest.approx(1 / 6)
    spread = math.sqrt(bf.ROLL_VARIANCE * 2 * keith / bf.ROLL_MEAN)
    race = math.erf(bf.ROLL_PIPS / (spread * math.sqrt(2)))
    assert seen["race_win"] == pytest.approx((1 + race) / 2, abs=1e-6)
    assert seen["race_win"] > 0.5 and seen["gammon_won"] > seen["gammon_lost"] > 0.2
    assert seen["backgammon_lost"] > 0


def test_one_position_read_from_both_sides() -> None:
    """Each side's terms are the other's swapped, the leads negated, and the chances complementary."""
    for state in random_states(60, seed=5):
        a, b = inputs(state, 0), inputs(state, 1)
        for name in PAIRED:
            assert a[f"{name}_mine"] == b[f"{name}_theirs"] and a[f"{name}_theirs"] == b[f"{name}_mine"]
        assert a["pip_lead"] == -b["pip_lead"] and a["keith_lead"] == -b["keith_lead"]
        assert a["race"] == b["race"] and a["keith_total"] == b["keith_total"]
        assert a["race_win"] + b["race_win"] == pytest.approx(1, abs=1e-6)
        assert a["heuristic_win"] + b["heuristic_win"] == pytest.approx(1, abs=1e-6)
        assert (a["gammon_lost"], a["backgammon_lost"]) == (b["gammon_won"], b["backgammon_won"])


def test_the_heuristics_chance_is_the_hand_crafted_evaluators_value() -> None:
    """At a decision node, ``heuristic_win`` of the side to move is the win/loss heuristic's value read
    as ``2 P - 1``."""
    evaluator = BackgammonEvaluator()
    decisions = [state for state in random_states(60, seed=7) if not state.is_chance_node()]
    assert len(decisions) > 10
    for state in decisions:
        seen = inputs(state, state.current_player())
        assert 2 * seen["heuristic_win"] - 1 == pytest.approx(evaluator.value(state), abs=1e-6)
