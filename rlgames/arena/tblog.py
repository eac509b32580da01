"""TensorBoard logging of arena results, with tensorboard's own event writer (no torch).

Tags: ``arena/elo/<player>``, ``arena/elo_lower/<player>`` and ``arena/elo_upper/<player>``, and
``arena/sprt_llr`` for a match with an SPRT; player names are made tag-safe (``alphabeta(depth=4)``
becomes ``alphabeta_depth=4_``). tensorboard is imported only when logging.
"""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rlgames.arena.tournament import ArenaResult


def tag_safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.=#-]", "_", name)


def arena_scalars(result: ArenaResult) -> dict[str, float]:
    """Every scalar logged, by tag."""
    elo = result.elo
    scalars = {}
    for i, name in enumerate(result.names):
        for kind, values in (("elo", elo.ratings), ("elo_lower", elo.lower), ("elo_upper", elo.upper)):
            scalars[f"arena/{kind}/{tag_safe(name)}"] = values[i]
    if result.sprt is not None:
        scalars["arena/sprt_llr"] = result.sprt.llr
    return scalars


def log_to_tensorboard(result: ArenaResult, logdir: str | Path, step: int = 0) -> None:
    """Appends the arena's scalars at ``step`` to a new event file in ``logdir``."""
    from tensorboard.compat.proto import event_pb2, summary_pb2
    from tensorboard.summary.writer.event_file_writer import EventFileWriter

    writer = EventFileWriter(str(logdir))
    values = [summary_pb2.Summary.Value(tag=tag, simple_value=value) for tag, value in arena_scalars(result).items()]
    writer.add_event(event_pb2.Event(wall_time=time.time(), step=step, summary=summary_pb2.Summary(value=values)))
    writer.close()
