"""The halving game: from a number ``n``, the players take turns to replace ``n`` with ``n // 2`` or
``n - 1``; the player left with zero wins.

As in Stanford CS221's ``HalvingGame``: the state is terminal when the number is 0, and the player
who would move then (the one left with zero) wins, so the player who moves to 0 loses. No draws.

Actions: 0 halves (notation ``"/"``), 1 subtracts one (``"-"``). Both are legal while ``n > 0``,
and stay two distinct actions when they lead to the same number (``n = 1`` or ``n = 2``).

Compact state: ``(player, return0, n)``.

Observation: float32[bits], the binary digits of ``n``, least significant first (``out[i]`` is bit
``i``), where ``bits`` is the bit length of the starting number. The game is impartial, so both sides
see the same digits.
"""

from __future__ import annotations

from numba import njit

from rlgames.game import ILLEGAL, TERMINAL, GameKernels

N = 2  # compact-state slot of the number
HALVE, SUBTRACT = 0, 1
MAX_N = 2**20 - 1  # keeps board_grid() at most 20 cells wide
_NOTATION = ("/", "-")


@njit(cache=True)
def legal_actions(s, out) -> int:
    if s[0] == TERMINAL:
        return 0
    out[0] = HALVE
    out[1] = SUBTRACT
    return 2


@njit(cache=True)
def apply(s, action: int):
    player = s[0]
    if player < 0 or (action != HALVE and action != SUBTRACT):
        return (ILLEGAL, 0, s[N])
    n = s[N] // 2 if action == HALVE else s[N] - 1
    if n == 0:  # the mover leaves the opponent with zero: the opponent wins
        return (TERMINAL, 2 * player - 1, n)
    return (1 - player, 0, n)


@njit(cache=True)
def hash_key(s) -> int:
    """``n`` and a code for the player to move (0, 1) or, once terminal, for the winner (2: player 1,
    3: player 0): an exact key."""
    code = (2 if s[1] < 0 else 3) if s[0] == TERMINAL else s[0]
    return s[N] << 2 | code


@njit(cache=True)
def observation(s, player, out) -> None:
    """out: float32[bits], ``out[i]`` is bit ``i`` of ``n``; the game is impartial, so both players see
    the same."""
    for i in range(out.shape[0]):
        out[i] = s[N] >> i & 1


KERNELS = GameKernels(
    legal_actions=legal_actions, apply=apply, hash_key=hash_key, observation=observation, max_actions=2
)
