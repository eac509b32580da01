"""`SelfPlayEnv`: one agent plays both seats of a game, one move per step."""

from __future__ import annotations

from typing import Any

from rlgames.envs.base import BoardGameEnv


class SelfPlayEnv(BoardGameEnv):
    """Both seats of a two-player game, played by the same agent.

    * Each step plays the action for whichever player is to move; chance outcomes are sampled with the
      env's ``np_random``.
    * Observation: ``{"observation": float32 planes from the point of view of the side to move,
      "action_mask": int8[num_actions]}``; at the end of a game the planes are from the point of view
      of the player who moved last, and the mask is all zeros.
    * Reward: from the point of view of the player who just moved: its return if its move ended the
      game (+1 a win, -1 a loss in most games; in the game's utility range ``reward_range`` in
      general, e.g. +2 for a 2-point win), the game's worst loss if the move was illegal under
      ``illegal_action="lose"``, 0 otherwise.
    * ``info["player"]``: the player to move next; once the episode is over, the player who moved
      last (so that ``reward`` is always from ``info["player"]``'s point of view at the end). After a
      step ``info["illegal_action"]`` says whether the move was illegal; at the end of the episode
      ``info["outcome"]`` is the `rlgames.Outcome` (winner, returns, termination).

    Args:
        game: a registry name (see `rlgames.list_games`) or a `rlgames.Game`.
        game_params: parameters of the game, with a name only.
        illegal_action: ``"raise"`` raises `rlgames.IllegalActionError`; ``"lose"`` ends the episode
            with the game's worst loss (-1 in most games) as reward for the player who moved and
            ``info["illegal_action"] = True``.
        render_mode: None, ``"ansi"`` or ``"rgb_array"``.
    """

    def _viewer(self, mover: int) -> int:
        return mover if self._over else self.state.observer()

    def _info(self, mover: int, **extra: Any) -> dict[str, Any]:
        return {"player": mover if self._over else self.state.current_player(), **extra}
