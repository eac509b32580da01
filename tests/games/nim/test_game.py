"""Nim: rules on hand-built positions, notation, parameters, and a cross-check against OpenSpiel."""

import numpy as np
import pyspiel
import pytest

import rlgames
from rlgames import TERMINAL, IllegalActionError
from rlgames.games.nim.game import Nim


def position(game: Nim, player: int, *heaps: int) -> rlgames.State:
    return game.state_class(game, (player, 0, *heaps))


def action(pile: int, take: int, num_heaps: int) -> int:
    """Action of taking ``take`` from the 1-based ``pile``, by OpenSpiel's numbering."""
    return (take - 1) * num_heaps + pile - 1


@pytest.mark.parametrize("player", [0, 1])
@pytest.mark.parametrize("misere", [False, True])
def test_taking_the_last_object_wins_or_loses(player: int, misere: bool) -> None:
    game = Nim(heaps=(2, 3, 4), misere=misere)
    state = position(game, player, 0, 3, 0).apply(action(2, 3, 3))
    assert state.is_terminal() and state.current_player() == TERMINAL
    mover_return = -1.0 if misere else 1.0
    expected = [mover_return, -mover_return] if player == 0 else [-mover_return, mover_return]
    assert state.returns() == expected
    assert state.legal_actions() == []


def test_a_move_that_leaves_objects_passes_the_turn() -> None:
    game = Nim(heaps=(2, 3, 4))
    state = position(game, 1, 1, 3, 0).apply(action(2, 2, 3))
    assert state.compact == (0, 0, 1, 1, 0)
    assert state.returns() == [0.0, 0.0]


def test_initial_legal_actions_and_sizes_match_openspiel_numbering() -> None:
    game = rlgames.load_game("nim")
    assert game.params == {"heaps": (1, 3, 5, 7), "misere": False}
    assert game.num_actions == 29 and game.max_game_length == 16 and game.observation_shape == (4, 7)
    assert game.new_initial_state().legal_actions() == [0, 1, 2, 3, 5, 6, 7, 9, 10, 11, 14, 15, 18, 19, 23, 27]


def test_illegal_actions_raise() -> None:
    game = Nim(heaps=(1, 3, 5, 7))
    state = game.new_initial_state()
    for bad in (action(1, 2, 4), game.num_actions - 1, game.num_actions, -1):
        with pytest.raises(IllegalActionError):
            state.apply(bad)
    over = position(game, 0, 0, 0, 1, 0).apply(action(3, 1, 4))
    with pytest.raises(IllegalActionError, match="over"):
        over.apply(0)


def test_notation_round_trip_and_short_form() -> None:
    game = Nim(heaps=(1, 3, 5, 7))
    state = game.new_initial_state()
    for a in range(game.num_actions - 1):
        assert state.string_to_action(state.action_to_string(a)) == a
    assert state.action_to_string(action(2, 3, 4)) == "pile:2, take:3;"
    assert state.string_to_action("pile:2, take:3;") == action(2, 3, 4)
    assert state.string_to_action(" 2:3 ") == action(2, 3, 4)
    assert game.state_from_moves("4:7 1:1").compact == (0, 0, 0, 3, 5, 0)


@pytest.mark.parametrize("text", ["", "2-3", "pile:2 take:3", "0:1", "5:1", "1:0", "1:8", "x:y"])
def test_bad_notation_raises(text: str) -> None:
    with pytest.raises(ValueError, match="nim"):
        Nim().new_initial_state().string_to_action(text)


@pytest.mark.parametrize(
    "params",
    [
        {"heaps": ()},
        {"heaps": (0, 2)},
        {"heaps": (21,)},
        {"heaps": "1;3"},
        {"heaps": (1.5,)},
        {"heaps": (True,)},
        {"heaps": (1,) * 21},
        {"misere": "yes"},
    ],
)
def test_bad_parameters_raise(params: dict) -> None:
    with pytest.raises(ValueError, match="nim: (heaps|every heap|misere)"):
        Nim(**params)


def test_observation_and_board_grid() -> None:
    state = position(Nim(heaps=(1, 3, 2)), 1, 1, 2, 0)
    expected = np.array([[1, 0, 0], [1, 1, 0], [0, 0, 0]], dtype=np.float32)
    np.testing.assert_array_equal(state.observation(), expected)
    np.testing.assert_array_equal(state.board_grid(), 3 * expected.astype(np.int8))
    assert state.board_grid().dtype == np.int8
    assert str(state) == "player 1 to move (normal play)\npile 1: o\npile 2: oo\npile 3: -"


def test_hash_keys_distinguish_every_reachable_state() -> None:
    game = Nim(heaps=(2, 3))
    seen: dict[tuple, int] = {}
    frontier = [game.new_initial_state()]
    while frontier:
        state = frontier.pop()
        seen[state.compact] = state.hash_key()
        frontier += [state.apply(a) for a in state.legal_actions()]
    assert len(set(seen.values())) == len(seen) == 20


@pytest.mark.parametrize("heaps", [(1, 3, 5, 7), (2, 3), (4, 1, 6)])
@pytest.mark.parametrize("misere", [False, True])
def test_random_games_match_openspiel(heaps: tuple[int, ...], misere: bool) -> None:
    game = Nim(heaps=heaps, misere=misere)
    spiel_game = pyspiel.load_game("nim", {"pile_sizes": ";".join(map(str, heaps)), "is_misere": misere})
    assert game.num_actions == spiel_game.num_distinct_actions()
    assert game.max_game_length == spiel_game.max_game_length()
    rng = np.random.default_rng(sum(heaps) + misere)
    buffer = np.empty(game.kernels.max_actions, dtype=np.int64)
    for _ in range(100):
        state, spiel_state = game.new_initial_state(), spiel_game.new_initial_state()
        while True:
            assert state.current_player() == spiel_state.current_player()
            assert state.is_terminal() == spiel_state.is_terminal()
            legal = state.legal_actions()
            assert legal == spiel_state.legal_actions()
            assert buffer[: game.kernels.legal_actions(state.compact, buffer)].tolist() == legal
            if state.is_terminal():
                break
            assert str(spiel_state).endswith(" ".join(map(str, state.compact[2:])))
            a = int(rng.choice(legal))
            assert state.action_to_string(a) == spiel_state.action_to_string(a)
            state = state.apply(a)
            spiel_state.apply_action(a)
        assert state.returns() == spiel_state.returns()
