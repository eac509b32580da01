"""Verbs that hand over to another program: ``train`` (a trainer, ``python -m rlgames.train[.nnue|.td|.linear]``) and
``bench`` (a benchmark script)."""

from __future__ import annotations

import argparse
import sys

BENCHMARKS = ("games", "alphabeta", "mcts", "solver")


HANDOVERS = ("train", "bench")
"""Verbs that hand their arguments over to another program."""


TRAINERS = {
    "alphazero": "rlgames.train",
    "nnue": "rlgames.train.nnue",
    "td": "rlgames.train.td",
    "linear": "rlgames.train.linear",
}
"""``rlgames train --trainer NAME`` -> the trainer's module: AlphaZero self-play (the default), NNUE by
alpha-beta self-play, TD(lambda) self-play, linear weights fitted to self-play."""


def cmd_train(args: argparse.Namespace) -> int:
    """Hands over to the trainer ``--trainer`` names (the training package, with torch), in its own
    process, with the other arguments."""
    import subprocess

    trainer, rest = _trainer(list(args.arguments))
    return subprocess.run([sys.executable, "-m", TRAINERS[trainer], *rest]).returncode


def _trainer(arguments: list[str]) -> tuple[str, list[str]]:
    """The ``--trainer`` among ``arguments`` (default ``alphazero``) and the arguments without it."""
    trainer, rest = "alphazero", []
    while arguments:
        word = arguments.pop(0)
        if word == "--trainer" or word.startswith("--trainer="):
            trainer = word.partition("=")[2] or (arguments.pop(0) if arguments else "")
        else:
            rest.append(word)
    if trainer not in TRAINERS:
        raise ValueError(f"unknown trainer {trainer!r}; the trainers: {', '.join(TRAINERS)}")
    return trainer, rest


def cmd_bench(args: argparse.Namespace) -> int:
    """Runs ``benchmarks/bench_NAME.py`` of the source checkout."""
    import subprocess
    from pathlib import Path

    script = Path(__file__).resolve().parents[2] / "benchmarks" / f"bench_{args.name}.py"
    if not script.is_file():
        raise ValueError(f"{script} not found: the benchmarks live in the source checkout, not the installed package")
    return subprocess.run([sys.executable, str(script), *args.arguments]).returncode


def add_handover_verbs(verbs: argparse._SubParsersAction) -> None:
    train = verbs.add_parser(
        "train",
        help="train by self-play: --trainer alphazero (default), nnue, td or linear",
        add_help=False,
        description="Hands over to the trainer: `rlgames train GAME --trainer "
        "nnue ...` runs `python -m rlgames.train.nnue GAME ...`; try `rlgames train --trainer "
        "nnue --help`.",
    )
    train.add_argument("arguments", nargs="*", help="--trainer NAME, and the trainer's own arguments")
    train.set_defaults(run=cmd_train)
    bench = verbs.add_parser(
        "bench",
        help="run a benchmark against OpenSpiel",
        description="Runs benchmarks/bench_NAME.py, side by side with OpenSpiel.",
    )
    bench.add_argument("name", choices=BENCHMARKS)
    bench.add_argument("arguments", nargs="*", help="arguments of the benchmark script")
    bench.set_defaults(run=cmd_bench)
