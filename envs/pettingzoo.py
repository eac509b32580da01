"""PettingZoo's AEC API over every rlgames game, the API that multi-agent libraries take:
``rlgames.envs.pettingzoo.env("connect_four")`` (the ``pettingzoo`` extra: ``pip install -e ".[pettingzoo]"``).

The agents are ``"player_0"`` and ``"player_1"``, rlgames' players 0 and 1. Each observes a dictionary, as
PettingZoo's classic games do: ``"observation"``, the game's float32 planes from that agent's point of view,
and ``"action_mask"``, int8 over the game's actions, 1 for a legal move of the agent to move (all 0 for the
other). Actions are the game's (OpenSpiel's numbering); an illegal one raises `rlgames.IllegalActionError`.
Rewards are 0 until the end, then each agent's return, in the game's utility range. Chance outcomes (pig's
die, backgammon's dice) are drawn with the env's ``np_random``, so ``reset(seed=...)`` makes an episode
reproducible. The env holds no rules: everything goes through the `rlgames` API.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

import rlgames
from rlgames import State
from rlgames.envs.base import OBSERVATION_BOUNDS, resolve_game

AGENTS = ("player_0", "player_1")


def env(
    game: str | rlgames.Game, *, game_params: dict[str, Any] | None = None, render_mode: str | None = None
) -> GameAEC:
    """The AEC env of ``game`` (a registry name, made with ``game_params``, or a `Game`)."""
    return GameAEC(game, game_params=game_params, render_mode=render_mode)


class GameAEC(AECEnv):
    """A two-player rlgames game as a PettingZoo AEC environment (see the module's docstring)."""

    metadata = {"render_modes": ["ansi"], "name": "rlgames_v0", "is_parallelizable": False}

    def __init__(
        self, game: str | rlgames.Game, *, game_params: dict[str, Any] | None = None, render_mode: str | None = None
    ) -> None:
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be None or one of {self.metadata['render_modes']}, got {render_mode!r}")
        self.game = resolve_game(game, game_params)
        self.render_mode = render_mode
        self.metadata = {**self.metadata, "name": f"rlgames_{self.game.name}_v0"}
        self.possible_agents = list(AGENTS)
        low, high = OBSERVATION_BOUNDS
        observation = spaces.Dict(
            {
                "observation": spaces.Box(low, high, shape=self.game.observation_shape, dtype=np.float32),
                "action_mask": spaces.Box(0, 1, shape=(self.game.num_actions,), dtype=np.int8),
            }
        )
        self.observation_spaces = {agent: observation for agent in AGENTS}
        self.action_spaces = {agent: spaces.Discrete(self.game.num_actions) for agent in AGENTS}
        self._state: State | None = None

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    @property
    def position(self) -> State:
        """The current position (never a chance node)."""
        if self._state is None:
            raise RuntimeError("GameAEC has no state yet: call reset() first")
        return self._state

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Starts a new game; with ``seed``, its chance outcomes are reproducible. ``options`` is unused."""
        if seed is not None or not hasattr(self, "np_random"):
            self.np_random = np.random.default_rng(seed)
        self.agents = list(AGENTS)
        self.rewards = {agent: 0.0 for agent in AGENTS}
        self._cumulative_rewards = {agent: 0.0 for agent in AGENTS}
        self.terminations = {agent: False for agent in AGENTS}
        self.truncations = {agent: False for agent in AGENTS}
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in AGENTS}
        self._state = self._past_chance(self.game.new_initial_state())
        self.agent_selection = AGENTS[self._state.current_player()]
        if self._state.is_terminal():
            self._end()

    def step(self, action: Any) -> None:
        """Plays ``action`` for the agent to move (``None`` for an agent whose game is over)."""
        if self.terminations[self.agent_selection] or self.truncations[self.agent_selection]:
            self._was_dead_step(action)
            return
        state = self.position
        state.check_legal(int(action))
        self._state = self._past_chance(state.apply(int(action)))
        self._cumulative_rewards[self.agent_selection] = 0.0
        if self._state.is_terminal():
            self._end()
        else:
            self.agent_selection = AGENTS[self._state.current_player()]
        self._accumulate_rewards()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        state, player = self.position, AGENTS.index(agent)
        to_move = not state.is_terminal() and state.current_player() == player
        mask = state.legal_action_mask().astype(np.int8) if to_move else np.zeros(self.game.num_actions, np.int8)
        return {"observation": state.observation(player).astype(np.float32), "action_mask": mask}

    def render(self) -> str | None:
        if self.render_mode == "ansi":
            return str(self.position)
        return None

    def close(self) -> None:
        """Nothing to release."""

    def _end(self) -> None:
        """The game is over: each agent's return as its reward, and the outcome in its info."""
        returns, outcome = self.position.returns(), self.position.outcome()
        for player, agent in enumerate(AGENTS):
            self.rewards[agent] = float(returns[player])
            self.terminations[agent] = True
            self.infos[agent] = {"outcome": outcome}

    def _past_chance(self, state: State) -> State:
        """Samples chance outcomes with ``np_random`` until a player is to move (or the game is over)."""
        while state.is_chance_node():
            state = state.apply(state.sample_chance_outcome(self.np_random))
        return state
