"""The one seam for parallel work: the arena's games, NNUE, TD and AlphaZero self-play, and any other work
that splits into independent items runs through `map_ordered`, on one of two backends (`Backend`): a pool
of local processes, or Ray's actors on this machine or a cluster (`rlgames.parallel.ray_pool`, an optional
extra: ``pip install rlgames[ray]``).

A worker builds what it needs once, by ``setup(*setup_args)`` (a game from its registry name and
parameters, `game_recipe` and `rebuild_game`; the agents of a match), and then runs ``work(context, item)``
for the items it is given; results come back in the items' order, so a seeded run gives the same results
with any number of workers and on either backend. Local processes are spawned (not forked): each compiles
or loads from numba's cache what it runs.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any, TypeVar

from rlgames.game import Game
from rlgames.registry import game_class, list_games, load_game
from rlgames.threads import pin_threads

Item = TypeVar("Item")
Result = TypeVar("Result")

_context: Any = None
"""A pool worker's context, built once by `_set_up`."""


@dataclass(frozen=True)
class Backend:
    """Where `map_ordered` runs its workers."""

    kind: str = "local"
    """``"local"``: spawned processes of this machine; ``"ray"``: Ray actors (`rlgames.parallel.ray_pool`)."""
    address: str | None = None
    """With Ray, the cluster to join (``ray.init(address=...)``); None: ``RAY_ADDRESS`` if set, else a Ray
    started on this machine for the run."""

    def __post_init__(self) -> None:
        if self.kind not in ("local", "ray"):
            raise ValueError(f"a parallel backend is local or ray, got {self.kind!r}")
        if self.address is not None and self.kind != "ray":
            raise ValueError("an address is a Ray cluster's: give it with the ray backend")


LOCAL = Backend()
"""Local processes: the default."""


def map_ordered(
    work: Callable[[Any, Item], Result],
    items: Sequence[Item],
    *,
    workers: int = 1,
    setup: Callable[..., Any],
    setup_args: tuple = (),
    local: Any = None,
    backend: Backend = LOCAL,
) -> Iterator[Result]:
    """``work(context, item)`` for each of ``items``, yielded in their order. With ``workers`` 1 on the local
    backend it runs in this process, on ``local`` if given (what the caller built already) else on
    ``setup(*setup_args)``; otherwise in ``workers`` spawned processes or Ray actors, each with its own
    ``setup(*setup_args)``. ``work``, ``setup`` and their arguments are pickled: module-level functions and
    plain data. Closing the iterator early cancels the items not yet started."""
    if workers < 1:
        raise ValueError(f"workers must be >= 1, got {workers}")
    if backend.kind == "ray":
        from rlgames.parallel.ray_pool import map_on_ray  # Ray is imported only when asked for

        yield from map_on_ray(work, items, workers=workers, setup=setup, setup_args=setup_args, address=backend.address)
        return
    if workers == 1:
        context = local if local is not None else setup(*setup_args)
        for item in items:
            yield work(context, item)
        return
    pool = LocalPool(workers, setup, setup_args)
    try:
        yield from pool.map(work, items)
    finally:
        pool.close()


class LocalPool:
    """``workers`` spawned processes that live until `close`, running item after item, call after call of `map`
    (the local twin of `rlgames.parallel.ray_pool.RayPool`): what they build once (a game, a network, the
    compiled searches, oneDNN's kernels for each batch shape) serves a whole run, not one call. What every item
    of a call shares goes through `put`, and a worker reads it with `fetch`, as on Ray."""

    def __init__(self, workers: int, setup: Callable[..., Any], setup_args: tuple) -> None:
        self.executor = ProcessPoolExecutor(
            workers, mp_context=multiprocessing.get_context("spawn"), initializer=_set_up, initargs=(setup, setup_args)
        )

    def put(self, value: Any) -> Stored:
        """``value``, to travel in the items (pickled with each)."""
        return Stored(value)

    def map(self, work: Callable[[Any, Item], Result], items: Sequence[Item]) -> Iterator[Result]:
        """``work(context, item)`` for each of ``items`` on the workers, yielded in the items' order; closing the
        iterator early cancels the items not yet started."""
        futures = [self.executor.submit(_run, work, item) for item in items]
        try:
            for future in futures:
                yield future.result()
        finally:
            for future in futures:
                future.cancel()

    def close(self) -> None:
        """Ends the workers."""
        self.executor.shutdown(cancel_futures=True)


@dataclass(frozen=True)
class Stored:
    """A value a `LocalPool` sends in its items."""

    value: Any


def fetch(reference: Any) -> Any:
    """In a worker, the value a pool's ``put`` returned ``reference`` for: a `LocalPool`'s travels in the item,
    a `rlgames.parallel.ray_pool.RayPool`'s is read from Ray's object store."""
    if isinstance(reference, Stored):
        return reference.value
    import ray

    return ray.get(reference)


def _set_up(setup: Callable[..., Any], setup_args: tuple) -> None:
    global _context
    _context = set_up_worker(setup, setup_args)


def set_up_worker(setup: Callable[..., Any], setup_args: tuple) -> Any:
    """A worker's context, on either backend: its threads pinned as the parent's were (a worker started by a
    library user's process is pinned too), then ``setup(*setup_args)``."""
    pin_threads()
    return setup(*setup_args)


def _run(work: Callable[[Any, Any], Any], item: Any) -> Any:
    return work(_context, item)


GameRecipe = tuple[str | type[Game], dict[str, Any]]


def game_recipe(game: Game) -> GameRecipe:
    """How a worker rebuilds ``game``: its registry name and parameters, or, for a game outside the
    registry (a test's), its class (pickled by reference) and parameters."""
    registered = game.name in list_games() and type(game) is game_class(game.name)
    return (game.name if registered else type(game)), dict(game.params)


def rebuild_game(recipe: GameRecipe) -> Game:
    """The game of a `game_recipe`."""
    maker, params = recipe
    return load_game(maker, **params) if isinstance(maker, str) else maker(**params)
