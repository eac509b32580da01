"""Cross-check of the rules against OpenSpiel's implementations over thousands of random games.

Both implementations play the same random actions; at every step they must agree on whose turn it is,
the legal actions (chance outcomes and probabilities at chance nodes), and at the end on the terminal
step and the returns.
"""

from __future__ import annotations

import numpy as np
import pytest

import rlgames

pyspiel = pytest.importorskip("pyspiel")

# (rlgames name, rlgames params, OpenSpiel name, OpenSpiel params, number of random games)
CASES = [
    ("tic_tac_toe", {}, "tic_tac_toe", {}, 3000),
    ("connect_four", {}, "connect_four", {}, 3000),
    ("othello", {}, "othello", {}, 1000),
    ("nim", {"heaps": (1, 3, 5, 7), "misere": False}, "nim", {"pile_sizes": "1;3;5;7", "is_misere": False}, 2000),
    ("nim", {"heaps": (1, 3, 5, 7), "misere": True}, "nim", {"pile_sizes": "1;3;5;7", "is_misere": True}, 2000),
    ("nim", {"heaps": (2, 9, 4), "misere": False}, "nim", {"pile_sizes": "2;9;4", "is_misere": False}, 1000),
    ("pig", {"winscore": 20}, "pig", {"winscore": 20}, 2000),
    ("pig", {}, "pig", {}, 200),
    (
        "pig",
        {"winscore": 30, "diceoutcomes": 4, "horizon": 40},
        "pig",
        {"winscore": 30, "diceoutcomes": 4, "horizon": 40},
        1000,
    ),
]


def play_both(ours: rlgames.State, theirs, rng: np.random.Generator) -> int:
    """Plays one random game in both implementations, checking every step; returns its length."""
    plies = 0
    while True:
        assert ours.is_terminal() == theirs.is_terminal(), f"terminal differs after {plies} plies"
        if ours.is_terminal():
            assert ours.returns() == pytest.approx(list(theirs.returns()))
            return plies
        assert ours.current_player() == theirs.current_player(), f"player differs after {plies} plies"
        if ours.is_chance_node():
            outcomes = ours.chance_outcomes()
            expected = theirs.chance_outcomes()
            assert [a for a, _ in outcomes] == [a for a, _ in expected]
            assert [p for _, p in outcomes] == pytest.approx([p for _, p in expected])
            actions, probs = zip(*outcomes)
            action = actions[rng.choice(len(actions), p=probs)]
        else:
            actions = ours.legal_actions()
            assert actions == theirs.legal_actions(), f"legal actions differ after {plies} plies"
            action = actions[rng.integers(len(actions))]
        ours = ours.apply(action)
        theirs.apply_action(action)
        plies += 1


@pytest.mark.parametrize(
    "name, params, os_name, os_params, games", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)]
)
def test_same_rules_as_openspiel(name, params, os_name, os_params, games):
    ours = rlgames.load_game(name, **params)
    theirs = pyspiel.load_game(os_name, os_params)
    assert ours.num_actions == theirs.num_distinct_actions()
    rng = np.random.default_rng(2024)
    lengths = [play_both(ours.new_initial_state(), theirs.new_initial_state(), rng) for _ in range(games)]
    assert max(lengths) <= ours.max_game_length
