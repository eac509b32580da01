"""Torch policy/value networks, checkpoints, and the adapter that makes a network an rlgames evaluator."""
