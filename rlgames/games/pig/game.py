"""Pig's Python facade: `PigState` and `Pig` over the kernels of `rules`."""

from __future__ import annotations

import numpy as np

from rlgames.game import (
    CHANCE,
    TERMINAL,
    Game,
    GameInfo,
    GameKernels,
    State,
    _new_object,
)
from rlgames.games.pig.rules import (
    GRID_WIDTH,
    MAX_DICE,
    MAX_HORIZON,
    MAX_WINSCORE,
    ROLL,
    SCORE0,
    STOP,
    TURN_PLAYER,
    TURN_TOTAL,
    apply,
    chance_outcomes,
    hash_key,
    legal_actions,
    observation,
    observer,
    pack_rules,
)


class PigState(State):
    __slots__ = ()
    game: Pig

    def apply(self, action: int) -> "PigState":
        """The successor after ``action``; the receiver is unchanged. Raises `IllegalActionError`.

        The `apply` kernel's rules again, in plain Python: these few int operations cost less than a
        call into the kernel (numba's dispatch and the boxing of eight slots), and this is the API's hot
        path. The search keeps the kernel; tests hold the two equal on every action of random games.
        """
        if type(action) is not int:
            action = self._as_int(action)
        game = self.game
        code, _, score0, score1, total, turn, left, rules = self.compact
        if code >= 0:  # a decision
            if action == ROLL and (score1 if turn else score0) + total < game.winscore:
                compact = (CHANCE if left > 1 else TERMINAL, 0, score0, score1, total, turn, left - 1, rules)
            elif action == STOP:  # bank the turn total
                if turn:
                    score1 += total
                else:
                    score0 += total
                if score0 >= game.winscore or score1 >= game.winscore:
                    compact = (TERMINAL, 1 - 2 * turn, score0, score1, 0, 1 - turn, left - 1, rules)
                else:
                    compact = (1 - turn if left > 1 else TERMINAL, 0, score0, score1, 0, 1 - turn, left - 1, rules)
            else:
                raise self._illegal_action_error(action)
        elif code == CHANCE and 0 <= action < game.diceoutcomes:  # a die face
            if action == 0:  # a 1: the turn total is lost and the turn passes
                compact = (1 - turn, 0, score0, score1, 0, 1 - turn, left, rules)
            else:
                compact = (turn, 0, score0, score1, total + action + 1, turn, left, rules)
        else:
            raise self._illegal_action_error(action)
        state = _new_object(type(self))  # as in `State.apply`
        state.game = game
        state.compact = compact
        return state

    def legal_actions(self) -> list[int]:
        """As the kernel's, without the cost of a call to it (indexing beats unpacking all eight slots)."""
        s = self.compact
        if s[0] < 0:
            return list(range(self.game.diceoutcomes)) if s[0] == CHANCE else []
        return [ROLL, STOP] if s[SCORE0 + s[TURN_PLAYER]] + s[TURN_TOTAL] < self.game.winscore else [STOP]

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The die's faces, equally likely: ``(outcome, probability)`` pairs (cached per game)."""
        if self.compact[0] != CHANCE:
            raise ValueError("pig: chance_outcomes() called on a non-chance state")
        return [*self.game.die_outcomes]  # a list display copies faster than list()

    def observer(self) -> int:
        """The side to move; at a chance node, the player whose turn it is; player 0 once over."""
        return self.compact[TURN_PLAYER] if self.compact[0] == CHANCE else super().observer()

    def legal_action_mask(self) -> np.ndarray:
        """int8[2], 1 where the decision is legal; raises at a chance node, whose outcomes are not
        decision actions (use `chance_outcomes`)."""
        if self.is_chance_node():
            raise ValueError("pig: legal_action_mask() is for decisions; at a chance node use chance_outcomes()")
        return super().legal_action_mask()

    def action_to_string(self, action: int) -> str:
        if self.is_chance_node():
            return f"Roll {action + 1}"
        return "roll" if action == ROLL else "stop"

    def string_to_action(self, text: str) -> int:
        """A decision: ``roll``/``r`` or ``stop``/``s`` (any case). A die face at a chance node:
        ``Roll 3`` or ``3``."""
        move = " ".join(text.lower().split())
        if self.is_chance_node():
            face = move.removeprefix("roll ")
            dice = self.game.diceoutcomes
            if not face.isdigit() or not 1 <= int(face) <= dice:
                raise ValueError(f"pig: cannot read die face {text!r}; expected 'Roll F' or 'F', F from 1 to {dice}")
            return int(face) - 1
        if move in ("roll", "r"):
            return ROLL
        if move in ("stop", "s"):
            return STOP
        raise ValueError(f"pig: cannot read move {text!r}; expected 'roll' ('r') or 'stop' ('s')")

    def board_grid(self) -> np.ndarray:
        """int8[3, min(winscore, 20)]: bars of player 0's score (1), player 1's score (2) and the turn
        total (3), scaled so that a full row is ``winscore`` points."""
        _, _, score0, score1, total, _, _, _ = self.compact
        winscore = self.game.winscore
        width = min(winscore, GRID_WIDTH)
        grid = np.zeros((3, width), dtype=np.int8)
        for row, (points, token) in enumerate(((score0, 1), (score1, 2), (total, 3))):
            grid[row, : min(width, points * width // winscore)] = token
        return grid

    def __str__(self) -> str:
        code, _, score0, score1, total, turn, left, _ = self.compact
        decisions = self.game.horizon - left
        if code == TERMINAL:
            status = "game over"
        else:
            status = f"player {turn} {'rolling' if code == CHANCE else 'to move'}"
        return f"scores: {score0} {score1}, turn total: {total}, decisions: {decisions}\n{status}"


class Pig(Game):
    """Pig: roll to grow a turn total, stop to bank it, a 1 loses it; the first to ``winscore`` wins."""

    name = "pig"
    small_params = {"winscore": 20}
    version = 2  # 2: the chance-node row of the observation is a single one
    state_class = PigState
    heuristic = ".evaluator:PigEvaluator"

    def __init__(self, winscore: int = 100, diceoutcomes: int = 6, horizon: int = 1000) -> None:
        self.winscore = _check_int("winscore", winscore, 1, MAX_WINSCORE)
        self.diceoutcomes = _check_int("diceoutcomes", diceoutcomes, 2, MAX_DICE)
        self.horizon = _check_int("horizon", horizon, 1, MAX_HORIZON)
        self.die_outcomes = tuple((face, 1.0 / self.diceoutcomes) for face in range(self.diceoutcomes))
        self.kernels = GameKernels(
            legal_actions=legal_actions,
            apply=apply,
            hash_key=hash_key,
            observation=observation,
            max_actions=max(2, self.diceoutcomes),
            chance_outcomes=chance_outcomes,
            observer=observer,
        )
        super().__init__(winscore=self.winscore, diceoutcomes=self.diceoutcomes, horizon=self.horizon)

    @classmethod
    def describe(cls, winscore: int = 100, diceoutcomes: int = 6, horizon: int = 1000) -> GameInfo:
        winscore = _check_int("winscore", winscore, 1, MAX_WINSCORE)
        _check_int("diceoutcomes", diceoutcomes, 2, MAX_DICE)
        horizon = _check_int("horizon", horizon, 1, MAX_HORIZON)
        return GameInfo(
            cls.name,
            num_actions=2,
            observation_shape=(4, winscore + 1),
            max_game_length=2 * horizon,  # at most one chance outcome per decision
            has_chance=True,
        )

    def initial_compact_state(self) -> tuple:
        return (0, 0, 0, 0, 0, 0, self.horizon, pack_rules(self.winscore, self.diceoutcomes))

    def state_at(
        self, score0: int, score1: int, turn_total: int = 0, turn: int = 0, *, chance: bool = False, decisions: int = 0
    ) -> PigState:
        """The position with these banked scores and turn total, ``turn`` (0 or 1) the turn player, to
        decide or (``chance=True``) to see the die after a roll, ``decisions`` made so far."""
        if turn not in (0, 1):
            raise ValueError(f"pig: turn must be 0 or 1, got {turn!r}")
        for name, value in (("score0", score0), ("score1", score1), ("turn_total", turn_total)):
            if not 0 <= value < self.winscore:
                raise ValueError(f"pig: {name} must be in [0, {self.winscore}), got {value}")
        if not 0 <= decisions < self.horizon:
            raise ValueError(f"pig: decisions must be in [0, {self.horizon}), got {decisions}")
        rules = pack_rules(self.winscore, self.diceoutcomes)
        left = self.horizon - decisions
        return PigState(self, (CHANCE if chance else turn, 0, score0, score1, turn_total, turn, left, rules))


def _check_int(name: str, value: int, low: int, high: int) -> int:
    """``value`` as an int; raises `ValueError` naming the parameter unless it is an int in [low, high]."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or not low <= value <= high:
        raise ValueError(f"pig: {name} must be an int from {low} to {high}, got {value!r}")
    return int(value)
