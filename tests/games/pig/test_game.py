"""Pig: rules on hand-built positions, chance nodes, the horizon, notation, and a cross-check against
OpenSpiel's ``pig``."""

import numpy as np
import pyspiel
import pytest

import rlgames
from rlgames import CHANCE, TERMINAL, IllegalActionError
from rlgames.game import ILLEGAL
from rlgames.games.pig.game import Pig, PigState
from rlgames.games.pig.rules import ROLL, STOP, pack_rules


def position(
    game: Pig, code: int, score0: int, score1: int, total: int, turn: int, decisions: int = 0
) -> rlgames.State:
    compact = (
        code,
        0,
        score0,
        score1,
        total,
        turn,
        game.horizon - decisions,
        pack_rules(game.winscore, game.diceoutcomes),
    )
    return game.state_class(game, compact)


@pytest.mark.parametrize("turn", [0, 1])
def test_rolling_a_one_loses_the_turn_total(turn: int) -> None:
    game = Pig(winscore=20)
    state = position(game, CHANCE, 5, 7, 9, turn, decisions=4).apply(0)
    assert state.compact[:7] == (1 - turn, 0, 5, 7, 0, 1 - turn, game.horizon - 4)


def test_other_faces_add_to_the_turn_total() -> None:
    game = Pig(winscore=20)
    state = position(game, CHANCE, 5, 7, 9, 1).apply(4)
    assert state.compact[:7] == (1, 0, 5, 7, 14, 1, game.horizon)


@pytest.mark.parametrize("turn", [0, 1])
def test_stop_banks_the_turn_total(turn: int) -> None:
    game = Pig(winscore=20)
    state = position(game, turn, 5, 7, 6, turn, decisions=2).apply(STOP)
    scores = (11, 7) if turn == 0 else (5, 13)
    assert state.compact[:7] == (1 - turn, 0, *scores, 0, 1 - turn, game.horizon - 3)


def test_stop_with_a_zero_turn_total_is_legal_and_passes() -> None:
    game = Pig()
    state = game.new_initial_state()
    assert state.legal_actions() == [ROLL, STOP]
    assert state.apply(STOP).compact[:7] == (1, 0, 0, 0, 0, 1, game.horizon - 1)


@pytest.mark.parametrize("turn", [0, 1])
def test_reaching_winscore_forces_a_stop_that_wins(turn: int) -> None:
    game = Pig(winscore=20)
    state = position(game, turn, 15 if turn == 0 else 3, 15 if turn == 1 else 3, 5, turn)
    assert state.legal_actions() == [STOP]
    np.testing.assert_array_equal(state.legal_action_mask(), np.array([0, 1], dtype=np.int8))
    with pytest.raises(IllegalActionError):
        state.apply(ROLL)
    final = state.apply(STOP)
    assert final.is_terminal() and final.current_player() == TERMINAL and final.legal_actions() == []
    assert final.returns() == ([1.0, -1.0] if turn == 0 else [-1.0, 1.0])


def test_sampled_chance_outcomes_follow_the_die_and_the_seed() -> None:
    state = Pig(diceoutcomes=4).new_initial_state().apply(ROLL)
    draws = [state.sample_chance_outcome(np.random.default_rng(seed)) for seed in range(4000)]
    assert np.bincount(draws, minlength=4) / len(draws) == pytest.approx([0.25] * 4, abs=0.03)
    assert draws[:20] == [state.sample_chance_outcome(np.random.default_rng(seed)) for seed in range(20)]
    with pytest.raises(ValueError, match="non-chance state"):
        state.apply(2).sample_chance_outcome(np.random.default_rng(0))


def test_chance_outcomes_are_uniform() -> None:
    state = Pig(diceoutcomes=4).new_initial_state().apply(ROLL)
    assert state.current_player() == CHANCE and state.is_chance_node()
    outcomes = state.chance_outcomes()
    assert [o for o, _ in outcomes] == state.legal_actions() == [0, 1, 2, 3]
    assert [p for _, p in outcomes] == [0.25] * 4
    assert sum(p for _, p in outcomes) == pytest.approx(1.0)
    with pytest.raises(ValueError, match="chance node"):
        state.legal_action_mask()
    with pytest.raises(IllegalActionError):
        state.apply(4)
    with pytest.raises(ValueError, match="non-chance"):
        state.apply(3).chance_outcomes()


def test_the_horizon_ends_the_game_in_a_draw_even_after_a_roll() -> None:
    game = Pig(winscore=20, horizon=3)
    spiel_state = pyspiel.load_game("pig", {"winscore": 20, "horizon": 3}).new_initial_state()
    state = game.state_from_moves("roll 4 roll 3 roll")
    for a in (ROLL, 3, ROLL, 2, ROLL):
        spiel_state.apply_action(a)
    assert state.is_terminal() and spiel_state.is_terminal()
    assert state.returns() == spiel_state.returns() == [0.0, 0.0]
    assert state.compact[:7] == (TERMINAL, 0, 0, 0, 7, 0, 0)  # no decision left
    assert game.max_game_length == 6


def test_a_winning_stop_on_the_last_decision_still_wins() -> None:
    game = Pig(winscore=20, horizon=5)
    state = position(game, 1, 0, 18, 4, 1, decisions=4).apply(STOP)
    assert state.is_terminal() and state.returns() == [-1.0, 1.0]
    drawn = position(game, 1, 0, 10, 4, 1, decisions=4).apply(STOP)
    assert drawn.is_terminal() and drawn.returns() == [0.0, 0.0]


def test_illegal_decisions_raise() -> None:
    state = Pig().new_initial_state()
    for bad in (2, -1, 5):
        with pytest.raises(IllegalActionError):
            state.apply(bad)


def test_notation() -> None:
    state = Pig().new_initial_state()
    assert [state.action_to_string(a) for a in (ROLL, STOP)] == ["roll", "stop"]
    assert [state.string_to_action(t) for t in ("roll", "R", " Stop ", "s")] == [ROLL, ROLL, STOP, STOP]
    chance = state.apply(ROLL)
    assert [chance.action_to_string(o) for o in (0, 5)] == ["Roll 1", "Roll 6"]
    assert [chance.string_to_action(t) for t in ("Roll 1", "roll  6", "3")] == [0, 5, 2]
    for o in range(6):
        assert chance.string_to_action(chance.action_to_string(o)) == o
    for text in ("", "go", "rolls"):
        with pytest.raises(ValueError, match="pig: cannot read move"):
            state.string_to_action(text)
    for text in ("Roll 7", "0", "roll", "stop"):
        with pytest.raises(ValueError, match="pig: cannot read die face"):
            chance.string_to_action(text)


def test_observation_is_from_the_turn_player() -> None:
    game = Pig(winscore=10)
    state = position(game, 1, 3, 5, 12, 1)
    expected = np.zeros((4, 11), dtype=np.float32)
    expected[0, 10] = expected[1, 5] = expected[2, 3] = 1  # turn total (capped), own score, opponent's
    np.testing.assert_array_equal(state.observation(), expected)
    expected[3, 0] = 1
    np.testing.assert_array_equal(position(game, CHANCE, 3, 5, 12, 1).observation(), expected)


def test_board_grid_and_str() -> None:
    game = Pig(winscore=40)
    state = position(game, CHANCE, 10, 40, 6, 0, decisions=7)
    expected = np.zeros((3, 20), dtype=np.int8)
    expected[0, :5], expected[1, :], expected[2, :3] = 1, 2, 3
    np.testing.assert_array_equal(state.board_grid(), expected)
    assert str(state) == "scores: 10 40, turn total: 6, decisions: 7\nplayer 0 rolling"


@pytest.mark.parametrize(
    "params",
    [
        {"winscore": 0},
        {"winscore": 10.0},
        {"diceoutcomes": 1},
        {"diceoutcomes": True},
        {"horizon": 0},
        {"horizon": "9"},
    ],
)
def test_bad_parameters_raise(params: dict) -> None:
    name = next(iter(params))
    with pytest.raises(ValueError, match=f"pig: {name} must be"):
        Pig(**params)


def test_params_and_registry() -> None:
    game = rlgames.load_game("pig", winscore=20)
    assert game.params == {"winscore": 20, "diceoutcomes": 6, "horizon": 1000}
    assert game.has_chance and game.num_actions == 2 and game.kernels.max_actions == 6
    assert Pig(diceoutcomes=2).kernels.max_actions == 2


def play_against_openspiel(game: Pig, num_games: int, seed: int) -> None:
    """Plays random games in both implementations: the same decisions and the same die faces."""
    params = {"winscore": game.winscore, "diceoutcomes": game.diceoutcomes, "horizon": game.horizon}
    spiel_game = pyspiel.load_game("pig", params)
    rng = np.random.default_rng(seed)
    buffer = np.empty(game.kernels.max_actions, dtype=np.int64)
    for _ in range(num_games):
        state, spiel_state = game.new_initial_state(), spiel_game.new_initial_state()
        while not spiel_state.is_terminal():
            assert state.current_player() == spiel_state.current_player()
            legal = state.legal_actions()
            assert legal == spiel_state.legal_actions()
            assert buffer[: game.kernels.legal_actions(state.compact, buffer)].tolist() == legal
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                expected = spiel_state.chance_outcomes()
                assert [o for o, _ in outcomes] == [o for o, _ in expected]
                assert [p for _, p in outcomes] == pytest.approx([p for _, p in expected])
                a = int(rng.choice([o for o, _ in outcomes], p=[p for _, p in outcomes]))
            else:
                a = int(rng.choice(legal, p=[0.75, 0.25] if len(legal) == 2 else None))
                spiel_planes = np.array(spiel_state.observation_tensor(0), dtype=np.float32).reshape(3, -1)
                turn = state.current_player()
                ours = state.observation()
                np.testing.assert_array_equal(ours[:3], spiel_planes[[0, 1 + turn, 2 - turn]])
            assert state.action_to_string(a) == spiel_state.action_to_string(spiel_state.current_player(), a)
            state = state.apply(a)
            spiel_state.apply_action(a)
        assert state.is_terminal() and state.current_player() == spiel_state.current_player()
        assert state.legal_actions() == []
        assert state.returns() == spiel_state.returns()


@pytest.mark.parametrize(
    ("params", "num_games"),
    [({"winscore": 20}, 200), ({"winscore": 15, "diceoutcomes": 3, "horizon": 12}, 200), ({}, 20)],
)
def test_random_games_match_openspiel(params: dict, num_games: int) -> None:
    play_against_openspiel(Pig(**params), num_games, seed=len(params) + num_games)


def test_state_at_builds_the_position_that_play_reaches():
    game = rlgames.load_game("pig", winscore=20)
    played = game.state_from_actions([ROLL, 3, STOP, ROLL])  # player 0 banks 4, player 1 rolls
    assert game.state_at(4, 0, 0, 1, chance=True, decisions=3) == played
    assert game.state_at(4, 0, 5, 1, decisions=3) == played.apply(4)
    with pytest.raises(ValueError, match="score1 must be in"):
        game.state_at(0, 20)
    with pytest.raises(ValueError, match="turn must be 0 or 1"):
        game.state_at(0, 0, turn=2)


def kernel_apply(game: Pig, compact: tuple, action: int) -> tuple | None:
    """The compiled ``apply`` kernel's successor, or None where it judges ``action`` illegal."""
    try:
        successor = game.kernels.apply(compact, action)
    except OverflowError:  # beyond int64: never legal
        return None
    return None if successor[0] == ILLEGAL else successor


@pytest.mark.parametrize(
    ("params", "num_games"),
    [
        ({}, 20),
        ({"winscore": 20}, 100),
        ({"winscore": 15, "diceoutcomes": 3, "horizon": 12}, 100),
        ({"winscore": 8, "horizon": 5}, 100),
    ],
)
def test_python_apply_matches_the_kernel(params: dict, num_games: int) -> None:
    """`PigState.apply` (plain Python, the API's hot path) and the ``apply`` kernel (the search's) agree on
    every action, legal or not, at every state of random games: the same successor, or
    `IllegalActionError` where the kernel says illegal; legal actions and returns agree too."""
    game = Pig(**params)
    rng = np.random.default_rng(len(params))
    actions = [*range(-2, game.kernels.max_actions + 2), 2**31, 2**63, -(2**63) - 1]
    buffer = np.empty(game.kernels.max_actions, dtype=np.int64)
    for _ in range(num_games):
        state = game.new_initial_state()
        while True:
            compact = state.compact
            for action in actions:
                expected = kernel_apply(game, compact, action)
                if expected is None:
                    with pytest.raises(IllegalActionError, match="pig: "):
                        state.apply(action)
                    continue
                child = state.apply(action)
                assert type(child) is PigState and child.game is game and child.compact == expected
                assert all(type(value) is int for value in child.compact)
                assert child.returns() == [float(expected[1]), -float(expected[1])]
            assert state.compact is compact  # the receiver is unchanged
            legal = buffer[: game.kernels.legal_actions(compact, buffer)].tolist()
            assert state.legal_actions() == legal
            if not legal:
                assert state.is_terminal()
                break
            state = state.apply(int(rng.choice(legal)))


def test_python_apply_names_the_illegal_action() -> None:
    game = Pig(winscore=20)
    with pytest.raises(IllegalActionError, match=r"pig: move roll \(action 0\) is illegal here; legal: stop \(1\)"):
        game.state_at(15, 3, 5).apply(ROLL)
    with pytest.raises(IllegalActionError, match=r"pig: action 6 is illegal here; legal: Roll 1 \(0\)"):
        game.state_at(0, 0, chance=True).apply(6)
    with pytest.raises(IllegalActionError, match="game is over"):
        game.state_at(15, 3, 5).apply(STOP).apply(STOP)
