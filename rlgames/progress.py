"""A one-line text progress bar, redrawn in place on a stream (stderr by default), for the long verbs
(`rlgames arena`, `analyse`, `accuracy`)."""

from __future__ import annotations

import sys
import time
from typing import Iterable, Iterator, TextIO, TypeVar

T = TypeVar("T")


class ProgressBar:
    """``update(done)`` redraws ``[#####.....] done/total label, elapsed`` (with an estimate of the time
    left once something is done); ``close()`` ends the line."""

    def __init__(self, total: int, label: str = "games", width: int = 30, stream: TextIO | None = None) -> None:
        self.total = max(total, 1)
        self.label = label
        self.width = width
        self.stream = stream if stream is not None else sys.stderr
        self.start = time.perf_counter()

    def update(self, done: int) -> None:
        filled = self.width * min(done, self.total) // self.total
        bar = "#" * filled + "." * (self.width - filled)
        elapsed = time.perf_counter() - self.start
        left = f", {elapsed * (self.total - done) / done:.0f} s left" if 0 < done < self.total else ""
        self.stream.write(f"\r[{bar}] {done}/{self.total} {self.label}, {elapsed:.0f} s{left} ")
        self.stream.flush()

    def close(self) -> None:
        self.stream.write("\n")
        self.stream.flush()


def track(items: Iterable[T], total: int, *, label: str, enabled: bool = True,
          stream: TextIO | None = None) -> Iterator[T]:
    """Yields ``items``, redrawing a `ProgressBar` after each when ``enabled``."""
    if not enabled:
        yield from items
        return
    bar = ProgressBar(total, label, stream=stream)
    bar.update(0)
    try:
        for done, item in enumerate(items, 1):
            yield item
            bar.update(done)
    finally:
        bar.close()
