"""`map_ordered` on Ray: one actor per worker, on this machine or across a cluster.

Each actor builds its context once (``setup(*setup_args)``, as a local worker does) and then runs the items
it is sent. At most ``IN_FLIGHT`` items wait on each actor (``ray.wait`` takes the first to finish), so the
work in flight, and the results held back until those before them are in, stay bounded whatever the number
of items. The items' results are yielded in the items' order: the same results as the local backend.

**Faults.** An actor whose process dies (a machine lost, ``kill -9``) is restarted by Ray (``max_restarts``:
it builds its context again) and the items it held are sent again, to whichever actor is free: each item is
a pure function of its own data (a game's seed), so its result is the same and is counted once. Ray's own
retries are off (actor tasks are at-most-once): the pool decides what is replayed. This pool does not use
``ray.util.ActorPool``, which wedges once one of its actors has died.

**numba.** Compiled functions are not shipped between processes: every actor compiles, or loads from the
numba cache on its machine, what it runs, as a local worker does; callers warm the cache in the driver first
(`rlgames.arena.tournament` compiles each agent before starting its workers).
"""

from __future__ import annotations

import os
import signal
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

from rlgames.parallel import set_up_worker

Item = TypeVar("Item")
Result = TypeVar("Result")

IN_FLIGHT = 2
"""Items sent to an actor at once: one running and one waiting, so that an actor never idles between items."""
MAX_RESTARTS = 8
"""How often Ray restarts one actor whose process died before the run gives up."""


class Worker:
    """An actor: the context built once, then ``run(work, item)`` for each item it is sent."""

    def __init__(self, setup: Callable[..., Any], setup_args: tuple) -> None:
        self.context = set_up_worker(setup, setup_args)

    def run(self, work: Callable[[Any, Any], Any], item: Any) -> Any:
        return work(self.context, item)

    def pid(self) -> int:
        """The actor's process id (the fault tests kill it)."""
        return os.getpid()


def start_ray(address: str | None = None) -> Any:
    """The ``ray`` module, connected: to ``address``, else to ``RAY_ADDRESS``, else to a Ray started here for
    this process (its logs not echoed). A missing Ray is one line saying how to install it. A SIGTERM handler
    the caller installed stays (``ray.init`` puts ``sys.exit`` in its place: a trainer's own handler stops it at
    a checkpoint, resumable)."""
    try:
        import ray
    except ImportError:
        raise RuntimeError("the ray backend needs Ray: pip install 'rlgames[ray]'") from None
    if not ray.is_initialized():
        handler = signal.getsignal(signal.SIGTERM)
        try:
            ray.init(address=address, include_dashboard=False, log_to_driver=False, configure_logging=False)
        except ConnectionError as error:
            auth = "" if os.environ.get("RAY_AUTH_MODE") else "; a Ray 2.59+ cluster also needs RAY_AUTH_MODE=token"
            raise ConnectionError(f"{error}{auth} (docs/guide/scaling.md)") from None
        if callable(handler) and signal.getsignal(signal.SIGTERM) is not handler:
            signal.signal(signal.SIGTERM, handler)
    return ray


def start_actors(ray: Any, workers: int, setup: Callable[..., Any], setup_args: tuple) -> list[Any]:
    """``workers`` actors of one CPU each, restarted when their process dies."""
    actor = ray.remote(num_cpus=1, max_restarts=MAX_RESTARTS, max_task_retries=0)(Worker)
    return [actor.remote(setup, setup_args) for _ in range(workers)]


class RayPool:
    """``workers`` actors (`start_actors`) that live until `close`, running item after item, call after call of
    `map`: what they build once (a game, a network) serves a whole run, not one call. What every item of a
    call shares (a network's weights) goes to Ray's object store once (`put`) and travels in the items as a
    reference, which an actor fetches with ``ray.get``."""

    def __init__(self, workers: int, setup: Callable[..., Any], setup_args: tuple, address: str | None = None) -> None:
        self.ray = start_ray(address)
        self.actors = start_actors(self.ray, workers, setup, setup_args)

    def put(self, value: Any) -> Any:
        """A reference to ``value``, stored once in Ray's object store (freed once no item holds it)."""
        return self.ray.put(value)

    def map(self, work: Callable[[Any, Item], Result], items: Sequence[Item]) -> Iterator[Result]:
        """``work(context, item)`` for each of ``items`` on the actors, yielded in the items' order (see the
        module: bounded, and an item whose actor died is played again)."""
        return _ordered(self.ray, self.actors, work, items)

    def close(self) -> None:
        """Ends the actors."""
        for actor in self.actors:
            self.ray.kill(actor)


def map_on_ray(
    work: Callable[[Any, Item], Result],
    items: Sequence[Item],
    *,
    workers: int,
    setup: Callable[..., Any],
    setup_args: tuple,
    address: str | None = None,
) -> Iterator[Result]:
    """`rlgames.parallel.map_ordered` on ``workers`` Ray actors that live for this call (see the module)."""
    pool = RayPool(workers, setup, setup_args, address)
    try:
        yield from pool.map(work, items)
    finally:
        pool.close()


def _ordered(ray: Any, actors: list[Any], work: Callable[[Any, Any], Any], items: Sequence[Any]) -> Iterator[Any]:
    waiting = deque(range(len(items)))  # the items not sent yet, and those to send again
    sent: dict[Any, tuple[int, int]] = {}  # a pending result -> (its actor, its item)
    load = [0] * len(actors)
    done: dict[int, Any] = {}
    next_out = failures = 0
    while next_out < len(items):
        for depth in range(1, IN_FLIGHT + 1):  # an item to every actor before a second to any
            for a in range(len(actors)):
                if load[a] < depth and waiting:
                    index = waiting.popleft()
                    sent[actors[a].run.remote(work, items[index])] = (a, index)
                    load[a] += 1
        (ready,), _ = ray.wait(list(sent), num_returns=1)
        a, index = sent.pop(ready)
        load[a] -= 1
        try:
            done[index] = ray.get(ready)
        except ray.exceptions.RayTaskError as error:  # the work itself failed: its own error, as locally
            raise (error.cause if isinstance(error.cause, Exception) else error) from None
        except (ray.exceptions.RayActorError, ray.exceptions.ActorUnavailableError):
            failures += 1  # its actor died: Ray restarts it, and the item is played again
            if failures > MAX_RESTARTS * len(actors):
                raise RuntimeError(f"Ray's workers died {failures} times: giving up") from None
            waiting.appendleft(index)
        while next_out in done:
            yield done.pop(next_out)
            next_out += 1
