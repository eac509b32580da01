"""Gymnasium environments for every rlgames game.

``import rlgames.envs`` registers, for each game of `rlgames.list_games`, ``rlgames/<CamelName>-v0`` (a
`GameEnv`: the agent against an opponent) and ``rlgames/<CamelName>SelfPlay-v0`` (a `SelfPlayEnv`),
e.g. ``rlgames/ConnectFour-v0``, and one of each for the parameter sets a game is usually played with
(`rlgames.registry.game_variants`: ``rlgames/Go9x9-v0``, ``rlgames/Go19x19SelfPlay-v0``). Registration
imports no game module; a game is loaded when its env is made.

>>> import gymnasium, rlgames.envs
>>> env = gymnasium.make("rlgames/TicTacToe-v0", seat=0)
>>> env = rlgames.envs.make_env("connect_four", self_play=True)
"""

from __future__ import annotations

from typing import Any

import gymnasium

import rlgames
from rlgames.envs.base import BoardGameEnv
from rlgames.envs.game_env import GameEnv
from rlgames.envs.self_play_env import SelfPlayEnv
from rlgames.registry import game_variants

NAMESPACE = "rlgames"

__all__ = ["BoardGameEnv", "GameEnv", "SelfPlayEnv", "env_id", "make_env"]


def env_id(game_name: str, self_play: bool = False) -> str:
    """The Gymnasium id of a game's env, e.g. ``env_id("tic_tac_toe", True) == "rlgames/TicTacToeSelfPlay-v0"``."""
    if game_name not in rlgames.list_games():
        raise ValueError(f"unknown game {game_name!r}; known games: {', '.join(rlgames.list_games())}")
    camel = "".join(part.capitalize() for part in game_name.split("_"))
    return f"{NAMESPACE}/{camel}{'SelfPlay' if self_play else ''}-v0"


def make_env(game_name: str, self_play: bool = False, **kwargs: Any) -> gymnasium.Env:
    """``gymnasium.make`` of the game's env; ``kwargs`` go to `GameEnv` or, with ``self_play``, to
    `SelfPlayEnv` (``game_params``, ``opponent``, ``seat``, ``illegal_action``, ``render_mode``)."""
    return gymnasium.make(env_id(game_name, self_play), **kwargs)


def _register_all() -> None:
    for name in rlgames.list_games():
        for self_play, entry_point in (
            (False, "rlgames.envs.game_env:GameEnv"),
            (True, "rlgames.envs.self_play_env:SelfPlayEnv"),
        ):
            identifier = env_id(name, self_play)
            if identifier not in gymnasium.registry:
                gymnasium.register(id=identifier, entry_point=entry_point, kwargs={"game": name})
            for variant, params in game_variants(name).items():
                identifier = f"{NAMESPACE}/{variant}{'SelfPlay' if self_play else ''}-v0"
                if identifier not in gymnasium.registry:
                    kwargs = {"game": name, "game_params": params}
                    gymnasium.register(id=identifier, entry_point=entry_point, kwargs=kwargs)


_register_all()
