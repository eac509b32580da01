"""Logging: TensorBoard events under the run directory (``RUN/tb``, ``tensorboard --logdir runs``) and
progress lines. A trainer logs its config as text (``config``) and its scalars by namespaced tags
(``loss/...``, ``selfplay/...``, ``eval/...``) at a step that counts its completed work; it logs a step
after that step's checkpoint is written, so a resumed run (which appends a new event file) never repeats
a step.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Callable, Mapping

from torch.utils.tensorboard import SummaryWriter


class RunLogger:
    """Writes TensorBoard events into ``run_dir / "tb"`` and progress lines through ``echo``."""

    def __init__(self, run_dir: Path, echo: Callable[[str], None] = print) -> None:
        self.writer = SummaryWriter(log_dir=str(run_dir / "tb"))
        self.echo = echo

    def config(self, config: Mapping, step: int) -> None:
        text = json.dumps(config, indent=2)
        self.writer.add_text("config", "    " + text.replace("\n", "\n    "), step)  # markdown code block

    def scalars(self, values: Mapping[str, float], step: int) -> None:
        for tag, value in values.items():
            self.writer.add_scalar(tag, value, step)
        self.writer.flush()

    def close(self) -> None:
        self.writer.close()
