"""Test-run settings: every test that names a game runs in the same pytest-xdist worker as the game's
other tests (``--dist loadgroup`` in pyproject.toml), so that each game's compiled search kernels --
numba closures, which are not cached on disk -- are compiled once per run rather than once per worker."""

from __future__ import annotations

import re

import pytest

import rlgames

# the longest names first, each a whole word: "nim" does not match "minimax"
GAME_NAME = re.compile(r"(?<![a-z])(" + "|".join(sorted(rlgames.list_games(), key=len, reverse=True)) + r")(?![a-z])")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if match := GAME_NAME.search(item.nodeid):
            item.add_marker(pytest.mark.xdist_group(match.group(1)))
