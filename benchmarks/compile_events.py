"""Where the test suite's numba compile time goes: a pytest plugin, and a summary of what it recorded.

Record (each pytest process writes one file; an empty cache shows what CI compiles):

    NUMBA_CACHE_DIR=$(mktemp -d) PYTHONPATH=benchmarks python -m pytest -q -p compile_events \\
        --compile-events /tmp/compile-events

Summarise:

    python benchmarks/compile_events.py /tmp/compile-events

Each ``numba:compile`` event is timed exclusive of the compiles nested in it, and attributed to the test
running at the time. A closure cached by `rlgames.jit.cache.cache_closure` is recorded with its
fingerprint and signature, so that a closure compiled in more than one process (two workers at once, before either
wrote the cache) shows as a repeat. Compiles in subprocesses (engines, match workers) are not seen.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import time
from pathlib import Path
from typing import Any

from numba.core import event

_RECORDS: list[dict[str, Any]] = []
_TEST = ["<collection>"]


class Listener(event.Listener):
    """Appends a record to ``records`` for each compile, timed exclusive of the compiles nested in it."""

    def __init__(self, records: list[dict[str, Any]]) -> None:
        self.records = records
        self.stack: list[list[float]] = []  # [start, time of nested compiles] of each open compile

    def on_start(self, ev: event.Event) -> None:
        self.stack.append([time.perf_counter(), 0.0])

    def on_end(self, ev: event.Event) -> None:
        start, nested = self.stack.pop()
        elapsed = time.perf_counter() - start
        if self.stack:
            self.stack[-1][1] += elapsed
        dispatcher = ev.data["dispatcher"]
        func = dispatcher.py_func
        self.records.append(
            {
                "test": _TEST[0],
                "function": f"{func.__module__}.{func.__qualname__}",
                "seconds": elapsed - nested,
                "inclusive": elapsed,
                "fingerprint": getattr(getattr(dispatcher, "_cache", None), "_fingerprint", None),
                "signature": str(ev.data["args"]),
                "pid": os.getpid(),
            }
        )


def pytest_addoption(parser: Any) -> None:
    parser.addoption("--compile-events", metavar="DIR", help="folder for each process's compile events")


def pytest_configure(config: Any) -> None:
    if config.getoption("--compile-events"):
        event.register("numba:compile", Listener(_RECORDS))


def pytest_runtest_logstart(nodeid: str, location: Any) -> None:
    _TEST[0] = nodeid


def pytest_sessionfinish(session: Any) -> None:
    folder = session.config.getoption("--compile-events")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        (Path(folder) / f"{os.getpid()}.json").write_text(json.dumps(_RECORDS))


def summarise(records: list[dict[str, Any]], top: int) -> None:
    """Prints the compile time by test file, by function and by test, and the repeated closures."""
    print(f"{len(records)} compiles, {sum(r['seconds'] for r in records):.0f} s of compiling")
    for key, label in (("file", "test file"), ("function", "function"), ("test", "test")):
        total: collections.Counter[str] = collections.Counter()
        count: collections.Counter[str] = collections.Counter()
        for r in records:
            name = r["test"].split("::")[0] if key == "file" else r[key]
            total[name] += r["seconds"]
            count[name] += 1
        print(f"\n{'seconds':>8} {'compiles':>8}  {label}")
        for name, seconds in total.most_common(top):
            print(f"{seconds:8.1f} {count[name]:8d}  {name}")
    repeats = collections.defaultdict(list)
    for r in records:
        if r["fingerprint"]:
            repeats[r["fingerprint"], r["signature"]].append(r)
    wasted = [(_repeated_seconds(rs), rs) for rs in repeats.values()]
    wasted = [(seconds, rs) for seconds, rs in wasted if seconds > 0]
    print(f"\n{sum(w for w, _ in wasted):.0f} s of cached closures compiled again (other processes' repeats)")
    for seconds, rs in sorted(wasted, key=lambda item: item[0], reverse=True)[:top]:
        print(f"{seconds:8.1f} {len(rs):8d}  {rs[0]['function']}  first in {rs[0]['test']}")


def _repeated_seconds(records: list[dict[str, Any]]) -> float:
    """The time spent compiling one closure in processes after the first that compiled it.

    A closure compiled twice in one process is a new specialisation's compile (numba decides), not a
    missed cache entry, so only the first compile in each process counts.
    """
    first_by_pid: dict[int, dict[str, Any]] = {}
    for r in records:
        first_by_pid.setdefault(r["pid"], r)
    return sum(r["inclusive"] for r in list(first_by_pid.values())[1:])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path, help="the folder given to --compile-events")
    parser.add_argument("--top", type=int, default=30, help="rows in each table")
    args = parser.parse_args()
    records = [r for f in sorted(args.folder.glob("*.json")) for r in json.loads(f.read_text())]
    summarise(records, args.top)


if __name__ == "__main__":
    main()
