"""How an evaluator enters the compiled alpha-beta: its value of a position, and what entering a child or
the root does (an incremental evaluator's accumulators follow the search in the workspace, Stockfish's
accumulator stack; a kernel evaluator needs nothing)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from numba import njit

from rlgames.jit.nrt import with_nrt

if TYPE_CHECKING:
    from rlgames.evaluators.nnue_incremental import Incremental


def evaluation_hooks(evaluate: Callable[..., float], incremental: Incremental | None) -> tuple[Callable, ...]:
    """njit ``(static_value(s, ply, ws) -> float, enter_child(s, s2, ply, ws), enter_root(s, ws))``: the
    evaluator's value of ``s`` at ``ply``, and what entering a child at ``ply + 1`` or the root does
    (an incremental evaluator's accumulators: the child's from its parent's; nothing for a kernel)."""
    if incremental is None:

        @njit(inline="always")
        def kernel_value(s, ply: int, ws) -> float:
            return evaluate(s)

        @njit(inline="always")
        def no_child(s, s2, ply: int, ws) -> None:
            pass

        @njit(inline="always")
        def no_root(s, ws) -> None:
            pass

        return kernel_value, no_child, no_root

    refresh, update, value = with_nrt(incremental.refresh), with_nrt(incremental.update), with_nrt(incremental.value)

    @njit(inline="always")
    def accumulated_value(s, ply: int, ws) -> float:
        return value(s, ws.accumulators, ply)

    @njit(inline="always")
    def update_child(s, s2, ply: int, ws) -> None:
        update(s, s2, ws.accumulators, ply)

    @njit(inline="always")
    def refresh_root(s, ws) -> None:
        refresh(s, ws.accumulators, 0)

    return accumulated_value, update_child, refresh_root
