"""`Backgammon` and its `BackgammonState`: the Python facade over the kernels."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import numpy as np

from rlgames.game import CHANCE, TERMINAL, Game, GameInfo, State
from rlgames.games.backgammon import notation
from rlgames.games.backgammon.moves import NUM_ACTIONS, PASS
from rlgames.games.backgammon.rules import (
    KERNELS,
    OBSERVATION_SHAPE,
    dice,
    perspective,
    view,
    win_points,
)
from rlgames.games.backgammon.slots import (
    FULL,
    HIGH_SHIFT,
    LOW_SHIFT,
    MAX_PLAYER_TURNS,
    META,
    OPENING_BIT,
    SCORING_SHIFT,
    SCORING_TYPES,
    TURN_SHIFT,
    initial_counts,
    pack_state,
    start_meta,
)

_NUMBERED = re.compile(r"(\d+) - .+|chance outcome (\d+) .+")  # OpenSpiel's strings (but "Pass")
_GRID_ROWS = 5  # checkers drawn per point in `board_grid`


class BackgammonState(State):
    """A backgammon position: the board, whose turn it is, the dice to play.

    Notation (`action_to_string`): OpenSpiel's strings, the action number first at a decision
    (``"11 - 24/22 13/8"``, ``"Pass"``), ``"chance outcome 14 X starts, (roll: 25)"`` at a roll.
    `string_to_action` reads those back, and also moves written as people do (``"24/22 13/8"``,
    ``"13/11/6"``, ``"bar/20*"``, ``"6/off(2)"``, points counted from the mover's side) and rolls
    (``"52"``, ``"5-2"``).
    """

    __slots__ = ()

    # --- the position ----------------------------------------------------------------------------
    def board(self) -> np.ndarray:
        """int64[2, 26]: player 0's and player 1's checkers, each by its own points (index 0..23 points
        1..24, 24 the bar, 25 borne off)."""
        return notation.board_of(self.compact)

    def view(self) -> np.ndarray:
        """The `view` kernel's int64[2, 26]: the `perspective` player's row first."""
        out = np.zeros((2, 26), dtype=np.int64)
        view(self.compact, out)
        return out

    def perspective(self) -> int:
        """The player on roll: the side to move, at a chance node the one about to roll (player 0 at the
        opening roll and once the game is over)."""
        return int(perspective(self.compact))

    def dice(self) -> tuple[int, int, int]:
        """``(low, high, moves)`` at a decision node: the dice to play and the checker moves they still
        allow this turn (4 on the first half of a double, else 2); ``(0, 0, 0)`` elsewhere."""
        low, high, moves = dice(self.compact)
        return int(low), int(high), int(moves)

    def is_opening(self) -> bool:
        """Whether this is the opening roll, which also decides who starts."""
        return self.compact[0] == CHANCE and bool(self.compact[META] & OPENING_BIT)

    def position_id(self) -> str:
        """gnubg's Position ID, from the point of view of the `perspective` player (the player on roll):
        ``"4HPwATDgc/ABMA"`` at the start."""
        return notation.position_id(self.board(), self.perspective())

    def termination(self) -> str:
        """``"normal"`` (a single win, or a game not over), ``"gammon"`` or ``"backgammon"`` (the kind of
        win, whatever the scoring type counts it), ``"turn_limit"`` (a draw at ``max_player_turns``)."""
        if not self.is_terminal():
            return "normal"
        ret = self.compact[1]
        if ret == 0:
            return "turn_limit"
        full = (*self.compact[:META], self.compact[META] & ~(3 << SCORING_SHIFT) | FULL << SCORING_SHIFT)
        return ("normal", "gammon", "backgammon")[win_points(full, 0 if ret > 0 else 1) - 1]

    # --- notation ---------------------------------------------------------------------------------
    def action_to_string(self, action: int) -> str:
        """OpenSpiel's string of ``action`` here (a chance outcome at a chance node)."""
        if not 0 <= action < NUM_ACTIONS:
            raise ValueError(f"backgammon: action {action!r} is out of range [0, {NUM_ACTIONS})")
        code = self.compact[0]
        if code == CHANCE:
            if action >= (30 if self.is_opening() else 36):
                return f"chance outcome {action} (no such roll)"
            return notation.chance_string(action, self.is_opening())
        if code == TERMINAL:
            return str(action)
        low, high, _ = self.dice()
        return notation.action_string(action, code, low, high, self.board())

    def string_to_action(self, text: str) -> int:
        """The action of ``text``: an OpenSpiel string, a move as people write it or ``pass``, or at a
        chance node a roll. A move matches the legal action that reaches the same position (the
        smallest, where two orders of the dice do). Raises a one-line `ValueError`."""
        move = " ".join(text.split()) if isinstance(text, str) else None
        if move is None:
            raise ValueError(f"backgammon: a move is a string, not {type(text).__name__}")
        if self.is_terminal():
            raise ValueError(f"backgammon: cannot play {text!r}: the game is over")
        legal = self.legal_actions()
        numbered = _NUMBERED.fullmatch(move)
        if numbered:
            number = int(numbered[1] or numbered[2])
            if number in legal and self.action_to_string(number) == move:
                return number
            raise ValueError(f"backgammon: {text!r} is not a legal action here")
        if self.is_chance_node():
            return notation.roll_outcome(move, self.is_opening())
        if move.lower() == "pass":
            if legal == [PASS]:
                return PASS
            raise ValueError("backgammon: cannot pass: a move can be played")
        board = notation.play_hops(self.board(), self.compact[0], notation.parse_hops(move))
        for action in legal:
            if np.array_equal(notation.board_of(self.game.fast_apply(self.compact, action)), board):
                return action
        low, high, _ = self.dice()
        raise ValueError(f"backgammon: {text!r} is not a legal move with {low}-{high}")

    # --- pictures ---------------------------------------------------------------------------------
    def board_grid(self) -> np.ndarray:
        """int8[11, 13], drawn for player 0: rows 0-4 its points 13..24 (left to right), checkers from
        the top edge; rows 6-10 its points 12..1, from the bottom edge; column 6 the bar (player 1's
        checkers on top, player 0's below); 1 a checker of player 0, 2 of player 1; at most 5 a point."""
        board = self.board()
        grid = np.zeros((2 * _GRID_ROWS + 1, 13), dtype=np.int8)
        columns = [*range(6), *range(7, 13)]
        for column, (top, bottom) in zip(columns, zip(range(13, 25), range(12, 0, -1))):
            for point, rows in ((top, range(_GRID_ROWS)), (bottom, range(2 * _GRID_ROWS, _GRID_ROWS, -1))):
                mine, theirs = board[0, point - 1], board[1, 24 - point]
                for row in list(rows)[: max(mine, theirs)]:
                    grid[row, column] = 1 if mine else 2
        grid[: min(board[1, 24], _GRID_ROWS), 6] = 2
        grid[2 * _GRID_ROWS + 1 - min(board[0, 24], _GRID_ROWS) :, 6] = 1
        return grid

    def __str__(self) -> str:
        """The board drawn for the player on roll (its points), the bar and borne-off checkers, the dice
        and whose turn it is, and the Position ID."""
        board, viewer = self.board(), self.perspective()
        return f"{notation.board_text(board, viewer)}\n{self._status()}\nPosition ID: {self.position_id()}"

    def _status(self) -> str:
        code = self.compact[0]
        glyph = notation.GLYPHS
        if code == TERMINAL:
            outcome = self.outcome()
            assert outcome is not None  # a terminal state has one
            if outcome.winner is None:
                return "game over: a draw at the turn limit"
            return f"game over: {glyph[outcome.winner]} (player {outcome.winner}) wins, {outcome.result}"
        if code == CHANCE:
            if self.is_opening():
                return "the opening roll decides who starts"
            roller = self.perspective()
            return f"{glyph[roller]} (player {roller}) to roll"
        low, high, moves = self.dice()
        half = " (the second half of the double)" if low == high and moves == 2 else ""
        return f"{glyph[code]} (player {code}) to move, dice {low}-{high}{half}"


class Backgammon(Game):
    """Backgammon exactly as OpenSpiel's ``backgammon`` (no doubling cube), with its parameters
    ``scoring_type`` (``"winloss_scoring"``, ``"enable_gammons"``, ``"full_scoring"``) and
    ``max_player_turns``; see `rlgames.games.backgammon` for the rules and the action numbering."""

    name = "backgammon"
    state_class = BackgammonState
    kernels = KERNELS
    move_separator = "; "
    """Moves hold spaces and chance outcomes commas: a line of moves separates them by semicolons."""
    heuristic = ".evaluator:BackgammonEvaluator"
    evaluators: ClassVar[dict[str, str]] = {"pubeval": ".evaluator:PubevalEvaluator"}
    default_agent = "expectiminimax(plies=2)"

    def __init__(self, scoring_type: str = "winloss_scoring", max_player_turns: int = 500) -> None:
        self.scoring_type, self.max_player_turns = _check(scoring_type, max_player_turns)
        super().__init__(scoring_type=self.scoring_type, max_player_turns=self.max_player_turns)

    @classmethod
    def describe(cls, scoring_type: str = "winloss_scoring", max_player_turns: int = 500) -> GameInfo:
        scoring_type, max_player_turns = _check(scoring_type, max_player_turns)
        return GameInfo(
            cls.name,
            num_actions=NUM_ACTIONS,
            observation_shape=OBSERVATION_SHAPE,
            max_game_length=3 * max_player_turns + 1,
            has_chance=True,
            utility=(-1 - SCORING_TYPES.index(scoring_type), 1 + SCORING_TYPES.index(scoring_type)),
        )

    def initial_compact_state(self) -> tuple:
        return pack_state(CHANCE, 0, initial_counts(), (0, 0), self._meta())

    def value_scale(self, params: Mapping[str, Any]) -> float | None:
        """Under another scoring type only, the ratio of the largest returns (a win/loss network's value,
        P(win) - P(lose), read as the equity at full scoring is a third of a value there); None where
        other params differ."""
        trained = dict(params)
        scoring = trained.pop("scoring_type", None)
        if scoring not in SCORING_TYPES or trained != {k: v for k, v in self.params.items() if k != "scoring_type"}:
            return None
        return (1 + SCORING_TYPES.index(scoring)) / (1 + SCORING_TYPES.index(self.scoring_type))

    def _meta(self) -> int:
        return start_meta(SCORING_TYPES.index(self.scoring_type), self.max_player_turns)

    def state_from_position_id(
        self, position_id: str, *, dice: tuple[int, int] | None = None, player: int = 0
    ) -> BackgammonState:
        """The position of gnubg's ``position_id``, ``player`` (0 or 1) on roll: gnubg's ID is from the
        point of view of the player on roll, and does not say which of the two that is. With ``dice``
        (two ints 1-6, in any order), ``player`` is to move them (the first half, for a double); without,
        ``player`` is to roll next (a later roll, not the opening). The turn count starts afresh (a full
        ``max_player_turns`` to go). Raises a one-line `ValueError`."""
        if player not in (0, 1):
            raise ValueError(f"backgammon: player must be 0 or 1, got {player!r}")
        board = notation.parse_position_id(position_id, player)
        meta = self._meta() & ~OPENING_BIT | player << TURN_SHIFT
        if dice is None:
            return BackgammonState(self, notation.pack_board(board, CHANCE, meta))
        if not (isinstance(dice, Sequence) and len(dice) == 2 and all(type(d) is int and 1 <= d <= 6 for d in dice)):
            raise ValueError(f"backgammon: dice must be two ints from 1 to 6, got {dice!r}")
        meta |= min(dice) << LOW_SHIFT | max(dice) << HIGH_SHIFT
        return BackgammonState(self, notation.pack_board(board, player, meta))

    def state_from_moves(self, moves: str | Sequence[str]) -> BackgammonState:
        """The state after ``moves`` in the game's notation: a list, or a string separated by semicolons
        (``"25; 24/22 13/8"``: the opening roll 2-5, then player 0's move)."""
        if isinstance(moves, str):
            moves = [move for move in moves.split(";") if move.strip()]
        state = super().state_from_moves(moves)
        assert isinstance(state, BackgammonState)  # the game's state class
        return state

    def parse_position_line(self, text: str) -> tuple[tuple[int, ...], int | None]:
        """The actions of a line of moves separated by semicolons, unlabelled."""
        state, actions = self.new_initial_state(), []
        for move in (m for m in text.split(";") if m.strip()):
            action = state.string_to_action(move)
            state = state.apply(action)
            actions.append(action)
        return tuple(actions), None


def _check(scoring_type: str, max_player_turns: int) -> tuple[str, int]:
    """The parameters, checked; raises `ValueError` naming a bad one."""
    if scoring_type not in SCORING_TYPES:
        raise ValueError(f"backgammon: scoring_type must be one of {', '.join(SCORING_TYPES)}, got {scoring_type!r}")
    if (
        isinstance(max_player_turns, (bool, np.bool_))
        or not isinstance(max_player_turns, (int, np.integer))
        or not 1 <= max_player_turns <= MAX_PLAYER_TURNS
    ):
        raise ValueError(
            f"backgammon: max_player_turns must be an int from 1 to {MAX_PLAYER_TURNS}, got {max_player_turns!r}"
        )
    return scoring_type, int(max_player_turns)
