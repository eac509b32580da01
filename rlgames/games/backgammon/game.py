"""`Backgammon` and its `BackgammonState`: the Python facade over the kernels."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import numpy as np

from rlgames.game import CHANCE, TERMINAL, Game, GameInfo, State
from rlgames.games.backgammon import cube, notation
from rlgames.games.backgammon.doubling import (
    CUBE_ACTION_NAMES,
    DOUBLE,
    DROP,
    NUM_CUBE_ACTIONS,
    ROLL,
    TAKE,
    before_roll,
    is_cube_decision,
)
from rlgames.games.backgammon.encoding import ENCODINGS
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
    CUBE_FIELDS,
    MAX_CUBE_LEVEL,
    OFFERED,
    OWNER,
    SCORING_SHIFT,
    SCORING_TYPES,
    TURN_SHIFT,
    checkers_left,
    cube_fields,
    cube_level,
    cube_owner,
    cube_value,
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

    def cube(self) -> tuple[int, int | None] | None:
        """``(value, owner)`` of the doubling cube, the owner None while it is centered; None in a game
        without the cube."""
        if not cube_level(self.compact):
            return None
        owner = int(cube_owner(self.compact))
        return int(cube_value(self.compact)), None if owner < 0 else owner

    def is_cube_decision(self) -> bool:
        """Whether the side to move decides on the cube (double or roll; take or drop), not on a move."""
        return bool(is_cube_decision(self.compact))

    def double_offered(self) -> bool:
        """Whether the side to move is to take or drop a double."""
        return self.compact[0] >= 0 and bool(self.compact[OWNER] & OFFERED)

    def position_id(self) -> str:
        """gnubg's Position ID, from the point of view of the player on roll (the `perspective` player, but
        for a double offered: the doubler): ``"4HPwATDgc/ABMA"`` at the start."""
        return notation.position_id(self.board(), self._on_roll())

    def _on_roll(self) -> int:
        """The player on roll as gnubg says it: the `perspective` player, or the doubler of a double offered."""
        return 1 - self.compact[0] if self.double_offered() else self.perspective()

    def match_id(self) -> str:
        """gnubg's Match ID of this money game (`notation.MatchId`: the cube, the player on roll and the one
        to decide, a double offered, the dice; no Jacoby rule), players numbered as here."""
        held = self.cube() or (1, None)
        code, low, high = self.compact[0], *self.dice()[:2]
        game_state = 1 if not self.is_terminal() else 4 if self.termination() == "drop" else 2  # gnubg's
        fields = notation.MatchId(
            cube_value=held[0],
            cube_owner=held[1],
            on_roll=self._on_roll(),
            crawford=False,
            game_state=game_state,
            turn=code if code >= 0 else self.perspective(),
            double_offered=self.double_offered(),
            resigned=0,
            dice=(high, low),
            match_length=0,
            score=(0, 0),
            jacoby=False,
        )
        return notation.match_id(fields)

    def termination(self) -> str:
        """``"normal"`` (a single win, or a game not over), ``"gammon"`` or ``"backgammon"`` (the kind of
        win, whatever the scoring type counts it), ``"drop"`` (a double dropped), ``"turn_limit"`` (a draw
        at ``max_player_turns``)."""
        if not self.is_terminal():
            return "normal"
        ret = self.compact[1]
        if ret == 0:
            return "turn_limit"
        if checkers_left(self.compact, 0 if ret > 0 else 1):  # the winner did not bear off
            return "drop"
        full = (*self.compact[:META], self.compact[META] & ~(3 << SCORING_SHIFT) | FULL << SCORING_SHIFT)
        return ("normal", "gammon", "backgammon")[win_points(full, 0 if ret > 0 else 1) - 1]

    # --- notation ---------------------------------------------------------------------------------
    def action_to_string(self, action: int) -> str:
        """OpenSpiel's string of ``action`` here (a chance outcome at a chance node); the cube's actions
        are ``"Roll"``, ``"Double"``, ``"Take"`` and ``"Drop"``."""
        num_actions = self.game.num_actions
        if not 0 <= action < num_actions:
            raise ValueError(f"backgammon: action {action!r} is out of range [0, {num_actions})")
        if action >= NUM_ACTIONS:
            return CUBE_ACTION_NAMES[action]
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
        if self.is_cube_decision():
            return _cube_action(move, legal)
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
        match = f"\nMatch ID: {self.match_id()}" if self.cube() else ""
        return f"{notation.board_text(board, viewer)}\n{self._status()}\nPosition ID: {self.position_id()}{match}"

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
            return f"{glyph[roller]} (player {roller}) to roll{self._cube_text()}"
        if self.double_offered():
            return f"{glyph[code]} (player {code}) to take or drop a double to {2 * cube_value(self.compact)}"
        if self.is_cube_decision():
            return f"{glyph[code]} (player {code}) to double or roll{self._cube_text()}"
        low, high, moves = self.dice()
        half = " (the second half of the double)" if low == high and moves == 2 else ""
        return f"{glyph[code]} (player {code}) to move, dice {low}-{high}{half}{self._cube_text()}"

    def _cube_text(self) -> str:
        """``", cube 2 owned by o"`` (nothing without the cube)."""
        held = self.cube()
        if held is None:
            return ""
        value, owner = held
        return f", cube {value} " + ("centered" if owner is None else f"owned by {notation.GLYPHS[owner]}")


class Backgammon(Game):
    """Backgammon exactly as OpenSpiel's ``backgammon`` (no doubling cube), with its parameters
    ``scoring_type`` (``"winloss_scoring"``, ``"enable_gammons"``, ``"full_scoring"``) and
    ``max_player_turns``; see `rlgames.games.backgammon` for the rules and the action numbering. With
    ``cube=True``, money play with the doubling cube (`rlgames.games.backgammon.doubling`): four more
    actions, the returns times the cube's value (up to 64), the agents' cube decisions by Janowski's
    formula (`formula_decision`)."""

    name = "backgammon"
    state_class = BackgammonState
    kernels = KERNELS
    move_separator = "; "
    """Moves hold spaces and chance outcomes commas: a line of moves separates them by semicolons."""
    heuristic = ".evaluator:BackgammonEvaluator"
    encodings = ENCODINGS
    evaluators: ClassVar[dict[str, str]] = {"pubeval": ".evaluator:PubevalEvaluator"}
    default_agent = "expectiminimax(plies=2)"

    def __init__(self, scoring_type: str = "winloss_scoring", max_player_turns: int = 500, cube: bool = False) -> None:
        self.scoring_type, self.max_player_turns, self.cube = _check(scoring_type, max_player_turns, cube)
        with_cube = {"cube": True} if self.cube else {}  # the game without the cube keeps OpenSpiel's params
        super().__init__(scoring_type=self.scoring_type, max_player_turns=self.max_player_turns, **with_cube)

    @classmethod
    def describe(
        cls, scoring_type: str = "winloss_scoring", max_player_turns: int = 500, cube: bool = False
    ) -> GameInfo:
        scoring_type, max_player_turns, cube = _check(scoring_type, max_player_turns, cube)
        points = (1 + SCORING_TYPES.index(scoring_type)) << (MAX_CUBE_LEVEL - 1 if cube else 0)
        return GameInfo(
            cls.name,
            num_actions=NUM_CUBE_ACTIONS if cube else NUM_ACTIONS,
            observation_shape=OBSERVATION_SHAPE,
            max_game_length=(5 if cube else 3) * max_player_turns + 1,  # the cube: a double and a take a turn
            has_chance=True,
            utility=(-points, points),
        )

    def initial_compact_state(self) -> tuple:
        return pack_state(CHANCE, 0, initial_counts(), (0, 0), self._meta(), self._cube_start())

    def _cube_start(self) -> int:
        """The `CUBE` fields at the start: the cube centered at 1, where it is played."""
        return cube_fields(1, -1) if self.cube else 0

    def formula_decision(self, state: State, evaluator: Any, *, passive: bool = False) -> tuple[int, float] | None:
        """The cube's decisions, by Janowski's formula (`rlgames.games.backgammon.cube.formula_decision`)."""
        return cube.formula_decision(state, evaluator, passive=passive)

    def network_game(self) -> Game:
        """The game without the cube: its networks value positions for a cube of 1."""
        return Backgammon(self.scoring_type, self.max_player_turns) if self.cube else self

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
            return self._with_cube(notation.pack_board(board, CHANCE, meta))
        if not (isinstance(dice, Sequence) and len(dice) == 2 and all(type(d) is int and 1 <= d <= 6 for d in dice)):
            raise ValueError(f"backgammon: dice must be two ints from 1 to 6, got {dice!r}")
        meta |= min(dice) << LOW_SHIFT | max(dice) << HIGH_SHIFT
        return self._with_cube(notation.pack_board(board, player, meta))

    def state_from_gnubg(self, position_id: str, match_id: str) -> BackgammonState:
        """The money-game position of gnubg's Position ID and Match ID: the player on roll and the dice if
        rolled; in the game with the cube, its value and owner, and a double offered (the taker to decide)
        or, before the roll, the roller's decision to double where it may. Raises a one-line `ValueError`
        for a match (not a money game), a game not being played, or a cube this game does not play."""
        m = notation.parse_match_id(match_id)
        if m.match_length:
            raise ValueError(
                f"backgammon: rlgames plays money games; this Match ID is of a {m.match_length}-point match"
            )
        if m.game_state != 1 or m.resigned:
            raise ValueError("backgammon: this Match ID is not of a game being played")
        if not self.cube and (m.cube_value != 1 or m.cube_owner is not None or m.double_offered):
            raise ValueError("backgammon: this Match ID has a cube in play; load the game with cube=True")
        if m.cube_value > 1 << (MAX_CUBE_LEVEL - 1):
            raise ValueError(f"backgammon: a cube of {m.cube_value} is above the largest, 64")
        rolled = m.dice != (0, 0)
        if rolled and m.double_offered:
            raise ValueError("backgammon: this Match ID offers a double after the roll")
        state = self.state_from_position_id(position_id, dice=m.dice if rolled else None, player=m.on_roll)
        if not self.cube:
            return state
        fields = cube_fields(m.cube_value.bit_length(), -1 if m.cube_owner is None else m.cube_owner)
        compact = (state.compact[0], 0, state.compact[OWNER] & ~CUBE_FIELDS | fields, *state.compact[3:])
        if m.double_offered:
            return BackgammonState(self, (1 - m.on_roll, 0, compact[OWNER] | OFFERED, *compact[3:]))
        if not rolled:
            return BackgammonState(self, before_roll(compact, m.on_roll))
        return BackgammonState(self, compact)

    def _with_cube(self, compact: tuple) -> BackgammonState:
        """The state of ``compact`` with the cube centered at 1, where it is played."""
        return BackgammonState(self, (compact[0], compact[1], compact[OWNER] | self._cube_start(), *compact[3:]))

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


def _cube_action(text: str, legal: list[int]) -> int:
    """The cube's action named by ``text`` (``roll``/``no double``, ``double``, ``take``, ``drop``/``pass``,
    in any case) among the ``legal`` ones; raises a one-line `ValueError`."""
    word = text.lower()
    action = {"roll": ROLL, "no double": ROLL, "double": DOUBLE, "take": TAKE, "drop": DROP, "pass": DROP}.get(word)
    if action is None or action not in legal:
        names = " or ".join(CUBE_ACTION_NAMES[a].lower() for a in legal)
        raise ValueError(f"backgammon: {text!r} is not a decision here: {names}")
    return action


def _check(scoring_type: str, max_player_turns: int, cube: bool) -> tuple[str, int, bool]:
    """The parameters, checked; raises `ValueError` naming a bad one."""
    if not isinstance(cube, (bool, np.bool_)):
        raise ValueError(f"backgammon: cube must be true or false, got {cube!r}")
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
    return scoring_type, int(max_player_turns), bool(cube)
