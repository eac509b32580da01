"""Checkers' NNUE inputs: the pieces on their squares, counted from the reading player's side."""

from __future__ import annotations

import numpy as np

import rlgames


def inputs(state, player: int) -> list[int]:
    features = state.game.feature_sets["pieces"]
    out = np.empty(features.most, dtype=np.int64)
    return sorted(out[: features.features(state.compact, player, out)].tolist())


def test_each_side_reads_the_board_from_its_own_side():
    game = rlgames.load_game("checkers")
    start = game.new_initial_state()
    own_men, their_men = list(range(12)), [64 + k for k in range(20, 32)]
    assert inputs(start, 0) == inputs(start, 1) == own_men + their_men  # the start looks the same to both
    moved = game.state_from_moves("11-15")
    assert inputs(moved, 0) == sorted([k for k in own_men if k != 10] + [14] + their_men)  # 11 to 15
    assert inputs(moved, 1) == sorted(own_men + [64 + 31 - k for k in range(12) if k != 10] + [64 + 31 - 14])
    assert game.feature_sets["pieces"].inputs == 128
