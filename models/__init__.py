"""Torch policy/value networks, self-describing checkpoints, and the adapter that makes a network an
rlgames evaluator (`NetworkEvaluator`)."""

from rlgames.models.checkpoint import (
    CheckpointError,
    CheckpointInfo,
    RngStreams,
    load_checkpoint,
    load_network,
    save_checkpoint,
    upgrade_checkpoint,
)
from rlgames.models.evaluator import NetworkEvaluator
from rlgames.models.networks import NetworkConfig, PolicyValueNet, build_network

__all__ = [
    "CheckpointError",
    "CheckpointInfo",
    "NetworkConfig",
    "NetworkEvaluator",
    "PolicyValueNet",
    "RngStreams",
    "build_network",
    "load_checkpoint",
    "load_network",
    "save_checkpoint",
    "upgrade_checkpoint",
]
