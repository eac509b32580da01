"""`Chess` and its `ChessState`: the Python facade over the kernels (notation, FEN, perft)."""

from __future__ import annotations

import re

import numpy as np

from rlgames.game import Game, GameInfo, HistoryState, Outcome, State
from rlgames.games.chess.actions import (
    DESTINATIONS,
    ENCODE,
    FROM,
    KINGSIDE,
    NUM_ACTIONS,
    QUEEN,
    QUEENSIDE,
    TO,
    UNDER,
)
from rlgames.games.chess.features import FEATURE_SETS, FUSED_FEATURE_SETS
from rlgames.games.chess.notation import (
    board_letters,
    parse_fen,
    parse_square,
    square_name,
    to_fen,
)
from rlgames.games.chess.rules import KERNELS, perft
from rlgames.games.chess.slots import (
    KINGS,
    ONGOING,
    PAWNS,
    TERMINATION,
    TERMINATIONS,
    TURN,
    WHITE,
)

_FROM, _TO, _UNDER, _ENCODE = FROM.tolist(), TO.tolist(), UNDER.tolist(), ENCODE.tolist()
_PROMOTION_SUFFIXES = ("", "n", "b", "r", "q")  # UCI's, by piece code (pawn: none)
_UCI = re.compile(r"[a-h][1-8][a-h][1-8][nbrq]?")


class ChessState(HistoryState):
    """A chess position and the keys of the positions before it (for threefold repetition).

    Notation: UCI (``e2e4``, ``e7e8q``, castling as the king's move ``e1g1``); `string_to_action`
    also reads SAN (``Nf3``, ``O-O``, through python-chess).
    """

    __slots__ = ()

    # Repetition draws in chess and never forbids a move, so the legal moves need no history.
    legal_actions = State.legal_actions
    tactical_actions = State.tactical_actions
    is_legal = State.is_legal

    def termination(self) -> str:
        """``"checkmate"``, ``"stalemate"``, ``"fifty_moves"``, ``"insufficient_material"`` or
        ``"repetition"`` once over (``"normal"`` before)."""
        code = self.compact[TERMINATION]
        return TERMINATIONS[code] if code != ONGOING else super().termination()

    def fen(self) -> str:
        """The position in Forsyth-Edwards Notation (an en-passant square only where the capture is
        legal, as python-chess's ``Board.fen()``)."""
        return to_fen(self.compact)

    def turn(self) -> int:
        """The side to move, 0 (white) or 1, also once the game is over."""
        return self.compact[TURN]

    # --- notation -------------------------------------------------------------------------------
    def action_to_string(self, action: int) -> str:
        """The UCI of ``action`` for the side to move (``"0000"``, UCI's null move, for an action that
        names no move: one leading off the board)."""
        if not 0 <= action < NUM_ACTIONS:
            raise ValueError(f"chess: action {action!r} is out of range [0, {NUM_ACTIONS})")
        flip = 56 * self.compact[TURN]
        if action >= QUEENSIDE:
            return square_name(4 ^ flip) + square_name((6 if action == KINGSIDE else 2) ^ flip)
        if _FROM[action] < 0:
            return "0000"
        frm, to = _FROM[action] ^ flip, _TO[action] ^ flip
        promotion = _UNDER[action]
        if not promotion and self.compact[PAWNS] >> frm & 1 and to >> 3 == 7 - 7 * self.compact[TURN]:
            promotion = QUEEN  # a pawn reaching the last rank without an underpromotion
        return square_name(frm) + square_name(to) + _PROMOTION_SUFFIXES[promotion]

    def string_to_action(self, text: str) -> int:
        """The action of a legal move written in UCI or SAN; raises a one-line `ValueError` naming the
        problem for anything unreadable or illegal."""
        if not isinstance(text, str):
            raise ValueError(f"chess: a move is a string, not {type(text).__name__}")
        move = text.strip()
        if self.is_terminal():
            raise ValueError(f"chess: cannot play {text!r}: the game is over")
        if _UCI.fullmatch(move):
            action = self._uci_action(move)
            if action is not None and self.action_to_string(action) != move:  # "e7e8" for a pawn, "e2e4q"
                action = None
        else:
            action = self._san_action(move)
        if action is None or action not in self.legal_actions():
            raise ValueError(f"chess: {text!r} is not a legal move in {self.fen()}")
        return action

    def _uci_action(self, move: str) -> int | None:
        """The action with the geometry of the UCI ``move`` (None: none has it), legal or not."""
        frm, to = parse_square(move[:2]), parse_square(move[2:4])
        turn = self.compact[TURN]
        if frm == 4 ^ 56 * turn and abs(to - frm) == 2 and self.compact[KINGS] >> frm & 1:
            return KINGSIDE if to > frm else QUEENSIDE
        frm, to = frm ^ 56 * turn, to ^ 56 * turn
        if len(move) == 5 and move[4] != "q":  # an underpromotion
            dx = (to & 7) - (frm & 7)
            if frm >> 3 != 6 or to >> 3 != 7 or abs(dx) > 1:
                return None
            piece = _PROMOTION_SUFFIXES.index(move[4])
            return (8 * (frm & 7) + (frm >> 3)) * DESTINATIONS + 3 * (3 - piece) + {0: 0, 1: 1, -1: 2}[dx]
        action = _ENCODE[frm][to]
        return action if action >= 0 else None

    def _san_action(self, text: str) -> int | None:
        import chess

        try:
            move = chess.Board(self.fen()).parse_san(text)
        except (ValueError, TypeError):
            raise ValueError(f"chess: cannot read {text!r} as a legal move (UCI or SAN) in {self.fen()}") from None
        return self._uci_action(move.uci()) if move else None  # not the null move

    def san(self, action: int) -> str:
        """The legal ``action`` in Standard Algebraic Notation (``"Nf3"``, ``"exd6"``, ``"O-O"``,
        ``"Qh4#"``), through python-chess."""
        import chess

        self.check_legal(action)
        return chess.Board(self.fen()).san(chess.Move.from_uci(self.action_to_string(action)))

    # --- analysis -------------------------------------------------------------------------------
    def perft(self, depth: int) -> int:
        """The number of legal move sequences of ``depth`` plies from here (the compiled perft, which
        ignores the end of the game: it counts from mated or drawn positions too)."""
        return int(perft(self.compact, depth))

    def divide(self, depth: int) -> dict[str, int]:
        """`perft` ``depth - 1`` after each legal move, by the move's UCI (perft's *divide*)."""
        state = _unjudged(self)
        return {
            state.action_to_string(a): int(perft(self.game.fast_apply(state.compact, a), depth - 1))
            for a in state.legal_actions()
        }

    # --- pictures -------------------------------------------------------------------------------
    def board_grid(self) -> np.ndarray:
        """int8[8, 8], rank 8 on top: 0 empty, 1 a white piece, 2 a black piece."""
        s = self.compact
        grid = np.zeros((8, 8), dtype=np.int8)
        for square in range(64):
            colour = 1 if s[WHITE] >> square & 1 else 2 if s[WHITE + 1] >> square & 1 else 0
            grid[7 - (square >> 3), square & 7] = colour
        return grid

    def __str__(self) -> str:
        """The board as python-chess's ``str(board)``: rank 8 first, ``.`` for an empty square."""
        letters = board_letters(self.compact)
        rows = (" ".join(letter or "." for letter in letters[8 * rank : 8 * rank + 8]) for rank in range(7, -1, -1))
        return "\n".join(rows)


def _unjudged(state: ChessState) -> ChessState:
    """The state with the side to move as its player code, over or not (for perft)."""
    compact = state.compact
    return ChessState(state.game, (compact[TURN], 0, *compact[2:TERMINATION], 0, compact[TURN]))


START_COMPACT = (
    0,
    0,
    71776119061282560,
    4755801206503243842,
    2594073385365405732,
    -9151314442816847743,
    576460752303423496,
    1152921504606846992,
    65535,
    -281474976710656,
    15,
    -1,
    0,
    1,
    8975304291295219283,
    0,
    0,
)
"""``parse_fen(START)``, written out so that loading chess and its start compile nothing (the rules compile
when a first move is generated); a test holds it to the FEN's."""


class Chess(Game):
    """Chess under FIDE's rules, with OpenSpiel's action numbering and observation planes.

    The game ends at checkmate, stalemate, insufficient material (as python-chess judges it), when
    the halfmove clock reaches 100 (the fifty-move rule, applied at once, unless the side to move is
    mated), and at the third occurrence of a position (through the history of `ChessState`).
    """

    name = "chess"
    state_class = ChessState
    heuristic = ".evaluator:ChessEvaluator"
    info = GameInfo(
        name, num_actions=NUM_ACTIONS, observation_shape=(20, 8, 8), max_game_length=17695, history_dependent=True
    )
    kernels = KERNELS
    feature_sets = FEATURE_SETS
    fused_feature_sets = FUSED_FEATURE_SETS

    def initial_compact_state(self) -> tuple:
        return START_COMPACT

    record_format = "pgn"
    protocols = {"uci": ".uci:UciEngine"}
    search_defaults = {"alphabeta": {"quiescence": 8}}

    def export_record(
        self, actions, *, players: tuple[str, str], outcome: Outcome, event: str = "rlgames", round: int | None = None
    ) -> str:
        """The game from the start position as PGN (python-chess writes it): the players as White and
        Black, the result, and how it ended."""
        import chess.pgn

        record = chess.pgn.Game()
        record.headers.update(
            Event=event,
            Site="rlgames",
            Round=str(round or "?"),
            White=players[0],
            Black=players[1],
            Result=outcome.result.split()[0],
            Termination=outcome.termination,
        )
        node: chess.pgn.GameNode = record
        state = self.new_initial_state()
        for action in actions:
            node = node.add_variation(chess.Move.from_uci(state.action_to_string(action)))
            state = state.apply(action)
        return str(record)

    def state_from_fen(self, fen: str) -> ChessState:
        """The position ``fen`` (without history); raises a one-line `ValueError` naming what is wrong
        with it."""
        if not isinstance(fen, str):
            raise ValueError(f"chess: a FEN is a string, not {type(fen).__name__}")
        return ChessState(self, parse_fen(fen))
