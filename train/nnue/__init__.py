"""NNUE training by alpha-beta self-play, as Stockfish's data is made: `config` (`NNUEConfig` and the
presets), `data` (the positions of a generation's games, played in one or several processes), `learn`
(the losses and a window's learning), `run` (generation after generation, with matches and checkpoints)
and `cli` (``python -m rlgames.train.nnue``)."""

from rlgames.train.nnue.cli import main, make_config, parse_args
from rlgames.train.nnue.config import PRESETS, NNUEConfig
from rlgames.train.nnue.learning import (
    held_out,
    learn,
    learn_generation,
    new_network,
    relearn,
    value_loss,
)
from rlgames.train.nnue.run import Run

__all__ = [
    "NNUEConfig",
    "PRESETS",
    "Run",
    "held_out",
    "learn",
    "learn_generation",
    "main",
    "make_config",
    "new_network",
    "parse_args",
    "relearn",
    "value_loss",
]
