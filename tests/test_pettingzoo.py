"""The PettingZoo AEC environments (`rlgames.envs.pettingzoo`): PettingZoo's own API test for every game,
rewards at the end from both seats, and seeded chance."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import rlgames
from rlgames.registry import game_class

pytest.importorskip("pettingzoo")
from pettingzoo.test import api_test  # noqa: E402

from rlgames.envs.pettingzoo import env  # noqa: E402


@pytest.mark.parametrize("name", rlgames.list_games())
def test_pettingzoos_api_test_passes_for_every_game(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # its notes on dictionary observations, which its classic games share
        api_test(env(name, game_params=dict(game_class(name).small_params)), num_cycles=200)


def play(moves: list[int]) -> tuple[dict[str, float], dict[str, bool], rlgames.Outcome]:
    """Tic-tac-toe played by ``moves``, the agents taking turns; the cumulative rewards at the end."""
    aec = env("tic_tac_toe")
    aec.reset(seed=0)
    for move in moves:
        assert aec.observe(aec.agent_selection)["action_mask"][move] == 1
        aec.step(move)
    return dict(aec._cumulative_rewards), dict(aec.terminations), aec.infos["player_0"]["outcome"]


@pytest.mark.parametrize(
    "moves, rewards",
    [
        ([0, 3, 1, 4, 2], {"player_0": 1.0, "player_1": -1.0}),  # x wins along the top row
        ([3, 0, 4, 1, 8, 2], {"player_0": -1.0, "player_1": 1.0}),  # o wins along the top row
        ([0, 4, 8, 1, 7, 6, 2, 5, 3], {"player_0": 0.0, "player_1": 0.0}),  # a draw
    ],
)
def test_rewards_are_each_seats_return_at_the_end(moves, rewards):
    cumulative, terminations, outcome = play(moves)
    assert cumulative == rewards and all(terminations.values())
    assert outcome.returns == (rewards["player_0"], rewards["player_1"])


def test_observations_are_from_each_agents_side_and_only_the_mover_has_moves():
    aec = env("connect_four")
    aec.reset(seed=0)
    aec.step(3)
    mover, other = aec.observe("player_1"), aec.observe("player_0")
    assert aec.agent_selection == "player_1" and mover["action_mask"].sum() == 7 and other["action_mask"].sum() == 0
    assert not np.array_equal(mover["observation"], other["observation"])  # each from its own side
    with pytest.raises(rlgames.IllegalActionError):
        aec.step(10)  # connect four has 7 actions


def test_a_seed_makes_the_dice_reproducible():
    """Pig's die is drawn with the env's generator: the same seed, the same game; another seed, another."""

    def positions(seed: int) -> list[tuple]:
        aec = env("pig", game_params={"winscore": 20})
        aec.reset(seed=seed)
        seen = []
        while not any(aec.terminations.values()):
            aec.step(int(np.flatnonzero(aec.observe(aec.agent_selection)["action_mask"])[0]))  # the first legal move
            seen.append(aec.position.compact)
        return seen

    assert positions(3) == positions(3) and positions(3) != positions(4)
