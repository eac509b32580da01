"""Pig, the dice game, exactly as OpenSpiel's ``pig`` (two players, no piglet variant).

On a turn the player rolls a die with ``diceoutcomes`` faces as often as they like, adding each face
to a turn total; rolling a 1 loses the turn total and passes the turn; stopping banks the turn total
and passes the turn. Whoever banks ``winscore`` points wins (+1, the other -1).

Decision actions: 0 rolls (``"roll"``), 1 stops (``"stop"``). Stopping is always legal, even with a
zero turn total; rolling is legal unless the banked score plus the turn total already reaches
``winscore`` (then the player must stop, and wins). After a roll comes a chance node whose outcomes
``0 .. diceoutcomes - 1`` are the faces ``1 .. diceoutcomes`` (``"Roll 1"`` ...), each equally likely.

The horizon: the game also ends, a draw, once ``horizon`` decisions (rolls and stops; chance outcomes
do not count) have been made, i.e. right after the ``horizon``-th decision, even a roll, whose die is
then never thrown. A stop that banks ``winscore`` on that decision still wins.

Compact state: ``(player, return0, score0, score1, turn_total, turn_player, decisions_left, rules)``:
``decisions_left`` counts down from ``horizon`` to 0, and the other parameters ride packed in the last
slot (``winscore | diceoutcomes << 16``), so that the kernels are the same for every parameter set and
the tuple stays short (each slot costs time in every call from Python). Every slot stays below 2**30,
one CPython digit: a wider int takes a slow path to box and unbox, which would slow every ply of the
Python API. `Pig.state_at` builds a position.

Observation: float32[4, winscore + 1], from the point of view of the turn player (the side to move,
or at a chance node the player who rolled): one-hot rows of the turn total, the turn player's score
and the opponent's score, each capped at ``winscore``; row 3 has a single one (column 0) at a chance node
(a whole row of ones saturated a small network's first layer: TD(lambda) could not learn pig).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from rlgames.game import (
    CHANCE,
    ILLEGAL,
    TERMINAL,
    Game,
    GameInfo,
    GameKernels,
    State,
    _new_object,
)

SCORE0, SCORE1, TURN_TOTAL, TURN_PLAYER, DECISIONS_LEFT, RULES = range(2, 8)  # compact slots
ROLL, STOP = 0, 1
MAX_WINSCORE = 10_000
MAX_DICE = 1_000
MAX_HORIZON = 10**9  # below 2**30, as every compact slot must be
GRID_WIDTH = 20  # board_grid() draws scores as bars at most this long


def pack_rules(winscore: int, diceoutcomes: int) -> int:
    """The ``rules`` slot of a compact state."""
    return winscore | diceoutcomes << 16


@njit(cache=True)
def winscore(s) -> int:
    return s[RULES] & 0xFFFF


@njit(cache=True)
def diceoutcomes(s) -> int:
    return s[RULES] >> 16


@njit(cache=True)
def can_roll(s) -> bool:
    """Whether the turn player of the decision node ``s`` may roll (banking would not win yet)."""
    return s[SCORE0 + s[TURN_PLAYER]] + s[TURN_TOTAL] < winscore(s)


@njit(cache=True)
def legal_actions(s, out) -> int:
    if s[0] == TERMINAL:
        return 0
    if s[0] == CHANCE:
        dice = diceoutcomes(s)
        for outcome in range(dice):
            out[outcome] = outcome
        return dice
    if can_roll(s):
        out[0] = ROLL
        out[1] = STOP
        return 2
    out[0] = STOP
    return 1


@njit(cache=True)
def apply(s, action: int):
    code, _, score0, score1, total, turn, left, rules = s
    target = rules & 0xFFFF
    if code == CHANCE and not 0 <= action < rules >> 16 or code == TERMINAL or code >= 0 and not (
            action == STOP or action == ROLL and (score1 if turn else score0) + total < target):
        return (ILLEGAL, 0, score0, score1, total, turn, left, rules)
    if code == CHANCE:
        if action == 0:  # a 1: the turn total is lost and the turn passes
            return (1 - turn, 0, score0, score1, 0, 1 - turn, left, rules)
        return (turn, 0, score0, score1, total + action + 1, turn, left, rules)
    left -= 1
    if action == ROLL:
        code = TERMINAL if left == 0 else CHANCE
        return (code, 0, score0, score1, total, turn, left, rules)
    if turn == 0:
        score0 += total
    else:
        score1 += total
    if max(score0, score1) >= target:
        return (TERMINAL, 1 - 2 * turn, score0, score1, 0, 1 - turn, left, rules)
    code = TERMINAL if left == 0 else 1 - turn
    return (code, 0, score0, score1, 0, 1 - turn, left, rules)


@njit(cache=True)
def chance_outcomes(s, actions, probs) -> int:
    if s[0] != CHANCE:
        return 0
    dice = diceoutcomes(s)
    for outcome in range(dice):
        actions[outcome] = outcome
        probs[outcome] = 1.0 / dice
    return dice


@njit(cache=True)
def observer(s) -> int:
    """The turn player at a chance node (the player who rolled), else the side to move (0 once over)."""
    return s[TURN_PLAYER] if s[0] == CHANCE else max(s[0], 0)


@njit(cache=True)
def hash_key(s) -> int:
    """FNV-1a over the game's fields (int64 arithmetic wraps around); the parameters are left out."""
    h = -3750763034362895579  # the FNV-1a 64-bit offset basis, as a signed int64
    for i in (0, SCORE0, SCORE1, TURN_TOTAL, TURN_PLAYER, DECISIONS_LEFT):
        h = (h ^ s[i]) * 1099511628211
    return h


@njit(cache=True)
def observation(s, player, out) -> None:
    """out: float32[4, winscore + 1]; rows: the turn total, ``player``'s score, the opponent's score
    (one-hot, capped at winscore), and a single one in column 0 at a chance node."""
    cap = out.shape[1] - 1
    out[:] = 0.0
    out[0, min(s[TURN_TOTAL], cap)] = 1.0
    out[1, min(s[SCORE0 + player], cap)] = 1.0
    out[2, min(s[SCORE1 - player], cap)] = 1.0
    if s[0] == CHANCE:
        out[3, 0] = 1.0


class PigState(State):
    __slots__ = ()

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
    version = 2  # 2: the chance-node row of the observation is a single one
    state_class = PigState
    heuristic = "rlgames.evaluators.pig:PigEvaluator"

    def __init__(self, winscore: int = 100, diceoutcomes: int = 6, horizon: int = 1000) -> None:
        self.winscore = _check_int("winscore", winscore, 1, MAX_WINSCORE)
        self.diceoutcomes = _check_int("diceoutcomes", diceoutcomes, 2, MAX_DICE)
        self.horizon = _check_int("horizon", horizon, 1, MAX_HORIZON)
        self.die_outcomes = tuple((face, 1.0 / self.diceoutcomes) for face in range(self.diceoutcomes))
        self.kernels = GameKernels(legal_actions=legal_actions, apply=apply, hash_key=hash_key,
                                   observation=observation, max_actions=max(2, self.diceoutcomes),
                                   chance_outcomes=chance_outcomes, observer=observer)
        super().__init__(winscore=self.winscore, diceoutcomes=self.diceoutcomes, horizon=self.horizon)

    @classmethod
    def describe(cls, winscore: int = 100, diceoutcomes: int = 6, horizon: int = 1000) -> GameInfo:
        winscore = _check_int("winscore", winscore, 1, MAX_WINSCORE)
        _check_int("diceoutcomes", diceoutcomes, 2, MAX_DICE)
        horizon = _check_int("horizon", horizon, 1, MAX_HORIZON)
        return GameInfo(cls.name, num_actions=2, observation_shape=(4, winscore + 1),
                        max_game_length=2 * horizon,  # at most one chance outcome per decision
                        has_chance=True)

    def initial_compact_state(self) -> tuple:
        return (0, 0, 0, 0, 0, 0, self.horizon, pack_rules(self.winscore, self.diceoutcomes))

    def state_at(self, score0: int, score1: int, turn_total: int = 0, turn: int = 0, *, chance: bool = False,
                 decisions: int = 0) -> PigState:
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
