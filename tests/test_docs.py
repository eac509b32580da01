"""The documentation's code runs: every Python block that the README or a page under docs/ marks runnable
(an HTML comment line, invisible on the site, just above the block) executes without an error, from the
repository's root, each in a namespace of its own."""

from __future__ import annotations

import ast
import contextlib
import io
import os
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
MARKED = re.compile(r"^<!-- runnable[^\n]*-->\n```python\n(.*?)^```", re.MULTILINE | re.DOTALL)


def runnable_blocks() -> list[tuple[str, int, str]]:
    """(file, block number, code) of every marked block."""
    blocks = []
    for path in [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]:
        for number, match in enumerate(MARKED.finditer(path.read_text())):
            blocks.append((str(path.relative_to(ROOT)), number, match.group(1)))
    return blocks


BLOCKS = runnable_blocks()


def test_the_pages_mark_their_self_contained_blocks():
    marked = {file for file, _, _ in BLOCKS}
    assert {
        "README.md",
        "docs/guide/games.md",
        "docs/guide/agents.md",
        "docs/guide/chess.md",
        "docs/guide/backgammon.md",
        "docs/guide/gymnasium.md",
    } <= marked


@pytest.mark.parametrize("file, number, code", BLOCKS, ids=[f"{file}#{number}" for file, number, _ in BLOCKS])
def test_a_marked_block_runs(file, number, code):
    namespace = {"__name__": f"docs_block_{number}"}
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            exec(compile(code, f"{file}#{number}", "exec"), namespace)
    finally:
        os.chdir(cwd)
    assigned = {
        target.id
        for node in ast.parse(code).body
        if isinstance(node, ast.Assign)
        for target in ast.walk(node)
        if isinstance(target, ast.Name) and isinstance(target.ctx, ast.Store)
    }
    assert assigned and assigned <= set(namespace), f"{file}#{number} did not bind {assigned - set(namespace)}"
