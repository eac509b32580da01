"""The Gymnasium envs: API conformance, vector envs, seeding, seats, rewards, illegal moves, rendering."""

from __future__ import annotations

import functools
import subprocess
import sys
import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from tug import CASH, LEFT, RIGHT, Tug

from rlgames import envs
import rlgames
from rlgames.envs import GameEnv, SelfPlayEnv
from rlgames.envs.render import PIECE_RGB, board_image
from rlgames import IllegalActionError, Outcome
from rlgames.registry import game_class

"""Smaller variants of the long games, to keep random episodes short."""


def require_game(name: str) -> str:
    """``name``, or a skip when the game's module is not written yet (and for no other reason)."""
    try:
        rlgames.registry.game_class(name)
    except ModuleNotFoundError as error:
        if error.name and error.name.startswith("rlgames.games."):
            pytest.skip(f"{name}: module {error.name} does not exist yet")
        raise
    return name


@pytest.fixture(params=rlgames.list_games())
def game_name(request) -> str:
    return require_game(request.param)


def make(name: str, self_play: bool = False, **kwargs) -> gymnasium.Env:
    return envs.make_env(name, self_play, game_params=game_class(name).small_params or None, **kwargs)


def first_legal(observation: dict) -> int:
    return int(np.flatnonzero(observation["action_mask"])[0])


def play_episode(env: gymnasium.Env, seed: int, policy=first_legal) -> list[tuple]:
    """One seeded episode: every (compact state, reward, terminated, info) on the way."""
    observation, info = env.reset(seed=seed)
    trajectory = [(env.unwrapped.state.compact, info)]
    terminated = False
    while not terminated:
        observation, reward, terminated, truncated, info = env.step(policy(observation))
        assert not truncated
        trajectory.append((env.unwrapped.state.compact, reward, terminated, info))
    return trajectory


# --- registration -------------------------------------------------------------------------------------
def test_every_game_has_both_envs_registered():
    ids = set(gymnasium.registry)
    assert {"rlgames/TicTacToe-v0", "rlgames/ConnectFourSelfPlay-v0"} <= ids
    for name in rlgames.list_games():
        for self_play, cls in ((False, "GameEnv"), (True, "SelfPlayEnv")):
            spec = gymnasium.spec(envs.env_id(name, self_play))
            assert spec.entry_point.endswith(cls) and spec.kwargs == {"game": name}
    with pytest.raises(ValueError, match="unknown game 'chesss'"):
        envs.make_env("chesss")


@pytest.mark.parametrize("self_play", [False, True], ids=["vs_opponent", "self_play"])
def test_go_board_sizes_have_envs_of_their_own(self_play):
    for size in (9, 13, 19):
        env = gymnasium.make(f"rlgames/Go{size}x{size}{'SelfPlay' if self_play else ''}-v0")
        assert env.unwrapped.game.params["board_size"] == size
        assert env.action_space.n == size * size + 1
    env = gymnasium.make(f"rlgames/Go9x9{'SelfPlay' if self_play else ''}-v0", illegal_action="lose")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(env.unwrapped)
    with pytest.raises(ValueError, match="unknown game 'goo'"):
        rlgames.registry.game_variants("goo")


def test_importing_envs_compiles_no_game():
    code = "import sys, envs; print([m for m in sys.modules if m.startswith('rlgames.games.')])"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"


# --- the Gymnasium checker and vector envs ------------------------------------------------------------
@pytest.mark.parametrize("self_play", [False, True], ids=["vs_opponent", "self_play"])
@pytest.mark.parametrize("render_mode", ["ansi", "rgb_array"])
def test_check_env_passes_without_warnings(game_name, self_play, render_mode):
    # check_env steps action_space.sample(), which may be illegal: "lose" makes that a legal end.
    env = make(game_name, self_play, illegal_action="lose", render_mode=render_mode)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(env.unwrapped)
    env.close()


def random_legal_actions(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One random legal action per env; 0 where nothing is legal (a finished game, reset next step)."""
    actions = np.zeros(len(masks), dtype=np.int64)
    for i, mask in enumerate(masks):
        legal = np.flatnonzero(mask)
        if legal.size:
            actions[i] = rng.choice(legal)
    return actions


def run_vector_env(vector_env: gymnasium.vector.VectorEnv, steps: int) -> int:
    """Random legal play; checks every batch and returns the number of finished episodes."""
    rng = np.random.default_rng(0)
    observations, infos = vector_env.reset(seed=1)
    finished = 0
    for _ in range(steps):
        actions = random_legal_actions(observations["action_mask"], rng)
        observations, rewards, terminated, truncated, infos = vector_env.step(actions)
        assert observations in vector_env.observation_space  # dtypes, shapes and the [0, 1] bounds
        assert set(rewards.tolist()) <= {-1.0, 0.0, 1.0} and not truncated.any()
        assert np.all(rewards[~terminated] == 0)
        finished += int(terminated.sum())
    vector_env.close()
    return finished


@pytest.mark.parametrize("self_play", [False, True], ids=["vs_opponent", "self_play"])
def test_sync_vector_env(game_name, self_play):
    vector_env = gymnasium.vector.SyncVectorEnv([functools.partial(make, game_name, self_play) for _ in range(3)])
    assert run_vector_env(vector_env, 300) > 0


@pytest.mark.parametrize("name", ["tic_tac_toe", "connect_four"])
def test_async_vector_env(name):
    require_game(name)
    vector_env = gymnasium.vector.AsyncVectorEnv([functools.partial(envs.make_env, name) for _ in range(2)])
    assert run_vector_env(vector_env, 200) > 0


# --- seeding and seats --------------------------------------------------------------------------------
@pytest.mark.parametrize("self_play", [False, True], ids=["vs_opponent", "self_play"])
def test_reset_seed_reproduces_the_episode(game_name, self_play):
    env = make(game_name, self_play)
    episodes = [play_episode(env, seed) for seed in (0, 1, 2, 3, 4, 5, 0)]
    assert episodes[0] == episodes[-1]
    has_randomness = not self_play or rlgames.load_game(game_name, **game_class(game_name).small_params).has_chance
    if has_randomness:  # seats, opponent moves or dice differ between seeds
        assert len({repr(episode) for episode in episodes}) > 1
    else:  # self-play of a deterministic game: the agent's moves decide everything
        assert len({repr(episode) for episode in episodes}) == 1


@pytest.mark.parametrize("seat", [0, 1])
def test_fixed_seat(game_name, seat):
    env = make(game_name, seat=seat)
    for seed in range(3):
        observation, info = env.reset(seed=seed)
        assert observation["observation"].dtype == np.float32 and observation["action_mask"].dtype == np.int8
        assert info["seat"] == seat
        assert env.unwrapped.state.current_player() == seat
        _, _, _, _, info = env.step(first_legal(observation))
        assert info["seat"] == seat


def test_random_seat_is_drawn_each_episode():
    env = GameEnv("tic_tac_toe")
    seats = []
    for seed in range(20):
        observation, info = env.reset(seed=seed)
        seats.append(info["seat"])
        assert env.unwrapped.state.current_player() == info["seat"]
        stones = observation["observation"]
        assert stones[0].sum() == 0 and stones[1].sum() == info["seat"]  # the opponent's first mark
    assert set(seats) == {0, 1}


def test_a_game_instance_is_accepted():
    game = rlgames.load_game("nim", heaps=(1, 2))
    env = SelfPlayEnv(game)
    observation, _ = env.reset(seed=0)
    assert env.game is game and observation["observation"].shape == game.observation_shape
    assert env.action_space.n == game.num_actions


def test_invalid_arguments_are_rejected():
    with pytest.raises(ValueError, match="seat"):
        GameEnv("tic_tac_toe", seat=2)
    with pytest.raises(ValueError, match="illegal_action"):
        GameEnv("tic_tac_toe", illegal_action="ignore")
    with pytest.raises(ValueError, match="render_mode"):
        SelfPlayEnv("tic_tac_toe", render_mode="human")
    with pytest.raises(TypeError, match="opponent"):
        GameEnv("tic_tac_toe", opponent=3)
    with pytest.raises(ValueError, match="game_params"):
        GameEnv(rlgames.load_game("tic_tac_toe"), game_params={"size": 4})
    with pytest.raises(ValueError, match="unknown game"):
        GameEnv("chesss")
    with pytest.raises(TypeError, match="game must be"):
        GameEnv(7)


# --- rewards on scripted tic-tac-toe games -------------------------------------------------------------
X_WINS = [0, 3, 1, 4, 2]
O_WINS = [0, 3, 1, 4, 8, 5]
DRAW = [0, 4, 8, 2, 6, 3, 5, 7, 1]


def scripted(moves: list[int]):
    """A policy playing ``moves[k]`` as the k-th move of the game, read off the board."""
    return lambda state: moves[int(np.count_nonzero(state.board_grid()))]


@pytest.mark.parametrize(
    "moves, seat, expected",
    [(X_WINS, 0, 1.0), (X_WINS, 1, -1.0), (O_WINS, 0, -1.0), (O_WINS, 1, 1.0), (DRAW, 0, 0.0), (DRAW, 1, 0.0)],
)
def test_rewards_from_the_agents_seat(moves, seat, expected):
    env = GameEnv("tic_tac_toe", seat=seat, opponent=scripted(moves))
    agent = scripted(moves)
    env.reset(seed=0)
    rewards, terminated = [], False
    while not terminated:
        observation, reward, terminated, _, info = env.step(agent(env.state))
        rewards.append(reward)
    assert rewards[-1] == expected and all(r == 0 for r in rewards[:-1])
    marks = env.state.board_grid().reshape(-1)  # the final observation is from the agent's seat too
    np.testing.assert_array_equal(observation["observation"][0].reshape(-1), marks == seat + 1)
    np.testing.assert_array_equal(observation["action_mask"], 0)
    assert env.state.compact == rlgames.load_game("tic_tac_toe").state_from_actions(moves).compact
    first = {0: 1.0, 1: -1.0}[seat] * expected  # player 0's return
    winner = None if first == 0 else 0 if first > 0 else 1
    assert info == {"seat": seat, "illegal_action": False, "outcome": Outcome(winner, (first, -first), "normal")}
    with pytest.raises(RuntimeError, match=r"call reset\(\)"):
        env.step(0)


# --- illegal actions and opponents ---------------------------------------------------------------------
def test_illegal_action_raises_by_default_naming_it():
    env = GameEnv("tic_tac_toe", seat=0, opponent=scripted([0, 4, 1, 3]))
    env.reset(seed=0)
    env.step(0)
    with pytest.raises(IllegalActionError) as raised:
        env.step(4)
    message = str(raised.value)
    assert "action 4" in message and "legal" in message and "player 0 to move" in message
    assert all(f"({a})" in message for a in (1, 2, 3, 5, 6, 7, 8))
    with pytest.raises(IllegalActionError, match="action 9"):
        env.step(9)
    with pytest.raises(TypeError, match="integer"):
        env.step(1.5)
    env.step(np.int64(1))  # numpy integers are actions too


def test_illegal_action_lose_ends_the_episode(game_name):
    env = make(game_name, illegal_action="lose")
    observation, _ = env.reset(seed=3)
    illegal = np.flatnonzero(observation["action_mask"] == 0)
    action = int(illegal[0]) if illegal.size else env.unwrapped.game.num_actions
    observation, reward, terminated, truncated, info = env.step(action)
    assert (reward, terminated, truncated, info["illegal_action"]) == (-1.0, True, False, True)
    outcome = info["outcome"]
    assert outcome.winner == 1 - info["seat"] and outcome.termination == "illegal action"
    assert outcome.returns[info["seat"]] == -1.0
    with pytest.raises(RuntimeError, match=r"reset\(\)"):
        env.step(first_legal(observation))


def test_illegal_action_lose_in_self_play():
    env = SelfPlayEnv("tic_tac_toe", illegal_action="lose")
    env.reset(seed=0)
    env.step(4)
    _, reward, terminated, _, info = env.step(4)
    assert (reward, terminated, info) == (
        -1.0,
        True,
        {"player": 1, "illegal_action": True, "outcome": Outcome(0, (1.0, -1.0), "illegal action")},
    )


class LowestMoveAgent:
    """An agent object: plays the lowest legal action and records its seeds."""

    def __init__(self) -> None:
        self.seeds: list[int] = []

    def search(self, state: rlgames.State):
        raise NotImplementedError  # the env only asks for moves

    def act(self, state: rlgames.State) -> int:
        return state.legal_actions()[0]

    def seed(self, seed: int) -> None:
        self.seeds.append(seed)


def test_opponent_object_with_act_and_seed():
    agent = LowestMoveAgent()
    env = GameEnv("tic_tac_toe", seat=1, opponent=agent)
    env.reset(seed=5)
    env.step(8)
    assert env.state.board_grid().ravel().tolist() == [1, 1, 0, 0, 0, 0, 0, 0, 2]
    env.reset(seed=5)
    env.reset(seed=6)
    assert all(isinstance(s, int) for s in agent.seeds)
    assert agent.seeds[0] == agent.seeds[1] != agent.seeds[2]


def test_illegal_opponent_move_names_the_opponent():
    def stubborn(state: rlgames.State) -> int:
        return 0

    env = GameEnv("tic_tac_toe", seat=0, opponent=stubborn)
    env.reset(seed=0)
    with pytest.raises(IllegalActionError, match="opponent <function .*stubborn.* played an illegal move"):
        env.step(0)
    env = GameEnv("tic_tac_toe", seat=1, opponent=lambda state: "b2")
    with pytest.raises(TypeError, match="opponent .* played an illegal move: an action must be an integer"):
        env.reset(seed=0)


def test_errors_inside_the_opponent_propagate_unchanged():
    def broken(state: rlgames.State) -> int:
        raise TypeError("bug in the opponent")

    with pytest.raises(TypeError, match="^bug in the opponent$"):
        GameEnv("tic_tac_toe", seat=1, opponent=broken).reset(seed=0)


def test_state_before_reset_is_an_error():
    with pytest.raises(RuntimeError, match=r"reset\(\)"):
        GameEnv("tic_tac_toe").state


# --- rendering -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("self_play", [False, True], ids=["vs_opponent", "self_play"])
def test_rgb_array_render(game_name, self_play):
    env = make(game_name, self_play, render_mode="rgb_array")
    observation, _ = env.reset(seed=0)
    frame = env.render()
    rows, cols = env.unwrapped.state.board_grid().shape
    assert frame.dtype == np.uint8 and frame.shape == (rows * 48 + 1, cols * 48 + 1, 3)
    if game_name in ("tic_tac_toe", "connect_four", "othello"):
        env.step(first_legal(observation))
        assert not np.array_equal(env.render(), frame)


def test_board_image_colours():
    image = board_image(np.array([[0, 1], [2, 3]], dtype=np.int8), cell_px=10)
    assert image.shape == (21, 21, 3)
    centres = image[[5, 5, 15, 15], [5, 15, 5, 15]]
    assert [tuple(c) for c in centres[1:]] == [PIECE_RGB[1], PIECE_RGB[2], PIECE_RGB[3]]
    assert tuple(centres[0]) not in PIECE_RGB.values()
    with pytest.raises(ValueError, match="codes"):
        board_image(np.array([[4]]))


def test_ansi_render_shows_the_board_and_the_turn():
    env = GameEnv("tic_tac_toe", seat=0, opponent=scripted(X_WINS), render_mode="ansi")
    env.reset(seed=0)
    text = env.render()
    assert text.startswith(str(env.state)) and "player 0 to move" in text
    for action in (0, 1, 2):
        env.step(action)
    text = env.render()
    assert "x x x" in text and "game over: player 0 wins, 1-0, normal (the agent plays player 0)" in text


# --- self-play ------------------------------------------------------------------------------------------
def test_self_play_observation_is_from_the_side_to_move():
    env = SelfPlayEnv("tic_tac_toe")
    observation, info = env.reset(seed=0)
    assert info == {"player": 0} and not observation["observation"].any()
    observation, _, _, _, info = env.step(4)
    planes = observation["observation"]
    assert info["player"] == 1
    assert not planes[0].any() and planes[1, 1, 1] == 1  # x's mark is the opponent's, for o
    assert observation["action_mask"][4] == 0 and observation["action_mask"].sum() == 8
    observation, _, _, _, info = env.step(0)
    planes = observation["observation"]
    assert info["player"] == 0
    assert planes[0, 1, 1] == 1 and planes[1, 0, 0] == 1 and planes.sum() == 2


@pytest.mark.parametrize("moves, winner", [(X_WINS, 0), (O_WINS, 1)])
def test_self_play_rewards_the_winning_move(moves, winner):
    env = SelfPlayEnv("tic_tac_toe")
    env.reset(seed=0)
    results = [env.step(action)[1:] for action in moves]
    assert [reward for reward, *_ in results] == [0.0] * (len(moves) - 1) + [1.0]
    assert [terminated for _, terminated, *_ in results] == [False] * (len(moves) - 1) + [True]
    assert results[-1][-1]["player"] == winner
    assert [info["player"] for *_, info in results[:-1]] == [(k + 1) % 2 for k in range(len(moves) - 1)]


# --- rewards in the utility range, and the outcome in info ---------------------------------------------------
def test_the_reward_range_is_the_games_utility():
    assert GameEnv("tic_tac_toe").reward_range == (-1.0, 1.0)
    assert make("pig").unwrapped.reward_range == (-1.0, 1.0)
    assert GameEnv(Tug()).reward_range == SelfPlayEnv(Tug()).reward_range == (-2.0, 2.0)


@pytest.mark.parametrize(
    "seat, opponent_move, reward, termination",
    [
        (0, RIGHT, 2.0, "normal"),  # both pull right: player 0 reaches its goal, a 2-point win
        (1, RIGHT, -2.0, "normal"),
        (0, CASH, 1.0, "normal"),  # the opponent cashes in on player 0's side: 1 point
        (0, LEFT, 0.0, "repetition"),  # back to the start: a twofold repetition draws
    ],
)
def test_the_final_reward_is_the_return_in_utility_units(seat, opponent_move, reward, termination):
    env = GameEnv(Tug(), seat=seat, opponent=lambda state: opponent_move)
    observation, info = env.reset(seed=0)
    assert "outcome" not in info
    rewards, terminated = [], False
    while not terminated:
        observation, step_reward, terminated, truncated, info = env.step(RIGHT)
        rewards.append(step_reward)
        assert not truncated and ("outcome" in info) == terminated
    assert rewards[-1] == reward and all(r == 0 for r in rewards[:-1])
    outcome = info["outcome"]
    assert outcome == env.unwrapped.outcome == env.state.outcome()
    assert outcome.returns[seat] == reward and outcome.termination == termination


def test_self_play_rewards_two_points_and_reports_the_outcome():
    env = SelfPlayEnv(Tug())
    env.reset(seed=0)
    results = [env.step(RIGHT)[1:] for _ in range(3)]  # x: 1, 2, 3 = player 0's goal, reached by player 0
    assert [reward for reward, *_ in results] == [0.0, 0.0, 2.0]
    info = results[-1][-1]
    assert info == {"player": 0, "illegal_action": False, "outcome": Outcome(0, (2.0, -2.0), "normal")}
    assert info["outcome"].result == "1-0 (2 points)"


def test_an_illegal_move_loses_the_games_worst_loss():
    """Under superko, stepping back to the start repeats it: illegal, and "lose" makes it -2 here, so
    that no illegal move pays better than a legal 2-point loss."""
    env = SelfPlayEnv(Tug(rule="superko"), illegal_action="lose", render_mode="ansi")
    env.reset(seed=0)
    env.step(RIGHT)
    _, reward, terminated, _, info = env.step(LEFT)
    assert (reward, terminated, info["illegal_action"]) == (-2.0, True, True)
    assert info["outcome"] == Outcome(0, (2.0, -2.0), "illegal action")
    assert env.render().endswith("game over: player 0 wins, 1-0 (2 points), illegal action\n")
