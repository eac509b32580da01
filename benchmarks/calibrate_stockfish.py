"""The hand-crafted chess engine's strength, calibrated against Stockfish at limited strength.

Stockfish (``apt-get install stockfish``: a benchmark only, never a dependency) plays with
``UCI_LimitStrength`` and each ``--elo`` level in turn against an rlgames agent (``--agent``, default
the hand-crafted alpha-beta with quiescence) behind ``rlgames uci chess``, both engines driven by
python-chess over UCI at ``--movetime`` seconds per move. Each level plays ``--games`` games from
``--games / 2`` distinct random 4-ply openings, each with both colours; a game that reaches
``--max-plies`` is adjudicated a draw, and with ``--resign-cp`` a game Stockfish's own score has
decided is adjudicated (cutechess-cli's resign rule). ``--workers`` plays games at once, one engine
pair each; ``--record`` appends every game to a JSONL file and a rerun resumes from it. Prints each level's
score with its 95% interval (normal
approximation, draws as half) and the highest level scored at 50% or more::

    python benchmarks/calibrate_stockfish.py --elo 1350 1500 1700 --games 100 --movetime 0.1 --json sf.json
    python benchmarks/calibrate_stockfish.py --elo 1800 2000 --movetime 1 --workers 2 --resign-cp 1000 \
        --record benchmarks/results/stockfish_1s.jsonl
"""

from __future__ import annotations

import argparse
import json
import math
import shutil
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import chess
import chess.engine
import numpy as np

import rlgames
from rlgames.arena.openings import random_openings

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import machine_info  # noqa: E402


@dataclass(frozen=True)
class Adjudication:
    """Ends a game early: a draw at ``max_plies``; a result once Stockfish's own score has stayed at
    ``resign_cp`` centipawns or more (it wins) or at minus that or less (it loses) for ``resign_moves``
    of its consecutive moves, as cutechess-cli's ``-resign`` does (0: never)."""

    max_plies: int = 300
    resign_cp: int = 0
    resign_moves: int = 4


def play(
    white: chess.engine.SimpleEngine,
    black: chess.engine.SimpleEngine,
    board: chess.Board,
    movetime: float,
    stockfish_white: bool,
    rules: Adjudication,
) -> tuple[float, bool]:
    """White's score (1, 0.5, 0) of the game from ``board``, and whether it was adjudicated."""
    engines, streak = (white, black), 0
    while not board.is_game_over(claim_draw=True) and board.ply() < rules.max_plies:
        stockfish_moves = (board.turn == chess.WHITE) == stockfish_white
        result = engines[0 if board.turn == chess.WHITE else 1].play(
            board, chess.engine.Limit(time=movetime), info=chess.engine.INFO_SCORE if stockfish_moves else 0
        )
        board.push(result.move)
        if stockfish_moves and rules.resign_cp and "score" in result.info:
            cp = result.info["score"].relative.score(mate_score=100_000)
            streak = (
                max(streak, 0) + 1 if cp >= rules.resign_cp else min(streak, 0) - 1 if cp <= -rules.resign_cp else 0
            )
            if abs(streak) >= rules.resign_moves:
                stockfish_wins = streak > 0
                return (1.0 if stockfish_wins == stockfish_white else 0.0), True
    result = board.result(claim_draw=True)
    return {"1-0": 1.0, "0-1": 0.0}.get(result, 0.5), board.ply() >= rules.max_plies


def interval(scores: list[float]) -> tuple[float, float, float]:
    n, mean = len(scores), float(np.mean(scores))
    half = 1.96 * math.sqrt(max(float(np.mean(np.square(scores))) - mean * mean, 0.0) / n)
    return mean, max(mean - half, 0.0), min(mean + half, 1.0)


class Record:
    """The games played so far, one JSON line each (``--record``): a killed run resumes where it stopped,
    skipping the games of the same agent and time per move already there."""

    def __init__(self, path: str | None, agent: str, movetime: float) -> None:
        self.path, self.key = path and Path(path), {"agent": agent, "movetime": movetime}
        self.lock = threading.Lock()
        self.games: dict[tuple[int, int, bool], dict[str, Any]] = {}
        if self.path and self.path.is_file():
            for line in self.path.read_text().splitlines():
                row = json.loads(line)
                if all(row.get(k) == v for k, v in self.key.items()):
                    self.games[row["elo"], row["opening"], row["ours_white"]] = row

    def add(self, row: dict[str, Any]) -> None:
        with self.lock:
            self.games[row["elo"], row["opening"], row["ours_white"]] = row
            if self.path:
                with self.path.open("a") as file:
                    file.write(json.dumps({**self.key, **row}) + "\n")


def engines(command: list[str], stockfish: str) -> tuple[chess.engine.SimpleEngine, chess.engine.SimpleEngine]:
    ours = chess.engine.SimpleEngine.popen_uci(command, timeout=600)
    ours.play(chess.Board(), chess.engine.Limit(depth=1))  # compiles the search
    sf = chess.engine.SimpleEngine.popen_uci(stockfish)
    sf.configure({"Threads": 1, "Hash": 16})
    return ours, sf


def play_games(
    todo: list[tuple[int, int, bool]], openings: list[str], args: argparse.Namespace, record: Record, command: list[str]
) -> None:
    """Plays ``todo`` (level, opening, whether ours is white) on one pair of engines."""
    ours, stockfish = engines(command, args.stockfish)
    rules = Adjudication(args.max_plies, args.resign_cp, args.resign_moves)
    try:
        for elo, opening, ours_white in todo:
            stockfish.configure({"UCI_LimitStrength": True, "UCI_Elo": elo})
            board = chess.Board()
            for move in openings[opening].split():
                board.push_uci(move)
            white, black = (ours, stockfish) if ours_white else (stockfish, ours)
            white_score, adjudicated = play(white, black, board, args.movetime, not ours_white, rules)
            score = white_score if ours_white else 1.0 - white_score
            record.add(
                {
                    "elo": elo,
                    "opening": opening,
                    "ours_white": ours_white,
                    "score": score,
                    "plies": board.ply(),
                    "adjudicated": adjudicated,
                }
            )
            done = [r["score"] for (e, _, _), r in record.games.items() if e == elo]
            print(f"  elo {elo}: {len(done)} games, score {np.mean(done):.3f}", flush=True)
    finally:
        ours.quit()
        stockfish.quit()


def summary(elo: int, scores: list[float]) -> dict[str, Any]:
    mean, low, high = interval(scores)
    return {
        "elo": elo,
        "games": len(scores),
        "score": mean,
        "interval": [low, high],
        "wins": scores.count(1.0),
        "draws": scores.count(0.5),
        "losses": scores.count(0.0),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--agent", default="alphabeta(eval=heuristic, quiescence=8)", help="the rlgames agent spec")
    parser.add_argument("--elo", type=int, nargs="+", default=[1350, 1500, 1700, 1900], help="Stockfish's levels")
    parser.add_argument("--games", type=int, default=100, help="games per level, even (default 100)")
    parser.add_argument("--movetime", type=float, default=0.1, help="seconds per move, both engines (default 0.1)")
    parser.add_argument("--max-plies", type=int, default=300, help="adjudicate a draw at this length (default 300)")
    parser.add_argument(
        "--resign-cp",
        type=int,
        default=0,
        help="adjudicate a game once Stockfish's score stays beyond +-CP (default 0: never)",
    )
    parser.add_argument("--resign-moves", type=int, default=4, help="... for this many of its moves (default 4)")
    parser.add_argument("--workers", type=int, default=1, help="games played at once, one engine pair each")
    parser.add_argument("--record", metavar="PATH", help="append every game to this JSONL file and resume from it")
    parser.add_argument("--seed", type=int, default=0, help="seed of the openings (default 0)")
    parser.add_argument("--stockfish", default=shutil.which("stockfish") or "/usr/games/stockfish")
    parser.add_argument("--json", metavar="PATH", help="also write the results to this JSON file")
    args = parser.parse_args(argv)
    if not Path(args.stockfish).is_file():
        print(f"calibrate_stockfish: no Stockfish at {args.stockfish} (apt-get install stockfish)", file=sys.stderr)
        return 2
    game = rlgames.load_game("chess")
    lines = random_openings(game, args.games // 2, 4, np.random.default_rng(args.seed))
    openings = []
    for line in lines:
        state, moves = game.new_initial_state(), []
        for action in line:
            moves.append(state.action_to_string(action))
            state = state.apply(action)
        openings.append(" ".join(moves))
    command = [sys.executable, "-m", "rlgames", "uci", "chess", "--agent", args.agent]
    record = Record(args.record, args.agent, args.movetime)
    todo = [
        (elo, i, white)
        for elo in args.elo
        for i in range(len(openings))
        for white in (True, False)
        if (elo, i, white) not in record.games
    ]
    print(f"{len(todo)} games to play ({len(record.games)} recorded)", flush=True)
    with ThreadPoolExecutor(args.workers) as pool:
        for done in [
            pool.submit(play_games, todo[w :: args.workers], openings, args, record, command)
            for w in range(args.workers)
        ]:
            done.result()
    rows = [
        summary(elo, [r["score"] for (e, i, _), r in record.games.items() if e == elo and i < len(openings)])
        for elo in args.elo
    ]
    print(f"\n{args.agent} against Stockfish (UCI_LimitStrength), {args.movetime:g} s/move:")
    for row in rows:
        print(
            f"  UCI_Elo {row['elo']}: {row['wins']}W {row['draws']}D {row['losses']}L, score {row['score']:.1%} "
            f"[{row['interval'][0]:.1%}, {row['interval'][1]:.1%}]"
        )
    held = [row["elo"] for row in rows if row["score"] >= 0.5]
    print(f"highest level scored at >= 50%: {max(held) if held else 'none'}")
    if args.json:
        Path(args.json).write_text(
            json.dumps({"args": vars(args), "machine": machine_info(), "levels": rows}, indent=2) + "\n"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
