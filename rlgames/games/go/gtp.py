"""A GTP (version 2) engine over any rlgames agent: go GUIs, servers and match runners (Sabaki, GoGui,
gogui-twogtp, kgsGtp) drive it on stdin and stdout (``rlgames gtp go -p board_size=9 --agent mcts``).

Commands: ``protocol_version``, ``name``, ``version``, ``known_command``, ``list_commands``, ``quit``,
``boardsize``, ``clear_board``, ``komi``, ``play``, ``genmove``, ``undo``, ``showboard``, ``time_settings``,
``time_left``, ``final_score``, ``final_status_list``, ``loadsgf FILE [MOVE_NUMBER]``. Every answer is
``=[id] text`` or ``?[id] error`` and a blank line, the id echoed where the command has one; the errors are
GTP's own words (``illegal move``, ``unacceptable size``, ``cannot undo``, ``unknown command``, ``syntax
error``, ``cannot load file: ...``) or one line naming the problem, and the engine keeps its position and
keeps running. ``boardsize`` and ``komi`` rebuild the game (``boardsize`` clears the board, ``komi`` keeps it).

Where rlgames's go differs from what GTP allows:

- The game alternates strictly: ``play`` or ``genmove`` for the colour that is not to move answers
  ``? illegal move`` (GTP allows two moves of a colour in a row; here the other colour passes in between).
- Scoring is Tromp-Taylor: every stone on the board counts as alive, so ``final_status_list alive`` lists
  them all and ``dead`` and ``seki`` none; ``final_score`` is the area score after komi (``B+3.5``, ``W+0.5``,
  ``0``), and ``0`` for a game that a superko drew.
- ``genmove`` never resigns: it answers a move or ``pass``, and ``pass`` once the game is over (two passes, a
  superko, the length limit).

Time: with ``time_settings`` (and the controller's ``time_left``), an `rlgames.agents.base.EngineAgent`
(alpha-beta, MCTS) takes each ``genmove``'s share of the clock; without them, or ``byo_yomi_stones`` 0 with
a byo-yomi time (GTP's "no time limit"), or another agent, the agent plays with the budget of its spec. The
engine keeps no clock itself: ``time_left`` says what is left. The agent compiles in the background
(`rlgames.agents.warmup.Warmup`): the engine answers at once, and a timed move asked for before the search is
compiled is the warm-up's quick fallback.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from rlgames import __version__
from rlgames.agents import load_agent
from rlgames.agents.base import EngineAgent, Limits
from rlgames.agents.warmup import Warmup
from rlgames.games.go.game import Go, GoState
from rlgames.games.go.sgf import main_line, parse_sgf_point, state_from_sgf
from rlgames.registry import load_game

MOVES_TO_GO = 30
"""The moves a main time is assumed to have to last (the rest of the game, as GTP's main time is)."""
MOVE_OVERHEAD_S = 0.05
"""Seconds kept back from every timed move for the controller and the pipes."""
COMMANDS = (
    "protocol_version",
    "name",
    "version",
    "known_command",
    "list_commands",
    "quit",
    "boardsize",
    "clear_board",
    "komi",
    "play",
    "genmove",
    "undo",
    "showboard",
    "time_settings",
    "time_left",
    "final_score",
    "final_status_list",
    "loadsgf",
)
"""The commands the engine knows, in the order ``list_commands`` gives them."""
_VERTEX = re.compile(r"^[a-hj-z][0-9]{1,2}$", re.IGNORECASE)
_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")
_SETUP = ("SZ", "KM", "HA", "AB", "AW", "PL")
"""The SGF root's properties that set a game up (`state_from_sgf` reads them)."""


class GtpError(ValueError):
    """A command that fails; its message is the answer's one line (``illegal move``, ``syntax error``)."""


@dataclass(frozen=True)
class TimeSettings:
    """``time_settings``: the main time, then byo-yomi periods of ``byo_yomi`` seconds for ``stones`` stones."""

    main: float
    byo_yomi: float
    stones: int

    @property
    def unlimited(self) -> bool:
        """GTP's "no time limit": a byo-yomi time with no stones."""
        return self.byo_yomi > 0 and self.stones == 0


@dataclass(frozen=True)
class Clock:
    """One colour's ``time_left``: the seconds left and the stones to play in them (0: main time)."""

    seconds: float
    stones: int = 0


def move_seconds(settings: TimeSettings | None, clock: Clock | None) -> float | None:
    """The time of one move, None for no limit: in byo-yomi the period's time over its stones; in main time
    a share of what is left (over `MOVES_TO_GO`), at least a byo-yomi stone's time where one follows; less
    `MOVE_OVERHEAD_S`, never nothing."""
    if settings is None or settings.unlimited:
        return None
    if clock is None:  # no time_left yet: the clock as time_settings starts it
        clock = Clock(settings.main) if settings.main > 0 else Clock(settings.byo_yomi, settings.stones)
    if clock.stones > 0:
        share = clock.seconds / clock.stones
    else:
        share = clock.seconds / MOVES_TO_GO
        if settings.byo_yomi > 0:
            share = max(share, settings.byo_yomi / settings.stones)
    return max(share - MOVE_OVERHEAD_S, 0.001)


def parse_colour(word: str) -> int:
    """0 for black (``b``, ``black``), 1 for white (``w``, ``white``), in any case; else a syntax error."""
    colour = word.lower()
    if colour in ("b", "black"):
        return 0
    if colour in ("w", "white"):
        return 1
    raise GtpError("syntax error")


def parse_vertex(word: str, state: GoState) -> int:
    """The action of a vertex (``D4``, ``pass``): a syntax error if it is not one, an illegal move if it is
    off the board."""
    if word.lower() == "pass":
        return state.size * state.size
    if not _VERTEX.match(word):
        raise GtpError("syntax error")
    try:
        return state.string_to_action(word)
    except ValueError:
        raise GtpError("illegal move") from None


def parse_number(word: str) -> float:
    """A finite number (``7.5``, ``-3``); else a syntax error."""
    try:
        value = float(word)
    except ValueError:
        raise GtpError("syntax error") from None
    if value != value or abs(value) == float("inf"):
        raise GtpError("syntax error")
    return value


def score_text(state: GoState) -> str:
    """GTP's result of ``state``: ``B+3.5``, ``W+0.5``, ``0`` (a draw, or a game that a superko drew)."""
    score = 0.0 if state.termination() == "superko" else state.score()
    if score == 0:
        return "0"
    return f"{'B' if score > 0 else 'W'}+{abs(score):g}"


def go_game(**params: Any) -> Go:
    """``load_game("go", **params)``; a bad parameter raises a one-line `ValueError`."""
    game = load_game("go", **params)
    assert isinstance(game, Go)
    return game


def sgf_game(text: str) -> tuple[GoState, list[int]]:
    """The start of an SGF game (its set-up) and the actions of its main line, checked by playing them
    (`state_from_sgf`); raises a one-line `ValueError`."""
    state_from_sgf(text)
    nodes = main_line(text)
    root = "".join(key + "".join(f"[{v}]" for v in nodes[0][key]) for key in _SETUP if key in nodes[0])
    start = state_from_sgf(f"(;{root})")
    size = start.size
    points = [parse_sgf_point(node[c][0], size) for node in nodes[1:] for c in ("B", "W") if c in node]
    return start, [size * size if p is None else p for p in points]


class GtpEngine:
    """The protocol's state: the game, its moves, the agent and the clocks. ``handle(line)`` answers one
    command and returns False after ``quit``; ``run(stdin)`` reads commands until ``quit`` or the end."""

    def __init__(
        self, game: Go, spec: str, *, out: IO[str] = sys.stdout, err: IO[str] = sys.stderr, name: str = "rlgames"
    ) -> None:
        self.game, self.spec, self.out, self.err, self.name = game, spec, out, err, name
        self.agent = load_agent(spec, game)
        self.warmup = Warmup(self.agent, game)  # compiles in the background: the engine answers at once
        self._states: list[GoState] | None = None  # the start and each move's position (None: made when needed)
        self._moves: list[int] = []  # the actions played from the start
        self.settings: TimeSettings | None = None
        self.clocks: dict[int, Clock] = {}
        self._told = False  # whether the agent's own budget was reported (once)

    def send(self, text: str) -> None:
        self.out.write(text + "\n\n")
        self.out.flush()

    def note(self, text: str) -> None:
        """A line for the person watching (stderr: GTP's controllers read only stdout)."""
        self.err.write(f"{self.name}: {text}\n")
        self.err.flush()

    def run(self, lines: IO[str]) -> None:
        for line in lines:
            if not self.handle(line):
                return

    def handle(self, line: str) -> bool:
        words = _CONTROL.sub("", line.split("#", 1)[0]).replace("\t", " ").split()
        if not words:
            return True
        number = words.pop(0) if words[0].isdigit() else ""
        command = words[0] if words else ""
        handler = self._handlers().get(command)
        try:
            if handler is None:
                raise GtpError("unknown command" if command else "syntax error")
            self.send(f"={number} {handler(words[1:])}".rstrip(" "))
        except Exception as error:  # noqa: BLE001 -- bad input is answered, and the engine keeps running
            self.send(f"?{number} {' '.join(str(error).split())}".rstrip(" "))
        return command != "quit"

    def _handlers(self) -> dict[str, Callable[[list[str]], str]]:
        return {
            "protocol_version": lambda _: "2",
            "name": lambda _: self.name,
            "version": lambda _: f"{__version__} {self.spec}",
            "known_command": lambda args: str(self._one(args) in COMMANDS).lower(),
            "list_commands": lambda _: "\n".join(COMMANDS),
            "quit": lambda _: "",
            "boardsize": self._boardsize,
            "clear_board": self._clear_board,
            "komi": self._komi,
            "play": self._play,
            "genmove": self._genmove,
            "undo": self._undo,
            "showboard": lambda _: "\n" + str(self.state),
            "time_settings": self._time_settings,
            "time_left": self._time_left,
            "final_score": lambda _: score_text(self.state),
            "final_status_list": self._final_status_list,
            "loadsgf": self._loadsgf,
        }

    @staticmethod
    def _one(args: list[str]) -> str:
        """The one argument of a command; else a syntax error."""
        if len(args) != 1:
            raise GtpError("syntax error")
        return args[0]

    @property
    def states(self) -> list[GoState]:
        """The start and the position after each move played since."""
        if self._states is None:
            self._states = [self.game.new_initial_state()]  # type: ignore[list-item]
        return self._states

    @property
    def state(self) -> GoState:
        """The current position."""
        return self.states[-1]

    def _begin(self, game: Go, start: GoState | None = None, moves: Sequence[int] = ()) -> None:
        """``game`` (its agent rebuilt if it changed), at ``start`` (None: its start, made when needed) with
        ``moves`` played from there."""
        if game != self.game:
            agent = load_agent(self.spec, game)
            self.game, self.agent, self.warmup = game, agent, Warmup(agent, game)
        self._states, self._moves = None if start is None else [start], list(moves)
        for action in moves:
            self.states.append(self.state.apply(action))

    def _boardsize(self, args: list[str]) -> str:
        size = self._one(args)
        if not size.lstrip("-").isdigit():
            raise GtpError("syntax error")
        try:
            game = go_game(**{**self.game.params, "board_size": int(size)})
        except ValueError:
            raise GtpError("unacceptable size") from None
        self._begin(game)
        return ""

    def _clear_board(self, _: list[str]) -> str:
        self._begin(self.game)
        return ""

    def _komi(self, args: list[str]) -> str:
        game = go_game(**{**self.game.params, "komi": parse_number(self._one(args))})
        if self._states is None:
            self._begin(game)
        else:  # the same stones and moves, counted with the new komi
            start = self.states[0]
            compact = game.compact_from_stones(*start.stones(), player=start.current_player())
            self._begin(game, GoState(game, compact), self._moves)
        return ""

    def _play(self, args: list[str]) -> str:
        if len(args) != 2:
            raise GtpError("syntax error")
        player, state = parse_colour(args[0]), self.state
        action = parse_vertex(args[1], state)
        if state.is_terminal() or player != state.current_player() or not state.is_legal(action):
            raise GtpError("illegal move")
        self._push(action)
        return ""

    def _push(self, action: int) -> None:
        self.states.append(self.state.apply(action))
        self._moves.append(action)

    def _undo(self, _: list[str]) -> str:
        if not self._moves:
            raise GtpError("cannot undo")
        self.states.pop()
        self._moves.pop()
        return ""

    def _genmove(self, args: list[str]) -> str:
        player, state = parse_colour(self._one(args)), self.state
        if state.is_terminal():
            return "pass"
        if player != state.current_player():
            raise GtpError("illegal move")
        action = self._search(state, move_seconds(self.settings, self.clocks.get(player)))
        self._push(action)
        return state.action_to_string(action)

    def _search(self, state: GoState, seconds: float | None) -> int:
        """The agent's move, in ``seconds`` where it takes a time (None: its spec's budget). Until the search
        is compiled (`Warmup`), a timed move waits for it half its time and then plays the warm-up's
        fallback; a search that fails passes."""
        searcher: Any = self.agent
        if seconds is not None and isinstance(self.agent, EngineAgent):
            searcher = self.agent.with_limits(Limits(seconds=seconds))
        elif seconds is not None and not self._told:
            self.note(f"{self.spec} plays with the budget of its spec, not the time settings")
            self._told = True
        if not self.warmup.ready.wait(None if seconds is None else seconds / 2):
            self.note("the search is being compiled (a first run after installing): a quick fallback move")
            return self.warmup.fallback(state).action
        try:
            return int(searcher.search(state).action)
        except Exception as error:  # noqa: BLE001 -- genmove answers a move and the engine keeps running
            self.note(f"the search failed: {' '.join(str(error).split())}; passing")
            return state.size * state.size

    def _time_settings(self, args: list[str]) -> str:
        if len(args) != 3:
            raise GtpError("syntax error")
        main, byo_yomi, stones = (parse_number(word) for word in args)
        if min(main, byo_yomi, stones) < 0 or not stones.is_integer():
            raise GtpError("syntax error")
        self.settings, self.clocks = TimeSettings(main, byo_yomi, int(stones)), {}
        return ""

    def _time_left(self, args: list[str]) -> str:
        if len(args) != 3:
            raise GtpError("syntax error")
        player, seconds, stones = parse_colour(args[0]), parse_number(args[1]), parse_number(args[2])
        if seconds < 0 or stones < 0 or not stones.is_integer():
            raise GtpError("syntax error")
        self.clocks[player] = Clock(seconds, int(stones))
        return ""

    def _final_status_list(self, args: list[str]) -> str:
        status = self._one(args).lower()
        if status not in ("alive", "dead", "seki"):
            raise GtpError("syntax error")
        if status != "alive":  # Tromp-Taylor: no stone is dead, none in seki
            return ""
        state = self.state
        return " ".join(state.action_to_string(p) for p in sorted(p for points in state.stones() for p in points))

    def _loadsgf(self, args: list[str]) -> str:
        if len(args) not in (1, 2) or len(args) == 2 and not args[1].isdigit():
            raise GtpError("syntax error")
        try:
            start, moves = sgf_game(Path(args[0]).read_text(encoding="utf-8", errors="replace"))
        except OSError as error:
            raise GtpError(f"cannot load file: {error.strerror}: {args[0]}") from None
        except ValueError as error:
            raise GtpError(f"cannot load file: {error}") from None
        played = len(moves) if len(args) == 1 else max(int(args[1]) - 1, 0)
        self._begin(start.game, start, moves[:played])  # type: ignore[arg-type]
        return ""
