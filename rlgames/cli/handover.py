"""Verbs that hand over to another program: ``train`` (``python -m train``) and ``bench`` (a benchmark script)."""

from __future__ import annotations

import argparse
import sys

BENCHMARKS = ("games", "alphabeta", "mcts", "solver")


HANDOVERS = ("train", "bench")
"""Verbs that hand their arguments over to another program."""


def cmd_train(args: argparse.Namespace) -> int:
    """Hands over to ``python -m train`` (the training package, with torch), in its own process."""
    import subprocess

    return subprocess.run([sys.executable, "-m", "train", *args.arguments]).returncode


def cmd_bench(args: argparse.Namespace) -> int:
    """Runs ``benchmarks/bench_NAME.py`` of the source checkout."""
    import subprocess
    from pathlib import Path

    script = Path(__file__).resolve().parents[2] / "benchmarks" / f"bench_{args.name}.py"
    if not script.is_file():
        raise ValueError(f"{script} not found: the benchmarks live in the source checkout, not the installed package")
    return subprocess.run([sys.executable, str(script), *args.arguments]).returncode


def add_handover_verbs(verbs: argparse._SubParsersAction) -> None:
    train = verbs.add_parser("train", help="train a network by self-play (python -m train ...)", add_help=False,
                             description="Hands over to `python -m train`; try `rlgames train --help`.")
    train.add_argument("arguments", nargs="*", help="arguments of python -m train")
    train.set_defaults(run=cmd_train)
    bench = verbs.add_parser("bench", help="run a benchmark against OpenSpiel",
                             description="Runs benchmarks/bench_NAME.py, side by side with OpenSpiel.")
    bench.add_argument("name", choices=BENCHMARKS)
    bench.add_argument("arguments", nargs="*", help="arguments of the benchmark script")
    bench.set_defaults(run=cmd_bench)
