"""Torch policy/value networks, self-describing checkpoints, and the adapter that makes a network an
rlgames evaluator (`NetworkEvaluator`)."""

from models.checkpoint import (
    CheckpointError,
    CheckpointInfo,
    RngStreams,
    load_checkpoint,
    load_network,
    save_checkpoint,
    upgrade_checkpoint,
)
from models.evaluator import NetworkEvaluator
from models.networks import NetworkConfig, PolicyValueNet, build_network

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
