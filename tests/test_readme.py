"""The README's quickstart runs as written, from the repository's root (its checkpoint paths are relative)."""

from __future__ import annotations

import contextlib
import io
import os
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def quickstart() -> str:
    """The first Python block of the README's Quickstart section."""
    text = (ROOT / "README.md").read_text()
    section = text[text.index("## Quickstart") :]
    return re.search(r"```python\n(.*?)```", section, re.DOTALL).group(1)


def test_the_readme_quickstart_runs_and_prints_what_it_says():
    printed = io.StringIO()
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        with contextlib.redirect_stdout(printed):
            exec(compile(quickstart(), "README.md#quickstart", "exec"), {"__name__": "quickstart"})
    finally:
        os.chdir(cwd)
    *board, legal, searched, learned, exact = printed.getvalue().splitlines()
    assert board[-1] == "1 2 3 4 5 6 7" and legal == "0 [0, 1, 2, 3, 4, 5, 6]"
    move, value, nodes = searched.split()
    assert move in ("4", "7") and -1 <= float(value) <= 1 and int(nodes) > 0  # alpha-beta finds a winning move
    assert -1 <= float(learned) <= 1
    assert exact == "1 ['4', '7']"
