"""The design card's dependency rules: rlgames <- envs, models <- train, and a torch-free core."""

from __future__ import annotations

import pkgutil
import subprocess
import sys

import pytest

import rlgames


PLOTTING = {"rlgames.arena.plots"}
"""Modules that draw with matplotlib; they load only when a report is drawn."""


def core_modules() -> list[str]:
    return sorted(info.name for info in pkgutil.walk_packages(rlgames.__path__, "rlgames.")
                  if not info.name.endswith("__main__") and info.name not in PLOTTING)


def imported_after(modules: list[str]) -> set[str]:
    """The top-level packages loaded by importing ``modules`` in a fresh interpreter."""
    code = ("import importlib, sys\n"
            f"for name in {modules!r}: importlib.import_module(name)\n"
            "print(' '.join(sorted({m.split('.')[0] for m in sys.modules})))")
    output = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    return set(output.split())


def test_the_core_imports_without_torch_or_gymnasium():
    loaded = imported_after(core_modules())
    assert not loaded & {"torch", "gymnasium", "envs", "models", "train", "tensorboard", "matplotlib"}


@pytest.mark.parametrize("package, forbidden", [("envs", {"models", "train", "torch"}), ("models", {"train", "envs"})])
def test_dependencies_flow_one_way(package, forbidden):
    assert not imported_after([package]) & forbidden
