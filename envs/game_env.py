"""`GameEnv`: the agent plays one seat of a game against an opponent that lives inside the env."""

from __future__ import annotations

from typing import Any, Callable, Union

import rlgames
from rlgames.envs.base import BoardGameEnv, as_action
from rlgames import IllegalActionError, State
from rlgames.agents import Agent

Opponent = Union[None, Agent, Callable[[State], int]]
"""None (uniformly random), an rlgames `Agent` (``search``, ``act``, ``seed``: what `rlgames.load_agent`
builds), or a callable ``(state) -> int``."""


class GameEnv(BoardGameEnv):
    """One seat of a two-player game against a fixed opponent.

    * Observation: ``{"observation": float32 planes from the agent's point of view, "action_mask":
      int8[num_actions] with 1 for a legal action}``, the mask all zeros at the end of a game.
    * Action: ``Discrete(num_actions)``, played for the agent's seat.
    * Reward: the agent's return when the game ends, 0 before: +1, 0 or -1 in most games; in the
      game's utility range ``reward_range`` (``game.info.utility``) in general, e.g. +2 for a 2-point win.
    * ``info["seat"]``: the agent's seat in this episode; after a step also ``info["illegal_action"]``;
      at the end of the episode ``info["outcome"]``, the `rlgames.Outcome` (winner, returns,
      termination).

    Between the agent's moves the env plays the opponent's moves and samples chance outcomes with its
    ``np_random``, so an episode is reproducible from the seed given to `reset`. Should the opponent
    end the game before the agent's first move (only in degenerate games), `reset` returns that final
    position with an all-zero mask, and `step` asks for another reset.

    Args:
        game: a registry name (see `rlgames.list_games`) or a `rlgames.Game`.
        game_params: parameters of the game, with a name only.
        opponent: None for a uniformly random legal move; an rlgames `Agent` (its ``seed(int)`` is
            called at every reset with an int drawn from ``np_random``); or a callable ``(state) -> int``.
        seat: the agent's seat, 0 or 1; None draws it at random at every reset.
        illegal_action: ``"raise"`` raises `rlgames.IllegalActionError`; ``"lose"`` ends the episode
            with the game's worst loss as reward (-1 in most games, ``reward_range[0]``),
            ``info["illegal_action"] = True`` and termination ``"illegal action"`` in the outcome.
        render_mode: None, ``"ansi"`` or ``"rgb_array"``.
    """

    def __init__(
        self,
        game: str | rlgames.Game,
        *,
        game_params: dict[str, Any] | None = None,
        opponent: Opponent = None,
        seat: int | None = None,
        illegal_action: str = "raise",
        render_mode: str | None = None,
    ) -> None:
        super().__init__(game, game_params=game_params, illegal_action=illegal_action, render_mode=render_mode)
        if seat not in (None, 0, 1):
            raise ValueError(f"seat must be 0, 1 or None (random each episode), got {seat!r}")
        self.opponent = opponent
        self._choose_move = self._opponent_policy(opponent)
        self.fixed_seat = seat
        self.seat = 0 if seat is None else seat

    def _opponent_policy(self, opponent: Opponent) -> Callable[[State], int]:
        if opponent is None:
            return self._random_move
        if isinstance(opponent, Agent):
            return opponent.act
        if callable(opponent):
            return opponent
        raise TypeError(
            f"opponent must be None, an rlgames Agent (search, act, seed), or a callable "
            f"(state) -> int; got {opponent!r}"
        )

    def _random_move(self, state: State) -> int:
        legal = state.legal_actions()
        return legal[int(self.np_random.integers(len(legal)))]

    def _begin_episode(self) -> None:
        self.seat = int(self.np_random.integers(2)) if self.fixed_seat is None else self.fixed_seat
        if isinstance(self.opponent, Agent):
            self.opponent.seed(int(self.np_random.integers(2**31)))

    def _advance(self, state: State) -> State:
        """Plays chance and the opponent until the agent is to move or the game is over."""
        state = self._resolve_chance(state)
        while not state.is_terminal() and state.current_player() != self.seat:
            state = self._resolve_chance(state.apply(self._opponent_action(state)))
        return state

    def _opponent_action(self, state: State) -> int:
        choice = self._choose_move(state)  # errors inside the opponent propagate unchanged
        try:
            action = as_action(choice)
            state.check_legal(action)
        except (TypeError, IllegalActionError) as error:
            name = "random opponent" if self.opponent is None else f"opponent {self.opponent!r}"
            raise type(error)(f"{name} played an illegal move: {error}") from None
        return action

    def _viewer(self, mover: int) -> int:
        return self.seat

    def _info(self, mover: int, **extra: Any) -> dict[str, Any]:
        return {"seat": self.seat, **extra}

    def _status(self) -> str:
        return f"{super()._status()} (the agent plays player {self.seat})"
