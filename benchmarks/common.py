"""What every benchmark reports beside its numbers: the machine, and the median and range over runs."""

from __future__ import annotations

import json
import os
import platform
import random
import statistics
import sys
from typing import Any, Callable, Sequence, TypeVar

import numpy as np

import rlgames

T = TypeVar("T")


def cpu_model() -> str:
    """The CPU's model name as ``lscpu`` shows it (from /proc/cpuinfo), else what `platform` knows."""
    try:
        with open("/proc/cpuinfo") as handle:
            for line in handle:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def machine_info() -> dict[str, Any]:
    """Enough about the machine and the libraries to compare runs."""
    from importlib.metadata import version

    import numba

    return {
        "python": platform.python_version(),
        "platform": platform.platform(),
        "processor": cpu_model(),
        "cpu_count": os.cpu_count(),
        "load_average": list(os.getloadavg()) if hasattr(os, "getloadavg") else None,
        "numpy": np.__version__,
        "numba": numba.__version__,
        "open_spiel": version("open_spiel"),
        "rlgames": rlgames.__version__,
    }


def announce(argv: Sequence[str] | None) -> dict[str, Any]:
    """Prints the command line and the machine it runs on; returns `machine_info`."""
    print("$ python " + " ".join([sys.argv[0], *(argv if argv is not None else sys.argv[1:])]))
    machine = machine_info()
    print(f"{machine['processor']}, {machine['cpu_count']} CPUs, load average {machine['load_average']}")
    return machine


def command_line(script: str, argv: Sequence[str] | None) -> str:
    """The command that ran the benchmark ``script`` (its ``__file__``) with ``argv`` (None: the process's
    own arguments), as a record gives it: ``python benchmarks/NAME.py ARGS``."""
    args = argv if argv is not None else sys.argv[1:]
    return " ".join([f"python benchmarks/{os.path.basename(script)}", *args])


def save_json(path: str | None, record: dict[str, Any]) -> None:
    """Writes ``record`` to ``path`` (nothing when it is None) and says so."""
    if path:
        with open(path, "w") as f:
            json.dump(record, f, indent=2)
        print(f"\nwrote {path}")


def spread(values: list[float], fmt: str | Callable[[float], str]) -> str:
    """``median M, range [LOW, HIGH]`` of ``values``, each written with the format spec or function ``fmt``."""
    show = fmt if callable(fmt) else (lambda x: format(x, fmt))
    return f"median {show(statistics.median(values))}, range [{show(min(values))}, {show(max(values))}]"


def repeat_runs(
    runs: int, measure: Callable[[int], T], table: Callable[[T], str], summary: Callable[[list[T]], str]
) -> list[T]:
    """``measure(index)`` run ``runs`` times, each run's ``table`` printed after it and, with several
    runs, the ``summary`` of them all at the end; returns the runs."""
    results = []
    for index in range(runs):
        results.append(measure(index))
        print(f"\nrun {index + 1} of {runs}" if runs > 1 else "")
        print(table(results[-1]), flush=True)
    if runs > 1:
        print()
        print(summary(results))
    return results


def each(names: Sequence[str], measure: Callable[[str], T], index: int, runs: int) -> list[T]:
    """``measure(name)`` for every name, saying when each is done (and which run it belongs to)."""
    rows = []
    for name in names:
        rows.append(measure(name))
        print(f"done: {name}" + (f" (run {index + 1} of {runs})" if runs > 1 else ""), flush=True)
    return rows


def random_positions(game: rlgames.Game, count: int, seed: int, min_plies: int, max_plies: int) -> list[list[int]]:
    """The start and ``count - 1`` non-terminal positions reached by random moves, as action lists."""
    rng = random.Random(seed)
    lines: list[list[int]] = [[]]
    while len(lines) < count:
        state, line = game.new_initial_state(), []
        for _ in range(rng.randint(min_plies, max_plies)):
            action = rng.choice(state.legal_actions())
            state = state.apply(action)
            line.append(action)
            if state.is_terminal():
                break
        if not state.is_terminal():
            lines.append(line)
    return lines
