"""`BoardGameEnv`: what `GameEnv` and `SelfPlayEnv` share.

It owns the game and the current `State`, the spaces, the checks on actions, chance sampling with the
env's ``np_random``, the observation dictionary and rendering. Subclasses say who moves between the
agent's turns (`_advance`), what to do at the start of an episode (`_begin_episode`) and what goes in
``info`` (`_info`). The envs contain no game rules: everything goes through the `rlgames` API.

Rewards are returns, in the game's utility range ``game.info.utility`` (``(-1, 1)`` for most games; a
game whose wins may be worth 2 or 3 points, such as backgammon's gammons, gives rewards up to 2 or 3),
also given as the env's ``reward_range``; they are not scaled into values (``game.info.value`` does
that, for a network's value target). At the end of an episode ``info["outcome"]`` holds the
`rlgames.Outcome`: winner, returns (player 0's, player 1's) and termination (``"normal"``,
``"repetition"``..., or ``"illegal action"`` when an illegal move lost the game).
"""

from __future__ import annotations

import operator
from typing import Any, SupportsFloat

import gymnasium
import numpy as np
from gymnasium import spaces

import rlgames
from rlgames.envs.render import board_image, board_text
from rlgames import IllegalActionError, State
from rlgames.play import outcome_text

ILLEGAL_ACTION_MODES = ("raise", "lose")
ILLEGAL_ACTION_TERMINATION = "illegal action"
"""The `Outcome` termination of an episode lost by an illegal move (``illegal_action="lose"``)."""
OBSERVATION_BOUNDS = (0.0, 1.0)
"""Bounds of the observation planes: every rlgames game encodes its positions with 0/1 planes."""

Observation = dict[str, np.ndarray]


def resolve_game(game: str | rlgames.Game, game_params: dict[str, Any] | None) -> rlgames.Game:
    """The `Game` named ``game`` (created with ``game_params``), or ``game`` itself."""
    if isinstance(game, rlgames.Game):
        if game_params:
            raise ValueError("game_params can only be given with a game name, not with a Game instance")
        return game
    if not isinstance(game, str):
        raise TypeError(f"game must be a game name or an rlgames.Game, got {type(game).__name__}")
    return rlgames.load_game(game, **(game_params or {}))


def as_action(action: Any) -> int:
    """``action`` as a Python int (numpy integers and 0-d integer arrays included); TypeError otherwise."""
    try:
        return operator.index(action)
    except TypeError:
        raise TypeError(f"an action must be an integer, got {action!r} of type {type(action).__name__}") from None


class BoardGameEnv(gymnasium.Env[Observation, int]):
    """Base of the rlgames envs: observation ``{"observation": float32 planes, "action_mask": int8}``,
    actions ``Discrete(game.num_actions)``, rewards 0 until the end of a game, then the return, in
    ``reward_range``, the game's utility range (-1, 0 or +1 in most games); ``info["outcome"]`` at the
    end."""

    metadata = {"render_modes": ["ansi", "rgb_array"], "render_fps": 4}

    def __init__(
        self,
        game: str | rlgames.Game,
        *,
        game_params: dict[str, Any] | None = None,
        illegal_action: str = "raise",
        render_mode: str | None = None,
    ) -> None:
        if illegal_action not in ILLEGAL_ACTION_MODES:
            raise ValueError(f"illegal_action must be one of {ILLEGAL_ACTION_MODES}, got {illegal_action!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be None or one of {self.metadata['render_modes']}, got {render_mode!r}")
        self.game = resolve_game(game, game_params)
        self.illegal_action = illegal_action
        self.render_mode = render_mode
        low, high = OBSERVATION_BOUNDS
        self.observation_space = spaces.Dict(
            {
                "observation": spaces.Box(low, high, shape=self.game.observation_shape, dtype=np.float32),
                "action_mask": spaces.MultiBinary(self.game.num_actions),
            }
        )
        self.action_space = spaces.Discrete(self.game.num_actions)
        low, high = self.game.info.utility
        self.reward_range = (float(low), float(high))  # Gymnasium 0.x's attribute (1.x dropped it)
        self._state: State | None = None
        self._over = False
        self._outcome: rlgames.Outcome | None = None

    @property
    def state(self) -> State:
        """The current position (never a chance node)."""
        if self._state is None:
            raise RuntimeError(f"{type(self).__name__} has no state yet: call reset() first")
        return self._state

    # --- the episode ------------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Observation, dict]:
        """Starts a new game; with ``seed``, the whole episode (seats, opponent, dice) is reproducible.
        ``options`` is accepted for the Gymnasium API and unused."""
        super().reset(seed=seed)
        self._begin_episode()
        self._state = self._advance(self.game.new_initial_state())
        self._over = self._state.is_terminal()
        self._outcome = self._state.outcome()
        mover = self._state.current_player()
        return self._observation(mover), self._full_info(mover)

    def step(self, action: Any) -> tuple[Observation, SupportsFloat, bool, bool, dict]:
        """Plays ``action`` for the player to move; see the subclasses for who that is."""
        state = self._running_state()
        mover = state.current_player()
        action = as_action(action)
        if not self._is_legal(state, action):  # illegal_action == "lose": the worst loss of the game
            self._over = True
            self._outcome = self.forfeit(mover)
            reward = self._outcome.returns[mover]
            return self._observation(mover), reward, True, False, self._full_info(mover, illegal_action=True)
        self._state = self._advance(state.apply(action))
        self._over = self._state.is_terminal()
        self._outcome = self._state.outcome()
        reward = self._state.returns()[mover] if self._over else 0.0
        return self._observation(mover), reward, self._over, False, self._full_info(mover, illegal_action=False)

    def forfeit(self, player: int) -> rlgames.Outcome:
        """The outcome of a game ``player`` loses by an illegal move: the lowest return of the game's
        utility range for it (-1 in most games), so that no illegal move ever pays better than a legal
        one, with termination `ILLEGAL_ACTION_TERMINATION`."""
        loss = float(self.game.info.utility[0])
        returns = (loss, -loss) if player == 0 else (-loss, loss)
        return rlgames.Outcome(1 - player, returns, ILLEGAL_ACTION_TERMINATION)

    @property
    def outcome(self) -> rlgames.Outcome | None:
        """How the episode ended (None while it runs): the game's `Outcome`, or `forfeit`'s."""
        return self._outcome

    def _full_info(self, mover: int, **extra: Any) -> dict[str, Any]:
        """The subclass's `_info`, with ``"outcome"`` once the episode is over."""
        info = self._info(mover, **extra)
        if self._over:
            info["outcome"] = self._outcome
        return info

    def _running_state(self) -> State:
        if self._over:
            raise RuntimeError(f"{type(self).__name__}: the episode is over; call reset() to start a new one")
        return self.state

    def _is_legal(self, state: State, action: int) -> bool:
        """Whether ``action`` is legal; raises `IllegalActionError` instead when illegal_action is "raise"."""
        try:
            state.check_legal(action)
        except IllegalActionError as error:
            if self.illegal_action == "raise":
                raise IllegalActionError(f"{error} (player {state.current_player()} to move)") from None
            return False
        return True

    def _resolve_chance(self, state: State) -> State:
        """Samples chance outcomes with ``np_random`` until a player is to move (or the game is over)."""
        while state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes())
            cumulative = np.cumsum(probs)
            index = int(np.searchsorted(cumulative, self.np_random.random() * cumulative[-1], side="right"))
            state = state.apply(outcomes[min(index, len(outcomes) - 1)])
        return state

    def _observation(self, mover: int) -> Observation:
        state = self.state
        return {"observation": state.observation(self._viewer(mover)), "action_mask": state.legal_action_mask()}

    # --- hooks ------------------------------------------------------------------------------------
    def _begin_episode(self) -> None:
        """Draws what an episode needs before the first position (nothing here)."""

    def _advance(self, state: State) -> State:
        """The position the agent acts in next, reached from ``state``; here, after chance only."""
        return self._resolve_chance(state)

    def _viewer(self, mover: int) -> int:
        """Whose point of view the observation takes; ``mover`` moved last (at reset: is to move)."""
        raise NotImplementedError

    def _info(self, mover: int, **extra: Any) -> dict[str, Any]:
        """The ``info`` dictionary; ``mover`` moved last (at reset: the player to move)."""
        raise NotImplementedError

    def _status(self) -> str:
        """The status line of the ``"ansi"`` rendering."""
        if self._over and self._outcome is not None:
            return outcome_text(self._outcome)
        return f"player {self.state.current_player()} to move"

    # --- rendering --------------------------------------------------------------------------------
    def render(self) -> str | np.ndarray | None:
        """``"ansi"``: the board text and a status line; ``"rgb_array"``: uint8[H, W, 3]."""
        if self.render_mode == "ansi":
            return board_text(self.state, self._status())
        if self.render_mode == "rgb_array":
            return board_image(self.state.board_grid())
        gymnasium.logger.warn(f"{type(self).__name__}.render() called with render_mode=None; nothing to render")
        return None
