"""The Python reference searches (minimax, alpha-beta) on the lecture notes' worked examples."""

from __future__ import annotations

import math

import numpy as np
import pytest

import rlgames
from rlgames.evaluators import ZeroEvaluator
from rlgames.game import TERMINAL, GameInfo
from rlgames.games.tic_tac_toe.evaluator import OpenLinesEvaluator
from rlgames.search.reference import alphabeta, minimax

UNSEEN = 99  # leaves that alpha-beta must prune


class _TreeGame:
    num_actions = 3
    info = GameInfo("tree", num_actions=3, observation_shape=(1,), max_game_length=10)  # value(r) == r


class TreeState:
    """A hand-built game tree: a leaf is a number (player 0's return), an inner node a list of children.

    Player 0 (MAX) moves at the root and the players alternate. ``visited`` logs every leaf read.
    """

    game = _TreeGame()

    def __init__(self, tree, player: int = 0, visited: list | None = None) -> None:
        self.tree, self.player = tree, player
        self.visited = [] if visited is None else visited

    def current_player(self) -> int:
        return TERMINAL if self.is_terminal() else self.player

    def is_terminal(self) -> bool:
        return not isinstance(self.tree, list)

    def is_chance_node(self) -> bool:
        return False

    def legal_actions(self) -> list[int]:
        return list(range(len(self.tree)))

    def apply(self, action: int) -> "TreeState":
        return TreeState(self.tree[action], 1 - self.player, self.visited)

    def returns(self) -> list[float]:
        self.visited.append(self.tree)
        return [self.tree, -self.tree]


# The notes' 2-ply example: A = min(100, 3, -1) = -1, B = min(6, 5) = 5, C = min(2, 9) = 2; S = 5 via B.
NOTES_2PLY = [[100, 3, -1], [6, 5], [2, 9]]
# max(min(3, 12, 8), min(2, x, y), min(14, 5, 2)) = 3: x and y are pruned.
NOTES_PRUNING = [[3, 12, 8], [2, UNSEEN, -UNSEEN], [14, 5, 2]]
# S >= 100 after A = min(200, 100); B <= 20 after D = 120, E = 20: B's third child is pruned.
NOTES_CUTOFF = [[200, 100], [120, 20, UNSEEN]]


@pytest.mark.parametrize("search", [minimax, alphabeta])
def test_notes_two_ply_tree_backs_up_five_through_b(search):
    result = search(TreeState(NOTES_2PLY))
    assert result.value == 5
    assert result.action == 1
    assert result.principal_variation == (1, 1)  # B, then MIN answers H
    assert result.policy.tolist() == [0.0, 1.0, 0.0]


def test_alphabeta_prunes_x_and_y():
    root = TreeState(NOTES_PRUNING)
    result = alphabeta(root)
    assert result.value == 3 and result.action == 0
    assert root.visited == [3, 12, 8, 2, 14, 5, 2]
    assert result.stats.cutoffs == 2  # at B after 2, and at C after its last leaf 2 (nothing left to prune)


def test_minimax_visits_every_leaf():
    root = TreeState(NOTES_PRUNING)
    assert minimax(root).value == 3
    assert sorted(root.visited) == sorted([3, 12, 8, 2, UNSEEN, -UNSEEN, 14, 5, 2])


def test_alphabeta_cuts_off_below_b():
    root = TreeState(NOTES_CUTOFF)
    assert alphabeta(root).value == 100
    assert UNSEEN not in root.visited


def test_a_player_moving_twice_keeps_the_sign():
    class Again(TreeState):
        def apply(self, action):  # the root player moves again at the first child
            return TreeState(self.tree[action], self.player if action == 0 else 1 - self.player, self.visited)

    # first child: MAX chooses again (max(-5, 4) = 4); second child: MIN chooses (min(1, 3) = 1)
    for search in (minimax, alphabeta):
        assert search(Again([[-5, 4], [1, 3]])).value == 4


def test_tic_tac_toe_is_a_draw():
    game = rlgames.load_game("tic_tac_toe")
    result = alphabeta(game.new_initial_state())
    assert result.value == 0
    line = game.state_from_actions(result.principal_variation)
    assert line.is_terminal() and line.returns() == [0.0, 0.0]


def test_minimax_and_alphabeta_agree_on_tic_tac_toe_positions():
    game = rlgames.load_game("tic_tac_toe")
    rng = np.random.default_rng(0)
    for _ in range(20):
        state = game.new_initial_state()
        for _ in range(rng.integers(2, 6)):
            state = state.apply(int(rng.choice(state.legal_actions())))
            if state.is_terminal():
                break
        if state.is_terminal():
            continue
        slow, fast = minimax(state), alphabeta(state)
        assert slow.value == fast.value and slow.action == fast.action
        assert fast.stats.nodes <= slow.stats.nodes


def test_halving_exercise_max_wins_by_subtracting():
    # The notes' exercise: N = 5, MAX first, the player left with zero wins.
    state = rlgames.load_game("halving", n=5).new_initial_state()
    result = minimax(state)
    assert result.value == 1
    assert state.action_to_string(result.action) == "-"


def test_h_minimax_evaluates_at_the_cutoff():
    game = rlgames.load_game("tic_tac_toe")
    evaluator = OpenLinesEvaluator()
    state = game.state_from_moves("b2 b1")
    result = minimax(state, depth=1, evaluator=evaluator)
    children = {a: -evaluator.value(state.apply(a)) for a in state.legal_actions()}
    assert result.value == pytest.approx(max(children.values()))
    assert children[result.action] == pytest.approx(result.value)
    assert alphabeta(state, depth=3, evaluator=evaluator).value == pytest.approx(
        minimax(state, depth=3, evaluator=evaluator).value
    )


def test_depth_limit_needs_an_evaluator_and_a_live_root():
    game = rlgames.load_game("tic_tac_toe")
    with pytest.raises(ValueError, match="evaluator"):
        minimax(game.new_initial_state(), depth=2)
    with pytest.raises(ValueError, match="terminal"):
        alphabeta(game.state_from_moves("a1 a2 b1 b2 c1"), evaluator=ZeroEvaluator())


def test_values_are_in_range_with_the_evaluator():
    game = rlgames.load_game("tic_tac_toe")
    result = alphabeta(game.new_initial_state(), depth=2, evaluator=OpenLinesEvaluator())
    assert -1 < result.value < 1 and not math.isnan(result.value)
