"""The hand-crafted chess engine's strength, calibrated against Stockfish at limited strength.

Stockfish (``apt-get install stockfish``: a benchmark only, never a dependency) plays with
``UCI_LimitStrength`` and each ``--elo`` level in turn against an rlgames agent (``--agent``, default
the hand-crafted alpha-beta with quiescence) behind ``rlgames uci chess``, both engines driven by
python-chess over UCI at ``--movetime`` seconds per move. Each level plays ``--games`` games from
``--games / 2`` distinct random 4-ply openings, each with both colours; a game that reaches
``--max-plies`` is adjudicated a draw. Prints each level's score with its 95% interval (normal
approximation, draws as half) and the highest level scored at 50% or more::

    python benchmarks/calibrate_stockfish.py --elo 1350 1500 1700 --games 100 --movetime 0.1 --json sf.json
"""

from __future__ import annotations

import argparse
import json
import math
import shutil
import sys
from pathlib import Path
from typing import Any

import chess
import chess.engine
import numpy as np

import rlgames
from rlgames.arena.openings import random_openings

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import machine_info  # noqa: E402


def play(white: chess.engine.SimpleEngine, black: chess.engine.SimpleEngine, board: chess.Board, movetime: float,
         max_plies: int) -> float:
    """White's score (1, 0.5, 0) of the game from ``board``."""
    engines = (white, black)
    while not board.is_game_over(claim_draw=True) and board.ply() < max_plies:
        move = engines[0 if board.turn == chess.WHITE else 1].play(board, chess.engine.Limit(time=movetime)).move
        board.push(move)
    result = board.result(claim_draw=True)
    return {"1-0": 1.0, "0-1": 0.0}.get(result, 0.5)


def interval(scores: list[float]) -> tuple[float, float, float]:
    n, mean = len(scores), float(np.mean(scores))
    half = 1.96 * math.sqrt(max(float(np.mean(np.square(scores))) - mean * mean, 0.0) / n)
    return mean, max(mean - half, 0.0), min(mean + half, 1.0)


def level(ours: chess.engine.SimpleEngine, stockfish: chess.engine.SimpleEngine, elo: int, openings: list[str],
          movetime: float, max_plies: int) -> dict[str, Any]:
    stockfish.configure({"UCI_LimitStrength": True, "UCI_Elo": elo})
    scores = []
    for fen_moves in openings:
        for we_are_white in (True, False):
            board = chess.Board()
            for move in fen_moves.split():
                board.push_uci(move)
            white, black = (ours, stockfish) if we_are_white else (stockfish, ours)
            white_score = play(white, black, board, movetime, max_plies)
            scores.append(white_score if we_are_white else 1.0 - white_score)
        print(f"  elo {elo}: {len(scores)} games, score {np.mean(scores):.3f}", flush=True)
    mean, low, high = interval(scores)
    return {"elo": elo, "games": len(scores), "score": mean, "interval": [low, high],
            "wins": scores.count(1.0), "draws": scores.count(0.5), "losses": scores.count(0.0)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--agent", default="alphabeta(eval=heuristic, quiescence=8)", help="the rlgames agent spec")
    parser.add_argument("--elo", type=int, nargs="+", default=[1350, 1500, 1700, 1900], help="Stockfish's levels")
    parser.add_argument("--games", type=int, default=100, help="games per level, even (default 100)")
    parser.add_argument("--movetime", type=float, default=0.1, help="seconds per move, both engines (default 0.1)")
    parser.add_argument("--max-plies", type=int, default=300, help="adjudicate a draw at this length (default 300)")
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
    rows = []
    with chess.engine.SimpleEngine.popen_uci(command, timeout=600) as ours, \
            chess.engine.SimpleEngine.popen_uci(args.stockfish) as stockfish:
        stockfish.configure({"Threads": 1, "Hash": 16})
        ours.play(chess.Board(), chess.engine.Limit(depth=1))  # compiles the search
        for elo in args.elo:
            rows.append(level(ours, stockfish, elo, openings, args.movetime, args.max_plies))
    print(f"\n{args.agent} against Stockfish (UCI_LimitStrength), {args.movetime:g} s/move:")
    for row in rows:
        print(f"  UCI_Elo {row['elo']}: {row['wins']}W {row['draws']}D {row['losses']}L, score {row['score']:.1%} "
              f"[{row['interval'][0]:.1%}, {row['interval'][1]:.1%}]")
    held = [row["elo"] for row in rows if row["score"] >= 0.5]
    print(f"highest level scored at >= 50%: {max(held) if held else 'none'}")
    if args.json:
        Path(args.json).write_text(json.dumps({"args": vars(args), "machine": machine_info(), "levels": rows},
                                              indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
