"""Backgammon's escapes and containment: the table against a move-by-move count, worked examples at the
start and behind a full prime, and the ``expert_escapes`` encoding read from either side."""

from __future__ import annotations

import numpy as np
import pytest

import rlgames
from evaluator_checks import random_states
from rlgames.games.backgammon.encoding import (
    ESCAPE_NAMES,
    EXPERT_ESCAPES_SIZE,
    EXPERT_SIZE,
    expert,
    expert_escapes,
)
from rlgames.games.backgammon.escapes import ESCAPES, back_escapes, blocked_ahead, containment
from rlgames.games.backgammon.rules import perspective, view

GAME = rlgames.load_game("backgammon")


def reference_escapes(made_ahead: set[int]) -> int:
    """The rolls of the 36 with which one checker plays its whole roll, each die moved in turn and no
    landing on a point ``made_ahead`` (pips ahead, 1..12): the definition, move by move."""
    count = 0
    for first in range(1, 7):
        for second in range(1, 7):
            orders = [[first] * 4] if first == second else [[first, second], [second, first]]
            count += any(_plays_through(order, made_ahead) for order in orders)
    return count


def _plays_through(dice: list[int], made_ahead: set[int]) -> bool:
    pips = 0
    for die in dice:
        pips += die
        if pips in made_ahead:
            return False
    return True


def test_the_table_counts_what_playing_the_dice_does():
    rng = np.random.default_rng(0)
    patterns = [0, (1 << 12) - 1, 0b111111, 0b111111000000, *rng.integers(0, 1 << 12, 300).tolist()]
    for pattern in patterns:
        made = {k + 1 for k in range(12) if pattern >> k & 1}
        assert ESCAPES[pattern] == reference_escapes(made), sorted(made)
    assert ESCAPES[0] == 36 and ESCAPES[0b111111] == 0  # an open board; a full prime right ahead


def rows(state: rlgames.State) -> tuple[np.ndarray, np.ndarray]:
    """The side on roll's row and the other's (the rules' view)."""
    board = np.zeros((2, 26), dtype=np.int64)
    view(state.compact, board)
    return board[0], board[1]


def test_worked_examples_at_the_start():
    """From the 24-point, the enemy's made 6-, 8- and 13-points stand 5, 7 and 12 pips ahead: of the 36
    rolls, the non-doubles 1-2, 1-3, 1-5, 2-4, 2-6, 3-5, 3-6, 4-5, 4-6 and 5-6 play through (20 rolls)
    and the doubles 1-1 and 2-2 (3-3 and 4-4 land on the 13-point at their last step): 22."""
    own, enemy = rows(GAME.new_initial_state().apply(0))
    assert blocked_ahead(23, enemy) == (1 << 4) | (1 << 6) | (1 << 11)
    assert back_escapes(own, enemy) == back_escapes(enemy, own) == pytest.approx(22 / 36)
    # the fewest an enemy checker would have among its points 13..24 and the bar, against these points
    fewest = min(reference_escapes(_made_ahead(index, own)) for index in range(12, 25))
    assert containment(own, enemy) == pytest.approx(1 - fewest / 36) and 0 < fewest < 36


def _made_ahead(index: int, blocker: np.ndarray) -> set[int]:
    """The pips ahead of a checker at own ``index`` where ``blocker`` (the other side's row) has a point."""
    return {k for k in range(1, 13) if index - k >= 0 and blocker[23 - (index - k)] >= 2}


def test_a_checker_behind_a_full_prime_has_no_escape():
    own = np.zeros(26, dtype=np.int64)
    enemy = np.zeros(26, dtype=np.int64)
    own[23] = 1  # one checker on the 24-point (the enemy's 1-point), the rest off
    own[25] = 14
    enemy[1:7] = 2  # the enemy's points 2..7: a full prime right in front of it
    enemy[25] = 3
    assert back_escapes(own, enemy) == 0.0
    assert containment(enemy, own) == 1.0
    assert back_escapes(enemy, own) == 1.0  # nothing of ours in front of the enemy's checkers
    assert containment(own, enemy) == 0.0
    own[24], own[23] = 1, 0  # on the bar instead, the prime 2 to 7 pips ahead: still no escape
    assert back_escapes(own, enemy) == 0.0
    enemy[6], enemy[25] = 0, 5  # a 5-point prime, points 2..6: only 6-1 and 1-6 come in and past it
    assert back_escapes(own, enemy) == pytest.approx(2 / 36) and ESCAPES[0b111110] == 2


@pytest.mark.parametrize("player", [0, 1])
def test_the_encoding_is_expert_then_the_escapes_from_the_players_side(player):
    for state in random_states(GAME, 60, seed=player, max_plies=300):
        out = np.full(EXPERT_ESCAPES_SIZE, np.nan, dtype=np.float32)
        expert_escapes(state.compact, player, out)
        base = np.zeros(EXPERT_SIZE, dtype=np.float32)
        expert(state.compact, player, base)
        np.testing.assert_array_equal(out[:EXPERT_SIZE], base)
        on_roll, other = rows(state)
        mine, theirs = (on_roll, other) if perspective(state.compact) == player else (other, on_roll)
        seen = dict(zip(ESCAPE_NAMES, out[EXPERT_SIZE:].astype(float)))
        assert seen["back_escapes_mine"] == pytest.approx(back_escapes(mine, theirs))
        assert seen["containment_theirs"] == pytest.approx(containment(theirs, mine))
        other_side = np.zeros(EXPERT_ESCAPES_SIZE, dtype=np.float32)
        expert_escapes(state.compact, 1 - player, other_side)
        np.testing.assert_array_equal(out[EXPERT_SIZE:], other_side[EXPERT_SIZE:][[1, 0, 3, 2]])


def test_the_game_offers_the_encoding():
    encoding = GAME.encodings["expert_escapes"]
    assert encoding.size == EXPERT_ESCAPES_SIZE == EXPERT_SIZE + 4 and encoding.extends_observation
