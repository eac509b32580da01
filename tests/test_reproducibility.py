"""A run is reproducible from its seed whatever the environment: the thread variables unset, set to 1 or
to 2, numba's cache cold or warm. Each case runs a command in a subprocess with its own environment, as a
user's shell would, and compares what it writes bit for bit (rlgames.threads; the NNUE kernels' fast-math
flags, rlgames.evaluators.nnue.FASTMATH)."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from rlgames.threads import THREAD_VARIABLES

ROOT = Path(__file__).resolve().parents[1]
SETTINGS = {"unset": None, "one": "1", "two": "2"}
"""The thread variables' values in each environment (None: unset)."""


def environment(setting: str, cache: Path) -> dict[str, str]:
    """This process's environment with every thread variable as ``setting`` says, numba's cache in ``cache``."""
    env = {name: value for name, value in os.environ.items() if name not in THREAD_VARIABLES}
    if SETTINGS[setting] is not None:
        env |= {name: SETTINGS[setting] for name in THREAD_VARIABLES}
    return env | {"NUMBA_CACHE_DIR": str(cache)}


def run(command: list[str], setting: str, cache: Path) -> None:
    done = subprocess.run(
        command, cwd=ROOT, env=environment(setting, cache), capture_output=True, text=True, timeout=900
    )
    assert done.returncode == 0, done.stderr[-2000:]


def digest(path: Path) -> str:
    """The file's SHA-256; for the linear trainer's JSON, of everything but its wall-clock timings."""
    if path.suffix == ".json":
        record = json.loads(path.read_text())
        record["training"] = {k: v for k, v in record["training"].items() if not k.endswith("_seconds")}
        return hashlib.sha256(json.dumps(record, sort_keys=True).encode()).hexdigest()
    return hashlib.sha256(path.read_bytes()).hexdigest()


def nnue_command(run_dir: Path, *extra: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "rlgames.train.nnue",
        "tic_tac_toe",
        "--generations",
        "2",
        "--set",
        "games=100",
        "--seed",
        "1",
        "--run-dir",
        str(run_dir),
        "--out",
        str(run_dir / "out.pt"),
        *extra,
    ]


# Slow: two trainer processes, the first compiling every kernel from an empty cache (about 50 s). The default
# suite holds the shipped NNUEs' kernel and search values to the bit (tests/test_nnue_values.py), compiled
# afresh on a clean clone and loaded from the cache on a second run.
@pytest.mark.slow
def test_the_nnue_trainer_gives_the_same_bits_with_a_cold_cache_unset_threads_and_a_warm_cache_two_threads(tmp_path):
    """The case that differed: generation 1's labels come from generation 0's network compiled into the
    search, and a kernel loaded from the cache rounded otherwise than one compiled in the process."""
    cache = tmp_path / "numba-cache"
    run(nnue_command(tmp_path / "cold"), "unset", cache)
    run(nnue_command(tmp_path / "warm"), "two", cache)
    assert digest(tmp_path / "cold" / "out.pt") == digest(tmp_path / "warm" / "out.pt")


def trainer_commands(out: Path) -> dict[str, list[str]]:
    """Each trainer, small, writing into ``out``: the file whose bits must not change."""
    return {
        "out.pt": nnue_command(out, "--workers", "2"),
        "alphazero/checkpoint.pt": [
            sys.executable,
            "-m",
            "rlgames.train",
            "tic_tac_toe",
            "--preset",
            "smoke",
            "--iterations",
            "2",
            "--set",
            "selfplay.workers=2",
            "--run-dir",
            str(out / "alphazero"),
        ],
        "td/latest.pt": [
            sys.executable,
            "-m",
            "rlgames.train.td",
            "tic_tac_toe",
            "--preset",
            "smoke",
            "--games",
            "2000",
            "--workers",
            "2",
            "--out",
            str(out / "td"),
        ],
        "linear.json": [
            sys.executable,
            "-m",
            "rlgames.train.linear",
            "connect_four",
            "--preset",
            "smoke",
            "--out",
            str(out / "linear.json"),
        ],
    }


@pytest.mark.slow  # every trainer three times, about five minutes
def test_every_trainer_gives_the_same_bits_whatever_the_thread_settings(tmp_path):
    cache = tmp_path / "numba-cache"
    digests = {}
    for setting in SETTINGS:
        out = tmp_path / setting
        for name, command in trainer_commands(out).items():
            run(command, setting, cache)
            digests.setdefault(name, set()).add(digest(out / name))
    assert {name: found for name, found in digests.items() if len(found) > 1} == {}


@pytest.mark.slow  # a run killed with SIGKILL, resumed, and run whole
def test_an_nnue_run_killed_in_a_generation_resumes_to_the_same_bits(tmp_path):
    cache = tmp_path / "numba-cache"
    run(nnue_command(tmp_path / "whole", "--generations", "3"), "unset", cache)
    killed = tmp_path / "killed"
    process = subprocess.Popen(
        nnue_command(killed, "--generations", "3"),
        cwd=ROOT,
        env=environment("two", cache),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 600
        while not (killed / "latest.nnue.pt").exists():  # generation 0 learnt: kill it playing generation 1
            assert process.poll() is None and time.monotonic() < deadline, "the run ended before it was killed"
            time.sleep(0.02)
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait()
    run(nnue_command(killed, "--generations", "3", "--resume"), "one", cache)
    assert digest(killed / "out.pt") == digest(tmp_path / "whole" / "out.pt")


@pytest.mark.slow  # two arenas in two worker processes each, compiling cold: a minute and a half
def test_an_arena_at_fixed_depth_plays_the_same_games_whatever_the_thread_settings(tmp_path):
    """A torch network (connect_four.pt) and a compiled NNUE, in worker processes: the same games.csv."""
    cache = tmp_path / "numba-cache"
    tables = set()
    for setting in ("unset", "two"):
        out = tmp_path / setting
        run(
            [
                sys.executable,
                "-m",
                "rlgames",
                "arena",
                "connect_four",
                "alphabeta(depth=2, model=checkpoints/connect_four.pt)",
                "alphabeta(depth=3, model=checkpoints/connect_four.nnue.pt)",
                "--games",
                "8",
                "--workers",
                "2",
                "--opening-plies",
                "4",
                "--out",
                str(out),
                "--no-progress",
            ],
            setting,
            cache,
        )
        tables.add((out / "games.csv").read_text())
    assert len(tables) == 1
