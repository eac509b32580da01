"""How long a first move takes: from a fresh install (an empty numba cache) and once compiled.

For each game, a new process loads the game and its default agent (`rlgames.agents.spec.default_spec`) and
searches the first decision of a game; **first move** is the seconds from the start of the process to the
result (imports included), **search** the first search's own seconds. Each game runs twice: **cold**, its
process with an empty cache directory (``NUMBA_CACHE_DIR``: nothing compiled, as on a fresh install), then
**warm**, the same directory again (everything loaded from the cache).

For chess it also starts ``rlgames uci chess`` cold and warm and reports the seconds to ``uciok`` and to
the first ``bestmove`` of ``go movetime 100`` after ``position startpos`` (python-chess allows 10 s):
cold, the engine answers with its fallback while its search compiles in the background
(`rlgames.agents.warmup`).

    python benchmarks/bench_startup.py --json startup.json
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from typing import Any

from common import announce, save_json

import rlgames

FIRST_MOVE = """
import json, sys, time
started = time.perf_counter()
import rlgames
from rlgames.agents.spec import default_spec
from rlgames.agents.warmup import first_decision
game = rlgames.load_game(sys.argv[1])
agent = rlgames.load_agent(default_spec(game), game)
state = first_decision(game)
searched = time.perf_counter()
agent.search(state)
done = time.perf_counter()
print(json.dumps({"first_move_s": done - started, "search_s": done - searched, "spec": default_spec(game)}))
"""


def first_move(game: str, cache: str) -> dict[str, Any]:
    """The first move of ``game`` in a new process whose numba cache is ``cache``."""
    env = {**os.environ, "NUMBA_CACHE_DIR": cache}
    done = subprocess.run([sys.executable, "-c", FIRST_MOVE, game], env=env, capture_output=True, text=True, check=True)
    return json.loads(done.stdout.splitlines()[-1])


def uci_times(cache: str) -> dict[str, float]:
    """Seconds from starting ``rlgames uci chess`` (numba cache ``cache``) to ``uciok`` and to the first
    ``bestmove`` (``go movetime 100`` sent right after ``uciok``)."""
    env = {**os.environ, "NUMBA_CACHE_DIR": cache}
    started = time.perf_counter()
    engine = subprocess.Popen(
        [sys.executable, "-m", "rlgames", "uci", "chess"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert engine.stdin is not None and engine.stdout is not None

    def until(prefix: str) -> float:
        for line in engine.stdout:
            if line.startswith(prefix):
                return time.perf_counter() - started
        raise RuntimeError(f"rlgames uci ended before {prefix}")

    engine.stdin.write("uci\n")
    engine.stdin.flush()
    uciok = until("uciok")
    engine.stdin.write("position startpos\ngo movetime 100\n")
    engine.stdin.flush()
    bestmove = until("bestmove")
    engine.stdin.write("quit\n")
    engine.stdin.flush()
    engine.wait()
    return {"uciok_s": uciok, "bestmove_s": bestmove}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--games",
        nargs="+",
        default=rlgames.list_games(),
        choices=rlgames.list_games(),
        metavar="GAME",
        help="the games (default: all)",
    )
    parser.add_argument("--json", metavar="PATH", help="also write the results to this JSON file")
    args = parser.parse_args(argv)
    machine = announce(argv)
    rows = []
    for game in args.games:
        with tempfile.TemporaryDirectory() as cache:
            cold, warm = first_move(game, cache), first_move(game, cache)
        rows.append({"game": game, "spec": cold["spec"], "cold": cold, "warm": warm})
        print(
            f"{game:12s} {cold['spec']:26s} first move cold {cold['first_move_s']:6.1f} s "
            f"(search {cold['search_s']:5.1f} s), warm {warm['first_move_s']:5.1f} s "
            f"(search {warm['search_s']:.2f} s)",
            flush=True,
        )
    with tempfile.TemporaryDirectory() as cache:
        uci = {"cold": uci_times(cache), "warm": uci_times(cache)}
    print(
        f"rlgames uci chess: uciok cold {uci['cold']['uciok_s']:.1f} s, warm {uci['warm']['uciok_s']:.1f} s; "
        f"first bestmove cold {uci['cold']['bestmove_s']:.1f} s, warm {uci['warm']['bestmove_s']:.1f} s"
    )
    save_json(args.json, {"machine": machine, "games": rows, "uci_chess": uci})


if __name__ == "__main__":
    main()
