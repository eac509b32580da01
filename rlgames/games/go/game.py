"""Go's Python facade: `GoState` and `Go` over the kernels of `rules`, with the notation players write."""

from __future__ import annotations

import numpy as np

from rlgames.game import Game, GameInfo, HistoryState, Outcome, Symmetry, dihedral_symmetries
from rlgames.games.go.playout import light_rollout
from rlgames.games.go.rules import (
    BOARD,
    KERNELS,
    KO,
    MAX_SIZE,
    MOVES,
    NO_POINT,
    PASSES,
    SIZE,
    _ZOBRIST,
    area_margin,
    boards,
    deduction2,
    state_length,
)
from rlgames.jit.bits import words_for

COLUMNS = "ABCDEFGHJKLMNOPQRST"
"""Go's column letters: ``I`` is skipped, as players and GTP write them."""
MIN_SIZE = 2
HANDICAP_POINTS = ("D4", "Q16", "D16", "Q4", "D10", "Q10", "K4", "K16", "K10")
"""OpenSpiel's handicap placement: the first ``h`` of these, with ``K10`` last for an odd ``h`` from 5."""


def point_name(point: int, size: int) -> str:
    """``D4``-style name of ``point`` (``row * size + col``, row 0 at the bottom)."""
    return f"{COLUMNS[point % size]}{point // size + 1}"


def parse_point(text: str, size: int) -> int:
    """The point named ``text`` (``D4``, ``d4``; no ``I`` column) on a ``size`` board; raises `ValueError`."""
    move = text.strip().upper()
    column, row = move[:1], move[1:]
    if not column or column not in COLUMNS[:size] or not row.isdigit() or not 1 <= int(row) <= size:
        raise ValueError(
            f"go: cannot read point {text!r}; expected a column A-{COLUMNS[size - 1]} (no I) and a row 1-{size}"
        )
    return (int(row) - 1) * size + COLUMNS.index(column)


def handicap_points(handicap: int, size: int) -> list[int]:
    """The points of ``handicap`` black stones as OpenSpiel places them (none below 2)."""
    if handicap < 2:
        return []
    names = list(HANDICAP_POINTS[:handicap])
    if handicap >= 5 and handicap % 2 == 1:
        names[-1] = "K10"
    return [parse_point(name, size) for name in names]


def _bits(words: tuple[int, ...]) -> list[int]:
    """The points set in a board's int64 words, in increasing order."""
    return [64 * w + i for w, word in enumerate(words) for i in range(64) if word >> i & 1]


class GoState(HistoryState):
    """A go position and the keys of the positions before it (for positional superko)."""

    __slots__ = ()

    @property
    def size(self) -> int:
        return self.compact[SIZE]

    def stones(self) -> tuple[list[int], list[int]]:
        """The points of black's stones and of white's, each in increasing order."""
        words = words_for(self.size * self.size)
        board = self.compact[BOARD:]
        return _bits(board[:words]), _bits(board[words:])

    def ko_point(self) -> int | None:
        """The point the side to move may not retake this turn, or None."""
        ko = self.compact[KO]
        return None if ko == NO_POINT else ko

    def passes(self) -> int:
        """The passes in a row that led to this position."""
        return self.compact[PASSES]

    def move_number(self) -> int:
        """The actions played since the start (passes counted)."""
        return self.compact[MOVES]

    def score(self) -> float:
        """Black's Tromp-Taylor score as the game would count it now: area minus komi, and minus the
        handicap where it is 2 or more (positive: black ahead)."""
        black, white = boards(self.compact)
        return area_margin(black, white, self.size) - deduction2(self.compact) / 2

    def termination(self) -> str:
        if getattr(self, "_repeated", False):
            return "superko"
        if self.is_terminal() and self.compact[PASSES] >= 2:
            return "passes"
        return "length limit" if self.is_terminal() else super().termination()

    def action_to_string(self, action: int) -> str:
        points = self.size * self.size
        if action == points:
            return "pass"
        if not 0 <= action < points:
            raise ValueError(f"go: action {action!r} is out of range [0, {points}]")
        return point_name(action, self.size)

    def string_to_action(self, text: str) -> int:
        if text.strip().lower() == "pass":
            return self.size * self.size
        return parse_point(text, self.size)

    def board_grid(self) -> np.ndarray:
        """int8[N, N] with the top row (rank N) first: 1 a black stone, 2 a white one."""
        n = self.size
        grid = np.zeros(n * n, dtype=np.int8)
        black, white = self.stones()
        grid[black], grid[white] = 1, 2
        return grid.reshape(n, n)[::-1]

    def __str__(self) -> str:
        n = self.size
        letters = "   " + " ".join(COLUMNS[:n])
        marks = {0: ".", 1: "X", 2: "O"}
        grid = self.board_grid()
        rows = [letters]
        for i in range(n):
            rank = n - i
            rows.append(f"{rank:2d} " + " ".join(marks[int(v)] for v in grid[i]) + f" {rank}")
        rows.append(letters)
        return "\n".join(rows)


class Go(Game):
    """Go with Tromp-Taylor area scoring, positional superko and OpenSpiel's action numbering."""

    name = "go"
    state_class = GoState
    heuristic = ".evaluator:AreaEvaluator"
    kernels = KERNELS._replace(playout=light_rollout)
    record_format = "sgf"
    playouts = {"light": ".playout:light_rollout", "patterns": ".playout:pattern_rollout"}
    rollout_policy = ".rollout_policy:POLICY"
    search_defaults = {"mcts": {"rave": True}}  # RAVE over light playouts: the strongest at equal time
    default_agent = "mcts(time=1)"  # as the GTP engine's: go is MCTS's game
    protocols = {"gtp": ".gtp:GtpEngine"}
    small_params = {"board_size": 5}

    @classmethod
    def describe(
        cls, board_size: int = 19, komi: float = 7.5, handicap: int = 0, max_game_length: int | None = None
    ) -> GameInfo:
        if not (isinstance(board_size, int) and MIN_SIZE <= board_size <= MAX_SIZE):
            raise ValueError(f"go: board_size must be an int from {MIN_SIZE} to {MAX_SIZE}, not {board_size!r}")
        if not (isinstance(komi, (int, float)) and float(2 * komi).is_integer() and abs(komi) <= 1000):
            raise ValueError(f"go: komi must be a multiple of 0.5 (7.5, 6.5, 0), not {komi!r}")
        if not (isinstance(handicap, int) and 0 <= handicap <= 9):
            raise ValueError(f"go: handicap must be an int from 0 to 9, not {handicap!r}")
        if handicap >= 2 and board_size < 16:
            raise ValueError(
                f"go: handicap {handicap} needs a board of 16 or more; OpenSpiel places the stones on 19x19's "
                "star points"
            )
        length = 2 * board_size * board_size if max_game_length is None else max_game_length
        if not (isinstance(length, int) and length >= 1):
            raise ValueError(f"go: max_game_length must be a positive int, not {max_game_length!r}")
        points = board_size * board_size
        return GameInfo(
            cls.name,
            num_actions=points + 1,
            observation_shape=(4, board_size, board_size),
            max_game_length=max(length, 2),
            history_dependent=True,
        )

    def __init__(
        self, board_size: int = 19, komi: float = 7.5, handicap: int = 0, max_game_length: int | None = None
    ) -> None:
        super().__init__(board_size=board_size, komi=komi, handicap=handicap, max_game_length=max_game_length)
        self.board_size = board_size
        self.komi = float(komi)
        self.handicap = handicap

    def initial_compact_state(self) -> tuple:
        first = 1 if self.handicap >= 2 else 0
        return self.compact_from_stones(handicap_points(self.handicap, self.board_size), [], player=first)

    def compact_from_stones(self, black: list[int], white: list[int], *, player: int) -> tuple:
        """The compact state with these stones, ``player`` (0 black, 1 white) to move and no move played:
        the start of a game, or a set-up position (SGF's AB and AW). The stones are placed as they are,
        without captures."""
        n = self.board_size
        words = words_for(n * n)
        boards = [0] * (2 * words)
        key = 0
        for colour, points in enumerate((black, white)):
            for p in points:
                boards[colour * words + p // 64] |= 1 << p % 64
                key ^= int(_ZOBRIST[p, colour])
        signed = [b - (1 << 64) if b >> 63 else b for b in boards]
        limit = self.max_game_length
        counters = (player, 0, n, round(2 * self.komi), self.handicap, limit, player, 0, 0, NO_POINT, key)
        compact = (*counters, *signed)
        assert len(compact) == state_length(n)
        return compact

    def symmetries(self) -> tuple[Symmetry, ...]:
        return dihedral_symmetries(self.board_size, extra_actions=1)

    def export_record(
        self,
        actions,
        *,
        players: tuple[str, str],
        outcome: Outcome,
        event: str = "rlgames",
        round: int | None = None,
    ) -> str:
        from rlgames.games.go.sgf import to_sgf

        return to_sgf(self, actions, players=players, outcome=outcome, event=event, round=round)
