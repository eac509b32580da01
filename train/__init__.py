"""Self-play training: `python -m rlgames.train GAME`.

Modules: `config` (settings, presets, overrides), `selfplay` (batched self-play games), `targets` (final
returns as value targets in [-1, 1]), `replay` (the replay buffer and symmetry augmentation), `learner`
(the loss and optimiser), `evaluate` (matches and solver agreement), `logger` (TensorBoard and progress
lines), `trainer` (the loop, checkpoints, resume).
"""
