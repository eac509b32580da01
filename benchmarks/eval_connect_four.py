"""How exactly does a connect four network play? Issue 43's measurements, against the exact solver.

Four measurements of one checkpoint, on the labelled files of ``benchmarks/data/`` (sampled from varied
games and solved once, `rlgames positions`; docs/research/selfplay-efficiency.md says how):

- whole games: from each won or drawn position of ``connect_four_whole_games.jsonl``, the agent plays the
  side to move to the end against the exact solver (its optimal replies drawn at random, seeded), with
  MCTS of 200 simulations and with alpha-beta at depth 6, the network their evaluation; a game counts when
  the position's result is kept;
- per move: on ``connect_four_positions.jsonl``, how often MCTS of 200 simulations and the raw policy play a
  move that keeps the position's result, overall, on the decisive and the drawn positions, and by stage.

Each is what ``rlgames accuracy`` prints for the same agent and file; this script runs them side by side
(``--workers`` processes), sets each figure beside its target, and writes them as one record::

    python benchmarks/eval_connect_four.py checkpoints/connect_four.pt --workers 2 \\
        --json benchmarks/results/connect_four_accuracy.json
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import rlgames
from rlgames.parallel import map_ordered

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import announce, save_json

DATA = Path(__file__).resolve().parent / "data"
WHOLE_GAMES = DATA / "connect_four_whole_games.jsonl"
POSITIONS = DATA / "connect_four_positions.jsonl"


@dataclass(frozen=True)
class Measurement:
    """One of the four measurements: an agent on a file, whole games or move by move."""

    id: str
    """The record's key."""
    agent: str
    """The agent spec, ``{model}`` standing for the checkpoint."""
    whole_games: bool
    """Whole games against the solver (else one move a position)."""
    target: float
    """The issue's target for the share of all games or positions."""
    decisive_target: float | None = None
    """The target for the decisive positions, where the issue sets one."""


MEASUREMENTS = (
    Measurement("whole-games-mcts", "mcts(simulations=200, model={model})", True, 0.90),
    Measurement("whole-games-alphabeta", "alphabeta(depth=6, model={model})", True, 0.80),
    Measurement("per-move-mcts", "mcts(simulations=200, model={model})", False, 0.98, decisive_target=0.95),
    Measurement("per-move-policy", "policy(model={model})", False, 0.95),
)


PARTS = ("all", "won", "decisive", "drawn")
"""The parts of a record that are shares."""


def share(kept: int, total: int) -> dict[str, Any]:
    """A part's count, as the record holds it."""
    return {"kept": kept, "of": total, "share": round(kept / total, 4) if total else None}


def summary(record: dict[str, Any]) -> str:
    """One line: the shares of each part, and the target."""
    parts = [f"{k} {v['kept']}/{v['of']} = {v['share']:.1%}" for k, v in record.items() if k in PARTS and v["of"]]
    verdict = "met" if record["met"] else "short of"
    return f"{', '.join(parts)}  ({verdict} {record['target']:.0%}; {record['seconds']:.0f} s)"


def measure(checkpoint: str, item: tuple[Measurement, int, int | None]) -> dict[str, Any]:
    """Runs one measurement (in a worker): its counts, its targets and the seconds it took."""
    from rlgames.analysis import measure_accuracy
    from rlgames.arena.positions import read_position_file
    from rlgames.arena.whole_games import play_whole_games
    from rlgames.cli.common import seeded_agent

    measurement, seed, limit = item
    game = rlgames.load_game("connect_four")
    spec = measurement.agent.format(model=checkpoint)
    agent = seeded_agent(spec, game, seed)
    path = WHOLE_GAMES if measurement.whole_games else POSITIONS
    positions = read_position_file(str(path), game)[:limit]
    start = time.perf_counter()
    record: dict[str, Any] = {"agent": spec, "positions": str(path.relative_to(DATA.parent.parent))}
    if measurement.whole_games:
        played = play_whole_games(game, agent, positions, seed=seed)
        for label, part in (("all", played), ("won", played.starting(1)), ("drawn", played.starting(0))):
            record[label] = share(part.kept, len(part.games))
    else:
        accuracy = measure_accuracy(game, agent, positions, truth="labels")
        for label, part in (("all", accuracy), ("decisive", accuracy.decisive()), ("drawn", accuracy.drawn())):
            record[label] = share(part.optimal_moves, part.positions)
        record["stages"] = {label: share(part.optimal_moves, part.positions) for label, part in accuracy.by_stage()}
    record["seconds"] = round(time.perf_counter() - start, 1)
    record["target"] = measurement.target
    met = record["all"]["share"] >= measurement.target
    if measurement.decisive_target is not None:
        record["decisive_target"] = measurement.decisive_target
        met = met and record["decisive"]["share"] >= measurement.decisive_target
    record["met"] = met
    return record


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("checkpoint")
    parser.add_argument("--only", nargs="+", choices=[m.id for m in MEASUREMENTS], help="these measurements only")
    parser.add_argument("--seed", type=int, default=0, help="the agents' and the solver's seed (default 0)")
    parser.add_argument("--limit", type=int, help="the first LIMIT positions of each file (a quick look)")
    parser.add_argument("--workers", type=int, default=1, help="processes, one measurement each at a time")
    parser.add_argument("--json", help="write the record here")
    args = parser.parse_args(argv)
    machine = announce(argv)
    chosen = [m for m in MEASUREMENTS if not args.only or m.id in args.only]
    # the slowest first, so that the workers finish together
    chosen.sort(key=lambda m: (not m.whole_games, "alphabeta" not in m.agent))
    items = [(m, args.seed, args.limit) for m in chosen]
    records = map_ordered(measure, items, workers=args.workers, setup=the_checkpoint, setup_args=(args.checkpoint,))
    results = {}
    for measurement, record in zip(chosen, records):
        results[measurement.id] = record
        print(f"{measurement.id:<22} {summary(record)}")
    record = {
        "checkpoint": args.checkpoint,
        "sha256": hashlib.sha256(Path(args.checkpoint).read_bytes()).hexdigest(),
        "seed": args.seed,
        "limit": args.limit,
        "machine": machine,
        "measurements": results,
    }
    save_json(args.json, record)


def the_checkpoint(checkpoint: str) -> str:
    """A worker's context: the checkpoint's path (each measurement loads its own agent)."""
    return checkpoint


if __name__ == "__main__":
    main()
