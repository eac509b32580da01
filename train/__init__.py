"""The trainers, each a package run by ``python -m``, and what they share.

- `rlgames.train.alphazero` (``python -m rlgames.train``): a policy/value network by batched MCTS self-play.
- `rlgames.train.nnue` (``python -m rlgames.train.nnue``): an NNUE by alpha-beta self-play, generation by
  generation.
- `rlgames.train.td` (``python -m rlgames.train.td``): an NNUE's value path by TD(lambda), as TD-Gammon.
- `rlgames.train.linear` (``python -m rlgames.train.linear``): the weights of a game's hand-crafted features.

Each is configured the same way: a frozen dataclass whose fields each have a one-line docstring (listed by
``--help``), a preset per game, ``--config FILE`` and ``--set KEY=VALUE`` (`rlgames.train.settings`).
Shared: `targets` (returns as value targets), `matches` (evaluation matches through `rlgames.arena`) and
`logger` (TensorBoard and progress lines). ``rlgames train GAME --trainer NAME`` reaches each.
"""
