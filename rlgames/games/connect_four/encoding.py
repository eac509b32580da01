"""Connect Four's planar network input beyond the observation, ``threats``: the stones, then the cells
where a four would be completed (Allis 1988's threats: which rows hold them decides who wins the
endgame's zugzwang) and the cells playable now. The observation leaves a network to find threats itself
through its convolutions; given as planes, as KataGo gives its network liberties and ladders beside the
stones (Wu 2019), they cost one bitboard operation a position."""

from __future__ import annotations

from numba import njit

from rlgames.games.connect_four.rules import (
    CURRENT,
    HEIGHT,
    MASK,
    PLIES,
    WIDTH,
    observation,
    possible_moves,
    winning_positions,
)

THREAT_PLANES = 5


@njit(cache=True, inline="always")
def _plane(bits: int, out) -> None:
    """out: float32[6, 7], the cells of bitboard ``bits``, row 0 the top row (as the observation)."""
    for col in range(WIDTH):
        for row in range(HEIGHT):
            out[HEIGHT - 1 - row, col] = bits >> 7 * col + row & 1


@njit(cache=True)
def threats(s, player, out) -> None:
    """out: float32[5, 6, 7]: the observation's planes (``player``'s stones, the opponent's), then the empty
    cells that would complete a four for ``player`` and for the opponent, playable now or later, then the
    cells playable now."""
    observation(s, player, out[:2])
    mine = s[CURRENT] if player == s[PLIES] % 2 else s[CURRENT] ^ s[MASK]
    _plane(winning_positions(mine, s[MASK]), out[2])
    _plane(winning_positions(mine ^ s[MASK], s[MASK]), out[3])
    _plane(possible_moves(s[MASK]), out[4])
