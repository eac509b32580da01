"""The replay buffer: a ring of the last ``capacity`` self-play positions in numpy arrays.

`ReplayBuffer.sample` draws positions uniformly with the run's numpy Generator, from the whole ring or
from its newest ``newest`` positions (KataGo's growing window, `growing_window`), and, with symmetries
given, maps each one through a board symmetry drawn uniformly (`rlgames.Symmetry`): the observation
(and the final position's cells) by the symmetry's transform, the legal mask and the policy by its action
map. `save` / `load` move the
buffer to and from an ``.npz`` file written atomically.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Sequence

import numpy as np
from rlgames.train.alphazero.selfplay import Positions, zero_positions

from rlgames.files import atomic_write
from rlgames.game import Symmetry


class ReplayBuffer:
    """The last ``capacity`` positions of ``observation_shape`` and ``num_actions`` actions."""

    def __init__(self, capacity: int, observation_shape: tuple[int, ...], num_actions: int) -> None:
        self.capacity = capacity
        slots = zero_positions(capacity, observation_shape, num_actions)  # C slots of each `Positions` field
        self.observations, self.masks, self.policies = slots.observations, slots.masks, slots.policies
        self.values, self.value_weights, self.policy_weights = slots.values, slots.value_weights, slots.policy_weights
        self.finals, self.final_weights, self.plies_left = slots.finals, slots.final_weights, slots.plies_left
        self.size = 0
        self.cursor = 0  # the next slot written
        self.added = 0  # positions added since the start

    def __len__(self) -> int:
        return self.size

    def add(self, positions: Positions) -> None:
        """Appends ``positions``, overwriting the oldest ones once full."""
        self.added += len(positions)
        newest = slice(max(0, len(positions) - self.capacity), None)  # only the newest fit
        n = len(positions.values[newest])
        slots = (self.cursor + np.arange(n)) % self.capacity
        for target, source in zip(_fields(self), _fields(positions)):
            target[slots] = source[newest]
        self.cursor = int((self.cursor + n) % self.capacity)
        self.size = min(self.size + n, self.capacity)

    def sample(
        self,
        batch_size: int,
        rng: np.random.Generator,
        symmetries: Sequence[Symmetry] = (),
        newest: int | None = None,
    ) -> Positions:
        """``batch_size`` positions drawn uniformly with replacement, from the newest ``newest`` (None or
        more than the buffer holds: all), each mapped through a symmetry drawn uniformly from
        ``symmetries`` (none: as stored)."""
        if self.size == 0:
            raise ValueError("cannot sample from an empty replay buffer")
        if newest is None or newest >= self.size:
            index = rng.integers(self.size, size=batch_size)
        else:  # the newest positions are the slots just behind the cursor
            index = (self.cursor - 1 - rng.integers(newest, size=batch_size)) % self.capacity
        batch = Positions(*(array[index] for array in _fields(self)))  # copies
        return augment(batch, symmetries, rng) if symmetries else batch

    def save(self, path: str | Path) -> None:
        """Writes the buffer to ``path`` (.npz) atomically (`rlgames.files.atomic_write`)."""
        with atomic_write(path) as handle:
            kept = {name: array[: self.size] for name, array in zip(FIELDS, _fields(self))}
            np.savez(handle, **kept, counters=np.array([self.cursor, self.added, self.capacity]))

    @classmethod
    def load(cls, path: str | Path, observation_shape: tuple[int, ...], num_actions: int) -> ReplayBuffer:
        """The buffer saved at ``path``; raises `ValueError` when it does not fit the shapes. A file
        written before value or policy weights existed loads with every such weight 1; one written before
        final positions were kept, with no final-position target (weight 0); one written before the moves left
        were kept, with 0 moves left."""
        with np.load(path) as data:
            cursor, added, capacity = (int(c) for c in data["counters"])
            buffer = cls(capacity, observation_shape, num_actions)
            size = len(data["values"])
            if data["observations"].shape[1:] != tuple(observation_shape) or data["masks"].shape[1:] != (num_actions,):
                raise ValueError(
                    f"{path}: replay positions shaped {data['observations'].shape[1:]} with "
                    f"{data['masks'].shape[1]} actions do not fit {observation_shape} and {num_actions}"
                )
            for target, name in zip(_fields(buffer), FIELDS):
                target[:size] = data[name] if name in data else ABSENT.get(name, 1.0)
        buffer.size, buffer.cursor, buffer.added = size, cursor, added
        return buffer


def growing_window(added: int, base: int, alpha: float = 0.75, beta: float = 0.4) -> int:
    """KataGo's replay window (Wu 2019, arXiv:1902.10565, appendix C): the newest ``base * (1 + beta *
    ((added / base) ** alpha - 1) / alpha)`` of the ``added`` positions so far, all of them until ``base``
    were added. The window grows more slowly than the data, so that early, weak games leave the
    training sooner than a fixed window would let them, and later ones stay longer."""
    if added <= base:
        return added
    return int(base * (1.0 + beta * ((added / base) ** alpha - 1.0) / alpha))


def augment(batch: Positions, symmetries: Sequence[Symmetry], rng: np.random.Generator) -> Positions:
    """``batch`` with each position mapped through a symmetry drawn uniformly from ``symmetries``."""
    choice = rng.integers(len(symmetries), size=len(batch))
    observations, masks, policies = batch.observations.copy(), batch.masks.copy(), batch.policies.copy()
    finals = batch.finals.copy()
    for k, symmetry in enumerate(symmetries):
        rows = np.flatnonzero(choice == k)
        if len(rows):
            observations[rows] = symmetry.observation(batch.observations[rows])  # transforms act on the last axes
            finals[rows] = symmetry.observation(batch.finals[rows])
            masks[rows] = symmetry.policy(batch.masks[rows])
            policies[rows] = symmetry.policy(batch.policies[rows])
    return dataclasses.replace(batch, observations=observations, masks=masks, policies=policies, finals=finals)


FIELDS = tuple(field.name for field in dataclasses.fields(Positions))
"""The arrays of a batch of positions, in `Positions` order."""

ABSENT = {"finals": False, "final_weights": 0.0, "plies_left": 0.0}
"""What a field missing from an older saved buffer loads as (the others: 1)."""


def _fields(positions: Positions | ReplayBuffer) -> tuple[np.ndarray, ...]:
    return tuple(getattr(positions, name) for name in FIELDS)
