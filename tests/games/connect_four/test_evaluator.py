"""The connect-four evaluator: windows and threats, a window-by-window reference, colours, strength."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from evaluator_checks import SMALL_TT, features, random_states, score_vs

import rlgames
from rlgames.evaluators import ZeroEvaluator
from rlgames.games.connect_four.evaluator import ConnectFourEvaluator
from rlgames.search import AlphaBeta, AlphaBetaConfig

C4 = rlgames.load_game("connect_four")


def c4_reference(state) -> list[int]:
    """The connect-four features recomputed from the board picture, window by window."""
    grid = state.board_grid()[::-1]  # row 0 the bottom row
    mover = 1 + state.current_player()
    opponent = 3 - mover
    counts = dict.fromkeys(("twos", "threes"), (0, 0))
    threats = [set(), set()]
    for col, row, dc, dr in itertools.product(range(7), range(6), (0, 1), (-1, 0, 1)):
        if (dc, dr) in ((0, 0), (0, -1)):
            continue
        cells = [(row + i * dr, col + i * dc) for i in range(4)]
        if not all(0 <= r < 6 and 0 <= c < 7 for r, c in cells):
            continue
        values = [grid[r, c] for r, c in cells]
        for side, (me, them) in enumerate(((mover, opponent), (opponent, mover))):
            if them in values:
                continue
            n = values.count(me)
            for name, k in (("twos", 2), ("threes", 3)):
                if n == k:
                    pair = list(counts[name])
                    pair[side] += 1
                    counts[name] = tuple(pair)
            if n == 3:
                threats[side].add(cells[values.index(0)])
    playable = [(r, c) for c in range(7) for r in range(6) if grid[r, c] == 0 and (r == 0 or grid[r - 1, c])]
    centre = [(grid[:, 3] == side).sum() for side in (mover, opponent)]
    return [
        *counts["twos"],
        *counts["threes"],
        len(threats[0]),
        len(threats[1]),
        len(threats[0] & set(playable)),
        len(threats[1] & set(playable)),
        *centre,
    ]


def test_c4_windows_and_threats_on_a_hand_built_position():
    # x: a1 b1 c1, o: a2 b2 c2; x to move. x: the three a1-d1, the two b1-e1, the threat d1 (playable);
    # o: the three a2-d2, the two b2-e2, the threat d2 (not playable yet).
    state = C4.state_from_moves("112233")
    assert features(ConnectFourEvaluator(), state) == {
        "twos_mover": 1,
        "twos_opponent": 1,
        "threes_mover": 1,
        "threes_opponent": 1,
        "threats_mover": 1,
        "threats_opponent": 1,
        "playable_threats_mover": 1,
        "playable_threats_opponent": 0,
        "centre_mover": 0,
        "centre_opponent": 0,
    }
    assert ConnectFourEvaluator().value(state) > 0.9  # a win on the next move


def test_c4_centre_and_the_opponents_playable_threat():
    # x: d1 d2 d3 (a vertical three, its threat d4 playable), o: a1 b1; o to move.
    state = C4.state_from_moves("41424")
    f = features(ConnectFourEvaluator(), state)
    assert f["centre_mover"] == 0 and f["centre_opponent"] == 3
    assert f["threes_opponent"] == 1 and f["threats_opponent"] == 1 and f["playable_threats_opponent"] == 1
    assert f["playable_threats_mover"] == 0


def test_c4_features_match_a_window_by_window_reference():
    evaluator = ConnectFourEvaluator()
    for state in random_states(C4, 60, seed=1, max_plies=30):
        assert evaluator.feature_values(state).tolist() == c4_reference(state), str(state)


def test_c4_swapping_colours_swaps_mover_and_opponent_features():
    evaluator = ConnectFourEvaluator()
    antisymmetric = ConnectFourEvaluator(np.repeat([1.0, 3.0, 2.0, 5.0, 1.5], 2) * np.tile([1, -1], 5))
    for state in random_states(C4, 40, seed=2, max_plies=25):
        player, ret, current, mask, plies = state.compact
        swapped = C4.state_class(C4, (player, ret, current ^ mask, mask, plies))
        f, g = evaluator.feature_values(state), evaluator.feature_values(swapped)
        np.testing.assert_array_equal(g.reshape(5, 2), f.reshape(5, 2)[:, ::-1])
        assert antisymmetric.value(swapped) == pytest.approx(-antisymmetric.value(state), abs=1e-12)


def test_connect_four_heuristic_beats_random_play():
    searcher = AlphaBeta(ConnectFourEvaluator(), AlphaBetaConfig(depth=3, tt_size_mb=SMALL_TT))
    assert score_vs(C4, searcher, None, games=20, seed=0) >= 19


@pytest.mark.slow  # a match (about 20 s)
def test_connect_four_heuristic_beats_the_zero_evaluator_at_equal_depth():
    config = AlphaBetaConfig(depth=4, tt_size_mb=SMALL_TT)
    heuristic, zero = AlphaBeta(ConnectFourEvaluator(), config), AlphaBeta(ZeroEvaluator(), config)
    assert score_vs(C4, heuristic, zero, games=8, seed=1, opening=2) >= 7
