"""A one-line text progress bar, redrawn in place on a stream (stderr by default)."""

from __future__ import annotations

import sys
from typing import TextIO


class ProgressBar:
    """``update(done)`` redraws ``label [#####.....] done/total``; ``close()`` ends the line."""

    def __init__(self, total: int, label: str = "games", width: int = 30, stream: TextIO | None = None) -> None:
        self.total = max(total, 1)
        self.label = label
        self.width = width
        self.stream = stream if stream is not None else sys.stderr

    def update(self, done: int) -> None:
        filled = self.width * done // self.total
        bar = "#" * filled + "." * (self.width - filled)
        self.stream.write(f"\r[{bar}] {done}/{self.total} {self.label}")
        self.stream.flush()

    def close(self) -> None:
        self.stream.write("\n")
        self.stream.flush()
