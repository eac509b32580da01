"""TD(lambda) self-play of an NNUE's value path, as TD-Gammon: `config` (`TDConfig` and the presets),
`network` (the parameters as the compiled kernels hold them), `kernels` (the compiled games, updates and
matches), `run` (the loop with its evaluations and checkpoints) and `cli` (``python -m rlgames.train.td``)."""

from rlgames.train.td.cli import main, make_config, parse_args
from rlgames.train.td.config import PRESETS, TDConfig
from rlgames.train.td.network import (
    from_network,
    initial_params,
    network_dims,
    outcomes_from_value,
    to_network,
    value_path,
)
from rlgames.train.td.run import CHECKPOINT, Run, compile_ops, evaluate

__all__ = [
    "CHECKPOINT",
    "PRESETS",
    "Run",
    "TDConfig",
    "compile_ops",
    "evaluate",
    "from_network",
    "initial_params",
    "main",
    "make_config",
    "network_dims",
    "outcomes_from_value",
    "parse_args",
    "to_network",
    "value_path",
]
