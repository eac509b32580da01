"""benchmarks/compile_events.py times each compile exclusive of the compiles nested in it, and counts a
cached closure compiled in more than one process as a repeat."""

from __future__ import annotations

import sys
from pathlib import Path

from numba import njit
from numba.core import event

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from compile_events import Listener, summarise  # noqa: E402


def test_a_nested_compile_is_timed_apart_and_a_repeated_closure_is_counted(capsys):
    @njit
    def inner(x):
        return x + 1

    @njit
    def outer(x):
        return inner(x) * 2

    records: list[dict] = []
    with event.install_listener("numba:compile", Listener(records)):
        assert outer(1) == 4
    assert [r["function"].rsplit(".", 1)[-1] for r in records] == ["inner", "outer"]  # inner compiles inside outer
    first, second = records
    assert second["inclusive"] >= second["seconds"] + first["seconds"] - 1e-9
    assert first["seconds"] == first["inclusive"]
    repeated = [dict(second, fingerprint="f", pid=pid, inclusive=2.0) for pid in (1, 2, 3, 3)]
    summarise(records + repeated, top=5)
    out = capsys.readouterr().out
    assert out.startswith("6 compiles")
    # the second and third processes' 2 s each; process 3's second compile is its own, not a repeat
    assert "4 s of cached closures compiled again" in out
