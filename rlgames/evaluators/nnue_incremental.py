"""The NNUE of `rlgames.evaluators.nnue`, efficiently updatable: accumulators that compiled alpha-beta
keeps on its stack, each ply's computed from its parent's and the inputs the move changed (Stockfish's
incremental update), where the full kernel sums every active input's row at each leaf."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import NamedTuple

import numpy as np
from numba import njit

from rlgames.evaluators.nnue import FASTMATH, Weights, copy_into, frozen_weights, make_output
from rlgames.game import side_to_move_observer
from rlgames.jit.stack import stack_float32, stack_int64

MAX_CHANGES = 64
"""Room for the inputs one move changes (`rlgames.game.FeatureSet.changes`): chess's at most 4."""


@njit(cache=True)
def _no_inputs(s, player, out) -> int:
    """No inputs recomputed at each evaluation."""
    return 0


class Incremental(NamedTuple):
    """An efficiently updatable evaluator's compiled kernels, over ``accumulators`` float32[plies, 2,
    width] (a search's stack: entry ``ply`` holds the position at that ply, seen by each player):

    * ``refresh(s, accumulators, ply)`` computes entry ``ply`` from ``s`` alone (the root);
    * ``update(s, s2, accumulators, ply)`` computes entry ``ply + 1``, for ``s2`` (a child of ``s``:
      a move or a null move), from entry ``ply``;
    * ``value(s, accumulators, ply) -> float`` is the value of ``s`` (in [-1, 1], from
      ``observer(s)``) from entry ``ply``.
    """

    refresh: Callable[..., None]
    update: Callable[..., None]
    value: Callable[..., float]
    width: int


def make_incremental_nnue(
    observation: Callable[..., None],
    observation_shape: tuple[int, ...],
    weights: Weights,
    observer: Callable[..., int] = side_to_move_observer,
    *,
    features: Callable[..., int] | None = None,
    feature_changes: Callable[..., int] | None = None,
    max_active: int = 0,
    threats: Callable[..., int] | None = None,
    threat_offset: int = 0,
    max_threats: int = 0,
) -> Incremental:
    """The network of `make_nnue_kernel`, efficiently updatable: its values equal that kernel's (up to
    float32 rounding: a sum in another order). A child's accumulators are its parent's plus the rows of
    the inputs it gains and minus those it loses: the feature set's ``changes`` where it gives them,
    else the active inputs (sparse ``features``, at most ``max_active``; an input active twice in one
    position counts twice) or the observation entries that differ between the two positions. With
    ``threats`` (the inputs recomputed at each evaluation, the `FeatureSet.recomputed` sets the network
    reads after the updated one: `rlgames.evaluators.nnue.updated_and_recomputed`; at most
    ``max_threats`` active, their rows from ``threat_offset`` on), the rows of the position's threat inputs
    are added at each evaluation, to a copy of its accumulator: they are not updated move by move."""
    w1, b1, w2, b2, w3, b3, psqt = frozen_weights(weights)
    inputs, width = w1.shape  # width: the accumulator's units, the PSQT unit if any, padding
    output = make_output(w2, b2, w3, b3, psqt=psqt)
    sparse = features is not None
    changes_given = feature_changes is not None
    most = max_active or inputs
    with_threats = threats is not None
    threats = threats or _no_inputs
    threat_room = max(1, max_threats) + 3  # the active threat inputs, and three rows of padding
    # the threats' rows apart: two constants of under 1 MB each, which numba embeds (`BLOCK_BYTES`), where
    # chess's 2,048 rows (2,496 with the positional inputs) together are over
    w1, w_threats = (w1[:threat_offset].copy(), w1[threat_offset:].copy()) if with_threats else (w1, w1[:0])
    # a row of zeros after each part's, which pads `add_rows`' pairs and `value`'s fours
    zero, zero_threat = len(w1), len(w_threats)
    w1 = np.vstack([w1, np.zeros((1, width), dtype=np.float32)])
    w_threats = np.vstack([w_threats, np.zeros((1, width), dtype=np.float32)])
    room = max(most, MAX_CHANGES) + 2  # a move's inputs gained (or lost), and two rows of padding
    if not sparse and math.prod(observation_shape) != inputs:
        raise ValueError(f"the network takes {inputs} inputs, the observation has {math.prod(observation_shape)}")

    @njit(fastmath=FASTMATH, inline="always")
    def add_row(accumulator, row: int, scale) -> None:
        for k in range(width):
            accumulator[k] += scale * w1[row, k]

    @njit(fastmath=FASTMATH)
    def refresh(s, accumulators, ply: int) -> None:
        for player in range(2):
            accumulator = accumulators[ply, player]
            copy_into(accumulator, b1)
            if sparse:
                active = stack_int64(most)
                for j in range(features(s, player, active)):  # type: ignore[misc]  # sparse: not None
                    add_row(accumulator, active[j], np.float32(1.0))
            else:
                x = stack_float32(inputs)
                x[:] = 0.0
                observation(s, player, x.reshape(observation_shape))
                for i in range(inputs):
                    if x[i] != 0.0:
                        add_row(accumulator, i, x[i])

    @njit(fastmath=FASTMATH, inline="always")
    def add_rows(accumulators, ply: int, player: int, gained, n_gained: int, lost, n_lost: int) -> None:
        """Entry ``ply + 1``: entry ``ply`` plus the rows ``gained[:n_gained]`` and minus ``lost[:n_lost]``
        (both with room for two more), two of each a pass: Stockfish's fused update, every chess move in
        one pass (the parent's entry and four rows read, the child's written, where a copy and a pass per
        row took four); the row of zeros pads the pairs."""
        size = max(n_gained, n_lost, 1) + 1 & ~1
        for j in range(n_gained, size):
            gained[j] = zero
        for j in range(n_lost, size):
            lost[j] = zero
        source = ply
        for j in range(0, size, 2):
            g0, g1, l0, l1 = gained[j], gained[j + 1], lost[j], lost[j + 1]
            for k in range(width):
                accumulators[ply + 1, player, k] = (
                    accumulators[source, player, k] + (w1[g0, k] + w1[g1, k]) - (w1[l0, k] + w1[l1, k])
                )
            source = ply + 1

    @njit(fastmath=FASTMATH, inline="always")
    def scale_rows(s, s2, accumulators, ply: int, player: int) -> None:
        """Entry ``ply + 1`` from entry ``ply``: the rows of the observation entries that differ, scaled by
        the difference."""
        before, after = stack_float32(inputs), stack_float32(inputs)
        before[:] = 0.0
        after[:] = 0.0
        observation(s, player, before.reshape(observation_shape))
        observation(s2, player, after.reshape(observation_shape))
        for k in range(width):
            accumulators[ply + 1, player, k] = accumulators[ply, player, k]
        for i in range(inputs):
            if after[i] != before[i]:
                for k in range(width):
                    accumulators[ply + 1, player, k] += (after[i] - before[i]) * w1[i, k]

    @njit(fastmath=FASTMATH)
    def update(s, s2, accumulators, ply: int) -> None:
        for player in range(2):
            if not sparse:
                scale_rows(s, s2, accumulators, ply, player)
                continue
            gained, lost = stack_int64(room), stack_int64(room)
            n_gained = n_lost = 0
            if changes_given:
                changes = stack_int64(MAX_CHANGES)
                for j in range(feature_changes(s, s2, player, changes)):  # type: ignore[misc]  # changes_given: not None
                    if changes[j] >= 0:
                        gained[n_gained] = changes[j]
                        n_gained += 1
                    else:
                        lost[n_lost] = -1 - changes[j]
                        n_lost += 1
            else:  # the two positions' active inputs matched one to one, each against each
                before, after = stack_int64(most), stack_int64(most)
                n, m = features(s, player, before), features(s2, player, after)  # type: ignore[misc]  # sparse: not None
                for i in range(n):
                    if not _take(after, m, before[i]):  # not in the child: lost
                        lost[n_lost] = before[i]
                        n_lost += 1
                for i in range(m):
                    if after[i] >= 0:  # not matched in the parent: gained
                        gained[n_gained] = after[i]
                        n_gained += 1
            add_rows(accumulators, ply, player, gained, n_gained, lost, n_lost)

    @njit(fastmath=FASTMATH)
    def value(s, accumulators, ply: int) -> float:
        player = observer(s)
        accumulator = stack_float32(width)
        for k in range(width):
            accumulator[k] = accumulators[ply, player, k]
        if with_threats:  # their rows four at a time (a quarter of the stores), padded with the row of zeros
            active = stack_int64(threat_room)
            n = threats(s, player, active)
            for j in range(n, n + 3):
                active[j] = zero_threat
            for j in range(0, n, 4):
                r0, r1, r2, r3 = active[j], active[j + 1], active[j + 2], active[j + 3]
                for k in range(width):
                    accumulator[k] += (w_threats[r0, k] + w_threats[r1, k]) + (w_threats[r2, k] + w_threats[r3, k])
        return output(accumulator)

    return Incremental(refresh, update, value, width)


@njit(cache=True, inline="always")
def _take(values, n: int, value: int) -> bool:
    """Whether ``value`` is among ``values[:n]`` (indices, >= 0); if so, its first entry is marked taken
    (-1), so that each entry matches once."""
    for i in range(n):
        if values[i] == value:
            values[i] = -1
            return True
    return False
