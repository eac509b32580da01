"""Other programs as agents: a UCI engine (Stockfish, or ``rlgames uci`` itself) or a GTP engine (GNU Go,
KataGo, or ``rlgames gtp`` itself) run as a subprocess.

Spec: ``uci:COMMAND``, the command line of the engine (split as a shell splits it, run without a shell),
with any number of settings among its words:

- ``uci-option:NAME=VALUE`` sets one of the engine's options (``setoption name NAME value VALUE``), e.g.
  Stockfish's ``uci-option:UCI_LimitStrength=true uci-option:UCI_Elo=1800``; a name with a space is quoted
  whole (``'uci-option:Skill Level=5'``). An option the engine does not list is refused, naming those it has.
- ``uci-go:KEY=N`` is a parameter of every ``go`` command: ``movetime`` (milliseconds), ``depth`` or
  ``nodes``. Without one the engine thinks ``DEFAULT_MOVETIME_MS`` per move.

E.g. ``uci:stockfish uci-option:UCI_LimitStrength=true uci-option:UCI_Elo=1800 uci-go:movetime=100``. A program
not on the ``PATH`` is also looked for in ``/usr/games`` (where Debian installs Stockfish). The game must speak
UCI (`rlgames.Game.protocols`); its states give the position as FEN (``state.fen()``) and read and write moves in
UCI's notation (``action_to_string``, ``string_to_action``).

The agent keeps the game it is playing: each ``search`` finds the opponent's move since its own last one and
sends the whole line (``position fen START moves ...``), so the engine knows the game's repetitions; ``seed``,
which the arena calls before every game, starts a new one (``ucinewgame``). An engine that exits, or does not
answer within its budget plus ``ANSWER_GRACE_S``, stops the agent with a one-line error naming it. The process
ends with the agent (``close``, or when the agent is collected, or when the parent exits: the engine reads
the end of its input).

Spec: ``gtp:COMMAND``, a GTP engine's command line, with at most one setting among its words: ``gtp-go:movetime=N``,
the milliseconds of every ``genmove`` (without it, ``DEFAULT_GTP_MOVETIME_MS``). GTP counts time in seconds: the
engine is told ``time_settings 0 S 1`` at each new game and ``time_left COLOUR S 1`` before each ``genmove``, where
it lists those commands (S in seconds: a fraction such as ``0.1`` where N is not a multiple of 1000; an engine that
reads whole seconds only, as GTP's specification has them, refuses it and is then told the whole seconds above,
``1``: GNU Go, which plays by its ``--level`` within them). E.g. ``gtp:gnugo --mode gtp --level 5``, ``gtp:katago
gtp -model m.bin.gz gtp-go:movetime=2000``. The game must speak GTP (go); a new game is told ``boardsize N``, ``komi
K``, ``clear_board`` (and ``set_free_handicap`` with the handicap stones), then every move since the start with
``play``, which the agent reads from the position's history; later searches send only the moves since the engine's
last. An engine that resigns passes (the agent always moves); an answer ``? ...`` stops the agent with a one-line
error naming the command and the engine's reason.
"""

from __future__ import annotations

import math
import os
import queue
import shlex
import shutil
import subprocess
import threading
import time
import weakref
from dataclasses import dataclass
from typing import Any

import numpy as np

from rlgames.game import Game, State
from rlgames.search.result import SearchResult, SearchStats

PROTOCOLS = ("uci", "gtp")
"""The protocols an external program may speak, each the prefix of its specs (``uci:COMMAND``, ``gtp:COMMAND``)."""
OPTION, GO, GTP_GO = "uci-option:", "uci-go:", "gtp-go:"
"""The prefixes of an engine's settings among the words of its spec."""
GO_KEYS = ("movetime", "depth", "nodes")
"""The ``go`` parameters a spec may fix."""
GTP_GO_KEYS = ("movetime",)
"""The ``genmove`` parameters a GTP spec may fix."""
DEFAULT_MOVETIME_MS = 100
"""The time per move of an engine whose spec fixes no ``go`` parameter."""
DEFAULT_GTP_MOVETIME_MS = 1000
"""The time per move of a GTP engine whose spec fixes none: a whole second, as GTP counts seconds."""
GTP_NEEDS = ("boardsize", "clear_board", "komi", "play", "genmove")
"""The GTP commands a GTP engine must list (``list_commands``) to be played."""
ANSWER_GRACE_S = 30.0
"""Seconds an engine may take past its budget (or, for ``depth`` and ``nodes``, at all) before it counts as
hung: generous, as an engine's first search may load its tables."""
EXTRA_PATH = "/usr/games"
"""Where a program not on the ``PATH`` is also looked for (Debian's and Ubuntu's Stockfish)."""
CENTIPAWN_SCALE = 400.0
"""Centipawns of the logistic that reads an engine's ``score cp`` as a value in [-1, 1] (as Elo reads a
rating gap): ``2 / (1 + 10 ** (-cp / 400)) - 1``."""


class ExternalEngineError(ValueError):
    """An external engine that cannot be started or stops answering; the message is one line naming it."""


@dataclass(frozen=True)
class UciSpec:
    """A parsed ``uci:`` spec: the command's words, the options to set and the ``go`` parameters."""

    command: tuple[str, ...]
    options: tuple[tuple[str, str], ...] = ()
    go: tuple[tuple[str, int], ...] = ()

    def __str__(self) -> str:
        words = [
            *self.command,
            *(f"{OPTION}{name}={value}" for name, value in self.options),
            *(f"{GO}{key}={value}" for key, value in self.go),
        ]
        return f"uci:{shlex.join(words)}"

    def with_go(self, **go: int) -> UciSpec:
        """The same engine with these ``go`` parameters in place of its own."""
        return UciSpec(self.command, self.options, tuple(go.items()))


@dataclass(frozen=True)
class GtpSpec:
    """A parsed ``gtp:`` spec: the command's words and the ``genmove`` parameters (``gtp-go:movetime=N``)."""

    command: tuple[str, ...]
    go: tuple[tuple[str, int], ...] = ()

    def __str__(self) -> str:
        return f"gtp:{shlex.join([*self.command, *(f'{GTP_GO}{key}={value}' for key, value in self.go)])}"

    def with_go(self, **go: int) -> GtpSpec:
        """The same engine with these ``genmove`` parameters in place of its own."""
        return GtpSpec(self.command, tuple(go.items()))


def parse_engine_spec(spec: str) -> UciSpec | GtpSpec:
    """Reads an external engine's spec by its protocol's prefix (``uci:``, ``gtp:``); raises `ExternalEngineError`."""
    return parse_gtp_spec(spec) if spec.strip().partition(":")[0].lower() == "gtp" else parse_uci_spec(spec)


def parse_uci_spec(spec: str) -> UciSpec:
    """Reads ``uci:COMMAND [uci-option:NAME=VALUE ...] [uci-go:KEY=N ...]``; raises `ExternalEngineError`."""
    command: list[str] = []
    options: list[tuple[str, str]] = []
    go: dict[str, int] = {}
    for word in _spec_words(spec, "uci"):
        if word.startswith(OPTION):
            name, equals, value = word[len(OPTION) :].partition("=")
            if not equals or not name.strip():
                raise ExternalEngineError(f"{spec!r}: expected {OPTION}NAME=VALUE, got {word!r}")
            options.append((name.strip(), value.strip()))
        elif word.startswith(GO):
            go.update([_setting(spec, word, GO, GO_KEYS)])
        else:
            command.append(word)
    if not command:
        raise ExternalEngineError(f"{spec!r} names no program: write uci:COMMAND, e.g. uci:stockfish")
    return UciSpec(tuple(command), tuple(options), tuple(go.items()))


def parse_gtp_spec(spec: str) -> GtpSpec:
    """Reads ``gtp:COMMAND [gtp-go:movetime=N]``; raises `ExternalEngineError`."""
    command: list[str] = []
    go: dict[str, int] = {}
    for word in _spec_words(spec, "gtp"):
        if word.startswith(GTP_GO):
            go.update([_setting(spec, word, GTP_GO, GTP_GO_KEYS)])
        else:
            command.append(word)
    if not command:
        raise ExternalEngineError(f"{spec!r} names no program: write gtp:COMMAND, e.g. gtp:gnugo --mode gtp")
    return GtpSpec(tuple(command), tuple(go.items()))


def _spec_words(spec: str, protocol: str) -> list[str]:
    """The words after ``protocol:``, split as a shell splits them; raises `ExternalEngineError`."""
    prefix, colon, rest = spec.strip().partition(":")
    if prefix.lower() != protocol or not colon:
        raise ExternalEngineError(f"an external engine's spec starts with {protocol}:, got {spec!r}")
    try:
        return shlex.split(rest)
    except ValueError as error:
        raise ExternalEngineError(f"cannot split {spec!r} into words: {error}") from None


def _setting(spec: str, word: str, prefix: str, keys: tuple[str, ...]) -> tuple[str, int]:
    """``(KEY, N)`` of a word ``PREFIXKEY=N`` with KEY one of ``keys`` and N >= 1; raises `ExternalEngineError`."""
    key, equals, value = word[len(prefix) :].partition("=")
    if key not in keys or not equals or not value.isdigit() or int(value) < 1:
        raise ExternalEngineError(
            f"{spec!r}: expected {prefix}KEY=N with KEY one of {', '.join(keys)} and N >= 1, got {word!r}"
        )
    return key, int(value)


def find_program(name: str) -> str | None:
    """The path of program ``name``: on the ``PATH``, else in ``EXTRA_PATH``; None when in neither."""
    return shutil.which(name) or shutil.which(name, path=EXTRA_PATH)


class EngineProcess:
    """A program spoken to line by line: ``send`` writes a line, ``read_until`` returns the lines it
    printed up to the first that starts with a word, within a deadline. A thread reads its output, so
    that a hung program is noticed."""

    def __init__(self, argv: tuple[str, ...], name: str) -> None:
        self.name = name
        program = find_program(argv[0])
        if program is None:
            raise ExternalEngineError(f"engine {name}: no program {argv[0]!r} on the PATH or in {EXTRA_PATH}")
        try:
            self.process = subprocess.Popen(
                [program, *argv[1:]],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                text=True,
                bufsize=1,
                env={**os.environ, "PYTHONUNBUFFERED": "1"},
            )
        except OSError as error:
            raise ExternalEngineError(f"engine {name}: cannot start {program}: {error.strerror}") from None
        self.lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self._finalizer = weakref.finalize(self, _end, self.process)

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)  # the end of its output: it exited

    def send(self, line: str) -> None:
        try:
            assert self.process.stdin is not None
            self.process.stdin.write(line + "\n")
            self.process.stdin.flush()
        except (BrokenPipeError, OSError):
            raise self._exited() from None

    def read_until(self, word: str, seconds: float) -> list[str]:
        """The lines up to and including the first whose first word is ``word``."""
        deadline, lines = time.monotonic() + seconds, []
        while True:
            line = self.next_line(deadline, f"{word!r} within {seconds:g} s")
            lines.append(line)
            if line.split()[:1] == [word]:
                return lines

    def next_line(self, deadline: float, what: str) -> str:
        """The next line the program prints before ``deadline`` (`time.monotonic`); else an error saying that
        there was no ``what``."""
        try:
            line = self.lines.get(timeout=max(deadline - time.monotonic(), 0.0))
        except queue.Empty:
            raise ExternalEngineError(f"engine {self.name}: no {what}") from None
        if line is None:
            raise self._exited()
        return line

    def _exited(self) -> ExternalEngineError:
        status = self.process.wait(timeout=5)
        return ExternalEngineError(f"engine {self.name}: the program exited (status {status})")

    def close(self) -> None:
        self._finalizer()


def _end(process: subprocess.Popen[str]) -> None:
    """Asks the program to quit, and ends it if it does not within a second."""
    try:
        assert process.stdin is not None
        process.stdin.write("quit\n")
        process.stdin.close()
        process.wait(timeout=1)
    except (OSError, ValueError, subprocess.TimeoutExpired):
        process.kill()
        process.wait()


class UciAgent:
    """A UCI engine as an agent (spec ``uci:COMMAND ...``, see the module). ``search`` returns the engine's
    move with its last reported score as the value (a mate as +-1, centipawns through `CENTIPAWN_SCALE`),
    its principal variation where it reported one, and its nodes and depth."""

    def __init__(self, game: Game, spec: UciSpec) -> None:
        if "uci" not in game.protocols:
            raise ExternalEngineError(f"{game.name} does not speak UCI: an external UCI engine cannot play it")
        self.game, self.spec = game, spec
        self.engine = EngineProcess(spec.command, str(spec))
        self.engine.send("uci")
        listed = _option_names(self.engine.read_until("uciok", ANSWER_GRACE_S))
        for name, value in spec.options:
            if name.lower() not in listed:
                raise ExternalEngineError(
                    f"engine {spec}: it has no option {name!r}; its options: {', '.join(sorted(listed.values()))}"
                )
            self.engine.send(f"setoption name {listed[name.lower()]} value {value}")
        self._ready()
        go = dict(spec.go) or {"movetime": DEFAULT_MOVETIME_MS}
        self.go_command = "go " + " ".join(f"{key} {value}" for key, value in go.items())
        self.answer_s = go.get("movetime", 0) / 1000 + ANSWER_GRACE_S
        self._start: State | None = None  # where the game the engine knows started, and its moves since
        self._moves: list[str] = []  # in UCI's notation, each written once, from the position it was played in
        self._last: State | None = None  # the position after this agent's last move

    def _ready(self) -> None:
        self.engine.send("isready")
        self.engine.read_until("readyok", ANSWER_GRACE_S)

    def seed(self, seed: int) -> None:
        """Starts a new game (the engine's own randomness, if any, is not seeded by UCI)."""
        self._start, self._moves, self._last = None, [], None
        self.engine.send("ucinewgame")
        self._ready()

    def search(self, state: State) -> SearchResult:
        if state.is_terminal() or state.is_chance_node():
            raise ValueError(f"{self.game.name}: engine {self.spec} needs a decision node to move from")
        self._follow(state)
        assert self._start is not None
        moves = f" moves {' '.join(self._moves)}" if self._moves else ""
        self.engine.send(f"position fen {self._start.fen()}{moves}")  # type: ignore[attr-defined]
        started = time.perf_counter()
        self.engine.send(self.go_command)
        lines = self.engine.read_until("bestmove", self.answer_s)
        elapsed = time.perf_counter() - started
        words = lines[-1].split()
        try:
            action = state.string_to_action(words[1])
        except (IndexError, ValueError):
            raise ExternalEngineError(f"engine {self.spec} answered {lines[-1]!r}, not a legal move") from None
        self._moves.append(state.action_to_string(action))
        self._last = state.apply(action)
        return _result(self.game, state, action, lines, elapsed)

    def act(self, state: State) -> int:
        return self.search(state).action

    def _follow(self, state: State) -> None:
        """Adds the opponent's move since this agent's last one to the game (none when the agent plays both
        sides); where ``state`` does not follow from it (a new game, an opening played before), the game
        starts again from ``state``."""
        if self._last is not None and self._last == state:
            return
        if self._last is not None:
            for action in self._last.legal_actions():
                if self._last.apply(action) == state:
                    self._moves.append(self._last.action_to_string(action))
                    return
        self._start, self._moves = state, []

    def close(self) -> None:
        self.engine.close()

    def __repr__(self) -> str:
        return str(self.spec)


class GtpAgent:
    """A GTP engine as an agent (spec ``gtp:COMMAND ...``, see the module). ``search`` returns the engine's move
    with the value 0 (GTP reports no evaluation)."""

    def __init__(self, game: Game, spec: GtpSpec) -> None:
        if "gtp" not in game.protocols:
            raise ExternalEngineError(f"{game.name} does not speak GTP: an external GTP engine cannot play it")
        self.game, self.spec = game, spec
        self.engine = EngineProcess(spec.command, str(spec))
        self.known = set(self._ask("list_commands").split())
        missing = [command for command in GTP_NEEDS if command not in self.known]
        if missing:
            raise ExternalEngineError(f"engine {spec}: it does not list the GTP commands {', '.join(missing)}")
        self.seconds = dict(spec.go).get("movetime", DEFAULT_GTP_MOVETIME_MS) / 1000
        self.answer_s = self.seconds + ANSWER_GRACE_S
        self.told = f"{self.seconds:g}"  # the seconds a move the engine is told (`_tell_time`)
        self._position: State | None = None  # the position the engine has, and the keys of its game's positions
        self._keys: list[int] = []

    def _ask(self, command: str, seconds: float = ANSWER_GRACE_S) -> str:
        """Sends ``command`` and returns the engine's answer, the text after ``=`` (the lines of a long one);
        an answer ``? ...`` raises `ExternalEngineError` naming the command and the engine's reason."""
        self.engine.send(command)
        deadline, what = time.monotonic() + seconds, f"answer to {command!r} within {seconds:g} s"
        first = self.engine.next_line(deadline, what)
        while not first.startswith(("=", "?")):  # what an engine prints before its answer
            first = self.engine.next_line(deadline, what)
        lines = [first[1:].strip()]
        while (line := self.engine.next_line(deadline, what).rstrip()) != "":  # a blank line ends the answer
            lines.append(line)
        text = "\n".join(lines).strip("\n")
        if first.startswith("?"):
            raise ExternalEngineError(f"engine {self.spec}: {command!r} failed: {' '.join(text.split())}")
        return text

    def seed(self, seed: int) -> None:
        """Starts a new game at the next search (GTP does not seed an engine's own randomness)."""
        self._position, self._keys = None, []

    def search(self, state: State) -> SearchResult:
        if state.is_terminal() or state.is_chance_node():
            raise ValueError(f"{self.game.name}: engine {self.spec} needs a decision node to move from")
        self._follow(state)
        colour = _COLOURS[state.current_player()]
        if "time_left" in self.known:
            self._tell_time(f"time_left {colour} {{}} 1")
        started = time.perf_counter()
        answer = self._ask(f"genmove {colour}", self.answer_s)
        elapsed = time.perf_counter() - started
        if answer.lower() == "resign":  # the agent always moves: a resignation is a pass, in the engine's game too
            answer = "pass"
            self._ask(f"play {colour} pass")
        try:
            action = state.string_to_action(answer)
            state.check_legal(action)
        except ValueError:
            raise ExternalEngineError(f"engine {self.spec} answered genmove {answer!r}, not a legal move") from None
        self._moved(action)
        return _result(state.game, state, action, [], elapsed)

    def act(self, state: State) -> int:
        return self.search(state).action

    def _follow(self, state: State) -> None:
        """Tells the engine the moves from its position to ``state``, read from ``state``'s history (the keys of
        the positions before it): none when the agent plays both sides, the opponent's reply, an opening's moves.
        A ``state`` that does not continue the engine's game starts a new one, replayed from the start."""
        keys = [*state.history(), state.hash_key()]
        if self._position is None or self._position.game != state.game or keys[: len(self._keys)] != self._keys:
            start = state.game.new_initial_state()
            if start.hash_key() != keys[0]:
                raise ExternalEngineError(
                    f"engine {self.spec}: GTP plays games from the start, and this position was set up, not played"
                )
            self._new_game(start)
        for key in keys[len(self._keys) :]:
            self._play(_move_to(self._position, key))

    def _new_game(self, start: State) -> None:
        """``boardsize``, ``komi``, ``clear_board``, the handicap stones and the time of the game of ``start``."""
        params = start.game.params
        self._ask(f"boardsize {params['board_size']}")
        self._ask(f"komi {params['komi']:g}")
        self._ask("clear_board")
        black, _ = start.stones()  # type: ignore[attr-defined]
        if black:
            self._ask(f"set_free_handicap {' '.join(start.action_to_string(p) for p in black)}")
        if "time_settings" in self.known:
            self._tell_time("time_settings 0 {} 1")
        self._position, self._keys = start, [start.hash_key()]

    def _tell_time(self, command: str) -> None:
        """Sends a time command, ``command`` with the seconds a move in place of ``{}``. GTP's time commands take
        whole seconds: an engine that refuses a fraction (GNU Go; KataGo takes one) is told the whole seconds
        above the budget from then on, and the agent still waits only the budget and `ANSWER_GRACE_S`."""
        try:
            self._ask(command.format(self.told))
        except ExternalEngineError:
            whole = str(math.ceil(self.seconds))
            if self.told == whole:
                raise
            self.told = whole
            self._ask(command.format(self.told))

    def _play(self, action: int) -> None:
        assert self._position is not None
        colour = _COLOURS[self._position.current_player()]
        self._ask(f"play {colour} {self._position.action_to_string(action)}")
        self._moved(action)

    def _moved(self, action: int) -> None:
        """Records ``action`` as played in the engine's game."""
        assert self._position is not None
        self._position = self._position.apply(action)
        self._keys.append(self._position.hash_key())

    def close(self) -> None:
        self.engine.close()

    def __repr__(self) -> str:
        return str(self.spec)


_COLOURS = ("black", "white")


def _move_to(state: State | None, key: int) -> int:
    """The legal action of ``state`` that leads to the position of ``key``."""
    assert state is not None
    for action in state.legal_actions():
        if state.apply(action).hash_key() == key:
            return action
    raise ExternalEngineError(f"{state.game.name}: no move leads from the engine's position to the one searched")


def load_engine(game: Game, engine: UciSpec | GtpSpec) -> UciAgent | GtpAgent:
    """The agent that plays the external engine of a parsed spec (`parse_engine_spec`)."""
    return GtpAgent(game, engine) if isinstance(engine, GtpSpec) else UciAgent(game, engine)


def _option_names(lines: list[str]) -> dict[str, str]:
    """The options an engine listed before ``uciok``: lower-cased name -> name (``option name NAME type ...``)."""
    names = {}
    for line in lines:
        if line.startswith("option name ") and " type " in line:
            name = line[len("option name ") :].split(" type ", 1)[0].strip()
            names[name.lower()] = name
    return names


def _result(game: Game, state: State, action: int, lines: list[str], seconds: float) -> SearchResult:
    """The engine's answer as a search result: its last ``info`` line's score, line, depth and nodes."""
    info: dict[str, Any] = {}
    for line in lines:
        words = line.split()
        if words[:1] == ["info"] and "score" in words:
            info = _info_fields(words)
    value, plies_to_end = 0.0, None
    if "mate" in info:
        moves = info["mate"]
        value, plies_to_end = (1.0, 2 * moves - 1) if moves > 0 else (-1.0, -2 * moves)
    elif "cp" in info:
        value = math.tanh(info["cp"] * math.log(10) / (2 * CENTIPAWN_SCALE))
    policy = np.zeros(game.num_actions)
    policy[action] = 1.0
    return SearchResult(
        action=action,
        value=value,
        policy=policy,
        principal_variation=_pv(state, info.get("pv", ()), action),
        stats=SearchStats(nodes=info.get("nodes", 0), depth=info.get("depth", 0), time_s=seconds),
        plies_to_end=plies_to_end,
    )


def _info_fields(words: list[str]) -> dict[str, Any]:
    """``depth``, ``nodes``, ``cp`` or ``mate``, and ``pv`` (its moves) of one ``info`` line."""
    fields: dict[str, Any] = {}
    for key in ("depth", "nodes"):
        if key in words[:-1] and words[words.index(key) + 1].isdigit():
            fields[key] = int(words[words.index(key) + 1])
    at = words.index("score")
    if at + 2 < len(words) and words[at + 1] in ("cp", "mate") and words[at + 2].lstrip("-").isdigit():
        fields[words[at + 1]] = int(words[at + 2])
    if "pv" in words:
        fields["pv"] = tuple(words[words.index("pv") + 1 :])
    return fields


def _pv(state: State, moves: tuple[str, ...], action: int) -> tuple[int, ...]:
    """The reported line as actions, as far as it reads as legal moves from ``state`` (at least ``action``)."""
    line = []
    for move in moves:
        try:
            step = state.string_to_action(move)
        except ValueError:
            break
        line.append(step)
        state = state.apply(step)
        if state.is_terminal():
            break
    return tuple(line) if line and line[0] == action else (action,)
