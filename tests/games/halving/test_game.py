"""The halving game: terminal semantics, the N = 5 worked example, notation and parameters."""

import functools

import numpy as np
import pytest

import rlgames
from rlgames import TERMINAL, IllegalActionError
from rlgames.games.halving.game import Halving
from rlgames.games.halving.rules import HALVE, SUBTRACT


def minimax(state: rlgames.State) -> float:
    """The value of a non-terminal ``state`` for the side to move, by full search."""
    mover = state.current_player()
    values = []
    for a in state.legal_actions():
        child = state.apply(a)
        values.append(child.returns()[mover] if child.is_terminal() else -minimax(child))
    return max(values)


@functools.cache
def left_with_n_wins(n: int) -> bool:
    """Straight from the rules, on plain ints: the player left with ``n`` wins (zero is a win)."""
    return n == 0 or not (left_with_n_wins(n // 2) and left_with_n_wins(n - 1))


@pytest.mark.parametrize("player", [0, 1])
@pytest.mark.parametrize("action", [HALVE, SUBTRACT])
def test_moving_to_zero_loses(player: int, action: int) -> None:
    game = Halving(n=5)
    state = game.state_class(game, (player, 0, 1)).apply(action)
    assert state.is_terminal() and state.current_player() == TERMINAL
    assert state.compact[2] == 0
    assert state.returns() == ([-1.0, 1.0] if player == 0 else [1.0, -1.0])
    assert state.legal_actions() == []


def test_both_actions_stay_distinct_and_legal_when_they_agree() -> None:
    game = Halving(n=5)
    state = game.state_class(game, (1, 0, 2))
    assert state.legal_actions() == [HALVE, SUBTRACT]
    assert state.apply(HALVE).compact == state.apply(SUBTRACT).compact == (0, 0, 1)


def test_worked_example_n5_only_subtracting_wins() -> None:
    state = rlgames.load_game("halving", n=5).new_initial_state()
    assert minimax(state) == 1.0
    winning = [a for a in state.legal_actions() if -minimax(state.apply(a)) == 1.0]
    assert [state.action_to_string(a) for a in winning] == ["-"]
    assert state.apply(SUBTRACT).compact == (1, 0, 4)


@pytest.mark.parametrize("n", range(1, 21))
def test_minimax_agrees_with_the_rules_on_integers(n: int) -> None:
    assert minimax(Halving(n=n).new_initial_state()) == (1.0 if left_with_n_wins(n) else -1.0)


def test_subtracting_all_the_way_lasts_max_game_length() -> None:
    game = Halving(n=7)
    state = game.state_from_moves(["-"] * 7)
    assert state.is_terminal() and game.max_game_length == 7
    assert state.returns() == [-1.0, 1.0]  # player 0 made moves 1, 3, 5 and 7, to zero


def test_illegal_actions_raise() -> None:
    state = Halving(n=3).new_initial_state()
    for bad in (2, -1):
        with pytest.raises(IllegalActionError):
            state.apply(bad)
    with pytest.raises(IllegalActionError, match="over"):
        state.apply(HALVE).apply(HALVE).apply(HALVE)  # 3, 1, 0, then no move


def test_notation_round_trip() -> None:
    state = Halving(n=9).new_initial_state()
    assert [state.action_to_string(a) for a in (HALVE, SUBTRACT)] == ["/", "-"]
    assert [state.string_to_action(t) for t in ("/", " - ")] == [HALVE, SUBTRACT]
    for text in ("", "h", "0", "//"):
        with pytest.raises(ValueError, match="halving: cannot read"):
            state.string_to_action(text)


def test_observation_board_grid_and_str() -> None:
    game = Halving(n=13)  # 4 bits
    state = game.state_class(game, (1, 0, 6))
    np.testing.assert_array_equal(state.observation(), np.array([0, 1, 1, 0], dtype=np.float32))
    np.testing.assert_array_equal(state.board_grid(), np.array([[0, 3, 3, 0]], dtype=np.int8))
    assert str(state) == "n = 6, player 1 to move"
    assert str(state.apply(SUBTRACT).apply(HALVE).apply(HALVE).apply(HALVE)) == "n = 0, game over: player 1 wins"


def test_hash_keys_are_exact() -> None:
    game = Halving(n=20)
    keys = {game.state_class(game, (p, 0, n)).hash_key() for p in (0, 1) for n in range(1, 21)}
    assert len(keys) == 40


@pytest.mark.parametrize("n", [0, -3, 2**20, 2.0, True, "5"])
def test_bad_parameters_raise(n: object) -> None:
    with pytest.raises(ValueError, match="halving: n must be"):
        Halving(n=n)
