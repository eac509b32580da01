"""The parallel seam (`rlgames.parallel`): results in the items' order whatever the number of workers, a
worker's context built once by its setup, and games rebuilt from their registry name (or, outside the
registry, their class)."""

from __future__ import annotations

import operator
import os
import sys

import pytest
from tug import Tug

import rlgames
from rlgames.cli import main
from rlgames.parallel import LOCAL, Backend, LocalPool, fetch, game_recipe, map_ordered, rebuild_game


@pytest.mark.parametrize("workers", [1, 2])
def test_results_come_back_in_the_items_order(workers):
    items = list(range(20))
    results = list(map_ordered(operator.add, items, workers=workers, setup=int, setup_args=("100",)))
    assert results == [100 + i for i in items]


def test_one_worker_runs_on_what_the_caller_built():
    assert list(map_ordered(operator.mul, [1, 2, 3], setup=int, setup_args=("1",), local=10)) == [10, 20, 30]
    with pytest.raises(ValueError, match="workers must be >= 1"):
        list(map_ordered(operator.add, [1], workers=0, setup=int))


def _pid_and_shared(context: int, item: tuple[int, object]) -> tuple[int, int]:
    index, shared = item
    return os.getpid(), context + index + fetch(shared)


def test_a_local_pool_keeps_its_workers_call_after_call():
    """A `LocalPool`'s two processes are started once: a second `map` runs on them again (no third pid), each
    still holding what its setup built, and what the caller `put` reaches the workers with every item."""
    pool = LocalPool(2, int, ("100",))
    try:
        first = list(pool.map(_pid_and_shared, [(i, pool.put(1000)) for i in range(6)]))
        second = list(pool.map(_pid_and_shared, [(i, pool.put(2000)) for i in range(6)]))
    finally:
        pool.close()
    assert [value for _, value in first] == [1100 + i for i in range(6)]
    assert [value for _, value in second] == [2100 + i for i in range(6)]
    pids = {pid for pid, _ in first + second}
    assert len(pids) <= 2 and os.getpid() not in pids  # new processes for the second call would be new pids


def test_games_are_rebuilt_from_their_registry_name_or_their_class():
    nim = rlgames.load_game("nim", heaps=(1, 2, 3))
    assert game_recipe(nim) == ("nim", {"heaps": (1, 2, 3), "misere": False})
    assert rebuild_game(game_recipe(nim)).heaps == (1, 2, 3)
    tug = Tug()
    maker, params = game_recipe(tug)
    assert maker is Tug and isinstance(rebuild_game((maker, params)), Tug)


def test_a_backend_is_local_or_ray_and_only_ray_takes_an_address():
    assert Backend() == LOCAL and Backend("ray", "10.0.0.1:6379").address == "10.0.0.1:6379"
    with pytest.raises(ValueError, match="local or ray"):
        Backend("dask")
    with pytest.raises(ValueError, match="an address is a Ray cluster's"):
        Backend("local", "10.0.0.1:6379")


@pytest.mark.parametrize(
    "argv",
    [
        ["arena", "tic_tac_toe", "random", "random", "--games", "2", "--ray"],
        ["compare", "tic_tac_toe", "--learned", "README.md", "--address", "10.0.0.1:6379"],
    ],
)
def test_ray_missing_is_one_line(monkeypatch, capsys, argv):
    monkeypatch.setitem(sys.modules, "ray", None)  # as if the ray extra were not installed
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "--ray needs Ray: pip install 'rlgames[ray]'" in err and err.count("\n") == 1
