"""A UCI engine over any rlgames agent: chess GUIs (Cute Chess, Arena), python-chess and lichess bots
drive it on stdin and stdout (``rlgames uci chess --agent "alphabeta(eval=heuristic)"``).

Supported: ``uci``, ``isready``, ``ucinewgame``, ``position startpos|fen FEN [moves ...]``, ``go`` with
``movetime``, ``wtime btime winc binc movestogo``, ``depth``, ``nodes``, ``infinite``, then ``stop``,
``setoption name Hash|Move Overhead value N``, ``quit``. The search runs in a thread, so ``stop`` and
``isready`` are answered while it thinks. An `rlgames.agents.base.EngineAgent` takes each ``go``'s
budget and stops when told: alpha-beta prints an ``info`` line per completed iteration and stops at
once, MCTS (nodes = simulations) reports when done and stops within a chunk of simulations; another
agent plays with the budget of its spec. Bad input (an
illegal move or FEN, an unknown command or option) gets one ``info string`` line naming the problem,
and the engine keeps its position and keeps running.

On a fresh install the compiled rules themselves take seconds to compile (`rlgames.agents.warmup`). Until
they are ready, ``position`` is read and checked by python-chess and a ``go`` answered with a random legal
move of python-chess's (`ColdPosition`): no command waits for the compiler.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import IO, Any

import chess
import numpy as np

from rlgames.agents import load_agent
from rlgames.agents.base import EngineAgent, Limits
from rlgames.agents.warmup import Warmup
from rlgames.game import State
from rlgames.games.chess.evaluator import cp_from_value
from rlgames.games.chess.game import Chess

MOVES_TO_GO = 30
"""The moves a clock without ``movestogo`` is assumed to have to last (sudden death)."""
MOVE_OVERHEAD_MS = 30
"""Milliseconds kept back from every move for the GUI and the pipes (option ``Move Overhead``)."""


@dataclass(frozen=True)
class Go:
    """A ``go`` command's parameters (milliseconds for the times)."""

    movetime: int | None = None
    wtime: int | None = None
    btime: int | None = None
    winc: int = 0
    binc: int = 0
    movestogo: int | None = None
    depth: int | None = None
    nodes: int | None = None
    infinite: bool = False


def parse_go(tokens: list[str]) -> Go:
    """The parameters of ``go`` (``tokens`` after the word); a ValueError names a bad one."""
    known = {"movetime", "wtime", "btime", "winc", "binc", "movestogo", "depth", "nodes"}
    values: dict[str, Any] = {}
    i = 0
    while i < len(tokens):
        word = tokens[i]
        if word == "infinite":
            values["infinite"] = True
        elif word == "ponder":
            pass  # pondering is not supported: a ponder search is searched as a normal one
        elif word in known:
            if i + 1 >= len(tokens) or not tokens[i + 1].lstrip("-").isdigit():
                raise ValueError(f"go {word} needs an integer")
            values[word] = int(tokens[i + 1])
            i += 1
        else:
            raise ValueError(f"go: unknown parameter {word!r}")
        i += 1
    return Go(**values)


def limits_for(go: Go, white_to_move: bool, overhead_ms: int) -> Limits:
    """The budget of one move: ``movetime``, else a share of the clock (its time over the moves to go,
    plus most of the increment, never more than half of what is left), less the overhead."""
    seconds = None
    if go.movetime is not None:
        seconds = (go.movetime - overhead_ms) / 1000
    else:
        left, increment = (go.wtime, go.winc) if white_to_move else (go.btime, go.binc)
        if left is not None:
            share = left / (go.movestogo or MOVES_TO_GO) + 0.75 * increment
            seconds = (min(share, left / 2) - overhead_ms) / 1000
    if seconds is not None:
        seconds = max(seconds, 0.001)
    return Limits(depth=go.depth, nodes=go.nodes, seconds=seconds)


def score_text(result_value: float, plies_to_end: int | None, centipawns: Callable[[float], int]) -> str:
    """UCI's ``cp X`` or ``mate N`` (moves, negative when the engine is mated) from the side to move."""
    if plies_to_end is not None and abs(result_value) >= 1.0:
        return f"mate {(plies_to_end + 1) // 2}" if result_value > 0 else f"mate -{plies_to_end // 2}"
    return f"cp {centipawns(result_value)}"


@dataclass(frozen=True)
class ColdPosition:
    """A ``position`` command read by python-chess, for the moves asked for before chess's compiled rules
    are ready: ``fen`` (None: the start) and ``moves`` (UCI) rebuild it with the compiled rules later."""

    fen: str | None
    moves: tuple[str, ...]
    board: chess.Board

    @classmethod
    def read(cls, fen: str | None, moves: tuple[str, ...]) -> ColdPosition:
        """The position; a one-line ValueError names a bad FEN or an illegal move, as the compiled rules'."""
        try:
            board = chess.Board() if fen is None else chess.Board(fen)
        except ValueError as error:
            raise ValueError(f"chess: bad FEN {fen!r}: {error}") from None
        if not board.is_valid():
            raise ValueError(f"chess: bad FEN {fen!r}: python-chess finds it invalid ({board.status()!r})")
        for move in moves:
            if cold_ending(board) is not None:
                raise ValueError(f"chess: cannot play {move!r}: the game is over")
            try:
                legal = chess.Move.from_uci(move) in board.legal_moves  # "0000", the null move, is not
            except ValueError:
                legal = False
            if not legal:
                raise ValueError(f"chess: {move!r} is not a legal move in {board.fen()}")
            board.push_uci(move)
        return cls(fen, moves, board)


def cold_ending(board: chess.Board) -> str | None:
    """How the game on ``board`` has ended by rlgames' chess rules (`ChessState.termination`: mate,
    stalemate, insufficient material, the fifty-move rule or threefold repetition end it at once, as in
    OpenSpiel, and judged in the rules' order), None while it goes on."""
    stuck = not any(board.legal_moves)
    if stuck and board.is_check():
        return "checkmate"
    if board.is_insufficient_material():
        return "insufficient_material"
    if stuck:
        return "stalemate"
    if board.halfmove_clock >= 100:
        return "fifty_moves"
    return "repetition" if board.is_repetition(3) else None


class UciEngine:
    """The protocol's state: the position, the agent, and the search thread. ``handle(line)`` takes one
    command and returns False after ``quit``; ``run(stdin)`` reads commands until ``quit`` or the end."""

    def __init__(
        self,
        game: Chess,
        spec: str,
        *,
        out: IO[str] = sys.stdout,
        name: str = "rlgames",
        centipawns: Callable[[float], int] = cp_from_value,
    ) -> None:
        self.game, self.spec, self.out, self.name, self.centipawns = game, spec, out, name, centipawns
        self.agent = load_agent(spec, game)
        self.warmup = Warmup(self.agent, game)  # compiles in the background: the engine answers at once
        self._state: State | None = None  # None: the start, made when first needed (its rules compile)
        self._cold: ColdPosition | None = None  # a position read before the compiled rules were ready
        self._rng = np.random.default_rng(0)  # the cold moves'
        self.hash_mb: float | None = None
        self.overhead_ms = MOVE_OVERHEAD_MS
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._searcher: Any = None
        self._release = threading.Event()  # an infinite search's bestmove waits for stop

    def send(self, line: str) -> None:
        with self._lock:
            self.out.write(line + "\n")
            self.out.flush()

    def run(self, lines: IO[str]) -> None:
        for line in lines:
            if not self.handle(line):
                return
        self.handle("quit")

    def handle(self, line: str) -> bool:
        tokens = line.split()
        if not tokens:
            return True
        command, rest = tokens[0], tokens[1:]
        handler = self._handlers().get(command)
        if handler is None:
            self.send(f"info string unknown command: {line.strip()}")
            return True
        try:
            handler(rest)
        except ValueError as error:
            self.send(f"info string {' '.join(str(error).split())}")
        return command != "quit"

    def _handlers(self) -> dict[str, Callable[[list[str]], None]]:
        return {
            "uci": self._uci,
            "isready": lambda _: self.send("readyok"),
            "ucinewgame": self._new_game,
            "position": self._position,
            "go": self._go,
            "stop": lambda _: self._stop(),
            "quit": lambda _: self._stop(),
            "setoption": self._setoption,
            "debug": lambda _: None,
            "ponderhit": lambda _: None,
        }

    def _uci(self, _: list[str]) -> None:
        self.send(f"id name {self.name} {self.spec}")
        self.send("id author the rlgames developers")
        self.send("option name Hash type spin default 16 min 1 max 65536")
        self.send(f"option name Move Overhead type spin default {MOVE_OVERHEAD_MS} min 0 max 5000")
        self.send("uciok")

    @property
    def state(self) -> State:
        """The position of the last ``position`` command, or the start, by the compiled rules."""
        if self._cold is not None:
            self._state, self._cold = self._compiled_position(self._cold.fen, self._cold.moves), None
        if self._state is None:
            self._state = self.game.new_initial_state()
        return self._state

    @state.setter
    def state(self, state: State) -> None:
        self._state = state

    def _new_game(self, _: list[str]) -> None:
        self._stop()
        self._state, self._cold = None, None

    def _position(self, tokens: list[str]) -> None:
        self._stop()
        if not tokens or tokens[0] not in ("startpos", "fen"):
            raise ValueError("position needs startpos or fen FEN")
        moves_at = tokens.index("moves") if "moves" in tokens else len(tokens)
        fen = None if tokens[0] == "startpos" else " ".join(tokens[1:moves_at])
        moves = tuple(tokens[moves_at + 1 :])
        if self._rules_ready():
            self._state, self._cold = self._compiled_position(fen, moves), None
        else:
            self._state, self._cold = None, ColdPosition.read(fen, moves)

    def _rules_ready(self) -> bool:
        """Whether commands may call the compiled rules without waiting for the compiler: once they are
        compiled, and always in a game other than chess (whose protocol tests stand in for chess's)."""
        return self.warmup.rules_ready.is_set() or not isinstance(self.game, Chess)

    def _compiled_position(self, fen: str | None, moves: tuple[str, ...]) -> State:
        state = self.game.new_initial_state() if fen is None else self.game.state_from_fen(fen)
        for move in moves:
            state = state.apply(state.string_to_action(move))
        return state

    def _setoption(self, tokens: list[str]) -> None:
        text = " ".join(tokens)
        if not text.startswith("name ") or " value " not in text:
            raise ValueError(f"setoption needs name NAME value VALUE, got {text!r}")
        name, value = text[len("name ") :].split(" value ", 1)
        if name.strip().lower() not in ("hash", "move overhead"):
            raise ValueError(f"unknown option {name.strip()!r}; options: Hash, Move Overhead")
        if not value.strip().isdigit():
            raise ValueError(f"option {name.strip()} needs a non-negative integer, got {value.strip()!r}")
        if name.strip().lower() == "hash":
            self.hash_mb = max(1, int(value))
        else:
            self.overhead_ms = int(value)

    def _go(self, tokens: list[str]) -> None:
        self._stop()
        go = parse_go(tokens)
        cold = None if self._rules_ready() else self._cold or ColdPosition.read(None, ())
        if cold is not None and limits_for(go, cold.board.turn == chess.WHITE, self.overhead_ms).seconds is not None:
            self._cold_go(cold)
            return
        outcome = self.state.outcome()
        if outcome is not None:  # the game is over
            raise ValueError(f"the game is over ({outcome.result}): no move to search")
        limits = limits_for(go, self.state.current_player() == 0, self.overhead_ms)
        searcher = self.agent
        if isinstance(self.agent, EngineAgent):
            searcher = self.agent.with_limits(Limits(limits.depth, limits.nodes, limits.seconds, self.hash_mb))
        else:
            self.send(f"info string {self.spec} searches with the budget of its spec, not the go command's")
        self._searcher, self._release = searcher, threading.Event()
        if not go.infinite:
            self._release.set()
        self._thread = threading.Thread(target=self._search, args=(searcher, self.state, limits.seconds), daemon=True)
        self._thread.start()

    def _cold_go(self, position: ColdPosition) -> None:
        """A timed ``go`` before the compiled rules are ready: a random legal move by python-chess, at once
        (an untimed one waits for the compiled rules and search)."""
        board = position.board
        ending = cold_ending(board)
        if ending is not None:
            result = ("0-1" if board.turn == chess.WHITE else "1-0") if ending == "checkmate" else "1/2-1/2"
            raise ValueError(f"the game is over ({result}): no move to search")
        moves = list(board.legal_moves)
        self.send("info string the rules are being compiled (a first run after installing): a random legal move")
        self.send(f"bestmove {moves[int(self._rng.integers(len(moves)))].uci()}")

    def _search(self, searcher: Any, state: State, seconds: float | None) -> None:
        """The search thread: info lines, then (once an infinite search is stopped) the bestmove. Until the
        search is compiled (`Warmup`), a timed move waits for it half its time and then plays the warm-up's
        one-ply fallback."""
        if not self.warmup.ready.wait(None if seconds is None else seconds / 2):
            self.send("info string the search is being compiled (a first run after installing): a quick fallback move")
            result = self.warmup.fallback(state)
            self._release.wait()
            self.send(f"bestmove {state.action_to_string(result.action)}")
            return
        reported = []

        def on_iteration(it: Any) -> None:
            reported.append(it)
            self._info(state, it.depth, it.value, it.plies_to_end, it.nodes, it.seconds, it.principal_variation)

        try:
            if isinstance(searcher, EngineAgent):
                result = searcher.search(state, on_iteration=on_iteration)
            else:
                result = searcher.search(state)
            if not reported:  # a search without iterations (MCTS): one line for the whole search
                stats = result.stats
                self._info(
                    state,
                    stats.depth,
                    result.value,
                    result.plies_to_end,
                    stats.nodes,
                    stats.time_s,
                    result.principal_variation,
                )
            move = state.action_to_string(result.action)
        except Exception as error:  # noqa: BLE001 -- the engine must answer bestmove and keep running
            self.send(f"info string the search failed: {' '.join(str(error).split())}")
            move = "0000"
        self._release.wait()
        self.send(f"bestmove {move}")

    def _info(
        self,
        state: State,
        depth: int,
        value: float,
        plies_to_end: int | None,
        nodes: int,
        seconds: float,
        line: tuple[int, ...],
    ) -> None:
        moves = []
        for action in line:
            if state.is_terminal() or not state.is_legal(action):
                break
            moves.append(state.action_to_string(action))
            state = state.apply(action)
        nps = int(nodes / seconds) if seconds > 0 else 0
        self.send(
            f"info depth {depth} score {score_text(value, plies_to_end, self.centipawns)} nodes {nodes} "
            f"nps {nps} time {int(seconds * 1000)} pv {' '.join(moves)}"
        )

    def _stop(self) -> None:
        """Ends the running search, if any, and waits for its bestmove."""
        thread = self._thread
        if thread is None:
            return
        if isinstance(self._searcher, EngineAgent):
            self._searcher.stop()
        self._release.set()
        thread.join()
        self._thread = None
