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


GENERIC = ["rlgames/search", "rlgames/arena", "rlgames/agents", "rlgames/evaluators/__init__.py",
           "rlgames/evaluators/base.py", "rlgames/evaluators/rollout.py", "rlgames/solvers/__init__.py",
           "rlgames/solvers/exhaustive.py", "rlgames/analysis.py", "train/evaluate.py", "train/selfplay.py",
           "train/trainer.py", "train/learner.py", "train/replay.py", "envs/base.py", "envs/game_env.py",
           "envs/self_play_env.py", "models/evaluator.py", "models/networks.py"]
"""Code that must work for any game: it finds what a game provides through the game, never by its name."""


def test_generic_code_never_names_a_game():
    import ast
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    names = set(rlgames.list_games())
    files = [f for entry in GENERIC for f in sorted((root / entry).rglob("*.py") if (root / entry).is_dir()
                                                   else [root / entry])]
    found = []
    for path in files:
        tree = ast.parse(path.read_text())
        docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                      if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                      and node.body and isinstance(node.body[0], ast.Expr)}
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and node.value in names and id(node) not in docstrings:
                found.append(f"{path.relative_to(root)}:{node.lineno}: {node.value!r}")
    assert len(files) > 20 and not found, found
