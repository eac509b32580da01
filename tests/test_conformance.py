"""The game API contract, checked on every registered game by random play."""

from __future__ import annotations

import numpy as np
import pytest

import rlgames
from rlgames import CHANCE, TERMINAL, IllegalActionError
from rlgames.registry import game_class

GAMES = rlgames.list_games()


def random_trajectory(game: rlgames.Game, rng: np.random.Generator) -> list[rlgames.State]:
    """Every state of one random game, the terminal one last."""
    state = game.new_initial_state()
    states = [state]
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes())
            action = outcomes[rng.choice(len(outcomes), p=probs)]
        else:
            action = rng.choice(state.legal_actions())
        state = state.apply(int(action))
        states.append(state)
    return states


@pytest.fixture(scope="module", params=GAMES)
def game(request) -> rlgames.Game:
    return rlgames.load_game(request.param, **game_class(request.param).small_params)  # short random games


@pytest.fixture(scope="module")
def trajectories(game) -> list[list[rlgames.State]]:
    rng = np.random.default_rng(1234)
    return [random_trajectory(game, rng) for _ in range(40)]


def test_game_description(game, trajectories):
    assert game.name in GAMES
    assert game.num_actions > 0 and game.max_game_length > 0
    saw_chance = any(state.is_chance_node() for states in trajectories for state in states)
    assert saw_chance == game.has_chance
    assert rlgames.load_game(game.name, **game.params) == game


def test_games_end_within_max_length_with_zero_sum_returns(game, trajectories):
    for states in trajectories:
        assert len(states) - 1 <= game.max_game_length
        final = states[-1]
        assert final.current_player() == TERMINAL
        returns = final.returns()
        assert returns[0] in (-1.0, 0.0, 1.0) and returns[0] + returns[1] == 0.0
        assert final.legal_actions() == []
        for state in states[:-1]:
            assert state.returns() == [0.0, 0.0]


def test_player_codes_and_legal_actions(game, trajectories):
    for states in trajectories:
        for state in states[:-1]:
            player = state.current_player()
            assert player in (0, 1, CHANCE)
            actions = state.legal_actions()
            assert actions == sorted(set(actions)) and actions
            if player == CHANCE:
                outcomes = state.chance_outcomes()
                assert [a for a, _ in outcomes] == actions
                assert sum(p for _, p in outcomes) == pytest.approx(1.0)
                continue
            assert all(0 <= a < game.num_actions for a in actions)
            mask = state.legal_action_mask()
            assert mask.dtype == np.int8 and mask.shape == (game.num_actions,)
            assert np.flatnonzero(mask).tolist() == actions


def test_apply_leaves_the_receiver_unchanged(game, trajectories):
    for states in trajectories[:10]:
        for state in states[:-1]:
            before = (state.compact, str(state), state.observation().tobytes())
            for action in state.legal_actions():
                state.apply(action)
            assert (state.compact, str(state), state.observation().tobytes()) == before


def test_illegal_actions_raise(game, trajectories):
    for states in trajectories[:10]:
        with pytest.raises(IllegalActionError):
            states[-1].apply(0)
        for state in states[:-1]:
            if state.is_chance_node():
                continue
            illegal = sorted(set(range(game.num_actions)) - set(state.legal_actions()))
            for action in illegal[:3] + [-1, game.num_actions]:
                with pytest.raises(IllegalActionError):
                    state.apply(action)


def test_the_apply_kernel_judges_legality_as_legal_actions_lists(game, trajectories):
    """`State.is_legal` (the apply kernel's check) accepts exactly the listed actions or outcomes, over
    every action of about 2,000,000 / num_actions states of ten games (every one in most games; in chess,
    4,674 actions and games of hundreds of plies, one state in a few)."""
    states_checked = 2_000_000 // game.num_actions
    stride = max(1, sum(map(len, trajectories[:10])) // states_checked)
    for states in trajectories[:10]:
        for state in states[::stride]:
            listed = [a for a, _ in state.chance_outcomes()] if state.is_chance_node() else state.legal_actions()
            span = range(-3, max(game.num_actions, max(listed, default=0) + 1) + 3)
            assert [a for a in span if state.is_legal(a)] == listed
            assert not state.is_legal(2**62) and not state.is_legal(-(2**62))


@pytest.mark.parametrize("action", [1.0, "1", True, None, 2**70, np.float32(1)])
def test_actions_that_are_not_ints_raise(game, action):
    with pytest.raises(IllegalActionError):
        game.new_initial_state().apply(action)


def test_numpy_int_actions_are_accepted(game):
    state = game.new_initial_state()
    action = state.legal_actions()[0]
    assert state.apply(np.int64(action)) == state.apply(action)


def test_hash_keys_are_consistent(game, trajectories):
    keys: dict[int, object] = {}
    collisions = 0
    for states in trajectories:
        for state in states:
            key = state.hash_key()
            assert isinstance(key, int)
            assert key == game.state_class(game, state.compact).hash_key()  # a pure function of the position
            if game.info.history_dependent and state.is_terminal():
                continue  # a drawn repetition keeps the key of the position repeated
            if keys.setdefault(key, _position(state)) != _position(state):
                collisions += 1
    assert collisions == 0


def _position(state: rlgames.State) -> object:
    """What a key must tell apart: the whole compact state; in a game whose rules look at earlier
    positions, the position that repetitions compare (chess's key leaves out the move clocks): the
    board, the side to move and the legal moves."""
    if not state.game.info.history_dependent:
        return state.compact
    return state.current_player(), state.board_grid().tobytes(), tuple(state.legal_actions())


def test_replaying_the_actions_gives_equal_states(game, trajectories):
    rng = np.random.default_rng(7)
    for states in trajectories[:10]:
        actions = [_action_between(a, b) for a, b in zip(states, states[1:])]
        replayed = game.state_from_actions(actions)
        assert replayed == states[-1] and hash(replayed) == hash(states[-1])
        assert replayed.hash_key() == states[-1].hash_key()
        assert random_trajectory(game, rng)[0] == game.new_initial_state()


def _action_between(state: rlgames.State, successor: rlgames.State) -> int:
    (action,) = [a for a in state.legal_actions() if state.apply(a) == successor][:1]
    return action


def test_observations(game, trajectories):
    for states in trajectories[:10]:
        for state in states:
            obs = state.observation()
            assert obs.dtype == np.float32 and obs.shape == game.observation_shape
            assert np.all((obs >= 0.0) & (obs <= 1.0))
            if state.current_player() in (0, 1):
                assert state.observer() == state.current_player()
            assert np.array_equal(obs, state.observation(state.observer()))
            for player in (0, 1):
                assert state.observation(player).shape == game.observation_shape
    with pytest.raises(ValueError, match="player"):
        game.new_initial_state().observation(2)


def test_notation_round_trip(game, trajectories):
    for states in trajectories[:10]:
        for state in states[:-1]:
            if state.is_chance_node():
                continue
            for action in state.legal_actions():
                text = state.action_to_string(action)
                assert isinstance(text, str) and text
                assert state.string_to_action(text) == action
    with pytest.raises(ValueError):
        game.new_initial_state().string_to_action("not a move")


def test_str_and_board_grid(game, trajectories):
    for states in trajectories[:3]:
        for state in states:
            assert isinstance(str(state), str) and str(state)
            grid = state.board_grid()
            assert grid.dtype == np.int8 and grid.ndim == 2
            assert set(np.unique(grid).tolist()) <= {0, 1, 2, 3}


def test_symmetries_map_legal_masks_and_observations_consistently(game, trajectories):
    symmetries = game.symmetries()
    assert symmetries[0].name == "identity" or np.array_equal(symmetries[0].action_map, np.arange(game.num_actions))
    for symmetry in symmetries:
        assert sorted(symmetry.action_map.tolist()) == list(range(game.num_actions))  # a permutation
    for states in trajectories[:5]:
        for state in states[:-1]:
            if state.is_chance_node():
                continue
            for symmetry in symmetries:
                image = symmetry.observation(state.observation())
                assert image.shape == game.observation_shape
                mask = symmetry.policy(state.legal_action_mask())
                assert mask.sum() == len(state.legal_actions())


def test_symmetric_histories_give_symmetric_positions(game, trajectories):
    """Where a symmetry fixes the start position, replaying the images of a game's actions reaches the
    image of every position: observation and legal mask both map through the symmetry."""
    start = game.new_initial_state().observation()
    invariant = [sym for sym in game.symmetries()[1:] if np.array_equal(sym.observation(start), start)]
    for states in trajectories[:5]:
        actions = [_action_between(a, b) for a, b in zip(states, states[1:])]
        for symmetry in invariant:
            image = game.new_initial_state()
            for state, action in zip(states, actions):
                assert np.array_equal(image.observation(), symmetry.observation(state.observation()))
                if not state.is_chance_node():
                    assert np.array_equal(image.legal_action_mask(), symmetry.policy(state.legal_action_mask()))
                image = image.apply(action if state.is_chance_node() else int(symmetry.action_map[action]))
            assert image.returns() == states[-1].returns()
