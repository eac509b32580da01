"""The design card's dependency rules: rlgames <- envs, models <- train, and a torch-free core."""

from __future__ import annotations

import ast
import functools
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

import rlgames

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("rlgames", "envs", "models", "train")


@functools.cache  # each test reads every source file, one game or layer at a time
def imports_of(path: Path) -> tuple[tuple[int, str], ...]:
    """``(line, module)`` of every import in ``path``, those inside functions included (``from . import x``
    resolved to the package's name)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found += [(node.lineno, node.module)] + [(node.lineno, f"{node.module}.{a.name}") for a in node.names]
    return tuple(found)


def sources(*folders: str) -> list[Path]:
    return sorted(path for folder in folders for path in (ROOT / folder).rglob("*.py"))


PLOTTING = {"rlgames.arena.plots"}
"""Modules that draw with matplotlib; they load only when a report is drawn."""


def core_modules() -> list[str]:
    return sorted(
        info.name
        for info in pkgutil.walk_packages(rlgames.__path__, "rlgames.")
        if not info.name.endswith("__main__") and info.name not in PLOTTING
    )


def imported_after(modules: list[str]) -> set[str]:
    """The modules loaded by importing ``modules`` in a fresh interpreter."""
    code = (
        "import importlib, sys\n"
        f"for name in {modules!r}: importlib.import_module(name)\n"
        "print(' '.join(sorted(sys.modules)))"
    )
    output = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    return set(output.split())


def loaded(modules: set[str], packages: set[str]) -> set[str]:
    """Which of ``packages`` (dotted names) are among ``modules``."""
    return {
        package for package in packages for module in modules if module == package or module.startswith(package + ".")
    }


def test_the_core_imports_without_torch_or_gymnasium():
    modules = imported_after(core_modules())
    assert not loaded(
        modules, {"torch", "gymnasium", "rlgames.envs", "rlgames.models", "rlgames.train", "tensorboard", "matplotlib"}
    )


@pytest.mark.parametrize(
    "package, forbidden",
    [
        ("rlgames.envs", {"rlgames.models", "rlgames.train", "torch"}),
        ("rlgames.models", {"rlgames.train", "rlgames.envs"}),
    ],
)
def test_dependencies_flow_one_way(package, forbidden):
    assert not loaded(imported_after([package]), forbidden)


NAMING_GAMES = {"rlgames/registry.py", "train/alphazero/config.py", "train/nnue/config.py", "train/td/config.py"}
"""The files outside the games' homes that may name a game: the registry, and the trainers' presets."""
GENERIC = sorted(
    str(path.relative_to(ROOT))
    for path in sources(*PACKAGES)
    if ROOT / "rlgames" / "games" not in path.parents and str(path.relative_to(ROOT)) not in NAMING_GAMES
)
"""Code that must work for any game: it finds what a game provides through the game, never by its name."""


def test_generic_code_never_names_a_game():
    root = Path(__file__).resolve().parents[1]
    names = set(rlgames.list_games())
    files = [
        f
        for entry in GENERIC
        for f in sorted((root / entry).rglob("*.py") if (root / entry).is_dir() else [root / entry])
    ]
    found = []
    for path in files:
        tree = ast.parse(path.read_text())
        docstrings = {
            id(node.body[0].value)
            for node in ast.walk(tree)
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
            and node.body
            and isinstance(node.body[0], ast.Expr)
        }
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and node.value in names and id(node) not in docstrings:
                found.append(f"{path.relative_to(root)}:{node.lineno}: {node.value!r}")
    assert len(files) > 20 and not found, found


def offending(files: list[Path], forbidden, allowed=lambda path, module: False) -> list[str]:
    return [
        f"{path.relative_to(ROOT)}:{line}: {module}"
        for path in files
        for line, module in imports_of(path)
        if any(module == f or module.startswith(f + ".") for f in forbidden) and not allowed(path, module)
    ]


NUMBA_INTERNALS = ("numba.core", "numba.extending", "numba.cpython", "numba.np", "numba.misc", "llvmlite")


def test_numba_internals_are_reached_only_from_jit():
    """`rlgames.jit` is the one place that depends on numba's and llvmlite's internals, so that a numba
    upgrade is fixed there."""
    files = [p for p in sources(*PACKAGES) if ROOT / "rlgames" / "jit" not in p.parents]
    assert len(files) > 100 and not offending(files, NUMBA_INTERNALS), offending(files, NUMBA_INTERNALS)


def game_packages() -> list[str]:
    return sorted(p.name for p in (ROOT / "rlgames" / "games").iterdir() if (p / "__init__.py").is_file())


def test_a_game_is_imported_only_from_its_own_home():
    """Code outside ``rlgames/games/<game>/`` reaches a game through the registry (`load_game`) and the
    game's own pointers (`Game.locate`), never by importing it; a game never imports another."""
    games = game_packages()
    assert set(games) == set(rlgames.list_games())
    found = []
    for game in games:
        home = ROOT / "rlgames" / "games" / game
        files = [p for p in sources(*PACKAGES) if home not in p.parents]
        found += offending(files, [f"rlgames.games.{game}"])
    assert not found, found


LAYERS = {
    "rlgames/jit": ["rlgames"],
    "rlgames/games": [
        "rlgames.search",
        "rlgames.agents",
        "rlgames.arena",
        "rlgames.cli",
        "rlgames.playout",
        "rlgames.analysis",
        "rlgames.play",
    ],
    "rlgames/search": ["rlgames.games", "rlgames.agents", "rlgames.arena", "rlgames.cli", "rlgames.solvers"],
    "rlgames/evaluators": ["rlgames.games", "rlgames.agents", "rlgames.arena", "rlgames.cli"],
}
"""What each layer of the core must not import: the compiled plumbing depends on nothing of rlgames, games
never import algorithms, and algorithms never import a game."""


PROTOCOLS = {"uci.py", "gtp.py"}
"""A game's engine front ends (`Game.protocols`): they run agents for the tools of the game's world."""


@pytest.mark.parametrize("folder", sorted(LAYERS))
def test_layers_import_one_way(folder):
    allowed = {  # a game's solver returns the solvers' record; its protocol engine (`Game.protocols`) drives agents
        "rlgames/games": lambda path, module: (
            module.startswith("rlgames.solvers.result")
            or path.name in PROTOCOLS
            and module.startswith("rlgames.agents")
        ),
        "rlgames/jit": lambda path, module: module.startswith("rlgames.jit"),
    }.get(folder, lambda path, module: False)
    found = offending(sources(folder), LAYERS[folder], allowed)
    assert not found, found


def test_process_pools_are_started_only_by_the_parallel_seam():
    """Parallel work goes through `rlgames.parallel.map_ordered`, where another backend (Ray) plugs in once."""
    files = [p for p in sources(*PACKAGES) if p != ROOT / "rlgames" / "parallel" / "__init__.py"]
    found = offending(files, ["multiprocessing", "concurrent.futures"])
    assert not found, found


def test_the_folders_outside_rlgames_are_imported_as_its_subpackages():
    """``envs/``, ``models/`` and ``train/`` install as ``rlgames.envs``, ``rlgames.models`` and ``rlgames.train``
    (setup.py): nothing imports them by their folder's name, which a user's own ``models.py`` would shadow."""
    files = sources(*PACKAGES, "tests", "benchmarks")
    found = offending(files, ["models", "train", "envs"])
    assert not found, found


def test_a_users_own_models_and_train_do_not_shadow_rlgames(tmp_path):
    """Run from a folder holding its own ``models.py`` and ``train/`` (common in research code): loading a
    network by ``model=``, ``rlgames compare`` and a training run work, and the user's modules stay theirs."""
    (tmp_path / "models.py").write_text("raise ImportError('the user models.py was imported')\n")
    (tmp_path / "train").mkdir()
    (tmp_path / "train" / "__init__.py").write_text("raise ImportError('the user train/ was imported')\n")
    checkpoint = ROOT / "checkpoints" / "tic_tac_toe.pt"
    script = f"""
import rlgames
from rlgames.cli import main
game = rlgames.load_game("tic_tac_toe")
agent = rlgames.load_agent("alphabeta(depth=1, model={checkpoint})", game)
print("move", agent.search(game.new_initial_state()).action)
assert main(["compare", "tic_tac_toe", "--learned", "{checkpoint}", "--depths", "1", "--no-time", "--games", "2",
             "--out", "report", "--no-progress"]) == 0
assert main(["train", "tic_tac_toe", "--trainer", "linear", "--games", "20", "--out", "weights.json"]) == 0
"""
    done = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "move" in done.stdout and (tmp_path / "weights.json").is_file() and (tmp_path / "report").is_dir()
