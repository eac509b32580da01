"""AlphaZero's training: batched MCTS self-play (`selfplay`), a replay buffer with symmetry augmentation
(`replay`), the loss and optimiser (`learner`), matches and solver agreement (`evaluate`), and the loop
with its checkpoints and exact resume (`trainer`), configured by `config`; `cli` is
``python -m rlgames.train``."""

from rlgames.train.alphazero.config import PRESETS, TrainConfig, load_config
from rlgames.train.alphazero.trainer import Trainer, TrainError

__all__ = ["PRESETS", "TrainConfig", "TrainError", "Trainer", "load_config"]
